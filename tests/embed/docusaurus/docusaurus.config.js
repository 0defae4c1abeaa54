// A real Docusaurus 3 site (React 19, MDX, client-side navigation, server rendering at build time) embedding
// <lethe-eval> as docs/embedding.md says: the element's module is imported through the site's bundler (a client
// module), its assets are served from static/lethe/ (tests/embed/run.mjs copies Lethe's built site there), and the
// site lives under a sub-path (baseUrl).
export default {
  title: 'Lethe embedded in Docusaurus',
  url: 'http://127.0.0.1',
  baseUrl: process.env.LETHE_BASE_URL || '/sub/dz/',
  onBrokenLinks: 'throw',
  presets: [
    [
      'classic',
      {
        docs: { routeBasePath: '/', sidebarPath: false },
        blog: false,
        theme: { customCss: './src/lethe.css' },
      },
    ],
  ],
  clientModules: ['./src/lethe.js'],
};
