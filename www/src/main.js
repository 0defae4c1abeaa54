// The stand-alone page: the full widget, opening on the built-in example.
import { create } from './widget.js';

const app = document.getElementById('app');
window.lethe = create(app, { example: true });
