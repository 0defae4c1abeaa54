//! How the CLI prints the analysis layer's reports (`--json`: the report itself; schema in docs/cli.md) and errors.

use serde::Serialize;

use crate::CliError;
use lethe_analysis::report::InputRecord;
use lethe_analysis::words;

/// A number for humans: the analysis layer's one formatter (4 significant digits, scientific when tiny or huge), so
/// the human output reads as the headlines do.
pub use lethe_analysis::report::num as fmt_num;

/// An option's value as the command line and the report's JSON write it (`two-sided`, `asymptotic`), for the human
/// output: the name it serializes to, not the code's.
pub fn word<T: Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(other) => other.to_string(),
        Err(_) => String::new(),
    }
}

/// Prints a report of the analysis layer: the JSON report (`--json`), or the headline first, then the numbers
/// `human` writes, then the inputs. Warnings go to stderr either way, each with its code, the input and file it
/// concerns, and the fix — in the shape of rustc's diagnostics:
///
/// ```text
/// warning[unequal_subset_sizes]: the subsets have 359, 150 and 60 rows …
///   --> in_training: retain.npy
///   = help: …
/// ```
pub fn emit_report<P: Serialize, R: Serialize>(
    report: &lethe_analysis::Report<P, R>,
    json: bool,
    human: impl FnOnce(&R) -> String,
) -> Result<(), CliError> {
    eprint!("{}", words::cli(&warnings_text(&report.warnings, &report.inputs)));
    let text = if json {
        let mut s = serde_json::to_string_pretty(report).map_err(|e| CliError::msg(format!("writing JSON: {e}")))?;
        s.push('\n');
        s
    } else {
        let h = &report.headline;
        let mut s = format!("{}\n", h.text);
        if let Some(reason) = &h.reason {
            s.push_str(&format!("  because: {reason}\n"));
        }
        s.push('\n');
        s.push_str(&human(&report.result));
        for i in &report.inputs {
            s.push_str(&format!(
                "  input {:<18} {} ({} {}; sha256 {}…)\n",
                i.role,
                i.spec,
                i.rows_used,
                if i.rows_used == 1 { "row" } else { "rows" },
                i.sha256.get(..12).unwrap_or(&i.sha256)
            ));
        }
        s
    };
    write_stdout(&text)
}

/// Writes to stdout, the layer's marked options and commands said as the command line says them (`--equal-size`,
/// `` `lethe calibrate` ``: `words::cli`). A reader that has gone (`lethe … | head -1`) ends the output quietly, as for any pipeline
/// tool; other write errors are errors.
fn write_stdout(text: &str) -> Result<(), CliError> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    match out.write_all(words::cli(text).as_bytes()).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::msg(format!("writing the output: {e}"))),
        _ => Ok(()),
    }
}

/// The warnings of a report as stderr lines (empty when there are none); the file of each warning's input is
/// looked up in `inputs` by role.
pub fn warnings_text(warnings: &[lethe_analysis::Warning], inputs: &[InputRecord]) -> String {
    let mut s = String::new();
    for w in warnings {
        s.push_str(&format!("warning[{}]: {}\n", w.code, w.message));
        if let Some(role) = &w.input {
            match inputs.iter().find(|i| &i.role == role) {
                Some(i) => s.push_str(&format!("  --> {role}: {}\n", i.path)),
                None => s.push_str(&format!("  --> {role}\n")),
            }
        }
        if let Some(fix) = &w.fix {
            s.push_str(&format!("  = help: {fix}\n"));
        }
    }
    s
}

/// An error of the analysis layer as the CLI reports it: the role it concerns and, when the request named a file
/// for that role (`files`: role → path as given), the file; a malformed request is a usage error (exit 2).
pub fn layer_error(e: lethe_analysis::Error, files: &[(&str, &str)]) -> CliError {
    let mut msg = e.message;
    if let Some(role) = &e.input {
        let base = role.split('[').next().unwrap_or(role);
        let file = files.iter().find(|(r, _)| *r == role || *r == base).map(|(_, p)| *p);
        // How to choose, in the command line's terms (the readers leave that to the front end).
        if let Some(p) = file {
            if let Some(choices) = msg.split_once(" holds several ").map(|(_, rest)| rest) {
                let first = choices.split('`').nth(1).unwrap_or("NAME");
                msg.push_str(&format!(": pass PATH#NAME, e.g. `{p}#{first}`"));
            } else if msg.contains(", more than the limit of ") {
                msg.push_str(" (pass a row subset: PATH@a..b, PATH@i,j,k or PATH@index_file)");
            }
        }
        if !msg.starts_with(role.as_str()) {
            msg = format!("{role}: {msg}");
        }
        if let Some(p) = file
            && !msg.contains(p)
        {
            msg = format!("{msg} (file: {p})");
        }
    }
    if let Some(code) = &e.code {
        msg = format!("[{code}] {msg}");
    }
    if e.usage {
        CliError::usage(msg)
    } else {
        CliError::msg(msg)
    }
}
