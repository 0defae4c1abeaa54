// Loads <lethe-eval> through the bundler (imported on the server too: the module does no work at import) and tells
// it where Lethe's files are: static/lethe/, under the site's baseUrl. The modules come from a package
// (node_modules/lethe-widget: Lethe's src/ directory), which Docusaurus bundles without transpiling.
import siteConfig from '@generated/docusaurus.config';
import { setBasePath } from 'lethe-widget/src/lethe-eval.js';

setBasePath(`${siteConfig.baseUrl}lethe/`);
