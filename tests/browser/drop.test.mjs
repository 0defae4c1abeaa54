// 12. Drag and drop: a real `drop` event (a DataTransfer holding a File made in the page from the example's .npy)
//     on the inputs' drop zone adds the file — its card shows the detected format, dtype and shape — and a drop on
//     an input slot adds the file and chooses it there (inputs.js wireDrop; the other tests pick files with
//     setInputFiles, which does not go through it).
import { assert, open, shot } from './lib.mjs';

/** Dispatches dragenter/dragover/drop on `selector` with a File of `url`'s bytes named `name`; returns what the page saw. */
async function drop(page, selector, url, name) {
  return page.evaluate(
    async ({ selector, url, name }) => {
      const bytes = await fetch(url).then((r) => r.arrayBuffer());
      const dt = new DataTransfer();
      dt.items.add(new File([bytes], name, { type: 'application/octet-stream' }));
      const zone = document.querySelector(selector);
      const fire = (type) => {
        const e = new DragEvent(type, { bubbles: true, cancelable: true, dataTransfer: dt });
        zone.dispatchEvent(e);
        return e;
      };
      fire('dragenter');
      const over = fire('dragover');
      const highlighted = zone.classList.contains('lethe-dragover');
      const dropped = fire('drop');
      return { overAccepted: over.defaultPrevented, highlighted, dropAccepted: dropped.defaultPrevented, after: zone.classList.contains('lethe-dragover'), size: bytes.byteLength };
    },
    { selector, url, name },
  );
}

export const tests = [
  {
    name: 'dropping a .npy on the drop zone adds a card with its shape; dropping on a slot chooses it there',
    async fn({ context, base }) {
      const page = await open(context, base, '/?example=0');
      await page.locator('.lethe-root[data-state="ready"]').waitFor({ timeout: 30000 });
      const d = await drop(page, '.lethe-dropzone', '/data/digits/act_original.npy', 'dropped_original.npy');
      assert(d.overAccepted && d.highlighted, `dragover accepted and highlighted: ${JSON.stringify(d)}`);
      assert(d.dropAccepted && !d.after, `drop handled: ${JSON.stringify(d)}`);
      const card = page.locator('.lethe-card[data-name="dropped_original.npy"]');
      await card.locator('.lethe-hash').waitFor({ timeout: 15000 });
      const text = await card.textContent();
      assert(/\.npy/.test(text), `format shown: ${text}`);
      assert(/float32 \[744 × 128\]/.test(text), `dtype and shape shown: ${text}`);
      await shot(page, 'drop.png');

      // A drop on the SDE target slot: the file is added and chosen for that slot (rows: all, 744 × 128).
      await drop(page, '#lethe-sde [data-slot="target"]', '/data/digits/act_unlearned.npy', 'dropped_unlearned.npy');
      await page.locator('.lethe-card[data-name="dropped_unlearned.npy"]').waitFor({ timeout: 15000 });
      const status = page.locator('#lethe-sde [data-slot="target"] .lethe-slot-status');
      await status.filter({ hasText: '744 × 128' }).waitFor({ timeout: 15000 });
      const chosen = await page.locator('#lethe-sde select[data-role="target"]').evaluate((s) => s.selectedOptions[0]?.textContent);
      assert(chosen === 'dropped_unlearned.npy', `the slot chose the dropped file: ${chosen}`);
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${d.size}-byte .npy dropped: card shows float32 [744 × 128]; slot drop chose its file`;
    },
  },
];
