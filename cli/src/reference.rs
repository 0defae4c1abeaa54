//! `lethe reference` (hidden): the CLI reference in Markdown, walked from clap's own definition of every
//! subcommand (its about, usage, arguments and options with their help, defaults and possible values), so the docs
//! site's reference (`./build.sh docs`) cannot drift from the binary. cli/tests/reference.rs checks it against
//! `lethe --help` and every subcommand's `--help`.

use std::fmt::Write as _;

use clap::{Arg, ArgAction, Command};

/// Escapes text for Markdown: HTML's specials, and the characters that would start emphasis or a link. Backticks
/// are kept (the help texts quote commands and values in them).
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '*' | '_' | '[' | ']' | '\\' | '|' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A code span that holds any text (a fence longer than any run of backticks inside).
fn code(s: &str) -> String {
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// How an argument is written on the command line: `--name <VALUE>`, `-s, --name`, or `<NAME>` for a positional.
fn spelling(arg: &Arg) -> String {
    let takes_value = matches!(arg.get_action(), ArgAction::Set | ArgAction::Append);
    let value = arg
        .get_value_names()
        .map(|v| v.iter().map(|n| format!("<{n}>")).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| format!("<{}>", arg.get_id().as_str().to_uppercase()));
    if arg.is_positional() {
        let dots = if matches!(arg.get_action(), ArgAction::Append) {
            "..."
        } else {
            ""
        };
        return format!("{value}{dots}");
    }
    let mut names = Vec::new();
    if let Some(s) = arg.get_short() {
        names.push(format!("-{s}"));
    }
    if let Some(l) = arg.get_long() {
        names.push(format!("--{l}"));
    }
    let mut s = names.join(", ");
    if takes_value {
        s.push(' ');
        s.push_str(&value);
    }
    s
}

fn describe_arg(out: &mut String, arg: &Arg) {
    let help = arg
        .get_long_help()
        .or_else(|| arg.get_help())
        .map(|h| h.to_string())
        .unwrap_or_default();
    let mut notes = Vec::new();
    if arg.is_required_set() {
        notes.push("required".to_string());
    }
    let flag = matches!(
        arg.get_action(),
        ArgAction::SetTrue | ArgAction::SetFalse | ArgAction::Help | ArgAction::Version
    );
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .filter(|_| !flag)
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() {
        notes.push(format!(
            "default {}",
            defaults.iter().map(|d| code(d)).collect::<Vec<_>>().join(", ")
        ));
    }
    let possible: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|p| !p.is_hide_set())
        .map(|p| code(p.get_name()))
        .collect();
    if !possible.is_empty() && matches!(arg.get_action(), ArgAction::Set | ArgAction::Append) {
        notes.push(format!("one of {}", possible.join(", ")));
    }
    let aliases: Vec<String> = arg
        .get_visible_aliases()
        .unwrap_or_default()
        .iter()
        .map(|a| code(&format!("--{a}")))
        .collect();
    if !aliases.is_empty() {
        notes.push(format!("also {}", aliases.join(", ")));
    }
    let _ = write!(out, "- {}", code(&spelling(arg)));
    if !notes.is_empty() {
        let _ = write!(out, " ({})", notes.join("; "));
    }
    if !help.is_empty() {
        // One list item: continuation lines indented under it.
        let body = help.lines().map(text).collect::<Vec<_>>().join("\n  ");
        let _ = write!(out, ": {body}");
    }
    out.push('\n');
}

fn describe_command(out: &mut String, parent: &str, cmd: &mut Command) {
    let name = format!("{parent} {}", cmd.get_name());
    let _ = writeln!(out, "## {}\n", text(&name));
    if let Some(about) = cmd.get_long_about().or_else(|| cmd.get_about()) {
        let _ = writeln!(out, "{}\n", text(&about.to_string()));
    }
    let aliases: Vec<String> = cmd
        .get_visible_aliases()
        .map(|a| code(&format!("{parent} {a}")))
        .collect();
    if !aliases.is_empty() {
        let _ = writeln!(out, "Also spelt {}.\n", aliases.join(", "));
    }
    let usage = cmd.render_usage().to_string();
    let usage = usage.trim_start_matches("Usage:").trim();
    let _ = writeln!(out, "```text\n{usage}\n```\n");
    let args: Vec<&Arg> = cmd.get_arguments().filter(|a| !a.is_hide_set()).collect();
    let positionals: Vec<&&Arg> = args.iter().filter(|a| a.is_positional()).collect();
    let options: Vec<&&Arg> = args.iter().filter(|a| !a.is_positional()).collect();
    if !positionals.is_empty() {
        out.push_str("Arguments:\n\n");
        for a in positionals {
            describe_arg(out, a);
        }
        out.push('\n');
    }
    if !options.is_empty() {
        out.push_str("Options:\n\n");
        for a in options {
            describe_arg(out, a);
        }
        out.push('\n');
    }
}

/// The whole reference: the program's about and usage, then a section per visible subcommand, in `--help`'s order.
pub fn markdown(mut cli: Command) -> String {
    cli.build();
    let bin = cli.get_name().to_string();
    let mut out = String::new();
    let _ = writeln!(out, "# CLI reference\n");
    let _ = writeln!(
        out,
        "Generated from the `{bin}` binary's own definition of its commands (version {}) when the docs site is \
         built: every subcommand, and every option with its help, default and possible values. \
         [The CLI guide](cli.md) explains inputs, reports and exit status.\n",
        env!("CARGO_PKG_VERSION"),
    );
    if let Some(about) = cli.get_about() {
        let _ = writeln!(out, "{}\n", text(&about.to_string()));
    }
    if let Some(after) = cli.get_after_help() {
        let _ = writeln!(out, "{}\n", text(&after.to_string()));
    }
    let visible: Vec<String> = cli
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name().to_string())
        .collect();
    out.push_str("Options of the program itself:\n\n");
    for a in cli.get_arguments().filter(|a| !a.is_hide_set()) {
        describe_arg(&mut out, a);
    }
    out.push_str("\nCommands:\n\n");
    for name in &visible {
        let about = cli
            .find_subcommand(name)
            .and_then(|c| c.get_about())
            .map(|a| text(&a.to_string()))
            .unwrap_or_default();
        let _ = writeln!(out, "- [`{bin} {name}`](#{bin}-{name}): {about}");
    }
    out.push('\n');
    for name in &visible {
        if let Some(cmd) = cli.find_subcommand_mut(name) {
            describe_command(&mut out, &bin, cmd);
        }
    }
    out
}
