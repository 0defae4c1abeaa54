// Inputs in every format the page takes, shown before anything runs (format, dtype, shape, size), with the tensor
// picked from .npz/.safetensors files and rows picked by a split column; results equal the CLI's on the same files.
import path from 'node:path';
import { assert, cli, compare, downloadJson, eq, fmt, npy, open, rng, values, waitRun, workdir, write } from './lib.mjs';

const CRC = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};

/** An .npz (zip, stored) of named .npy members. */
function npz(members) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const [name, data] of Object.entries(members)) {
    const fname = Buffer.from(`${name}.npy`);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fname.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fname.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fname, data);
    centrals.push(central, fname);
    offset += local.length + fname.length + data.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(Object.keys(members).length, 8);
  end.writeUInt16LE(Object.keys(members).length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** A .safetensors file of f32 tensors. */
function safetensors(tensors) {
  const header = {};
  const parts = [];
  let at = 0;
  for (const [name, { values, shape }] of Object.entries(tensors)) {
    const b = Buffer.alloc(values.length * 4);
    values.forEach((v, i) => b.writeFloatLE(v, i * 4));
    header[name] = { dtype: 'F32', shape, data_offsets: [at, at + b.length] };
    parts.push(b);
    at += b.length;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([len, Buffer.from(json), ...parts]);
}

export const tests = [
  {
    name: '.npz and .safetensors tensors and JSON inputs are described and loaded as the CLI loads them',
    async fn({ context, base }) {
      const dir = workdir();
      const u = rng(3);
      const a = Array.from({ length: 60 }, () => u());
      const b = Array.from({ length: 90 }, () => u() ** 3);
      write(dir, 'two.npz', npz({ a: npy(a, [60]), b: npy(b, [90]) }));
      write(dir, 'model.safetensors', safetensors({ head: { values: a.slice(0, 12), shape: [3, 4] }, scores: { values: b.slice(0, 40), shape: [40] } }));
      write(dir, 'scores.json', JSON.stringify({ run: b.slice(0, 30) }));
      const page = await open(context, base, '/?example=0');
      await page.locator('[data-role="inputs-file"]').setInputFiles(['two.npz', 'model.safetensors', 'scores.json'].map((f) => path.join(dir, f)));
      const card = (n) => page.locator(`.lethe-card[data-name="${n}"]`);
      await card('scores.json').locator('.lethe-hash').waitFor();
      const npzText = await card('two.npz').textContent();
      assert(npzText.includes('.npz') && /a.*float64 \[60\]/.test(npzText) && /b.*float64 \[90\]/.test(npzText), `npz card: ${npzText}`);
      const stText = await card('model.safetensors').textContent();
      assert(/head.*float32 \[3 × 4\]/.test(stText) && /scores.*float32 \[40\]/.test(stText), `safetensors card: ${stText}`);

      const bounds = page.locator('#lethe-bounds');
      const runWith = async (label, tensor, expectRows) => {
        await bounds.locator('select[data-role="scores"]').selectOption({ label });
        if (tensor) await bounds.locator('select[data-role="scores-tensor"]').selectOption(tensor);
        await bounds.locator('[data-slot="scores"] .lethe-slot-status').filter({ hasText: `${expectRows} × 1` }).waitFor();
        await bounds.locator('[data-action="run"]').click();
        assert(/done in/.test(await waitRun(bounds)), 'run');
        return downloadJson(page, bounds.locator('[data-action="export-json"]'));
      };
      const checks = [
        ['two.npz', 'b', 90, 'two.npz#b'],
        ['model.safetensors', 'scores', 40, 'model.safetensors#scores'],
        ['scores.json', null, 30, 'scores.json'],
      ];
      let n = 0;
      for (const [label, tensor, rows, spec] of checks) {
        const report = await runWith(label, tensor, rows);
        const c = cli(['bounds', spec, '--x', '0.25', '--x', '0.5', '--x', '0.75'], dir);
        const d = compare(report.result, c.result, { rel: 1e-12 });
        assert(d.diffs.length === 0, `${spec}: ${d.diffs.slice(0, 5).join('; ')}`);
        eq(report.inputs[0].spec, c.inputs[0].spec, `${spec} spec`);
        eq(report.inputs[0].sha256, c.inputs[0].sha256, `${spec} sha256`);
        eq(report.inputs[0].tensor, c.inputs[0].tensor, `${spec} tensor`);
        eq((await values(bounds))['bounds.ed'], fmt(c.result.ed.score), `${spec} ED shown`);
        n += d.compared;
      }
      return `${n} numbers equal to the CLI's`;
    },
  },
  {
    name: 'rows from a split column (text labels) select the same rows as the equivalent index file',
    async fn({ context, base }) {
      const dir = workdir();
      // One label per row of the 744-row demo files: forget / retain / test, as the index files say.
      const split = Array.from({ length: 744 }, (_, i) => (i < 144 ? 'forget' : i < 544 ? 'retain' : 'test'));
      write(dir, 'split.txt', split.join('\n') + '\n');
      const page = await open(context, base, '/?example=0');
      await page.locator('[data-role="inputs-file"]').setInputFiles(['act_unlearned.npy', 'act_retrained.npy', 'split.txt'].map((f) => path.join(dir, f)));
      await page.locator('.lethe-card[data-name="split.txt"] .lethe-hash').waitFor();
      const ruler = page.locator('#lethe-ruler');
      await ruler.locator('select[data-role="unlearned"]').selectOption({ label: 'act_unlearned.npy' });
      await ruler.locator('select[data-role="oracle"]').selectOption({ label: 'act_retrained.npy' });
      for (const [role, value] of [['forget', 'forget'], ['retain', 'retain']]) {
        await ruler.locator(`[data-role="${role}-rows-mode"]`).selectOption('split');
        await ruler.locator(`[data-role="${role}-rows-source"]`).selectOption({ label: 'split.txt' });
        await ruler.locator(`[data-role="${role}-split-value"]`).fill(value);
      }
      await ruler.locator('[data-action="run"]').click();
      assert(/done in/.test(await waitRun(ruler)), 'RULER with split-column rows');
      const report = await downloadJson(page, ruler.locator('[data-action="export-json"]'));
      const c = cli(['ruler', '--unlearned', 'act_unlearned.npy', '--oracle', 'act_retrained.npy', '--forget', 'forget.txt', '--retain', 'retain.txt'], dir);
      const d = compare(report.result, c.result);
      assert(d.diffs.length === 0, d.diffs.slice(0, 5).join('; '));
      eq(report.parameters.forget, 'split.txt==forget', 'the report states the split rule');
      return `${d.compared} numbers identical`;
    },
  },
];
