// The docs site's example inputs for the analyses that have no built-in example (epsilon, bounds): a seeded sample
// in assets/examples/NAME.json (tools/docs/pages/assets/examples, written once by a seeded script), given to each
// <lethe-eval data-docs-example="NAME"> as matrices, then run. Data only: every
// number on the page is computed by Lethe.
const matrix = (rows) => {
  const r = Array.isArray(rows[0]) ? rows : rows.map((v) => [v]);
  return { values: new Float64Array(r.flat()), shape: [r.length, r[0].length] };
};

async function feed(el) {
  if (el.__letheDocsFed) return;
  el.__letheDocsFed = true;
  const name = el.dataset.docsExample;
  const res = await fetch(new URL(`examples/${name}.json`, import.meta.url));
  if (!res.ok) throw new Error(`docs example ${name}: HTTP ${res.status}`);
  const json = await res.json();
  await customElements.whenDefined('lethe-eval');
  // After the element has started: .data set between its build and its start is applied twice (the start applies
  // the element's data as it is then, and the setter once more), which lists every input twice.
  await el.ready;
  el.data = Object.fromEntries(Object.entries(json).map(([role, rows]) => [role, matrix(rows)]));
  await el.run();
}

for (const el of document.querySelectorAll('lethe-eval[data-docs-example]')) feed(el).catch((e) => console.warn(e.message));
