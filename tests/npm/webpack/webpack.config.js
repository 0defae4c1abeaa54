import path from 'node:path';

// Nothing for Lethe: webpack 5 copies the files the package names with new URL(…, import.meta.url) into the
// output (asset modules) and writes their URLs.
export default {
  mode: 'production',
  entry: './src/index.js',
  output: { path: path.resolve('dist'), filename: 'app.js', clean: true },
};
