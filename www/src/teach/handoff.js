// "Try it on your data": the main page (index.html?teach=<topic>&…) opens a panel on a teaching topic's data. The
// data are regenerated in the worker from the link's parameters (seeded, analysis/src/teach/export.rs `export`), so the panel
// analyses exactly what the figure showed; for SDE the panel gets the figure's rows of the built-in example. The
// HSIC and rank-test topics have no panel of their own: their links land on the panel that uses the statistic on
// your data (SDE: HSIC between a subset's halves, Mann–Whitney between the distributions; RULER: Wilcoxon across
// runs), which the page opens on its built-in example. Either way the panel's heading gets the focus, so keyboard
// and screen-reader users start where the link pointed.
import { engine } from '../engine.js';
import { assetUrl } from '../base.js';

const PANEL = { sde: 'lethe-sde', epsilon: 'lethe-epsilon', bounds: 'lethe-bounds', hsic: 'lethe-sde', mia: 'lethe-mia' };
const panelId = (topic, params) => (topic === 'ranks' ? (params.get('panel') === 'ruler' ? 'lethe-ruler' : 'lethe-sde') : PANEL[topic]);
const number = (params, k, d) => (params.has(k) ? Number(params.get(k)) : d);

/** Scrolls to the panel and focuses its heading (made focusable for this; not a tab stop). */
function land(panelEl) {
  if (!panelEl) return;
  panelEl.scrollIntoView({ block: 'start' });
  const head = panelEl.querySelector('h2') || panelEl;
  if (!head.hasAttribute('tabindex')) head.setAttribute('tabindex', '-1');
  head.focus({ preventScroll: true });
  panelEl.dataset.landed = 'true';
}

async function exported(eng, request) {
  return eng.request('teach', { topic: 'export', request });
}

/** Sets the topic's panel of `widget` (the main page's create() API) to the topic's data and runs it. */
export async function handoff(widget, params) {
  const topic = params.get('teach');
  const id = panelId(topic, params);
  let panelEl = id && document.getElementById(id);
  // Lands again after each step that may move the page (results drawn above it), unless the user has moved on.
  const show = () => {
    if (!document.activeElement || document.activeElement === document.body || panelEl?.contains(document.activeElement)) land(panelEl);
  };
  show();
  if (!id) return;
  await widget.ready;
  // The epsilon and bounds panels' modules come after the page's first results.
  await widget.panelsReady?.();
  panelEl = document.getElementById(id);
  show();
  if (topic === 'hsic' || topic === 'ranks') {
    // Nothing to hand over: the panel shows the built-in example's results (the page runs it) until the user
    // drops their own files.
    widget.on('example', () => requestAnimationFrame(show));
    return;
  }
  const eng = engine();
  const seed = Math.max(0, Math.floor(number(params, 'seed', 0)));
  const note = `generated on the teaching page (${topic}, seed ${seed})`;
  const add = async (file) => widget.store.add({ bytes: file.bytes, name: file.name, origin: 'synthetic', note });
  if (topic === 'epsilon') {
    const files = await exported(eng, { topic: 'epsilon', n_models: number(params, 'n_models', 64), shift: number(params, 'shift', 1.5), spread: number(params, 'spread', 1), seed });
    const [r, u] = [await add(files[0]), await add(files[1])];
    widget.panels.epsilon.set({ mode: 'conf', retrained: { source: r.id, rows: { kind: 'all' } }, unlearned: { source: u.id, rows: { kind: 'all' } }, ...(params.has('alpha') ? { alpha: number(params, 'alpha', 0.05) } : {}) });
  } else if (topic === 'bounds') {
    const spec = { topic: 'bounds', family: params.get('family') || 'scores', n: number(params, 'n', 200), p0: number(params, 'p0', 0.6), k: number(params, 'k', 1.5), p: number(params, 'p', 0.05), seed };
    const [s] = await Promise.all((await exported(eng, spec)).map(add));
    widget.panels.bounds.set({ mode: 'scores', scores: { source: s.id, rows: { kind: 'all' } }, alpha: number(params, 'alpha', 0.05), one_sided: params.get('one_sided') === 'true', ...(params.has('x0') ? { x: [number(params, 'x0', 0.5)] } : {}) });
  } else if (topic === 'mia') {
    const spec = { topic: 'mia', n_members: number(params, 'n_members', 1000), n_non_members: number(params, 'n_non_members', 3000), shift: number(params, 'shift', 0.5), spread: number(params, 'spread', 2), seed };
    const [m, n] = await Promise.all((await exported(eng, spec)).map(add));
    widget.panels.mia.set({ mode: 'two', members: { source: m.id, rows: { kind: 'all' } }, non_members: { source: n.id, rows: { kind: 'all' } }, rule: 'all', fpr: [number(params, 'target_fpr', 0.001)] });
  } else if (topic === 'sde') {
    const rep = params.get('representation') === 'softmax' ? 'softmax' : 'penultimate';
    const model = ['original', 'retrained', 'unlearned'].includes(params.get('model')) ? params.get('model') : 'retrained';
    const name = rep === 'softmax' ? 'softmax.npz' : `act_${model}.npy`;
    const res = await fetch(assetUrl(`data/digits/${name}`));
    if (!res.ok) throw new Error(`${name}: HTTP ${res.status}`);
    const blob = await res.blob();
    const bytes = await blob.arrayBuffer();
    await eng.request('teach-data', { name, bytes }, { transfer: [bytes] });
    const sigma = params.get('sigma') || 'sqrt_dim';
    const req = {
      representation: rep,
      model,
      target: params.get('target') === 'retain' ? 'retain' : 'forget',
      size: number(params, 'size', 100),
      sigma: sigma === 'sqrt_dim' || sigma === 'median' ? sigma : { fixed: Number(sigma) },
      shuffles: number(params, 'shuffles', 200),
      references: number(params, 'references', 10),
      seed,
    };
    const e = await eng.request('teach', { topic: 'sde.experiment', request: req });
    const item = await widget.store.add({ file: new File([blob], name), origin: 'example', note: 'built-in digits example' });
    const slot = (rows) => ({ source: item.id, tensor: rep === 'softmax' ? model : undefined, rows: { kind: 'text', text: rows.join(',') } });
    widget.panels.sde.set({
      mode: 'single',
      in_training: slot(e.calibrated.in_training.subsets[0]),
      out_of_training: slot(e.calibrated.out_of_training.subsets[0]),
      target: slot(e.target_rows),
      shuffles: req.shuffles,
      sigma,
      seed,
    });
  }
  show();
  await widget.run(topic);
  show();
}
