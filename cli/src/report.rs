//! The JSON report every command can print (`--json`); schema in docs/cli.md.

use serde::Serialize;

use crate::CliError;
use crate::input::InputRecord;

/// The envelope around a command's result.
#[derive(Serialize)]
pub struct Report<P: Serialize, R: Serialize> {
    pub lethe_version: &'static str,
    pub command: &'static str,
    pub parameters: P,
    /// The seed of every random choice (shuffles, splits, subset draws); null for deterministic commands.
    pub seed: Option<u64>,
    pub inputs: Vec<InputRecord>,
    pub result: R,
}

impl<P: Serialize, R: Serialize> Report<P, R> {
    pub fn new(command: &'static str, parameters: P, seed: Option<u64>, inputs: Vec<InputRecord>, result: R) -> Self {
        Self {
            lethe_version: env!("CARGO_PKG_VERSION"),
            command,
            parameters,
            seed,
            inputs,
            result,
        }
    }

    /// Prints the JSON report, or the human summary built by `human`.
    pub fn emit(&self, json: bool, human: impl FnOnce(&R) -> String) -> Result<(), CliError> {
        if json {
            let s = serde_json::to_string_pretty(self).map_err(|e| CliError::msg(format!("writing JSON: {e}")))?;
            println!("{s}");
        } else {
            print!("{}", human(&self.result));
            for i in &self.inputs {
                println!(
                    "  input {:<18} {} ({} rows; sha256 {}…)",
                    i.role,
                    i.spec,
                    i.rows_used,
                    &i.sha256[..12]
                );
            }
        }
        Ok(())
    }
}

/// A number for humans: 6 significant digits, scientific when tiny or huge.
pub fn fmt_num(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else if v != 0.0 && (v.abs() < 1e-4 || v.abs() >= 1e6) {
        format!("{v:.4e}")
    } else {
        format!("{v:.6}")
    }
}
