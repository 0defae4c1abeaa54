// teach.html: every teaching topic on one page, with a table of contents. Everything computes in this tab's worker.
import { engine } from '../engine.js';
import { createTeach, TOPICS } from './index.js';

const app = document.getElementById('teach');
const nav = document.getElementById('teach-toc');
if (nav) {
  for (const [id, title] of TOPICS) {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `#lethe-teach-${id}`;
    a.textContent = title;
    li.append(a);
    nav.append(li);
  }
}
const teach = createTeach(app, {});
// For tests and curious readers: the topics and the page's engine (window.letheTeach.engine.request('teach', …)).
window.letheTeach = { ...teach, engine: engine() };
teach.ready.then(() => {
  document.body.dataset.ready = 'true';
  // The page was opened on a topic's anchor before the topics existed: go there now.
  if (location.hash) document.getElementById(location.hash.slice(1))?.scrollIntoView();
});
