export default {
  title: 'Lethe in VitePress',
  base: '/sub/vp/',
  // Not for the package: for the copy of Lethe's whole site in public/lethe/ (its stand-alone page, linked from the
  // home page). VitePress makes a page of every .md under the source directory, public/ included: Lethe's own docs.
  srcExclude: ['public/lethe/**'],
  // Vue must leave <lethe-eval> to the browser: without this it renders nothing on the server and the page's
  // hydration fails (a mismatch in the console).
  vue: { template: { compilerOptions: { isCustomElement: (tag) => tag === 'lethe-eval' } } },
  themeConfig: { nav: [{ text: 'Home', link: '/' }, { text: 'Analysis', link: '/analysis' }] },
};
