// The teaching mode: each statistic explained beside a live figure computed by the real core (in the page's worker).
//   createTeach(el, {topics: ['hsic', …], engine?, header?}) → {topics, ready}
// Used by teach.html (every topic) and by <lethe-eval mode="teach" topic="…"> (one topic). Importing this module does
// no work; everything starts in createTeach().
import { h, fill } from '../dom.js';
import { engine as sharedEngine, unsupported } from '../engine.js';
import { PRIVACY } from '../widget.js';
import { hsicTopic } from './hsic.js';
import { sdeTopic } from './sde.js';
import { ranksTopic } from './ranks.js';
import { epsilonTopic } from './epsilon.js';
import { boundsTopic } from './bounds.js';
import { miaTopic } from './mia.js';
import { seedsTopic } from './seeds.js';
import { fqTopic } from './fq.js';

/** Every topic, in the page's order: [id, title, builder]. */
export const TOPICS = [
  ['hsic', 'HSIC and the permutation null', hsicTopic],
  ['sde', 'Split-half dependence (SDE): the argument, and what the numbers show', sdeTopic],
  ['ranks', 'Rank tests: Mann–Whitney and Wilcoxon', ranksTopic],
  ['epsilon', 'Epsilon from an attack', epsilonTopic],
  ['bounds', 'Confidence bounds on leakage', boundsTopic],
  ['mia', 'Membership audit: ROC, TPR at low FPR, and honest intervals', miaTopic],
  ['seeds', 'One seed is not a result: seeds, intervals and many comparisons', seedsTopic],
  ['forget-quality', 'Forget quality: a KS test against the retain model, not a score of forgetting', fqTopic],
];

export const TOPIC_IDS = TOPICS.map(([id]) => id);

/**
 * Builds `topics` into `el`. Resolves `ready` when every topic has shown its first figure.
 * @param {Element} el
 * @param {{topics?: string[], engine?: object, header?: boolean, numbered?: boolean}} opts
 */
export function createTeach(el, opts = {}) {
  const asked = opts.topics && opts.topics.length ? opts.topics : TOPIC_IDS;
  const ids = asked.filter((id) => TOPIC_IDS.includes(id));
  const root = h('div', { class: 'root teach-root', 'data-state': 'starting' });
  fill(el, root);
  const unknown = asked.filter((id) => !TOPIC_IDS.includes(id));
  if (unknown.length) {
    const msg = `Unknown teaching topic “${unknown.join('”, “')}”: use one of ${TOPIC_IDS.join(', ')}.`;
    fill(root, h('div', { class: 'error', role: 'alert' }, msg));
    return { topics: {}, ready: Promise.reject(new Error(msg)), root };
  }
  const why = unsupported();
  if (why) {
    fill(root, h('div', { class: 'error', role: 'alert' }, `Lethe cannot run in this browser: ${why}. Use a current Chrome, Edge, Firefox or Safari.`));
    return { topics: {}, ready: Promise.reject(new Error(why)) };
  }
  const eng = opts.engine || sharedEngine();
  const ctx = { engine: eng };
  const status = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
  fill(root, opts.privacy === false ? null : h('p', { class: 'privacy privacy-compact', 'data-role': 'privacy' }, PRIVACY), status);
  const topics = {};
  const ready = eng.start().then(
    async (info) => {
      ctx.version = info.version;
      const builds = [];
      for (const [id, title, build] of TOPICS) {
        if (!ids.includes(id)) continue;
        const number = opts.numbered === false || ids.length === 1 ? null : TOPIC_IDS.indexOf(id) + 1;
        // Until built, a topic is its heading (the contents' anchor, with room kept in teach.css).
        const place = h('section', { class: 'teach-topic teach-pending', id: `lethe-teach-${id}`, 'data-topic': id, 'aria-busy': 'true' }, h('h2', {}, number ? `${number}. ` : null, title));
        root.append(place);
        let built = null;
        const start = () =>
          (built ||= new Promise((resolve) => {
            const t = build(ctx, { number });
            topics[id] = t;
            place.replaceWith(t.el);
            resolve(t.ready);
          }));
        builds.push({ place, start, started: () => !!built });
      }
      // A topic is built (its first computation, its figures) when it nears the screen — at once where it is on it —
      // and the others one at a time when the page is idle: opening the page does not block it for all six at once.
      const near = (el) => el.getBoundingClientRect().top < (globalThis.innerHeight || 0) + 200;
      const seen = typeof IntersectionObserver === 'function' && builds.length > 1 && new IntersectionObserver((es) => es.forEach((e) => e.isIntersecting && builds.find((b) => b.place === e.target)?.start()), { rootMargin: '200px 0px' });
      for (const b of builds) {
        if (!seen || near(b.place)) b.start();
        else seen.observe(b.place);
      }
      const idle = () => new Promise((r) => (typeof requestIdleCallback === 'function' ? requestIdleCallback(r, { timeout: 1000 }) : setTimeout(r, 50)));
      for (const b of builds) {
        if (!b.started()) await idle();
        await b.start();
      }
      if (seen) seen.disconnect();
      root.dataset.state = 'ready';
      return info;
    },
    (e) => {
      root.dataset.state = 'failed';
      fill(status, h('div', { class: 'error', role: 'alert' }, e.message));
      throw e;
    },
  );
  return { topics, ready, root };
}
