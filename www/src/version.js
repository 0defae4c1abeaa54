// Lethe's version, as `lethe --version`, lethe.__version__ and every report's `lethe_version` give it: a copy of the
// workspace version in Cargo.toml, the one place it is set (tools/version.sh prints it, `--set` writes every copy,
// `--check` and cli/tests/report_schema.rs fail when this line differs). <lethe-eval> exposes it as `version` before
// its wasm module loads; tests/browser/version.test.mjs checks it equals the module's own.
export const VERSION = '0.1.0';
