// The page's script as an external file (no inline script under the policy), as docs/embedding.md shows.
await customElements.whenDefined('lethe-eval');
const el = document.getElementById('el');
el.data = { scores: { values: new Float64Array([0, 0.1, 0.5, 0, 0.9, 0.2, 0, 0.3]), shape: [8, 1] } };
const report = await el.run();
document.getElementById('out').textContent = `n=${report.result.n} alpha=${report.result.params.alpha}`;
