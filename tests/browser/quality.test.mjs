// Page quality (issue 17): the main page paints the widget's first view from static HTML (index.html) and the
// widget replaces it with the same markup; nothing moves as the example's files arrive; the teaching page builds
// its topics as they near the screen. Lighthouse's figures are in docs/embedding.md; these are the mechanisms.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SITE, assert, eq, open, waitExample } from './lib.mjs';

export const tests = [
  {
    name: 'index.html: the static first view equals the widget\'s, the example note is the largest paint from the start, and the page does not shift as the example loads',
    async fn({ context, base }) {
      await context.addInitScript(() => {
        window.__shifts = [];
        window.__lcp = [];
        new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__shifts.push(e.value))).observe({ type: 'layout-shift', buffered: true });
        new PerformanceObserver((l) => l.getEntries().forEach((e) => window.__lcp.push([e.startTime, e.element?.className || '']))).observe({ type: 'largest-contentful-paint', buffered: true });
      });
      const page = await open(context, base, '/index.html', { width: 1350, height: 940 });
      await waitExample(page);
      await page.waitForSelector('.lethe-example-note[data-example-files]', { state: 'attached', timeout: 60000 });
      const html = readFileSync(path.join(SITE, 'index.html'), 'utf8');
      const live = await page.evaluate((src) => {
        const doc = new DOMParser().parseFromString(src, 'text/html');
        const text = (root, sel) => root.querySelector(sel)?.textContent.trim();
        const s = doc.querySelector('#app .lethe-root');
        const l = document.querySelector('#app .lethe-root');
        return ['.lethe-title-row h1', '.lethe-tagline', '.lethe-privacy', '.lethe-example-note'].map((sel) => [sel, text(s, sel), text(l, sel)]);
      }, html);
      for (const [sel, stat, now] of live) eq(stat, now, `index.html's static ${sel}`);
      const { shifts, lcp } = await page.evaluate(() => ({ shifts: window.__shifts, lcp: window.__lcp }));
      const cls = shifts.reduce((a, b) => a + b, 0);
      assert(cls < 0.05, `layout shifts while the example loads sum to ${cls.toFixed(3)} (${shifts.map((v) => v.toFixed(3)).join(' ')})`);
      assert(lcp.length > 0 && lcp.at(-1)[1].includes('lethe-example-note'), `largest paint: ${JSON.stringify(lcp)}`);
      // The static note is the one painted first: no later, larger paint replaced it.
      eq(lcp.filter(([, c]) => c.includes('lethe-example-note')).length, 1, 'paints of the example note as the largest element');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `static first view = the widget's; CLS ${cls.toFixed(3)}; largest paint the static note at ${Math.round(lcp.at(-1)[0])} ms`;
    },
  },
  {
    name: 'teach.html: topics away from the screen are built after the first one, and every topic is there when the page says ready',
    async fn({ context, base }) {
      const page = await open(context, base, '/teach.html', { width: 412, height: 823 });
      const first = await page.evaluate(
        () =>
          new Promise((resolve) => {
            const seen = () => document.querySelectorAll('.lethe-teach-topic:not(.lethe-teach-pending)').length;
            const t = setInterval(() => {
              if (seen() > 0) {
                clearInterval(t);
                resolve([seen(), document.querySelectorAll('.lethe-teach-pending').length]);
              }
            }, 5);
          }),
      );
      assert(first[1] > 0, `topics waiting when the first was built: ${first[1]} (built ${first[0]})`);
      await page.waitForFunction(() => document.body.dataset.ready === 'true', null, { timeout: 90000 });
      eq(await page.locator('.lethe-teach-pending').count(), 0, 'topics not built at ready');
      eq(await page.evaluate(() => Object.keys(window.letheTeach.topics).length), 8, 'topics');
      assert(page.errors.length === 0, page.errors.join('; '));
      return `${first[0]} topic(s) built at once, ${first[1]} later`;
    },
  },
];
