// Guards and wordings the page needs once a person works with their own files, fetched with the panels after the
// first results (widget.js), so that the initial page stays within its budget: the refusal of a run that mixes the
// built-in example's files with a person's own, and more of the layer's messages in the page's words.
import { fmt } from '../format.js';
import { ROLE_LABELS as ROLES, addPhrases } from './common.js';

const ROLE_LABELS = { ...ROLES, members: 'Members’ scores', non_members: 'Non-members’ scores', retrained_probs: 'Retrained models’ class probabilities', unlearned_probs: 'Unlearned models’ class probabilities' };

/** The fix for a table where one number per row is expected, in the slot's controls. */
const ONE_COLUMN = 'choose the one column that holds them (a CSV/TSV table: “columns: only these…” under the input; an .npz or .safetensors archive: its array beside the file), or one row of it (“rows”), or save them as a 1-d array';

addPhrases([
  // SDE's note on odd row counts names the subsets as the request does (in_training, target[0]): the page's labels.
  [/(the last row of )((?:[a-z_]+(?:\[\d+\])?(?:, )?)+)( is not used) \(halves must be equal\)/g, (m, pre, list, post) =>
    `${pre}${list.split(', ').map((r) => {
      const [, role, k = ''] = /^([a-z_]+)(\[\d+\])?$/.exec(r) || [];
      return ROLE_LABELS[role] ? `“${ROLE_LABELS[role]}${k}”` : r;
    }).join(', ')}${post} (each subset is split into two halves of equal size)`],
  // A table where one number per row is expected: the CLI's FILE#columns=NAME / FILE#NAME as the slot's controls.
  [/: pick the column with `#columns=NAME` \(CSV\/TSV\) or the tensor with `#NAME`/g, `: ${ONE_COLUMN}`],
  [/shape mismatch: this analysis takes a 1-D sample, but the input is (\d+)×(\d+); pass one column \(or select a tensor\/column\)/g,
    (m, r, c) => `this input is a table of ${r} rows × ${c} columns, but this analysis takes one number per row: ${ONE_COLUMN}`],
  // RULER's models have no row choice on the page.
  [/ \(or select the same rows of each with PATH@ROWS\)/g, ''],
  // The leakage bounds' notes: the bound as the page shows numbers (it printed every digit: "the variance bound
  // 1.2347131236090132 exceeds 1/4"); their options are marked, said as the panel's fields (common.js OPTION_LABELS).
  [/(the variance bound )(\d+\.\d{7,})/g, (m, pre, x) => pre + fmt(Number(x))],
  [/use alpha ≤ 0\.5/g, 'use α ≤ 0.5'],
  // The competition's refusal of probabilities: the authors' function name and LaTeX-like notation, in words.
  [/log\(p_y\) − log\(Σ_\{j≠y\} p_j\) of the true class y/g, 'log p(true class) − log Σ p(other classes)'],
  [/ \(metric\.py's compute_logit_scaled_confidence\)/g, ', as the competition’s metric.py computes them'],
  // The competition score's inputs one at a time, named with their option ("the retrained models' class
  // probabilities (retrained-probs)"), as the panel's choice of what the inputs are.
  [/ \((?:--)?(?:retrained|unlearned)-probs\)/g, ' (Inputs are: class probabilities + labels)'],
  // The same refusal with its option marked (common.js renders it as the probabilities' field, which the logits mode
  // does not show): named as the panel's choice that shows it.
  [/(as the (?:retrained|unlearned) models' class probabilities) \(“[^”]+”\)/g, '$1 (Inputs are: class probabilities + labels)'],
  [/ \((?:--)?(?:retrained|unlearned)-logits\)/g, ' (Inputs are: logits + labels)'],
  [/(models' confidences) \((?:--)?(?:retrained|unlearned)\)/g, '$1 (Inputs are: logit-scaled confidences)'],
  // Its other options, as the panel's fields.
  [/the accuracies \((?:--)?accuracies\)/g, 'the accuracies for the final score'],
  [/ \((?:--)?eps-max\)/g, ' (ε_max)'],
  // LiRA names the arrays of a stacked file it does not read as the file names them (`target`, `member`): arrays, not
  // inputs of the page (say() would have made `target` SDE's “Target set”).
  [/(also hold )((?:`[^`]+`(?:, )?)+)(, which LiRA does not read)/g, (m, pre, list, post) => `${pre}the arrays ${list.replace(/`([^`]+)`/g, '“$1”')}${post}`],
  // The membership audit's refusal of the same rows on both sides: its example is the command line's PATH@ROWS.
  [/, e\.g\. SCORES@(\S+) and SCORES@(\S+)/g, ', e.g. the rows listed in $1 for the members and in $2 for the non-members (“rows” under each input)'],
]);

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
