// Starting a module worker, also from another origin (engine.js, worker.js). No work at import time.

/**
 * A module worker running `url`. Browsers only start workers from the page's own origin, so when the widget's files
 * are served from elsewhere (a page embedding <lethe-eval> from another host) the worker is a same-origin blob that
 * imports the real one (the host serving the widget must send CORS headers, as GitHub Pages does; the page's CSP
 * then needs `worker-src blob:`). Used by the page for its worker and by that worker for its pool (worker.js).
 */
export function spawnWorker(url) {
  // A data: URL (lethe.html) carries its own code.
  if (typeof location === 'undefined' || url.origin === location.origin || url.protocol === 'data:') return new Worker(url, { type: 'module' });
  // A dynamic import (a static one is refused under a page CSP in Chromium's blob workers); messages arriving before
  // the real worker has set its handler are queued and replayed.
  const src = `const q = []; self.onmessage = (e) => q.push(e);
import(${JSON.stringify(url.href)}).then(
  () => { for (const e of q) self.onmessage(e); },
  (err) => { for (const e of q) postMessage({ id: e.data.id, type: 'error', message: 'the widget worker could not be loaded from ' + ${JSON.stringify(url.origin)} + ': ' + err }); },
);`;
  const boot = new Blob([src], { type: 'text/javascript' });
  return new Worker(URL.createObjectURL(boot), { type: 'module' });
}
