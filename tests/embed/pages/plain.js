// .data set while <lethe-eval> is not yet defined (the module is imported after): the element takes it on upgrade.
const el = document.getElementById('early');
el.data = { scores: { values: new Float64Array([0, 0.1, 0.5, 0, 0.9, 0.2, 0, 0.3]), shape: [8, 1] } };
await import('/sub/lethe/src/lethe-eval.js');
await customElements.whenDefined('lethe-eval');
const report = await el.run();
document.getElementById('out').textContent = `n=${report.result.n} alpha=${report.result.params.alpha}`;

// For the test: remove the element (as a router leaving the page) and insert it again.
let parent = null;
window.detach = () => {
  parent = el.parentElement;
  el.remove();
};
window.attachAndRun = async () => {
  parent.append(el);
  return (await el.run()).result.n;
};
