// Tools' files on the page (issue 14): what a tool's reader made of a dropped file or set (lethe::tools, from the
// content, in the full module: which tool and version, what it holds, the analyses it offers) and the offers run as
// the analysis layer's requests. Loaded by inputs.js only once a tool's file was dropped.
import { h, nextId } from './dom.js';
import { shape } from './format.js';
import { say } from './panels/common.js';

/**
 * Asks which tool wrote `items` (lethe::tools decides from their content, in the full module; `paths` name them
 * inside a dropped folder): each item gets `tool` (its summary and offers, or what is almost right), and files that
 * are a tool's set together (privacy-meter's memberships + signals, a LiRA folder) an entry in `store.toolSets`
 * (`{id, tool, toolFiles: {path: source}, runs}`).
 */
export async function detect(store, items, paths) {
  const usable = items.filter((i) => i.status === 'ready' || i.status === 'unreadable');
  if (!usable.length) return null;
  const names = usable.map((i) => paths[items.indexOf(i)]);
  const r = await store.engine.request('tools', { sources: usable.map((i) => i.id), paths: names });
  store.toolView = { toolBox, runOffer };
  for (const f of r.files || []) {
    const it = store.items.get(f.source);
    if (it && f.tool) {
      it.tool = f.tool;
      it.toolFiles = { [it.name]: it.id };
      store._changed(it);
    }
  }
  if (r.set) {
    store.toolSets.push({ id: nextId('toolset'), tool: r.set, toolFiles: Object.fromEntries(names.map((n, k) => [n, usable[k].id])) });
    store._changed(null);
  }
  return r;
}

/**
 * What a tool's reader made of a file or set (issue 14): which tool and version, what it holds, the analyses it
 * offers as buttons (each run's headline shown beneath), or what is almost right with the fix.
 */
export function toolBox(store, tool, owner) {
  if (!tool) return null;
  if (tool.problem) return h('div', { class: 'warning tool-problem', 'data-role': 'tool-problem', 'data-tool': tool.problem.tool }, tool.problem.message);
  const s = tool.summary;
  return h(
    'div',
    { class: 'tool-box', 'data-role': 'tool', 'data-tool': s.tool, 'data-kind': s.kind },
    h('div', {}, h('strong', {}, 'Written by ', TOOL_NAMES[s.tool] || s.tool), ': ', s.description),
    h('div', { class: 'muted tool-follows' }, `Read as ${s.follows}`),
    h('details', {}, h('summary', {}, `Holds ${s.entries.length} parts (PATH#KEY)`),
      h('ul', { class: 'arrays' }, s.entries.map((e) => h('li', {}, h('code', {}, e.key.includes('#') ? e.key : `#${e.key}`), ` [${shape(e.shape)}] ${e.what}`)))),
    s.warnings.map((w) => h('div', { class: 'muted' }, w)),
    s.offers.length > 0 &&
      h('div', { class: 'tool-offers' }, s.offers.map((o) => {
        const run = owner.runs?.[o.label];
        return h('div', { class: 'tool-offer', 'data-offer': o.analysis },
          h('button', { type: 'button', class: 'button button-secondary button-small', 'data-role': 'tool-offer', title: o.cli, onclick: () => store.runOffer(o, owner) }, o.label),
          run?.out?.headline && h('div', { class: 'tool-result', 'data-role': 'tool-result' }, say(run.out.headline.text)),
          run?.error && h('div', { class: 'error', role: 'alert', 'data-role': 'tool-error' }, say(run.error)));
      })),
  );
}

const TOOL_NAMES = { 'privacy-meter': 'ML Privacy Meter', leakpro: 'LeakPro', competition: 'the unlearning competition’s evaluation', 'open-unlearning': 'open-unlearning', tofu: 'TOFU', muse: 'MUSE', lira: 'LiRA' };

/**
 * Runs an offer of a tools' file (`owner`: the item or set that offers it) as the layer's request: each input the
 * offer names (`FILE#KEY`) becomes `{source, tensor}` of the input holding that file (this drop's, else the latest
 * input of that name). A membership audit goes to `onOffer` (the page fills the Membership audit panel); the rest
 * runs in the worker. The result (or error) is kept on `owner.runs[offer.label]`.
 */
export async function runOffer(store, offer, owner) {
  owner.runs ||= {};
  try {
    const request = { ...offer.options };
    for (const inp of offer.inputs) {
      // A whole folder (LiRA's shadow models) is read by its own section, which takes the folder's relative paths.
      if (inp.role === 'dir') throw new Error(`${offer.label}: open “LiRA from shadow models” at the foot of the Membership audit panel and choose or drop the folder there`);
      const base = inp.file.split('/').pop();
      const id = owner.toolFiles?.[inp.file] ?? store.list().filter((i) => i.name === base).pop()?.id;
      if (id == null) throw new Error(`${offer.label} needs ${base} as well: add that file`);
      request[inp.role] = { source: id, tensor: inp.key ?? null, rows: { kind: 'all' } };
    }
    let out = store.onOffer ? await store.onOffer(offer, request) : undefined;
    if (out === undefined) out = await store.engine.request('run', { analysis: offer.analysis, request });
    owner.runs[offer.label] = { request, out };
  } catch (e) {
    owner.runs[offer.label] = { error: e.message };
  }
  store._changed(owner.id != null && store.items.has(owner.id) ? owner : null);
  return owner.runs[offer.label];
}
