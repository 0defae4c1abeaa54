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
//!
//! The marks hold no `"` or `\`, so a report's JSON carries them unescaped and a front end may render a whole
//! serialized report at once. The page's renderer (`www/src/panels/common.js`, `say`) reads the same marks.

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

/// What a mark names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark<'a> {
    /// An option (the request's field name) and, when the message says what to set it to, the value.
    Opt { name: &'a str, value: Option<&'a str> },
    /// An analysis, by its name.
    Cmd(&'a str),
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
        let names = render(&text, |m| format!("<{m:?}>"));
        assert!(names.contains("<Opt { name: \"fdr\", value: None }>") && names.contains("<Cmd(\"eps-lower\")>"));
    }

    #[test]
    fn text_without_marks_is_kept() {
        for t in [
            "log(Σ_{j≠y} p_j)",
            "a {b} {opt:} {opt:X} {cmd:} {opt:a=} {",
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
