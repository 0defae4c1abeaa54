// The docs site's link check (./build.sh docs runs it after the build; no download, no network): in every HTML page
// MkDocs wrote, every href and src inside the site resolves to a file of the built site, every #anchor to an id (or
// name) in the page it points to, and nothing climbs above the site's sub-path (what breaks under GitHub Pages'
// https://OWNER.github.io/REPO/). Links to other sites are counted, not fetched; a src= outside the site fails (the
// site makes no request elsewhere). The widget's own pages under lethe/ are targets, not checked themselves.
//
//   node tools/docs/linkcheck.mjs target/docs-site /lethe/
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const [dir, basePath = '/'] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node tools/docs/linkcheck.mjs SITE_DIR [BASE_PATH]');
  process.exit(2);
}
const SITE = path.resolve(dir);
const ORIGIN = 'http://docs.invalid';
const BASE = basePath.endsWith('/') ? basePath : `${basePath}/`;

const walk = (d) => readdirSync(d).flatMap((f) => (statSync(path.join(d, f)).isDirectory() ? walk(path.join(d, f)) : [path.join(d, f)]));
const pages = walk(SITE).filter((f) => f.endsWith('.html') && !path.relative(SITE, f).startsWith(`lethe${path.sep}`));

const decode = (s) => s.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
const ids = new Map();
function idsOf(file) {
  if (!ids.has(file)) {
    const html = readFileSync(file, 'utf8');
    ids.set(file, new Set([...html.matchAll(/\s(?:id|name)="([^"]*)"/g)].map((m) => decode(m[1]))));
  }
  return ids.get(file);
}

/** The file a URL path of the site is served from, or null. */
function fileOf(urlPath) {
  const rel = decodeURIComponent(urlPath.slice(BASE.length));
  let f = path.join(SITE, rel);
  if (urlPath.endsWith('/') || (existsSync(f) && statSync(f).isDirectory())) f = path.join(f, 'index.html');
  return existsSync(f) ? f : null;
}

const broken = [];
let internal = 0;
let external = 0;
let anchors = 0;
for (const page of pages) {
  const rel = path.relative(SITE, page).split(path.sep).join('/');
  const pageUrl = new URL(BASE + rel, ORIGIN);
  const html = readFileSync(page, 'utf8')
    // Code blocks quote HTML (<lethe-eval>, <script src=…>) as text: their attributes are not links.
    .replace(/<code[\s\S]*?<\/code>/g, '');
  for (const m of html.matchAll(/<(\w+)\b[^>]*?\s(href|src)="([^"]*)"/g)) {
    const [, tag, attr, raw] = m;
    const ref = decode(raw);
    if (/^(mailto|data|blob|javascript):/i.test(ref)) continue;
    const url = new URL(ref, pageUrl);
    if (url.origin !== ORIGIN) {
      // The canonical link and links to other sites are fine; something the page would load from elsewhere is not.
      if (attr === 'src' || (tag === 'link' && !/rel="(canonical|alternate)"/.test(m[0]))) broken.push(`${rel}: <${tag} ${attr}="${ref}"> loads from outside the site`);
      else external++;
      continue;
    }
    if (!url.pathname.startsWith(BASE)) {
      broken.push(`${rel}: ${attr}="${ref}" leaves the site's sub-path ${BASE}`);
      continue;
    }
    internal++;
    const target = fileOf(url.pathname);
    if (!target) {
      broken.push(`${rel}: ${attr}="${ref}" → ${url.pathname}: no such file`);
      continue;
    }
    if (url.hash.length > 1 && target.endsWith('.html')) {
      anchors++;
      if (!idsOf(target).has(decodeURIComponent(url.hash.slice(1)))) broken.push(`${rel}: ${attr}="${ref}": no id ${url.hash} in ${path.relative(SITE, target)}`);
    }
  }
}
console.log(`link check: ${pages.length} pages, ${internal} links inside the site (${anchors} with an anchor), ${external} to other sites; ${broken.length} broken`);
for (const b of broken.slice(0, 40)) console.log(`  ${b}`);
process.exit(broken.length ? 1 : 0);
