// The iframe mode (frame.html): one analysis, driven by the host page through postMessage, for hosts whose
// Content-Security-Policy cannot allow the widget's scripts and wasm on their own origin.
//
// Handshake: frame → parent {type: 'lethe:ready', version, analysis}; parent → frame {type: 'lethe:load-data',
// data: {role: ArrayBuffer | {values, shape} | string | Blob | {data, rows, tensor, name}}, params: {...},
// run: true}; frame → parent {type: 'lethe:progress', ...}, then {type: 'lethe:result', report} or
// {type: 'lethe:error', message, input}. Also {type: 'lethe:run'}, {type: 'lethe:cancel'}, and {type: 'lethe:hello'}
// (answered with lethe:ready again, for a host whose listener came late).
// The frame also posts {type: 'lethe:resize', height} (CSS px) whenever its content's height changes, so that the
// host can size the iframe to it (docs/embedding.md has the ten-line host snippet).
// Only messages from the parent window are accepted; with ?origin=https://host.example only from that origin,
// and replies go to the origin that sent the data.
import { create } from './widget.js';
import { say } from './panels/common.js';

const q = new URLSearchParams(location.search);
const analysis = q.get('analysis') || 'sde';
const allowed = q.get('origin');
let replyTo = allowed || '*';
let controller = null;

const post = (m) => window.parent !== window && window.parent.postMessage(m, replyTo);
const widget = create(document.getElementById('app'), {
  panels: [analysis],
  header: false,
  showInputs: q.has('inputs'),
  onEvent: (type, detail) => {
    if (type === 'progress') post({ type: 'lethe:progress', fraction: detail.fraction, phase: detail.phase, eta_s: detail.eta_s });
  },
});
const params = {};
for (const [k, v] of q) if (!['analysis', 'origin', 'inputs', 'layout'].includes(k)) params[k.replace(/-/g, '_')] = v;
// ?layout=narrow|wide forces one or two columns (default: by the frame's own width, widget.css).
if (['narrow', 'wide'].includes(q.get('layout'))) document.getElementById('app').dataset.layout = q.get('layout');
widget.setParams(analysis, params);

async function run() {
  controller?.abort();
  controller = new AbortController();
  try {
    const report = await widget.run(analysis, { signal: controller.signal });
    post({ type: 'lethe:result', report });
  } catch (e) {
    post({ type: 'lethe:error', message: say(e.message), input: e.input ?? null });
  }
}

window.addEventListener('message', async (e) => {
  if (e.source !== window.parent) return;
  if (allowed && e.origin !== allowed) return;
  const m = e.data || {};
  if (typeof m.type !== 'string' || !m.type.startsWith('lethe:')) return;
  if (e.origin && e.origin !== 'null') replyTo = e.origin;
  if (m.type === 'lethe:load-data') {
    try {
      if (m.params) widget.setParams(analysis, m.params);
      await widget.setData(analysis, m.data || {});
    } catch (err) {
      post({ type: 'lethe:error', message: say(err.message), input: err.input ?? null });
      return;
    }
    if (m.run) run();
  } else if (m.type === 'lethe:run') run();
  else if (m.type === 'lethe:cancel') controller?.abort();
  else if (m.type === 'lethe:hello') {
    if (readyInfo) post({ type: 'lethe:ready', version: readyInfo.version, analysis });
    if (lastHeight) post({ type: 'lethe:resize', height: lastHeight });
  }
});

// The content's height, whenever it changes (the frame's own height would not shrink back).
const app = document.getElementById('app');
let lastHeight = 0;
const reportHeight = () => {
  const height = Math.ceil(app.getBoundingClientRect().height);
  if (height === lastHeight) return;
  lastHeight = height;
  post({ type: 'lethe:resize', height });
};
if (typeof ResizeObserver === 'function') new ResizeObserver(reportHeight).observe(app);
else window.addEventListener('load', reportHeight);

let readyInfo = null;
widget.ready.then(
  (info) => post({ type: 'lethe:ready', version: (readyInfo = info).version, analysis }),
  (e) => post({ type: 'lethe:error', message: say(e.message), input: null }),
);
