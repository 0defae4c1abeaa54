// Topic 3: rank tests. Mann–Whitney U (two groups) and Wilcoxon signed-rank (pairs) with the ranks shown, ties
// highlighted, and the exact null distribution against the normal approximation. analysis/src/teach/ranks.rs `ranks`
// (lethe::mann_whitney, lethe::wilcoxon, lethe::rank — the functions behind `lethe mwu` and `lethe wilcoxon`).
import { h, fill } from '../dom.js';
import { download } from '../export.js';
import { linePlot } from '../views/lines.js';
import { PALETTE } from '../views/svg.js';
import { button, channel, checkbox, debounce, figureBlock, f6, handoff, isAbort, number, prose, readout, responsive, select, siteRoot, slider, topicFrame } from './common.js';

const METHOD = { exact: 'exact', asymptotic: 'normal approximation', permutation: 'exact (permutation, with ties)' };

/** p-value cards: exact, normal approximation, and which one auto (scipy's rule) uses. */
function pvalues(exact, asym, auto, key) {
  const card = (title, r, which, note) => {
    const used = r && !r.error && auto.method_used === which;
    return h(
      'div',
      { class: `teach-pval${used ? ' teach-pval-used' : ''}` },
      h('strong', {}, title),
      r && r.error ? h('span', { class: 'muted' }, r.error) : h('span', { class: 'value', 'data-value': `${key}.${which}` }, f6(r.p_value)),
      note ? h('div', { class: 'muted', style: { fontSize: '0.8rem' } }, note) : null,
      used ? h('div', { style: { fontSize: '0.8rem' } }, '← auto uses this') : null,
    );
  };
  const autoCard =
    auto.method_used === 'permutation'
      ? h('div', { class: 'teach-pval teach-pval-used' }, h('strong', {}, METHOD.permutation), h('span', { class: 'value', 'data-value': `${key}.permutation` }, f6(auto.p_value)), h('div', { style: { fontSize: '0.8rem' } }, '← auto uses this (ties or zeros, n ≤ 13)'))
      : null;
  return h(
    'div',
    { class: 'teach-pvals' },
    card('exact p-value', exact, 'exact', exact && !exact.error && exact.warnings?.length ? 'assumes no ties' : null),
    card('normal approximation', asym, 'asymptotic', asym && !asym.error && asym.z_statistic != null ? `z = ${f6(asym.z_statistic)}` : null),
    autoCard,
  );
}

/** The exact null pmf as bars, the normal curve over it, the observed statistic marked and its tail shaded. */
function nullPlot(null_, observed, alternative, w, xlabel, label) {
  const mean = null_.mean;
  const dev = Math.abs(observed - mean);
  // Which bars are at least as extreme as the observed value, in the direction the alternative looks.
  const extreme = (u) => (alternative === 'two-sided' ? Math.abs(u - mean) >= dev - 1e-9 : alternative === 'greater' ? u >= observed - 1e-9 : u <= observed + 1e-9);
  return linePlot(
    [
      { name: 'exact null (no ties)', kind: 'bars', x: null_.support, y: null_.pmf, color: '#9aa5b1', highlight: (u) => (extreme(u) ? PALETTE.oot : null) },
      { name: 'normal approximation', kind: 'line', x: null_.support, y: null_.normal_density, color: PALETTE.it },
    ],
    { width: w, height: 230, xlabel, ylabel: 'probability', markers: [{ x: observed, label: `observed ${observed}`, color: PALETTE.oot }], label },
  );
}

