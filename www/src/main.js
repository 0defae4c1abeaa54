// The stand-alone page: the full widget, opening on the built-in example (`?example=0` opens empty).
import { create } from './widget.js';

const app = document.getElementById('app');
const example = new URLSearchParams(location.search).get('example') !== '0';
window.lethe = create(app, { example });
