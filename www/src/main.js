// The stand-alone page: the full widget, opening on the built-in example (`?example=0` opens empty). Links from the
// teaching page (teach.html) add `teach=<topic>` and that topic's parameters: the panel opens on the topic's data.
import { create } from './widget.js';

const app = document.getElementById('app');
const params = new URLSearchParams(location.search);
const example = params.get('example') !== '0';
// ?workers=N: workers of a pooled multi-target SDE run (default min(hardwareConcurrency, 4)).
const workers = Number(params.get('workers')) || undefined;
window.lethe = create(app, { example, workers });
// Tools' files (issue 14): a dropped file's membership-audit offer fills the Membership audit panel and runs there
// (the panel's options, its plot, its export); other offers run in the worker and show their headline on the card.
window.lethe.store.onOffer = async (offer, request) => {
  if (offer.analysis !== 'mia') return undefined;
  await window.lethe.panelsReady();
  const panel = window.lethe.panels.mia;
  if (!panel?.runInputs) return undefined;
  const out = await panel.runInputs(request);
  panel.el.scrollIntoView?.({ block: 'start' });
  return out;
};
if (params.get('teach')) {
  import('./teach/handoff.js').then((m) => m.handoff(window.lethe, params));
} else if (location.hash) {
  // The panels exist only now: go to the one the link names.
  document.getElementById(location.hash.slice(1))?.scrollIntoView();
}