export function ranksTopic(ctx, { number: nr } = {}) {
  const parts = topicFrame({ id: 'ranks', title: 'Rank tests: Mann–Whitney and Wilcoxon', number: nr });
  fill(
    parts.explain,
    prose(
      'Rank tests replace every value by its position in the sorted data — its rank — and ask whether the ranks are arranged as chance would arrange them. They assume nothing about the shape of the distribution, and one wild value cannot dominate them.',
      h('h3', {}, 'Mann–Whitney U: two independent groups'),
      'Pool both samples and rank them. The rank sum R₁ of x gives U₁ = R₁ − n₁(n₁ + 1)/2, the number of (x, y) pairs with x > y (a tie counts ½). If the groups do not differ, every way of dealing the ranks to the two groups is equally likely, so the null distribution of U can be counted exactly (grey bars); the shaded bars are at least as extreme as the observed U, and their total is the exact p-value.',
      'Ties share the average of the positions they occupy (highlighted rows). The exact count assumes no ties; the normal approximation (blue curve) corrects its spread for them. So with ties — or more than 8 values in each group, where the two agree closely — Lethe, like scipy, uses the normal approximation by default (“auto”). Compare the p-values as you move the sizes.',
      h('h3', {}, 'Wilcoxon signed-rank: pairs'),
      'For paired measurements, rank the absolute differences |d| and add up the ranks of the positive ones, T⁺. Zero differences carry no sign and are dropped (struck through). With no shift each sign is a coin flip, so the null of T⁺ is countable too. With ties or zeros and at most 13 pairs, auto enumerates all 2ⁿ sign flips of the observed ranks instead.',
      'In Lethe, SDE checks that its two references are separable with a one-sided Mann–Whitney test, and RULER compares its metrics across runs with Wilcoxon.',
    ),
  );
  const run = channel(ctx.engine, 'ranks');
  const f = {
    n_x: slider({ key: 'n_x', label: 'Size of x (pairs for Wilcoxon)', min: 2, max: 30, step: 1, value: 7, onInput: () => changed() }),
    n_y: slider({ key: 'n_y', label: 'Size of y', min: 2, max: 30, step: 1, value: 6, onInput: () => changed() }),
    shift: slider({ key: 'shift', label: 'Shift of x (and of the pair differences)', min: -2, max: 2, step: 0.1, value: 0.8, format: (v) => v.toFixed(1), onInput: () => changed() }),
    ties: checkbox({ key: 'ties', label: 'Round to halves (makes ties and zeros)', value: false, onChange: () => changed() }),
    alternative: select({ key: 'alternative', label: 'Alternative', value: 'two-sided', options: [['two-sided', 'two-sided'], ['greater', 'x greater'], ['less', 'x less']], onChange: () => changed() }),
    seed: number({ key: 'seed', label: 'Seed', value: 0, min: 0, step: 1, onChange: () => changed() }),
  };
  fill(parts.controls, Object.values(f).map((x) => x.el));
  const request = () => ({ n_x: f.n_x.get(), n_y: f.n_y.get(), shift: f.shift.get(), ties: f.ties.get(), alternative: f.alternative.get(), seed: Math.max(0, Math.floor(f.seed.get() || 0)) });

  let last = null;
  let lastReq = null;
  const mwNull = responsive((w) => (last ? nullPlot(last.mann_whitney.null, observedU(last.mann_whitney), lastReq.alternative, w, 'U (x beats y in this many pairs)', 'Exact null distribution of U with the normal approximation') : h('div')));
  const wNull = responsive((w) => (last?.wilcoxon.null ? nullPlot(last.wilcoxon.null, last.wilcoxon.auto.r_plus, lastReq.alternative, w, 'T⁺ (sum of the ranks of positive differences)', 'Exact null distribution of T plus with the normal approximation') : h('div', { class: 'muted' }, 'every difference is zero')));
  // The U the alternative refers to the null: U₁ (greater), U₂ (less), or U₁ for two-sided (symmetric null).
  const observedU = (m) => (lastReq.alternative === 'less' ? m.auto.u_y : m.auto.statistic);
  const mwTable = h('div', { class: 'teach-table-scroll', tabindex: 0, role: 'region', 'aria-label': 'Pooled values with their ranks' });
  const wTable = h('div', { class: 'teach-table-scroll', tabindex: 0, role: 'region', 'aria-label': 'Pairs with their signed ranks' });
  const mwP = h('div');
  const wP = h('div');
  fill(
    parts.figure,
    h('h3', {}, 'Mann–Whitney U'),
    h('div', { class: 'teach-row' }, figureBlock('Pooled and ranked (blue edge: x, orange: y; ties highlighted)', mwTable), figureBlock('Exact null of U and its normal approximation', mwNull.el)),
    mwP,
    h('h3', {}, 'Wilcoxon signed-rank'),
    h('div', { class: 'teach-row' }, figureBlock('Pairs, differences d = x − y and the ranks of |d|', wTable), figureBlock('Exact null of T⁺ and its normal approximation', wNull.el)),
    wP,
  );

  const tieBadge = (t) => (t == null ? null : h('span', { class: 'teach-tiebadge', title: `tie group ${t + 1}` }, `tie ${t + 1}`));
  function render() {
    const m = last.mann_whitney;
    fill(
      mwTable,
      h(
        'table',
        { class: 'teach-ranks' },
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'rank'), h('th', { scope: 'col' }, 'value'), h('th', { scope: 'col' }, 'group'))),
        h(
          'tbody',
          {},
          m.pooled.map((p) => h('tr', { class: `teach-${p.sample}${p.tie != null ? ' teach-tie' : ''}`, 'data-rank': p.rank }, h('td', {}, String(p.rank), tieBadge(p.tie)), h('td', {}, String(p.value.toFixed(3))), h('td', {}, `${p.sample}${p.index + 1}`))),
        ),
      ),
    );
    fill(
      mwP,
      readout([
        ['R₁ (rank sum of x)', String(m.rank_sum_x), `n₁ = ${m.x.length}, n₂ = ${m.y.length}`, 'ranks.r1'],
        ['U₁ = R₁ − n₁(n₁+1)/2', String(m.auto.statistic), `U₂ = n₁n₂ − U₁ = ${m.auto.u_y}`, 'ranks.u'],
        ['Ties in the pooled data', m.auto.has_ties ? 'yes' : 'no', m.auto.has_ties ? 'the exact count ignores them; the normal approximation corrects for them' : '', 'ranks.mw_ties'],
      ]),
      pvalues(m.exact, m.asymptotic, m.auto, 'ranks.mw'),
    );
    const w = last.wilcoxon;
    fill(
      wTable,
      h(
        'table',
        { class: 'teach-ranks' },
        h('thead', {}, h('tr', {}, ['pair', 'x', 'y', 'd', 'rank of |d|', 'sign'].map((c) => h('th', { scope: 'col' }, c)))),
        h(
          'tbody',
          {},
          w.rows.map((r, i) =>
            h(
              'tr',
              { class: `${r.sign === 0 ? 'teach-zero' : r.sign > 0 ? 'teach-x' : 'teach-y'}${r.tie != null ? ' teach-tie' : ''}` },
              h('td', {}, String(i + 1)),
              h('td', {}, r.x.toFixed(3)),
              h('td', {}, r.y.toFixed(3)),
              h('td', {}, r.d.toFixed(3)),
              h('td', {}, r.sign === 0 ? 'dropped' : String(r.rank), tieBadge(r.tie)),
              h('td', {}, r.sign > 0 ? '+' : r.sign < 0 ? '−' : '0'),
            ),
          ),
        ),
      ),
    );
    fill(
      wP,
      readout([
        ['T⁺ (ranks of positive d)', String(w.auto.r_plus), `T⁻ = ${w.auto.r_minus}; ${w.auto.n_zero} zero difference(s) dropped`, 'ranks.tplus'],
        ['Statistic (scipy’s)', String(w.auto.statistic), lastReq.alternative === 'two-sided' ? 'min(T⁺, T⁻)' : 'T⁺', 'ranks.w'],
      ]),
      pvalues(w.exact, w.asymptotic, w.auto, 'ranks.w'),
    );
    mwNull.render();
    wNull.render();
    parts.updated();
  }

  async function update() {
    const req = request();
    lastReq = req;
    renderHandoff();
    parts.busy(true);
    try {
      last = await run(req);
      render();
      parts.ok('');
    } catch (e) {
      if (!isAbort(e)) parts.error(e);
    }
  }
  const changed = debounce(update, 60);

  const exportData = async () => {
    const files = await ctx.engine.request('teach', { topic: 'export', request: { topic: 'ranks', ...lastReq } });
    for (const file of files) download(file.name, file.bytes, 'application/octet-stream');
  };
  const renderHandoff = () => {
    const r = lastReq;
    fill(
      parts.handoff,
      handoff({
        text: 'On two samples or pairs of your own, the command line runs both tests exactly as here (download this data to reproduce the figure). In the analysis panels they are steps of larger analyses: the SDE panel runs a one-sided Mann–Whitney test between its in- and out-of-training reference distributions of split-half HSIC (the paper trusts a verdict only when p < 0.01) and between the target and the out-of-training reference; the RULER panel runs Wilcoxon signed-rank across runs of several seeds, each metric against its null value, with Benjamini–Hochberg. The links open those panels on the built-in example.',
        links: [
          { href: `${new URL('index.html', siteRoot()).href}?teach=ranks&panel=sde#lethe-sde`, label: 'SDE panel: Mann–Whitney between HSIC distributions →', action: 'handoff' },
          { href: `${new URL('index.html', siteRoot()).href}?teach=ranks&panel=ruler#lethe-ruler`, label: 'RULER panel: Wilcoxon across runs →', action: 'handoff-ruler' },
        ],
        cli: [`lethe mwu mwu_x.npy mwu_y.npy --alternative ${r.alternative} --method exact`, `lethe wilcoxon wilcoxon_x.npy wilcoxon_y.npy --alternative ${r.alternative}`],
      }),
      h('p', {}, button({ action: 'download-data', label: 'Download the samples (.npy)', onClick: () => exportData().catch((e) => parts.error(e)) })),
    );
  };
  const ready = update();
  return { id: 'ranks', el: parts.el, ready, state: () => ({ request: lastReq, result: last }) };
}
