// The stand-alone page: the full widget, opening on the built-in example (`?example=0` opens empty).
import { create } from './widget.js';

const app = document.getElementById('app');
const q = new URLSearchParams(location.search);
const example = q.get('example') !== '0';
// ?workers=N: workers of a pooled multi-target SDE run (default min(hardwareConcurrency, 4)).
const workers = Number(q.get('workers')) || undefined;
window.lethe = create(app, { example, workers });
