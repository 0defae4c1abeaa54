import DefaultTheme from 'vitepress/theme';

export default {
  extends: DefaultTheme,
  // In the browser only: the element's module needs no server, and the server-rendered page keeps the tag as it is.
  async enhanceApp() {
    if (!import.meta.env.SSR) await import('lethe-eval');
  },
};
