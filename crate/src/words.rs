//! Options and commands named in messages, neutral at the source: each front end says them in its own words.
//!
//! A message that asks a person to set an option or run another analysis names it here, once, by the request's
//! field name (`equal_size`, `fdr`) or the analysis's name (`calibrate`): [`opt`], [`opt_is`] and [`cmd`] write a
//! small mark into the text (`{opt:equal_size=true}`, `{cmd:calibrate}`), and each front end renders the marks with
//! its own naming function through [`render`]:
//!
//! | mark                      | [`cli`]                     | [`python`]                  | the page (`say`, common.js) |
//! |---------------------------|-----------------------------|-----------------------------|-----------------------------|
//! | `{opt:fdr}`               | `--fdr`                     | `fdr=`                      | “FDR level (across runs)”   |
//! | `{opt:equal_size=true}`   | `--equal-size`              | `equal_size=True`           | “Equal-size subsets”        |
//! | `{opt:sd_method=lp}`      | `--sd-method lp`            | `sd_method="lp"`            | “SD bound”: lp              |
//! | `{opt:backend=webgpu}`    | `--backend gpu`             | `backend="webgpu"`          | “Backend”: webgpu           |
//! | `{cmd:calibrate}`         | `` `lethe calibrate` ``     | `` `lethe.calibrate(…)` ``  | the calibrated verdict      |
//! | `{role:in_training}`      | `in_training`               | `in_training`               | “In-training reference”     |
//! | `{role:target[0]}`        | `target[0]`                 | `target[0]`                 | “Target set[0]”             |
//! | `{pick:one-column}`       | pick the column with `#columns=NAME` (CSV/TSV) or the tensor with `#NAME` | (as the CLI) | the slot's column and rows controls |
//! | `{pick:all-columns=t.csv}`| on the command line: `` `t.csv#columns=all` `` | (as the CLI)     | choose “columns: all” under the input |
//! | `{pick:rows=SCORES@f.txt}`| `SCORES@f.txt`              | (as the CLI)                | the rows in f.txt (“rows” under the input) |
//! | `{pick:same-rows}`        | ` (or select the same rows of each with PATH@ROWS)` | (as the CLI) | nothing (no row choice there) |
//!
//! A role mark ([`role`]) names an input as the request does; the CLI and Python name inputs so (`--in-training`'s
//! role, `in_training=`), the page by its slot's label. Only what is marked is a role: a compare method or an array
//! that happens to be called `retain` or `target` stays as it is.
//!
//! The marks hold no `"` or `\`, so a report's JSON carries them unescaped and a front end may render a whole
//! serialized report at once: the page's downloads are rendered so, by [`cli`] in the wasm module (`words`). The page's
//! renderer of what it shows (`www/src/panels/common.js`, `say`) reads the same marks.

/// The mark of an option, by its request field name (`equal_size`): "the option itself".
pub fn opt(name: &str) -> String {
    format!("{{opt:{name}}}")
}

/// The mark of an option set to a value (`sd_method`, `lp`); a switch is set with `"true"`.
pub fn opt_is(name: &str, value: &str) -> String {
    format!("{{opt:{name}={value}}}")
}

/// The mark of another analysis, by its name (`calibrate`, `eps-lower`).
pub fn cmd(name: &str) -> String {
    format!("{{cmd:{name}}}")
}

/// The mark of an input, by its role as the request names it (`in_training`), with `[k]` for the k-th of a list
/// (`target[0]`). A name a mark cannot hold (a caller's own subset name, `my set`) is written as it is.
pub fn role(name: &str) -> String {
    let mark = format!("{{role:{name}}}");
    if matches!(next_mark(&mark), Some((0, end, Mark::Role(_))) if end == mark.len()) {
        mark
    } else {
        name.to_string()
    }
}

/// The mark of a choice within an input file ([`PICKS`]: which columns, arrays or rows to read), which each front end
/// says as its own controls; `value` is the file or row spec it names, if any. A value a mark cannot hold (a path with
/// `{` or `}`) is written as the command line says it.
pub fn pick(what: &str, value: Option<&str>) -> String {
    let mark = match value {
        Some(v) => format!("{{pick:{what}={v}}}"),
        None => format!("{{pick:{what}}}"),
    };
    if matches!(next_mark(&mark), Some((0, end, Mark::Pick { .. })) if end == mark.len()) {
        mark
    } else {
        pick_cli(what, value).unwrap_or(mark)
    }
}

