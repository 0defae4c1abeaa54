//! `lethe`: Lethe's statistics on files, for pipelines and benchmarks. See docs/cli.md.

mod commands;
mod input;
mod report;

use std::fmt;
use std::path::Path;
use std::process::ExitCode;

use clap::Parser;

/// An error with the file it concerns (the path goes last in the message).
#[derive(Debug)]
pub struct CliError(String);

impl CliError {
    pub fn msg(m: impl Into<String>) -> Self {
        Self(m.into())
    }
    pub fn io(path: &Path, e: &std::io::Error) -> Self {
        Self(format!("cannot read {}: {e}", path.display()))
    }
    /// A core error about the input given as `role`, read from `path`.
    pub fn input(role: &str, path: &Path, e: lethe::Error) -> Self {
        let msg = e.to_string();
        let shown = path.display().to_string();
        if msg.contains(&shown) {
            Self(format!("{role}: {msg}"))
        } else {
            Self(format!("{role}: {msg} (file: {shown})"))
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<lethe::Error> for CliError {
    fn from(e: lethe::Error) -> Self {
        Self(e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = commands::Cli::parse();
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lethe: error: {e}");
            ExitCode::FAILURE
        }
    }
}
