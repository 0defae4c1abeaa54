// The host snippet of docs/embedding.md ("Sizing the iframe"), verbatim.
const frame = document.getElementById('lethe');
const origin = new URL(frame.src, location.href).origin;
window.addEventListener('message', (e) => {
  if (e.source !== frame.contentWindow || e.origin !== origin) return;
  if (e.data?.type === 'lethe:resize') frame.style.height = `${e.data.height}px`;
});
frame.addEventListener('load', () => frame.contentWindow.postMessage({ type: 'lethe:hello' }, origin));

// For the test: data and a run, whose results make the content taller.
window.runIt = () =>
  frame.contentWindow.postMessage(
    { type: 'lethe:load-data', data: { scores: { values: new Float64Array([0, 0.1, 0.5, 0, 0.9, 0.2, 0, 0.3]), shape: [8, 1] } }, run: true },
    origin,
  );
