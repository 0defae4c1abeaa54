//! `lethe`: Lethe's statistics on files, for pipelines and benchmarks. See docs/cli.md.

mod commands;
mod reference;
mod report;

use std::fmt;
use std::path::Path;
use std::process::ExitCode;

use clap::Parser;

/// An error with the file it concerns (the path goes last in the message). A usage error (a malformed argument,
/// options that do not go together) exits with status 2, as clap's own; everything else with 1.
#[derive(Debug)]
pub struct CliError {
    message: String,
    usage: bool,
}

impl CliError {
    pub fn msg(m: impl Into<String>) -> Self {
        Self {
            message: m.into(),
            usage: false,
        }
    }
    /// A usage error: exit status 2.
    pub fn usage(m: impl Into<String>) -> Self {
        Self {
            message: m.into(),
            usage: true,
        }
    }
    pub fn io(path: &Path, e: &std::io::Error) -> Self {
        let shown = path.display().to_string();
        Self::msg(lethe::data::DataError::io(&shown, "cannot read the file", e).to_string())
    }
    /// A core error about the input given as `role`, read from `path`, with the fix in the command line's terms
    /// where the core's message leaves the way to choose to its caller.
    pub fn input(role: &str, path: &Path, e: lethe::Error) -> Self {
        use lethe::data::DataError;
        let mut msg = e.to_string();
        let shown = path.display().to_string();
        match &e {
            lethe::Error::Data(DataError::Ambiguous { available, .. }) => {
                let first = available.split('`').nth(1).unwrap_or("NAME");
                msg.push_str(&format!(": pass PATH#NAME, e.g. `{shown}#{first}`"));
            }
            lethe::Error::Data(DataError::TooLarge { .. }) => {
                msg.push_str(" (pass a row subset: PATH@a..b, PATH@i,j,k or PATH@index_file)");
            }
            _ => {}
        }
        if msg.contains(&shown) {
            Self::msg(format!("{role}: {msg}"))
        } else {
            Self::msg(format!("{role}: {msg} (file: {shown})"))
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<lethe::Error> for CliError {
    fn from(e: lethe::Error) -> Self {
        Self::msg(e.to_string())
    }
}

/// Keeps freed memory in the process. Every subset allocates and frees its kernels (a few MB); glibc's malloc
/// serves blocks over 128 KiB with fresh mmaps and gives them back on free, so each subset paid ~1300 page
/// faults: 14% of the Table 9 job's time (BENCHMARKS.md; 1.12 → 0.95 s). With the mmap threshold above any kernel
/// and the trim threshold above it, freed kernels are reused instead.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed_memory() {
    // SAFETY: mallopt only changes glibc's allocator parameters; called before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
    }
}

/// What to say when an argument is not valid UTF-8 where clap needs text (an option's value, or a file argument of
/// a command that takes its files as text): which argument, and the fix. File arguments of every command may have
/// such names.
fn not_utf8(args: impl Iterator<Item = std::ffi::OsString>) -> String {
    let args: Vec<std::ffi::OsString> = args.collect();
    let Some(k) = args.iter().position(|a| a.to_str().is_none()) else {
        return "an argument is not valid UTF-8; rename the file it names, or link it under a UTF-8 name \
                (ln -s OLD NEW)"
            .into();
    };
    let shown = args[k].to_string_lossy();
    let after = k
        .checked_sub(1)
        .and_then(|i| args[i].to_str())
        .filter(|a| a.starts_with('-'))
        .map_or(String::new(), |opt| format!(" (the value of {opt})"));
    format!(
        "argument `{shown}`{after} is not valid UTF-8 (shown with � for the bytes that are not), and this argument \
         must be text: retype it in UTF-8 (an option's value is a word or a number; file arguments of every command \
         may have any name the system allows)"
    )
}

fn main() -> ExitCode {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    keep_freed_memory();
    let cli = match commands::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.kind() == clap::error::ErrorKind::InvalidUtf8 => {
            eprintln!("lethe: error: {}", not_utf8(std::env::args_os().skip(1)));
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // The layer's marked options and commands, as the command line says them (`--equal-size`).
            eprintln!("lethe: error: {}", lethe_analysis::words::cli(&e.to_string()));
            if e.usage { ExitCode::from(2) } else { ExitCode::FAILURE }
        }
    }
}
