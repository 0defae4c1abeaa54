// 7. Accessibility basics: every control has an accessible name (from Chromium's accessibility tree, and
//    Playwright's role locators), one full analysis works from the keyboard alone, and the page works at 375 px
//    wide without horizontal overflow.
import { assert, open, shot, waitExample, waitRun } from './lib.mjs';

const CONTROLS = new Set(['button', 'textbox', 'combobox', 'checkbox', 'slider', 'spinbutton', 'link', 'listbox', 'searchbox', 'radio', 'switch', 'menuitem', 'tab']);

async function unnamedControls(page) {
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = await cdp.send('Accessibility.getFullAXTree');
  const controls = nodes.filter((n) => !n.ignored && CONTROLS.has(n.role?.value));
  const unnamed = controls.filter((n) => !(n.name?.value || '').trim());
  return { total: controls.length, unnamed: unnamed.map((n) => `${n.role.value}#${n.backendDOMNodeId}`) };
}

/** In the page: failures of the checks axe flagged on teach.html and the main page (issue 17). */
function contrastAudit() {
  const rgb = (c) => (c.match(/[\d.]+/g) || []).slice(0, 3).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const ratio = (a, b = [255, 255, 255]) => {
    const [x, y] = [lum(rgb(a)), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const roots = [document, ...[...document.querySelectorAll('lethe-eval')].map((e) => e.shadowRoot).filter(Boolean)];
  const all = (sel) => roots.flatMap((r) => [...r.querySelectorAll(sel)]);
  const bad = [];
  // A focusable control inside role="img" is never reached by a screen reader (axe: nested-interactive).
  for (const el of all('[role="slider"], input, button, select, [tabindex="0"]')) if (el.closest('[role="img"]')) bad.push(`control inside role=img: ${el.getAttribute('aria-label') || el.tagName}`);
  // SVG text on the plots' white: 4.5:1 (WCAG 1.4.3).
  const texts = all('svg text').filter((t) => t.getClientRects().length && t.textContent.trim());
  for (const t of texts) {
    const c = getComputedStyle(t).fill;
    if (c.startsWith('rgb') && ratio(c) < 4.5) bad.push(`svg text "${t.textContent.slice(0, 30)}" ${c} ${ratio(c).toFixed(2)}:1`);
  }
  // The focus ring against white: 3:1 (WCAG 1.4.11).
  const ring = all('.lethe-root button')[0];
  let ringRatio = null;
  if (ring) {
    ring.focus({ focusVisible: true });
    ringRatio = ratio(getComputedStyle(ring).outlineColor);
    if (ringRatio < 3) bad.push(`focus ring ${getComputedStyle(ring).outlineColor} ${ringRatio.toFixed(2)}:1`);
  }
  return { bad: [...new Set(bad)].slice(0, 12), texts: texts.length, ringRatio };
}

export const tests = [
  {
    name: 'teach.html and the main page: no control inside an SVG image, SVG text at 4.5:1 or more, focus ring at 3:1 or more',
    async fn({ context, base }) {
      const teach = await open(context, base, '/teach.html');
      await teach.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
      const a = await teach.evaluate(contrastAudit);
      assert(a.bad.length === 0, `teach.html: ${a.bad.join('; ')}`);
      const main = await open(context, base, '/');
      await waitExample(main);
      const b = await main.evaluate(contrastAudit);
      assert(b.bad.length === 0, `index.html: ${b.bad.join('; ')}`);
      return `${a.texts} + ${b.texts} SVG texts checked; focus ring ${b.ringRatio?.toFixed(1)}:1`;
    },
  },
  {
    name: 'every control has an accessible name (all panels, with results shown)',
    async fn({ context, base }) {
      const page = await open(context, base, '/');
      await waitExample(page);
      // Show every panel's results and the hidden modes' controls too.
      await page.locator('#lethe-epsilon [data-action="synthetic"]').click();
      await page.locator('#lethe-epsilon [data-slot="unlearned"] .lethe-slot-status').filter({ hasText: '32 × 100' }).waitFor();
      await page.locator('#lethe-epsilon [data-action="run"]').click();
      await waitRun(page.locator('#lethe-epsilon'));
      await page.locator('#lethe-bounds [data-action="synthetic-scores"]').click();
      await page.locator('#lethe-bounds [data-slot="scores"] .lethe-slot-status').filter({ hasText: '200 × 1' }).waitFor();
      await page.locator('#lethe-bounds [data-action="run"]').click();
      await waitRun(page.locator('#lethe-bounds'));
      await page.locator('.lethe-paste-box summary').click();
      const a = await unnamedControls(page);
      // Spot checks through Playwright's role locators.
      for (const [role, name] of [['button', 'Run SDE'], ['button', 'Cancel'], ['button', 'Choose a file for Target set'], ['combobox', 'In-training reference'], ['spinbutton', 'Shuffles T'], ['slider', 'x for M_gen(x)'], ['button', 'Download JSON report'], ['button', /Download .* as PNG/]]) {
        assert((await page.getByRole(role, { name }).count()) > 0, `no ${role} named ${name}`);
      }
      await page.locator('#lethe-sde [data-param=mode]').selectOption('many');
      await page.locator('#lethe-epsilon [data-param=mode]').selectOption('logits');
      await page.locator('#lethe-bounds [data-param=mode]').selectOption('generations');
      for (const role of ['in_training', 'draw-in']) await page.locator(`#lethe-sde [data-role="${role}-rows-mode"]`).selectOption('split');
      const b = await unnamedControls(page);
      assert(a.unnamed.length === 0 && b.unnamed.length === 0, `controls without a name: ${[...a.unnamed, ...b.unnamed].join(', ')}`);
      return `${a.total} + ${b.total} controls checked, all named`;
    },
  },
  {
    name: 'one full analysis with the keyboard only',
    async fn({ context, base }) {
      const page = await open(context, base, '/');
      await waitExample(page);
      await page.locator('body').click({ position: { x: 1, y: 1 } });
      const tabTo = async (selector, max = 600) => {
        for (let i = 1; i <= max; i++) {
          await page.keyboard.press('Tab');
          if (await page.evaluate((s) => document.activeElement?.matches(s), selector)) return i;
        }
        throw new Error(`could not reach ${selector} with Tab`);
      };
      const n1 = await tabTo('#lethe-bounds [data-action="synthetic-scores"]');
      await page.keyboard.press('Enter');
      await page.locator('#lethe-bounds [data-slot="scores"] .lethe-slot-status').filter({ hasText: '200 × 1' }).waitFor();
      const n2 = await tabTo('#lethe-bounds [data-param="alpha"]');
      await page.keyboard.press('Control+A');
      await page.keyboard.type('0.05');
      const n3 = await tabTo('#lethe-bounds [data-action="run"]');
      await page.keyboard.press('Enter');
      const t = await waitRun(page.locator('#lethe-bounds'));
      assert(/done in/.test(t), t);
      const n4 = await tabTo('#lethe-bounds [data-role="mgen-x"]');
      await page.keyboard.press('ArrowRight');
      await page.locator('[data-value="bounds.slider"]').filter({ hasText: 'M_gen(0.51)' }).waitFor();
      const shown = await page.locator('[data-value="bounds.ed"]').textContent();
      const focusVisible = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
      assert(focusVisible !== 'none', 'the focused control shows a focus outline');
      return `Tab presses ${n1} + ${n2} + ${n3} + ${n4}; ED score ${shown}`;
    },
  },
  {
    name: 'works at 375 px wide without horizontal overflow',
    async fn({ context, base }) {
      const page = await open(context, base, '/', { width: 375, height: 812 });
      await waitExample(page);
      const overflow = await page.evaluate(() => ({ doc: document.documentElement.scrollWidth, body: document.body.scrollWidth, view: window.innerWidth }));
      assert(overflow.doc <= overflow.view && overflow.body <= overflow.view, `horizontal overflow: ${JSON.stringify(overflow)}`);
      // Elements reaching past the right edge (inside an SVG, text is clipped by the plot and does not count).
      const wide = await page.evaluate(() =>
        [...document.querySelectorAll('.lethe-root *')]
          .filter((e) => (e.tagName.toLowerCase() === 'svg' || !e.closest('svg')) && e.getClientRects().length && e.getBoundingClientRect().right > window.innerWidth + 1)
          .map((e) => `${e.tagName}.${e.getAttribute('class')} right=${Math.round(e.getBoundingClientRect().right)}`)
          .slice(0, 5),
      );
      assert(wide.length === 0, `elements past the right edge: ${wide.join(', ')}`);
      await page.locator('#lethe-sde [data-value="sde.verdict"]').scrollIntoViewIfNeeded();
      await shot(page, 'mobile-375-sde.png');
      await page.evaluate(() => window.scrollTo(0, 0));
      await shot(page, 'mobile-375-top.png');
      await shot(page, 'mobile-375-full.png', { fullPage: true });
      // Still operable: run RULER at this width.
      await page.locator('#lethe-ruler [data-action="run"]').click();
      assert(/done in/.test(await waitRun(page.locator('#lethe-ruler'))), 'RULER runs at 375 px');
      return `scrollWidth ${overflow.doc} ≤ ${overflow.view}`;
    },
  },
];
