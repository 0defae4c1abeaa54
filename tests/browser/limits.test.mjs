// A request too large for this tab is refused before any work, with the CLI's words, and the page stays usable
// (issue 12: "a browser test that the page refuses a too-large request with the same message and stays
// responsive"). The numbers of the limit differ by design — the browser's wasm32 module may use 2 GiB, the CLI 3/4 of
// the machine's memory (docs/cli.md, "Limits") — so the test compares what the request needs and the fix, which are
// the same, and checks that the page names its own limit.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { assert, CLI, DEMO, open, waitExample, waitRun } from './lib.mjs';

const SHUFFLES = '1000000000';

/** The CLI's refusal of the example's SDE request with `SHUFFLES` shuffles (stderr, exit 1). */
function cliRefusal() {
  const f = path.join(DEMO, 'act_unlearned.npy');
  try {
    execFileSync(CLI, ['sde', '--it', `${f}@144..244`, '--oot', `${f}@544..644`, '--target', `${f}@0..100`, '--shuffles', SHUFFLES], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    assert(e.status === 1, `the CLI exits 1 on a too-large request, not ${e.status}`);
    return e.stderr;
  }
  throw new Error('the CLI accepted a request of 1e9 shuffles');
}

export const tests = [
  {
    name: 'a too-large SDE request is refused at once with the CLI’s words, and the page runs the next request',
    async fn({ context, base }) {
      const cliText = cliRefusal();
      // "… is too large: 1000000000 shuffles of each of 3 subsets needs about 22.4 GiB of memory, more than … ; use fewer shuffles …"
      const need = /is too large: (.*? needs about [\d.]+ GiB) of memory/.exec(cliText)?.[1];
      const fix = /; (use fewer shuffles[^\n]*)/.exec(cliText)?.[1];
      assert(need && fix, `the CLI's refusal says what is needed and the fix: ${cliText}`);

      const page = await open(context, base, '/');
      await waitExample(page);
      const sde = page.locator('#lethe-sde');
      await sde.locator('[data-param=shuffles]').fill(SHUFFLES);
      const t0 = Date.now();
      await sde.locator('[data-action="run"]').click();
      const refusal = sde.getByText(need).first();
      await refusal.waitFor({ timeout: 15000 });
      const ms = Date.now() - t0;
      const shown = await refusal.textContent();
      assert(shown.includes(fix), `the page gives the CLI's fix (“${fix}”): ${shown}`);
      assert(/more than the 2(\.0)? GiB/.test(shown), `the page names its own limit: ${shown}`);
      assert(ms < 10000, `refused in ${ms} ms`);
      console.log(`     refused in ${ms} ms: ${shown.trim().slice(0, 160)}…`);

      // Still responsive: the page answers a request of the right size at once.
      await sde.locator('[data-param=shuffles]').fill('150');
      await sde.locator('[data-action="run"]').click();
      const status = await waitRun(sde, 30000);
      assert(/done in/.test(status), `the next run finishes: ${status}`);
      assert(page.errors.length === 0, `page errors: ${page.errors.join('; ')}`);
    },
  },
];