/// The choices [`pick`] names, and what the command line (and Python, which reads the same file specs) says for each.
pub const PICKS: [&str; 4] = ["one-column", "all-columns", "rows", "same-rows"];

/// A [`pick`] mark as the command line says it.
fn pick_cli(what: &str, value: Option<&str>) -> Option<String> {
    Some(match (what, value) {
        ("one-column", None) => "pick the column with `#columns=NAME` (CSV/TSV) or the tensor with `#NAME`".to_string(),
        ("all-columns", Some(path)) => format!("on the command line: `{path}#columns=all`"),
        ("rows", Some(spec)) => spec.to_string(),
        ("same-rows", None) => " (or select the same rows of each with PATH@ROWS)".to_string(),
        _ => return None,
    })
}

/// What a mark names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark<'a> {
    /// An option (the request's field name) and, when the message says what to set it to, the value.
    Opt { name: &'a str, value: Option<&'a str> },
    /// An analysis, by its name.
    Cmd(&'a str),
    /// An input, by its role (`target[0]`: the first of a list).
    Role(&'a str),
    /// A choice within an input file ([`pick`]).
    Pick { what: &'a str, value: Option<&'a str> },
}

/// The first mark in `text`: its byte range and what it names.
fn next_mark(text: &str) -> Option<(usize, usize, Mark<'_>)> {
    let mut from = 0;
    while let Some(k) = text[from..].find('{').map(|k| k + from) {
        let rest = &text[k + 1..];
        let body_end = rest.find('}');
        if let Some(end) = body_end {
            let body = &rest[..end];
            let name_ok = |s: &str| {
                !s.is_empty()
                    && s.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
            };
            let mark = if let Some(o) = body.strip_prefix("opt:") {
                let (name, value) = match o.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (o, None),
                };
                (name_ok(name) && !value.is_some_and(|v| v.is_empty() || v.contains('{')))
                    .then_some(Mark::Opt { name, value })
            } else if let Some(r) = body.strip_prefix("role:") {
                // `name` or `name[k]`.
                let (name, index) = r.split_once('[').unwrap_or((r, ""));
                let index_ok = index.is_empty()
                    || index
                        .strip_suffix(']')
                        .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()));
                (name_ok(name) && index_ok).then_some(Mark::Role(r))
            } else if let Some(p) = body.strip_prefix("pick:") {
                let (what, value) = match p.split_once('=') {
                    Some((w, v)) => (w, Some(v)),
                    None => (p, None),
                };
                pick_cli(what, value).is_some().then_some(Mark::Pick { what, value })
            } else {
                body.strip_prefix("cmd:").filter(|c| name_ok(c)).map(Mark::Cmd)
            };
            if let Some(m) = mark {
                return Some((k, k + 1 + end + 1, m));
            }
        }
        from = k + 1;
    }
    None
}

