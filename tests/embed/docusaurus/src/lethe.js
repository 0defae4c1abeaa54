// Loads <lethe-eval> from the npm package (imported on the server too: the module does no work at import). Nothing
// else: Docusaurus's webpack copies the files the package names (worker, wasm, example data) into the build.
import 'lethe-eval';
