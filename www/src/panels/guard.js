// Guards the page needs once a person works with their own files, fetched with the panels after the first results
// (widget.js), so that the initial page stays within its budget: the refusal of a run that mixes the built-in
// example's files with a person's own.
import { ROLE_LABELS as ROLES } from './common.js';

const ROLE_LABELS = { ...ROLES, members: 'Members’ scores', non_members: 'Non-members’ scores' };

/**
 * The inputs of a request (`{role, source, rows}`: `rows` when the source gives the rows, an index file or a split
 * column), found wherever the request holds `{source}` (RULER's runs and SDE's target lists included).
 */
function requestSources(req) {
  const out = [];
  const walk = (v, role) => {
    if (Array.isArray(v)) return v.forEach((x) => walk(x, role));
    if (!v || typeof v !== 'object') return;
    if (typeof v.source === 'number') out.push({ role, source: v.source, rows: v.kind === 'file' || v.kind === 'split' });
    for (const [k, x] of Object.entries(v)) if (x && typeof x === 'object') walk(x, k === 'rows' || k === 'runs' ? role : k);
  };
  for (const [k, v] of Object.entries(req || {})) walk(v, k);
  return out;
}

/**
 * Refuses a run that mixes the built-in example's files with a person's own: the page opens with the example chosen
 * in every slot, and a person who replaces one of them (the in-training reference, the unlearned model) or picks the
 * example's forget.txt for their own file got a confident call on the digits data beside theirs. The layer's own
 * check comes first (`analysis`, `check`), so a request it refuses keeps its own message; `extra` holds inputs the
 * request does not carry (SDE's calibrated pools). Throws an error placed at the first of the example's inputs.
 */
export async function refuseExampleMix(ctx, analysis, req, extra = {}) {
  const found = requestSources({ ...req, ...extra }).map((x) => ({ ...x, item: ctx.store.get(x.source) })).filter((x) => x.item);
  const example = found.filter((x) => x.item.origin === 'example');
  const mine = found.filter((x) => x.item.origin !== 'example');
  if (!example.length || !mine.length) return;
  try {
    await ctx.engine.request('check', { analysis, request: req });
  } catch {
    return; // the run refuses on its own, with its own message
  }
  const name = (x) => {
    const label = ROLE_LABELS[x.role] || x.role.replace(/_/g, ' ');
    return `${x.rows && !/rows|pool/i.test(label) ? 'the rows of ' : ''}“${label}”`;
  };
  const list = (xs) => {
    const names = [...new Set(xs.map(name))];
    return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  };
  const files = (xs) => [...new Set(xs.map((x) => x.item.name))].join(', ');
  const are = new Set(example.map(name)).size > 1 ? 'come' : 'comes';
  throw Object.assign(
    new Error(
      `${list(example)} still ${are} from the built-in example (${files(example)}), beside your own ${files(mine)} (${list(mine)}): the example’s digits data say nothing about your model. Choose your own file for each input — or only the example’s, to rerun it.`,
    ),
    { input: example[0].role.startsWith('draw_') ? example[0].role.replace('_', '-') : example[0].role, code: 'example_mixed' },
  );
}