/// `text` with every mark replaced by `say(mark)`; the rest is kept as it is.
pub fn render(text: &str, mut say: impl FnMut(Mark<'_>) -> String) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some((start, end, mark)) = next_mark(rest) {
        out.push_str(&rest[..start]);
        out.push_str(&say(mark));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// The marks as the command line says them: `--equal-size`, `--sd-method lp`, `` `lethe calibrate` ``.
pub fn cli(text: &str) -> String {
    render(text, |m| match m {
        Mark::Opt { name, value } => {
            let flag = format!("--{}", name.replace('_', "-"));
            match value {
                None | Some("true") => flag,
                // The command line's name of the wgpu backend (the page's WebGPU): `--backend gpu`.
                Some("webgpu") if name == "backend" => format!("{flag} gpu"),
                Some(v) => format!("{flag} {v}"),
            }
        }
        Mark::Cmd(c) => format!("`lethe {c}`"),
        Mark::Role(r) => r.to_string(),
        Mark::Pick { what, value } => pick_cli(what, value).unwrap_or_default(),
    })
}

/// The marks as a Python user writes them: `fdr=`, `equal_size=True`, `sd_method="lp"`, `` `lethe.calibrate(…)` ``.
pub fn python(text: &str) -> String {
    render(text, |m| match m {
        Mark::Opt { name, value } => {
            let name = name.replace('-', "_");
            match value {
                None => format!("{name}="),
                Some("true") => format!("{name}=True"),
                Some("false") => format!("{name}=False"),
                Some(v) if v.parse::<f64>().is_ok_and(f64::is_finite) => format!("{name}={v}"),
                Some(v) => format!("{name}=\"{v}\""),
            }
        }
        Mark::Cmd(c) => format!("`lethe.{}(…)`", c.replace('-', "_")),
        Mark::Role(r) => r.to_string(),
        Mark::Pick { what, value } => pick_cli(what, value).unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_front_end_names_an_option_its_own_way() {
        let text = format!(
            "ask for equal-size subsets (`{}`), lower {} or use {}, or {}",
            opt_is("equal_size", "true"),
            opt("fdr"),
            opt_is("sd_method", "lp"),
            cmd("eps-lower")
        );
        assert_eq!(
            cli(&text),
            "ask for equal-size subsets (`--equal-size`), lower --fdr or use --sd-method lp, or `lethe eps-lower`"
        );
        assert_eq!(
            python(&text),
            "ask for equal-size subsets (`equal_size=True`), lower fdr= or use sd_method=\"lp\", or \
             `lethe.eps_lower(…)`"
        );
        assert_eq!(python(&opt_is("alpha", "0.05")), "alpha=0.05");
        // The command line calls the wgpu backend `gpu`.
        assert_eq!(cli(&opt_is("backend", "webgpu")), "--backend gpu");
        assert_eq!(cli(&opt_is("backend", "cpu")), "--backend cpu");
        // A role is named as the request names it, in both: the same words as before it was marked.
        let roles = format!("`{}` and {}", role("in_training"), role("target[1]"));
        assert_eq!(cli(&roles), "`in_training` and target[1]");
        assert_eq!(python(&roles), "`in_training` and target[1]");
        assert!(render(&roles, |m| format!("<{m:?}>")).contains("<Role(\"target[1]\")>"));
        assert_eq!(role("my set"), "my set");
        let names = render(&text, |m| format!("<{m:?}>"));
        assert!(names.contains("<Opt { name: \"fdr\", value: None }>") && names.contains("<Cmd(\"eps-lower\")>"));
    }

    #[test]
    fn a_choice_within_a_file_is_said_as_the_file_specs_say_it() {
        let text = format!(
            "load every column ({}); e.g. {}; one per row: {}. Export them{}",
            pick("all-columns", Some("d/t.csv")),
            pick("rows", Some("SCORES@forget.txt")),
            pick("one-column", None),
            pick("same-rows", None)
        );
        let said = "load every column (on the command line: `d/t.csv#columns=all`); e.g. SCORES@forget.txt; one per \
                    row: pick the column with `#columns=NAME` (CSV/TSV) or the tensor with `#NAME`. Export them (or \
                    select the same rows of each with PATH@ROWS)";
        assert_eq!(cli(&text), said);
        assert_eq!(python(&text), said);
        assert!(
            render(&text, |m| format!("<{m:?}>"))
                .contains("<Pick { what: \"rows\", value: Some(\"SCORES@forget.txt\") }>")
        );
        // A path a mark cannot hold is said as the command line says it, unmarked.
        assert_eq!(
            pick("all-columns", Some("a{1}.csv")),
            "on the command line: `a{1}.csv#columns=all`"
        );
        assert!(
            PICKS
                .iter()
                .all(|p| pick_cli(p, None).or_else(|| pick_cli(p, Some("x"))).is_some())
        );
    }

    #[test]
    fn text_without_marks_is_kept() {
        for t in [
            "log(Σ_{j≠y} p_j)",
            "a {b} {opt:} {opt:X} {cmd:} {opt:a=} {",
            "{role:} {role:a[]} {role:a[x]} {role:a[1} {role:A}",
            "{pick:} {pick:rows} {pick:one-column=x} {pick:nothing}",
            "a -- b, --5, x--y, `lethe` alone",
            "",
        ] {
            assert_eq!(cli(t), t);
            assert_eq!(python(t), t);
        }
        // A mark after text that only looks like one is still found.
        assert_eq!(cli("{x} {opt:refs}"), "{x} --refs");
    }
}
