//! The one report of an analysis: the same value behind `lethe … --json`, the page's export and any later binding.
//!
//! Headline first, evidence beneath (STYLE.md §11): every report carries one [`Headline`] a person can act on —
//! "inconclusive" included, with the reason — then the [`Warning`]s the checks raised, then the numbers.

use serde::{Deserialize, Serialize};

pub use lethe::record::{FileDigest, InputRecord};

/// The envelope around an analysis's result.
#[derive(Clone, Debug, Serialize)]
pub struct Report<P: Serialize, R: Serialize> {
    pub lethe_version: &'static str,
    /// The analysis, named as the CLI's subcommand (`sde`, `calibrate`, `ruler`, `epsilon`, ...).
    pub command: &'static str,
    /// The request's options as run (inputs are in `inputs`).
    pub parameters: P,
    /// The seed of every random choice (shuffles, splits, subset draws); `None` for deterministic analyses.
    pub seed: Option<u64>,
    pub inputs: Vec<InputRecord>,
    /// The one call of this analysis.
    pub headline: Headline,
    /// What the checks found before (and while) computing: each with a stable code, the input it concerns, the fix.
    pub warnings: Vec<Warning>,
    /// The core's result, unchanged.
    pub result: R,
}

impl<P: Serialize, R: Serialize> Report<P, R> {
    /// A report of `command` with this crate's version.
    pub fn new(
        command: &'static str,
        parameters: P,
        seed: Option<u64>,
        inputs: Vec<InputRecord>,
        headline: Headline,
        warnings: Vec<Warning>,
        result: R,
    ) -> Self {
        Self {
            lethe_version: crate::VERSION,
            command,
            parameters,
            seed,
            inputs,
            headline,
            warnings,
            result,
        }
    }
}

/// The call of an analysis, in a person's words.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Headline {
    /// A stable code, per analysis (e.g. SDE's `in_training`, `out_of_training`, `inconclusive`); `inconclusive`
    /// means the same in every analysis: the data do not support a call, and `reason` says why.
    pub call: String,
    /// One sentence a person can act on.
    pub text: String,
    /// Why the call is `inconclusive`, or why the rules beneath it disagree.
    pub reason: Option<String>,
}

impl Headline {
    /// The code every analysis uses when its data support no call.
    pub const INCONCLUSIVE: &'static str = "inconclusive";

    pub fn new(call: &str, text: impl Into<String>) -> Self {
        Self {
            call: call.to_string(),
            text: text.into(),
            reason: None,
        }
    }

    /// "Inconclusive", with the reason.
    pub fn inconclusive(text: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            call: Self::INCONCLUSIVE.to_string(),
            text: text.into(),
            reason: Some(reason.into()),
        }
    }

    /// Whether the call is "inconclusive".
    pub fn is_inconclusive(&self) -> bool {
        self.call == Self::INCONCLUSIVE
    }
}

/// Something a person should know about a result before trusting it: a stable code (tests and bindings match on
/// it), the input it concerns (the request's role; the front end names the file), the problem, and the fix — in a
/// user's words, with no names from the code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    pub code: String,
    pub input: Option<String>,
    pub message: String,
    pub fix: Option<String>,
}

impl Warning {
    pub fn new(code: &str, input: Option<&str>, message: impl Into<String>, fix: Option<String>) -> Self {
        Self {
            code: code.to_string(),
            input: input.map(str::to_string),
            message: message.into(),
            fix,
        }
    }
}

/// A number as every headline, warning and the CLI's human output writes it: at most 4 significant digits, trailing
/// zeros dropped (`0.06813`, `1234`, `0.35`, `2`), in scientific notation when tiny or huge (`2.5e-23`, `1.235e6`);
/// `0` for zero, `NaN`, `inf` and `-inf`. Reports keep every digit: this is for people reading a sentence.
pub fn num(v: f64) -> String {
    if v.is_nan() {
        return "NaN".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if v == 0.0 {
        return "0".into();
    }
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    let a = v.abs();
    // 4 significant digits in fixed notation from 0.001 up to 99 995 (below which nothing rounds to 1e5).
    if (1e-3..99_995.0).contains(&a) {
        // 3 − floor(log10 |v|) decimals: 4 significant digits; a value that rounds up a decade (0.099996 → 0.1)
        // only shows one zero more, which is trimmed.
        #[allow(clippy::cast_possible_truncation)]
        let decimals = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
        return trim(&format!("{v:.decimals$}"));
    }
    let s = format!("{v:.3e}");
    match s.split_once('e') {
        Some((mantissa, exp)) => format!("{}e{exp}", trim(mantissa)),
        None => s,
    }
}

/// A report's columns of `lethe merge`'s table: its call, headline, reason and warning codes, then every number, text or
/// boolean of its `result` and `parameters` under its dotted path (`result.p_value`, `result.test.statistic`;
/// four levels deep at most; lists are left out: the reports hold them). `lethe compare` reads a Lethe report's
/// metrics by these names, so a report and its row of a `lethe merge` table give the same metrics.
pub fn report_columns(r: &serde_json::Value, m: &mut serde_json::Map<String, serde_json::Value>) {
    use serde_json::{Map, Value};
    let h = &r["headline"];
    m.insert("call".into(), h["call"].clone());
    m.insert("headline".into(), h["text"].clone());
    m.insert("reason".into(), h["reason"].clone());
    let codes: Vec<&str> = r["warnings"]
        .as_array()
        .map(|w| w.iter().filter_map(|w| w["code"].as_str()).collect())
        .unwrap_or_default();
    m.insert("warnings".into(), Value::from(codes.join(" ")));
    fn flat(prefix: &str, v: &Value, out: &mut Map<String, Value>, depth: usize) {
        match v {
            Value::Object(o) if depth < 4 => {
                for (k, v) in o {
                    flat(&format!("{prefix}.{k}"), v, out, depth + 1);
                }
            }
            Value::Number(_) | Value::String(_) | Value::Bool(_) => {
                out.insert(prefix.to_string(), v.clone());
            }
            _ => {}
        }
    }
    flat("parameters", &r["parameters"], m, 0);
    flat("result", &r["result"], m, 0);
}

#[cfg(test)]
mod tests {
    use super::num;

    #[test]
    fn numbers_read_with_four_significant_digits() {
        for (v, s) in [
            (0.068130, "0.06813"),
            (1.0, "1"),
            (0.35, "0.35"),
            (1234.5678, "1235"),
            (12.3456, "12.35"),
            (-0.5, "-0.5"),
            (0.001, "0.001"),
            (0.00099999, "1e-3"),
            (0.0001234, "1.234e-4"),
            (99_994.0, "99994"),
            (99_995.0, "1e5"),
            (1.5e6, "1.5e6"),
            (2.5e-23, "2.5e-23"),
            (0.0, "0"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
        ] {
            assert_eq!(num(v), s, "{v}");
        }
    }
}
