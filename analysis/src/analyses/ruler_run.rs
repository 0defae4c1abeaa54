//! RULER: representation-level metrics, with Wilcoxon + Benjamini–Hochberg across runs.
//!
//! Guardrails (each a stable code, a message in a user's words and the fix):
//! * `row_counts_differ` (refused): a run's oracle or original file holds a different number of rows than its
//!   unlearned file — the rows are records, compared across models row by row, so they cannot be aligned;
//! * `columns_differ` (refused): a run's oracle (or, with an oracle, original) file holds embeddings of another
//!   size than its unlearned file (another layer), naming both files and their shapes;
//! * `one_number_embeddings` (refused): a model file that is a 1-D array (or one column), which would be read as
//!   one-number embeddings whose cosine similarities are all ±1;
//! * `forget_retain_identical` and `forget_retain_overlap` (warned): forget and retain rows that are the same rows,
//!   or share some. With the same rows, m2 and m4 (which compare forget records with retained ones) are withheld
//!   with the reason, and m1 and m3 (forget records only) are computed, as the RULER authors' tests compute them;
//!   refused only when nothing could be computed (no oracle);
//! * `unlearned_is_original`, `unlearned_is_oracle`, `original_is_oracle` (warned): two models' files that are the
//!   same file, or hold the same values on the forget rows (m3 is then 0, or m1 1 and m2 0, by construction). With
//!   the unlearned model the original (or the oracle) in every run, a headline the truth rules out — no sign or
//!   over-correction of the original, memorisation or over-correction of the oracle — becomes inconclusive;
//! * `m4_cannot_detect` (warned): the positive control. With the original model, m4 is also computed with the
//!   original in the unlearned model's place; a model trained on the forget records that shows no sign of them
//!   (m4 not above its null band) means m4 cannot detect memorisation on this data, and m4's call on the unlearned
//!   model becomes inconclusive (the paper's pre-unlearning diagnostic, §6: an original near the null);
//! * `m4_null_does_not_hold` (warned): the negative control. With the oracle, m4 is also computed with the oracle
//!   in the unlearned model's place; a model that never saw the forget records outside m4's null band means the
//!   forget records are unlike the retain records on this data whatever a model remembers, and m4's call becomes
//!   inconclusive;
//! * `metric_not_tested` (warned): across runs, a metric with the same value in every run (m3 = 0 when every
//!   unlearned model is its original), or whose test cannot be computed, is not tested; the others still are.
//!
//! The headline: with one run, a call per metric against its null — m4 against its null 0.5 ± its null sd
//! (`1/sqrt(12 n_f)`), m2 and m3 reported with their sign but not tested (the paper tests them across seeds), m1
//! has no null; with several runs, the Wilcoxon + Benjamini–Hochberg decision of each metric. One overall call.

use super::*;
use crate::report::{Headline, Warning};
use crate::words;

/// One run of RULER: the unlearned model's embeddings and, optionally, the oracle's and the original's.
#[derive(Clone, Debug, Deserialize)]
pub struct RulerRun {
    pub unlearned: InputRef,
    #[serde(default)]
    pub oracle: Option<InputRef>,
    #[serde(default)]
    pub original: Option<InputRef>,
}

/// `lethe ruler`'s options. With the `clap` feature (the CLI's), the options are the subcommand's arguments: each is
/// declared here once.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct RulerRequest {
    #[cfg_attr(feature = "clap", arg(skip))]
    pub runs: Vec<RulerRun>,
    #[cfg_attr(feature = "clap", arg(skip = Rows::All))]
    pub forget: Rows,
    #[cfg_attr(feature = "clap", arg(skip = Rows::All))]
    pub retain: Rows,
    // `at-most` (default) or `half`.
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["at-most", "half"], default_value = "at-most"))]
    pub ties: String,
    /// FDR level of the Benjamini–Hochberg correction across metrics (several runs)
    #[cfg_attr(feature = "clap", arg(long, default_value_t = 0.05))]
    pub fdr: f64,
}

impl Default for RulerRequest {
    fn default() -> Self {
        Self {
            runs: Vec::new(),
            forget: Rows::All,
            retain: Rows::All,
            ties: "at-most".into(),
            fdr: 0.05,
        }
    }
}

/// The CLI's `RulerOutput`.
#[derive(Clone, Debug, Serialize)]
pub struct RulerResult {
    pub runs: Vec<RulerReport>,
    pub across_runs: Vec<ruler::MetricAcrossRuns>,
    /// The metrics the test across runs could not be applied to, with the reason (e.g. the same value in every
    /// run).
    pub not_tested: Vec<ruler::MetricNotTested>,
    /// The positive control of m4, per run given the original model: m4 with the original in the unlearned
    /// model's place.
    pub positive_controls: Vec<M4Control>,
    /// The negative control of m4, per run given the oracle: m4 with the oracle in the unlearned model's place
    /// (it never saw the forget records, so m4 should sit within its null band).
    pub negative_controls: Vec<M4Control>,
    pub warnings: Vec<String>,
}

/// m4 computed with another model in the unlearned model's place: the original (the positive control: it was
/// trained on the forget records, so m4 should find them) or the oracle (the negative control: it never saw them,
/// so m4 should sit within its null band).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct M4Control {
    /// The run (from 0).
    pub run: usize,
    /// That model's m4 on the same forget and retain rows.
    pub value: f64,
    pub null_sd: f64,
    /// The null band, the null ± 2 null sds.
    pub band: [f64; 2],
    /// `above_null`, `at_null` or `below_null`: against the null band; `inconclusive` when every nearest-neighbour
    /// similarity is tied (constant embeddings), where the rank reads nothing.
    pub call: &'static str,
}

/// The parameters `lethe ruler --json` reports (its arguments: model files as given, row sets as typed or the
/// index/split file's name).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RulerParameters {
    pub unlearned: Vec<String>,
    pub oracle: Vec<String>,
    pub original: Vec<String>,
    pub forget: String,
    pub retain: String,
    pub ties: String,
    pub fdr: f64,
}

/// The call on one metric against its null.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetricCall {
    /// `m1`…`m4`.
    pub metric: &'static str,
    /// The core's name of the metric (`calibration_gap`, ...).
    pub name: &'static str,
    /// `above_null`, `below_null`, `at_null` (the test finds no difference), `inconclusive` (no test possible, or
    /// no reading possible on this data), `withheld` (not computed: see the text), `no_null` (m1).
    pub call: &'static str,
    /// The call in words, with the numbers behind it.
    pub text: String,
    /// Why the metric gave no call, in a few words for the headline.
    #[serde(skip)]
    why: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct RulerOutput {
    pub result: RulerResult,
    pub parameters: RulerParameters,
    pub inputs: Vec<InputRecord>,
    /// The one call (see the module's docs).
    pub headline: Headline,
    /// Per metric (per run with one run; across runs with several).
    pub metric_calls: Vec<MetricCall>,
    pub warnings: Vec<Warning>,
    pub load_warnings: Vec<LoadWarning>,
    /// Per run: the forget records' nearest-neighbour percentile ranks in 10 bins over [0, 1].
    pub rank_histograms: Vec<Histograms>,
}

impl RulerOutput {
    /// The report `lethe ruler --json` prints and the page exports.
    pub fn report(&self) -> crate::Report<&RulerParameters, &RulerResult> {
        crate::Report::new(
            "ruler",
            &self.parameters,
            None,
            self.inputs.clone(),
            self.headline.clone(),
            self.warnings.clone(),
            &self.result,
        )
    }
}

pub(super) const RULER_ROLES: [&str; 5] = ["unlearned", "oracle", "original", "forget", "retain"];
/// The roles of RULER that hold a model's embeddings.
pub(super) const RULER_MODEL_ROLES: [&str; 3] = ["unlearned", "oracle", "original"];

/// How a report writes a row set given on its own: as typed, or the index or split file's name.
fn rows_text(ws: &Workspace, rows: &Rows) -> String {
    let name = |id: u32| ws.source(id).map(|s| s.name.clone()).unwrap_or_default();
    match rows {
        Rows::All => String::new(),
        Rows::Text { text } => text.clone(),
        Rows::File { source } => name(*source),
        Rows::Split { source, value } => format!("{}=={value}", name(*source)),
    }
}

/// A typed range past the end of the unlearned file is refused from its headers before it is expanded (so
/// `0..99999999999999` is an error, not an allocation), as the CLI did.
fn check_range(ws: &Workspace, role: &str, rows: &Rows, model: &InputRef) -> Result<()> {
    let Rows::Text { text } = rows else {
        return Ok(());
    };
    let Ok(crate::rows::TextRows::Range(a, b)) = crate::rows::parse_text(role, text) else {
        return Ok(());
    };
    if model.rows != Rows::All {
        return Ok(());
    }
    let Ok(src) = ws.source(model.source) else {
        return Ok(());
    };
    let Some(n) = lethe::data::inspect(&src.name, &*src.data)
        .ok()
        .and_then(|info| info.array(model.tensor.as_deref()).map(|a| a.rows))
    else {
        return Ok(()); // the load says what is wrong with the file
    };
    if b as u64 > n {
        return Err(Error::at(
            role,
            format!(
                "rows {a}..{b} are out of range for `{}`, which has {n} rows ({}); pass a range within them",
                src.name,
                lethe::error::index_span(n)
            ),
        ));
    }
    Ok(())
}

/// Refuses a model file that holds one number per record (a 1-D array, or one column).
fn check_embeddings(role: &str, inp: &Input) -> Result<()> {
    let shape = &inp.record.shape;
    if shape.len() == 1 || inp.matrix.cols() == 1 {
        let what = if shape.len() == 1 {
            format!("a 1-D array of {} numbers", inp.matrix.rows())
        } else {
            format!("{} rows of one number each", inp.matrix.rows())
        };
        return Err(Error::refused(
            "one_number_embeddings",
            Some(role),
            format!(
                "`{}` is {what}: RULER compares embeddings (one row of features per record), and would read each \
                 number as a one-number embedding, whose cosine similarities are all +1 or −1. Give the model's \
                 penultimate-layer activations, records × features (e.g. numpy.save of an array of shape (n, d))",
                inp.record.path
            ),
        ));
    }
    Ok(())
}

/// Forget and retain rows that share some rows (a warning, with how many) or are the same rows: then m2 and m4,
/// which compare forget records with retained ones, are withheld (a warning), and m1 and m3, which use the forget
/// records only, are computed; refused when no run has the oracle (nothing could be computed).
/// `Ok((warning, identical))`.
fn check_overlap(
    forget: &Option<Vec<usize>>,
    retain: &Option<Vec<usize>>,
    n_rows: usize,
    with_oracle: bool,
) -> Result<(Option<Warning>, bool)> {
    let all = |r: &Option<Vec<usize>>| r.clone().unwrap_or_else(|| (0..n_rows).collect());
    // Sorted, without repeats (vectors, not sets: a set's code would weigh on the lean wasm module).
    let set = |mut v: Vec<usize>| {
        v.sort_unstable();
        v.dedup();
        v
    };
    let (fs, rs) = (set(all(forget)), set(all(retain)));
    let shared = fs.iter().filter(|x| rs.binary_search(x).is_ok()).count();
    if shared == 0 {
        return Ok((None, false));
    }
    if fs == rs {
        if !with_oracle {
            return Err(Error::refused(
                "forget_retain_identical",
                Some("retain"),
                format!(
                    "the forget and retain rows are the same {} rows: the oracle-free metric compares forget \
                     records with retained ones, so it needs retain rows distinct from the forget rows, and the \
                     metrics that use the forget records only need the oracle. Give the retain rows (the records \
                     the model kept), e.g. an index file of them, or the oracle's embeddings",
                    fs.len()
                ),
            ));
        }
        return Ok((
            Some(Warning::new(
                "forget_retain_identical",
                Some("retain"),
                format!(
                    "the forget and retain rows are the same {} rows: m2 and m4 compare forget records with \
                     retained ones, so they are withheld (each {}); m1 and m3 use the forget records only and are \
                     computed",
                    fs.len(),
                    ruler::NEEDS_DISTINCT_RETAIN
                ),
                Some("give the retain rows (the records the model kept), e.g. an index file of them, to compute m2 and m4 too".into()),
            )),
            true,
        ));
    }
    Ok((
        Some(Warning::new(
            "forget_retain_overlap",
            Some("retain"),
            format!(
                "{shared} of the {} forget rows are also retain rows: a record cannot be both forgotten and kept, \
                 and shared rows pull every metric towards its null",
                fs.len()
            ),
            Some("give forget and retain rows that do not overlap (e.g. the index files of the two sets)".into()),
        )),
        false,
    ))
}

/// Whether two models' embeddings are the same on the given rows of each (all rows: `None`), value for value.
fn same_values(a: &Matrix, b: &Matrix, rows: Option<&[usize]>) -> bool {
    if a.cols() != b.cols() || a.rows() != b.rows() {
        return false;
    }
    match rows {
        None => a.as_slice() == b.as_slice(),
        Some(rs) => rs.iter().all(|&r| r < a.rows() && a.row(r) == b.row(r)),
    }
}

/// The models of one run that are the same model: the same file, or the same values on the forget rows (where
/// m1 and m3 are computed) — and on the retain rows too, where m2 and m4 are. One entry per pair:
/// `(code, the role named first, how)`.
fn identical_models(
    models: [(&'static str, Option<&Input>); 3],
    forget: Option<&[usize]>,
    retain: Option<&[usize]>,
) -> Vec<(&'static str, &'static str, String)> {
    let mut out = Vec::new();
    for (code, i, j) in [
        ("unlearned_is_original", 0, 2),
        ("unlearned_is_oracle", 0, 1),
        ("original_is_oracle", 2, 1),
    ] {
        let ((ra, Some(a)), (_, Some(b))) = (models[i], models[j]) else {
            continue;
        };
        if !same_values(&a.matrix, &b.matrix, forget) {
            continue;
        }
        // The same bytes, read the same way (the same array of the file, the same rows of it).
        let same_file = a.record.sha256 == b.record.sha256
            && a.record.tensor == b.record.tensor
            && a.record.rows_used == b.record.rows_used
            && a.record.spec.split_once('@').map(|x| x.1) == b.record.spec.split_once('@').map(|x| x.1);
        let how = if same_file && a.record.path == b.record.path {
            format!("both are `{}`", a.record.path)
        } else if same_file {
            format!("`{}` and `{}` are the same file", a.record.path, b.record.path)
        } else if same_values(&a.matrix, &b.matrix, retain) {
            format!(
                "`{}` and `{}` hold the same values on every forget and retain row",
                a.record.path, b.record.path
            )
        } else {
            format!(
                "`{}` and `{}` hold the same values on every forget row",
                a.record.path, b.record.path
            )
        };
        out.push((code, ra, how));
    }
    out
}

/// One warning per kind of identical models found in any run (see [`identical_models`]).
fn identical_warnings(found: &[(usize, &'static str, &'static str, String)], runs: usize) -> Vec<Warning> {
    let mut out = Vec::new();
    for code in ["unlearned_is_original", "unlearned_is_oracle", "original_is_oracle"] {
        let hits: Vec<&(usize, &str, &str, String)> = found.iter().filter(|f| f.1 == code).collect();
        let Some(&(_, _, ra, how)) = hits.first() else {
            continue;
        };
        let place = if runs == 1 {
            format!("({how})")
        } else {
            let which: Vec<String> = hits.iter().map(|h| (h.0 + 1).to_string()).collect();
            format!(
                "in {} of the {runs} runs (run {}; in run {}, {how})",
                hits.len(),
                which.join(", "),
                hits[0].0 + 1
            )
        };
        let (message, fix) = match code {
            "unlearned_is_original" => (
                format!(
                    "the unlearned model's embeddings are the original model's {place}: nothing was unlearned, \
                     so m3 is 0 and m4 reads the original model, by construction"
                ),
                "give the embeddings of the model after unlearning as the unlearned model",
            ),
            "unlearned_is_oracle" => (
                format!(
                    "the unlearned model's embeddings are the oracle's {place}: m1 is 1 and m2 is 0 by \
                     construction, the perfect-unlearning case"
                ),
                "if you meant to check the metrics on perfect unlearning, this is it; otherwise give the \
                 embeddings of the model after unlearning as the unlearned model",
            ),
            _ => (
                format!(
                    "the original model's embeddings are the oracle's {place}: the oracle must be a model \
                     retrained without the forget records, and m3 measures nothing against the original itself"
                ),
                "give the embeddings of the model retrained without the forget records as the oracle",
            ),
        };
        out.push(Warning::new(code, Some(ra), message, Some(fix.into())));
    }
    out
}

/// m4's call against its null band, the null ± 2 null sds (`1/sqrt(12 n_f)`: about 95% of runs under the null):
/// `(call, low, high)`.
fn m4_band(value: f64, null: f64, null_sd: f64) -> (&'static str, f64, f64) {
    let (lo, hi) = (null - 2.0 * null_sd, null + 2.0 * null_sd);
    let call = if value > hi {
        "above_null"
    } else if value < lo {
        "below_null"
    } else {
        "at_null"
    };
    (call, lo, hi)
}

/// Whether every nearest-neighbour similarity m4 ranks is the same (constant embeddings, or every record with an
/// exact copy): the ranks are then all ties, and m4's value is the tie rule's, not a reading of the data.
fn tied_throughout(m4: &ruler::PercentileRank) -> bool {
    let mut all = m4.forget_nn.iter().chain(&m4.retain_nn);
    all.next().is_some_and(|&first| all.all(|&v| v == first))
}

/// The words for an m4 that every tie decided (see [`tied_throughout`]).
fn tied_text(m4: &ruler::PercentileRank) -> String {
    format!(
        "m4 nearest-neighbour rank {} is not read: every forget and retain record's nearest-neighbour similarity is \
         the same ({}), as with constant embeddings, so the rank is decided by ties alone",
        num(m4.value),
        m4.forget_nn.first().map_or_else(String::new, |v| num(*v))
    )
}

/// The call on a metric that was not computed, with the reason.
fn withheld_call(metric: &'static str, name: &'static str, reason: &str) -> MetricCall {
    MetricCall {
        metric,
        name,
        call: "withheld",
        text: format!("{metric} withheld: it {reason}"),
        why: Some(format!("withheld: they {}", reason.replacen("needs", "need", 1))),
    }
}

/// The metric's short name (`m2`) from the core's (`calibration_gap`).
fn short(name: &str) -> &'static str {
    match name {
        "oracle_similarity" => "m1",
        "calibration_gap" => "m2",
        "representation_shift" => "m3",
        _ => "m4",
    }
}

/// The calls on one run's metrics against their nulls.
fn single_run_calls(r: &RulerReport) -> Vec<MetricCall> {
    let mut calls = Vec::new();
    if let Some(v) = r.oracle_similarity {
        calls.push(MetricCall {
            metric: "m1",
            name: "oracle_similarity",
            call: "no_null",
            text: format!(
                "m1 oracle similarity {}: no fixed null (m2 is its calibrated form)",
                num(v)
            ),
            why: None,
        });
    }
    for (metric, name, value, null, low, high) in [
        (
            "m2",
            "calibration_gap",
            r.calibration_gap,
            r.nulls.calibration_gap,
            "residual memorisation",
            "over-correction",
        ),
        (
            "m3",
            "representation_shift",
            r.representation_shift,
            r.nulls.representation_shift,
            "a shift away from the oracle",
            "a shift towards the oracle",
        ),
    ] {
        if let Some(v) = value {
            let side = if v < null {
                format!("below its null {null}, the direction of {low}")
            } else if v > null {
                format!("above its null {null}, the direction of {high}")
            } else {
                format!("at its null {null}")
            };
            calls.push(MetricCall {
                metric,
                name,
                call: Headline::INCONCLUSIVE,
                text: format!(
                    "{metric} {} is {side}; one run cannot test it (its null is tested across runs from several \
                     seeds)",
                    num(v)
                ),
                why: Some("not tested: that needs runs from several seeds".into()),
            });
        }
    }
    for w in &r.withheld {
        calls.push(withheld_call(short(w.metric), w.metric, &w.reason));
    }
    if let Some(m4) = r.nn_percentile_rank.as_ref().filter(|m4| tied_throughout(m4)) {
        calls.push(MetricCall {
            metric: "m4",
            name: "nn_percentile_rank",
            call: Headline::INCONCLUSIVE,
            text: tied_text(m4),
            why: Some("every nearest-neighbour similarity tied (constant embeddings)".into()),
        });
    } else if let Some(m4) = &r.nn_percentile_rank {
        let null = r.nulls.nn_percentile_rank;
        let (call, lo, hi) = m4_band(m4.value, null, m4.null_sd);
        let what = match call {
            "above_null" => {
                "above its null: forget records sit closer to retain records than retain records to each other \
                 (residual memorisation)"
            }
            "below_null" => {
                "below its null: forget records were pushed away from the retain records (over-displacement)"
            }
            _ => "within its null: no sign of residual memorisation",
        };
        calls.push(MetricCall {
            metric: "m4",
            name: "nn_percentile_rank",
            call,
            text: format!(
                "m4 nearest-neighbour rank {} is {what} (null {null}, ±2 null sds = [{}, {}] for {} forget records)",
                num(m4.value),
                num(lo),
                num(hi),
                r.n_forget
            ),
            why: None,
        });
    }
    calls.sort_by_key(|c| c.metric);
    calls
}

/// The positive control: m4 with the original model in the unlearned model's place, per run given the original.
fn control_of(run: usize, m4: &ruler::PercentileRank, null: f64) -> M4Control {
    let (call, lo, hi) = m4_band(m4.value, null, m4.null_sd);
    // A rank every tie decided is no control: no verdict against the band.
    let call = if tied_throughout(m4) {
        Headline::INCONCLUSIVE
    } else {
        call
    };
    M4Control {
        run,
        value: m4.value,
        null_sd: m4.null_sd,
        band: [lo, hi],
        call,
    }
}

/// Where the original model's m4 is not above its null band in some run, m4 cannot detect memorisation on this
/// data: its call on the unlearned model becomes inconclusive, and a warning says why and what would help.
fn apply_control(calls: &mut [MetricCall], controls: &[M4Control], runs: usize, with_oracle: bool) -> Option<Warning> {
    let failed: Vec<&M4Control> = controls.iter().filter(|c| c.call != "above_null").collect();
    let first = failed.first()?;
    let side = |c: &M4Control| {
        if c.call == Headline::INCONCLUSIVE {
            return format!(
                "{}, which ties alone decided: every nearest-neighbour similarity is the same, as with constant \
                 embeddings",
                num(c.value)
            );
        }
        format!(
            "{}, {} its null band [{}, {}]",
            num(c.value),
            if c.call == "below_null" { "below" } else { "within" },
            num(c.band[0]),
            num(c.band[1])
        )
    };
    let seen = if runs == 1 {
        format!("gives m4 = {}", side(first))
    } else {
        format!(
            "gives m4 not above its null band in {} of the {} runs given it (run {}: {})",
            failed.len(),
            controls.len(),
            first.run + 1,
            side(first)
        )
    };
    let message = format!(
        "the original model, which was trained on the forget records, {seen}: m4 sees no memorisation even in \
         the model that holds it, so it cannot detect memorisation on this data, and its reading of the \
         unlearned model says nothing either way"
    );
    let fix = if with_oracle {
        "the oracle-based metrics (m2, m3) do not depend on this: test them across runs from 6 or more seeds; m4 \
         reads memorisation only where a model trained on the forget records places them closer to the retain \
         records than the retain records sit to each other"
    } else {
        "give the oracle (a model retrained without the forget records) and test the oracle-based metrics (m2, m3) \
         across runs from 6 or more seeds; m4 reads memorisation only where a model trained on the forget records \
         places them closer to the retain records than the retain records sit to each other"
    };
    if let Some(m4) = calls
        .iter_mut()
        .find(|c| c.metric == "m4" && matches!(c.call, "above_null" | "below_null" | "at_null"))
    {
        m4.call = Headline::INCONCLUSIVE;
        m4.text = format!(
            "{}; but m4 cannot detect memorisation on this data: the original model {seen}",
            m4.text
        );
        m4.why = Some("cannot detect memorisation on this data: the original model shows no sign either".into());
    }
    Some(Warning::new(
        "m4_cannot_detect",
        Some("original"),
        message,
        Some(fix.into()),
    ))
}

/// The negative control: where the oracle's m4 (a model that never saw the forget records) is outside its null band
/// in some run, m4's null 0.5 does not hold on this data (the forget records are unlike the retain records whatever
/// a model remembers): m4's call on the unlearned model becomes inconclusive, and a warning says why.
fn apply_negative_control(calls: &mut [MetricCall], controls: &[M4Control], runs: usize) -> Option<Warning> {
    // A control that ties alone decided (inconclusive) says nothing of whether the null holds.
    let failed: Vec<&M4Control> = controls
        .iter()
        .filter(|c| matches!(c.call, "above_null" | "below_null"))
        .collect();
    let first = failed.first()?;
    let side = format!(
        "{}, {} its null band [{}, {}]",
        num(first.value),
        if first.call == "below_null" { "below" } else { "above" },
        num(first.band[0]),
        num(first.band[1])
    );
    let seen = if runs == 1 {
        format!("gives m4 = {side}")
    } else {
        format!(
            "gives m4 outside its null band in {} of the {} runs given it (run {}: {side})",
            failed.len(),
            controls.len(),
            first.run + 1
        )
    };
    let message = format!(
        "the oracle, which never saw the forget records, {seen}: on this data the forget records sit unlike the \
         retain records whatever a model remembers, so m4's null (0.5) does not hold, and m4's reading of the \
         unlearned model is no call"
    );
    let fix = "compare the unlearned model's m4 with the oracle's rather than with 0.5, or test the oracle-based \
               metrics (m2, m3) across runs from 6 or more seeds; m4's null holds where the forget records are a \
               random part of the training records";
    if let Some(m4) = calls.iter_mut().find(|c| c.metric == "m4" && c.call != "withheld") {
        if matches!(m4.call, "above_null" | "below_null" | "at_null") {
            m4.call = Headline::INCONCLUSIVE;
            m4.why = Some("no call: its null does not hold on this data (see the oracle's m4)".into());
        }
        m4.text = format!(
            "{}; and its null does not hold on this data: the oracle {seen}",
            m4.text
        );
    }
    Some(Warning::new(
        "m4_null_does_not_hold",
        Some("oracle"),
        message,
        Some(fix.into()),
    ))
}

/// The smallest two-sided p-value the exact Wilcoxon signed-rank test can give for `n` runs (all of one sign):
/// `2 / 2^n`. Below 6 runs it exceeds 0.05, so no metric can be significant at the usual levels.
fn smallest_p(n: usize) -> f64 {
    2.0 * 0.5f64.powi(i32::try_from(n).unwrap_or(i32::MAX))
}

/// The calls on each metric from the Wilcoxon + Benjamini–Hochberg test across runs.
#[cfg(feature = "full")]
fn across_run_calls(
    across: &[ruler::MetricAcrossRuns],
    not_tested: &[ruler::MetricNotTested],
    withheld: &[ruler::Withheld],
    fdr: f64,
) -> Vec<MetricCall> {
    let mut calls: Vec<MetricCall> = across
        .iter()
        .map(|m| {
            let (metric, low, high) = match m.metric {
                "calibration_gap" => ("m2", "residual memorisation", "over-correction"),
                "representation_shift" => ("m3", "a shift away from the oracle", "a shift towards the oracle"),
                _ => ("m4", "over-displacement", "residual memorisation"),
            };
            let above = m.rank_biserial.is_some_and(|r| r > 0.0);
            let (call, text) = if m.reject {
                let (call, side, meaning) = if above {
                    ("above_null", "above", high)
                } else {
                    ("below_null", "below", low)
                };
                (
                    call,
                    format!(
                        "{metric} is {side} its null {} across {} runs ({meaning}): Wilcoxon p = {}, \
                         Benjamini–Hochberg adjusted {} < {fdr}",
                        m.null,
                        m.values.len(),
                        num(m.wilcoxon.p_value),
                        num(m.p_adjusted)
                    ),
                )
            } else if smallest_p(m.values.len()) > fdr {
                (
                    Headline::INCONCLUSIVE,
                    format!(
                        "{metric} cannot be told from its null {} with {} runs: the Wilcoxon test of so few runs \
                         cannot reach a p-value below {} (it gave {}), so FDR {fdr} is out of reach; add runs from \
                         more seeds (6 or more)",
                        m.null,
                        m.values.len(),
                        num(smallest_p(m.values.len())),
                        num(m.wilcoxon.p_value)
                    ),
                )
            } else {
                (
                    "at_null",
                    format!(
                        "{metric} does not differ from its null {} across {} runs: Wilcoxon p = {}, adjusted {} \
                         (FDR {fdr})",
                        m.null,
                        m.values.len(),
                        num(m.wilcoxon.p_value),
                        num(m.p_adjusted)
                    ),
                )
            };
            let why = (call == Headline::INCONCLUSIVE).then(|| "not tested: too few runs".to_string());
            MetricCall {
                metric,
                name: m.metric,
                call,
                text,
                why,
            }
        })
        .collect();
    for m in not_tested {
        let metric = short(m.metric);
        calls.push(MetricCall {
            metric,
            name: m.metric,
            call: Headline::INCONCLUSIVE,
            text: format!(
                "{metric} is not tested across the {} runs: {}",
                m.values.len(),
                m.reason
            ),
            why: Some(if m.values.windows(2).all(|w| w[0] == w[1]) {
                "not tested: the same value in every run".to_string()
            } else {
                "not tested: see the warnings".to_string()
            }),
        });
    }
    for w in withheld {
        calls.push(withheld_call(short(w.metric), w.metric, &w.reason));
    }
    calls.sort_by_key(|c| c.metric);
    calls
}

use crate::report::num;

/// The one call: residual memorisation if a tested metric says so (m2 below its null or m4 above it), else
/// over-correction / over-displacement if a tested metric says so, else no evidence if some metric was tested,
/// else inconclusive.
fn overall(calls: &[MetricCall], runs: usize, fdr: f64) -> Headline {
    let tested: Vec<&MetricCall> = calls
        .iter()
        .filter(|c| matches!(c.call, "above_null" | "below_null" | "at_null"))
        .collect();
    let memorised: Vec<&str> = tested
        .iter()
        .filter(|c| (c.metric == "m2" && c.call == "below_null") || (c.metric == "m4" && c.call == "above_null"))
        .map(|c| c.metric)
        .collect();
    let displaced: Vec<&str> = tested
        .iter()
        .filter(|c| (c.metric == "m2" && c.call == "above_null") || (c.metric == "m4" && c.call == "below_null"))
        .map(|c| c.metric)
        .collect();
    let runs_text = if runs == 1 {
        "this run".to_string()
    } else {
        format!("these {runs} runs")
    };
    if !memorised.is_empty() {
        Headline::new(
            "residual_memorisation",
            format!(
                "Residual memorisation: {} of {runs_text} {} from {} null in the direction of a model that \
                 still holds the forget records",
                memorised.join(" and "),
                if memorised.len() == 1 { "differs" } else { "differ" },
                if memorised.len() == 1 { "its" } else { "their" }
            ),
        )
    } else if !displaced.is_empty() {
        Headline::new(
            "over_displaced",
            format!(
                "Over-correction: {} of {runs_text} {} forget records pushed further than retraining would \
                 put them",
                displaced.join(" and "),
                if displaced.len() == 1 { "shows" } else { "show" }
            ),
        )
    } else if !tested.is_empty() {
        let which: Vec<&str> = tested.iter().map(|c| c.metric).collect();
        Headline::new(
            "at_null",
            format!(
                "No sign of residual memorisation: {} of {runs_text} {} within {} null",
                which.join(" and "),
                if which.len() == 1 { "is" } else { "are" },
                if which.len() == 1 { "its" } else { "their" }
            ),
        )
    } else if runs > 1 && smallest_p(runs) > fdr && calls.iter().any(|c| c.call == Headline::INCONCLUSIVE) {
        Headline::inconclusive(
            format!("Inconclusive: {runs} runs are too few to test the metrics against their nulls"),
            format!(
                "the Wilcoxon test of {runs} runs cannot reach a p-value below {}; add runs from more seeds (6 or \
                 more)",
                num(smallest_p(runs))
            ),
        )
    } else {
        let why: Vec<&str> = calls
            .iter()
            .filter(|c| matches!(c.call, Headline::INCONCLUSIVE | "withheld"))
            .map(|c| c.text.as_str())
            .collect();
        let withheld: Vec<&str> = calls
            .iter()
            .filter(|c| c.call == "withheld")
            .map(|c| c.metric)
            .collect();
        Headline::inconclusive(
            if withheld.is_empty() {
                "Inconclusive: no metric could be tested against its null".to_string()
            } else {
                format!(
                    "Inconclusive: {} withheld (they need retain rows distinct from the forget rows), and no other \
                     metric could be tested against its null",
                    withheld.join(" and ")
                )
            },
            if why.is_empty() {
                "no metric could be computed from the inputs given (see the warnings)".to_string()
            } else {
                why.join("; ")
            },
        )
    }
}

/// The rows RULER uses, when it can load only those: every model selects all its rows, the forget and retain rows
/// are given and lie within every model's file, and the files hold the same number of rows (otherwise every row is
/// loaded, and the checks on the whole files speak). The sorted union of the forget and retain rows, and the files'
/// row count. Issue 24: a large file with index files selecting a few rows was refused for the memory of all rows.
fn selected_rows(
    ws: &Workspace,
    models: &[&InputRef],
    forget: &Option<Vec<usize>>,
    retain: &Option<Vec<usize>>,
) -> Option<(Vec<usize>, usize)> {
    let (Some(f), Some(r)) = (forget, retain) else {
        return None;
    };
    let mut total = None;
    for m in models {
        if m.rows != Rows::All {
            return None;
        }
        let src = ws.source(m.source).ok()?;
        let rows = usize::try_from(
            lethe::data::inspect(&src.name, &*src.data)
                .ok()?
                .array(m.tensor.as_deref())?
                .rows,
        )
        .ok()?;
        if total.is_some_and(|t| t != rows) {
            return None;
        }
        total = Some(rows);
    }
    let total = total?;
    let mut u: Vec<usize> = f.iter().chain(r).copied().collect();
    u.sort_unstable();
    u.dedup();
    (u.last().is_some_and(|&m| m < total) && u.len() < total).then_some((u, total))
}

/// `rows` as positions in `subset` (sorted, holding every one of them).
fn remap(rows: &Option<Vec<usize>>, subset: &[usize]) -> Option<Vec<usize>> {
    rows.as_ref()
        .map(|v| v.iter().map(|x| subset.binary_search(x).unwrap_or(*x)).collect())
}

/// RULER m1–m4 per run and, with two or more runs, Wilcoxon + Benjamini–Hochberg across runs (as `lethe ruler`).
///
/// # Errors
/// Missing or unreadable inputs, rows out of range, the guardrails' refusals (see the module's docs), the core's
/// errors; attributed to the role concerned.
pub fn ruler(ws: &mut Workspace, req: &RulerRequest) -> Result<RulerOutput> {
    let Some(first) = req.runs.first() else {
        return Err(Error::at("unlearned", "choose the unlearned model's embeddings").usage());
    };
    // The tests across several runs are the full module's: the lean one leaves their code out.
    if !cfg!(feature = "full") && req.runs.len() >= 2 {
        return Err(Error::needs_full(
            "RULER across several runs is computed by the full module",
        ));
    }
    check_range(ws, "forget", &req.forget, &first.unlearned)?;
    check_range(ws, "retain", &req.retain, &first.unlearned)?;
    let (forget, forget_file, forget_text) = ws.resolve_rows("forget", &req.forget)?;
    let (retain, retain_file, retain_text) = ws.resolve_rows("retain", &req.retain)?;
    // Forget/retain rows chosen by a split column label the records: one entry per row of the models' files.
    #[cfg(feature = "full")]
    if first.unlearned.rows == Rows::All
        && let Ok(src) = ws.source(first.unlearned.source)
        && let Some(n) = lethe::data::inspect(&src.name, &*src.data)
            .ok()
            .and_then(|info| info.array(first.unlearned.tensor.as_deref()).map(|a| a.rows))
    {
        for (role, rows) in [("forget", &req.forget), ("retain", &req.retain)] {
            ws.check_split_length(role, rows, &src.name, n)?;
        }
    }
    let tie = match req.ties.as_str() {
        "at-most" => TieRule::AtMost,
        "half" => TieRule::Half,
        other => return Err(Error::msg(format!("ties `{other}` is not one of at-most, half")).usage()),
    };
    if !(req.fdr > 0.0 && req.fdr < 1.0) {
        return Err(Error::msg(format!(
            "the false discovery rate ({}) is {}: it must lie strictly between 0 and 1, e.g. 0.05",
            words::opt("fdr"),
            req.fdr
        ))
        .usage());
    }
    let mut records = Vec::new();
    let mut reports = Vec::new();
    let mut warned: Vec<(&str, Arc<Input>)> = Vec::new();
    let mut overlap = None;
    let with_oracle = req.runs.iter().any(|r| r.oracle.is_some());
    let mut identical = Vec::new();
    let mut controls = Vec::new();
    let mut negatives = Vec::new();
    for (k, run) in req.runs.iter().enumerate() {
        let models: Vec<&InputRef> = [Some(&run.unlearned), run.oracle.as_ref(), run.original.as_ref()]
            .into_iter()
            .flatten()
            .collect();
        let subset = selected_rows(ws, &models, &forget, &retain);
        // The forget and retain rows as positions in the loaded rows (the same rows without a subset).
        let (forget, retain) = match &subset {
            Some((u, _)) => (remap(&forget, u), remap(&retain, u)),
            None => (forget.clone(), retain.clone()),
        };
        let mut load = |role: &'static str, r: &InputRef| -> Result<Arc<Input>> {
            let inp = match &subset {
                Some((u, total)) => ws.load_subset(role, r, u, *total)?,
                None => ws.load(role, r)?,
            };
            check_embeddings(role, &inp)?;
            warned.push((role, Arc::clone(&inp)));
            Ok(inp)
        };
        let unlearned = load("unlearned", &run.unlearned)?;
        let oracle = run.oracle.as_ref().map(|r| load("oracle", r)).transpose()?;
        let original = run.original.as_ref().map(|r| load("original", r)).transpose()?;
        let n = unlearned.matrix.rows();
        for (role, other) in [("oracle", &oracle), ("original", &original)] {
            if let Some(o) = other
                && o.matrix.rows() != n
            {
                return Err(Error::refused(
                    "row_counts_differ",
                    Some(role),
                    format!(
                        "`{}` has {} rows but the unlearned model's `{}` has {n}: RULER compares the same records \
                         row by row across the models, so every model's file must hold the same records in the \
                         same order. Export each model's embeddings of the same records{}",
                        o.record.path,
                        o.matrix.rows(),
                        unlearned.record.path,
                        words::pick("same-rows", None)
                    ),
                ));
            }
            // The original model is compared with the oracle only (m3), so without one its size does not matter.
            if let Some(o) = other
                && (role == "oracle" || oracle.is_some())
                && o.matrix.cols() != unlearned.matrix.cols()
            {
                return Err(Error::refused(
                    "columns_differ",
                    Some(role),
                    format!(
                        "`{}` holds embeddings of {} values ({} × {}) but the unlearned model's `{}` of {} ({} × {}): \
                         RULER compares each record's embedding across the models, so every model's file must hold \
                         embeddings of the same size. Export each model's embeddings from the same layer",
                        o.record.path,
                        o.matrix.cols(),
                        o.matrix.rows(),
                        o.matrix.cols(),
                        unlearned.record.path,
                        unlearned.matrix.cols(),
                        n,
                        unlearned.matrix.cols()
                    ),
                ));
            }
        }
        if overlap.is_none() {
            overlap = Some(check_overlap(&forget, &retain, n, with_oracle)?);
        }
        // With the same rows for forget and retain, m2 and m4 are withheld and the retain rows are not used.
        let distinct = !overlap.as_ref().is_some_and(|o| o.1);
        // NaN and ±inf in the rows the metrics use, named by the file's row (the original model: its forget rows).
        let (all, forget_only) = (
            super::stats::used_rows(n, &[&forget, &retain]),
            super::stats::used_rows(n, &[&forget]),
        );
        for (role, inp, r, used) in [
            ("unlearned", Some(&unlearned), Some(&run.unlearned), &all),
            ("oracle", oracle.as_ref(), run.oracle.as_ref(), &all),
            // The original model: its forget rows (m3), and its retain rows too for m4's positive control.
            (
                "original",
                original.as_ref(),
                run.original.as_ref(),
                if distinct { &all } else { &forget_only },
            ),
        ] {
            if let (Some(inp), Some(r)) = (inp, r) {
                // A subset holds the used rows only: its rows are named by the file's rows it holds.
                let rows = match &subset {
                    Some((u, _)) => Rows::Text {
                        text: u.iter().map(usize::to_string).collect::<Vec<_>>().join(","),
                    },
                    None => r.rows.clone(),
                };
                super::stats::check_finite_rows(ws, role, &rows, inp, used.as_deref(), "RULER's metrics")?;
            }
        }
        let pick = |role: &str, inp: &Input, rows: &Option<Vec<usize>>, what: &str| -> Result<Matrix> {
            let name = format!("{role} ({what} rows)");
            match rows {
                Some(ix) => inp
                    .matrix
                    .select_rows(ix, &name)
                    .map_err(|e| Error::at(what, e.to_string())),
                None => Ok(inp.matrix.clone()),
            }
        };
        let both = |role: &str, inp: &Input| -> Result<(Matrix, Option<Matrix>)> {
            let r = if distinct {
                Some(pick(role, inp, &retain, "retain")?)
            } else {
                None
            };
            Ok((pick(role, inp, &forget, "forget")?, r))
        };
        let (uf, ur) = both("unlearned", &unlearned)?;
        let o = oracle.as_deref().map(|i| both("oracle", i)).transpose()?;
        let g = original.as_deref().map(|i| both("original", i)).transpose()?;
        let inputs = RulerInputs {
            unlearned_forget: uf.view(),
            unlearned_retain: ur.as_ref().map(Matrix::view),
            oracle_forget: o.as_ref().map(|o| o.0.view()),
            oracle_retain: o.as_ref().and_then(|o| o.1.as_ref().map(Matrix::view)),
            original_forget: g.as_ref().map(|o| o.0.view()),
        };
        reports.push(ruler::all_metrics(&inputs, tie).map_err(|e| attribute(e, &RULER_ROLES))?);
        // The positive control: m4 with the original model in the unlearned model's place.
        if let Some((gf, Some(gr))) = &g {
            let m4 = ruler::nn_percentile_rank(gf.view(), gr.view(), tie).map_err(|e| attribute(e, &["original"]))?;
            controls.push(control_of(k, &m4, ruler::NULLS.nn_percentile_rank));
        }
        // The negative control: m4 with the oracle in the unlearned model's place.
        if let Some((of, Some(or))) = &o {
            let m4 = ruler::nn_percentile_rank(of.view(), or.view(), tie).map_err(|e| attribute(e, &["oracle"]))?;
            negatives.push(control_of(k, &m4, ruler::NULLS.nn_percentile_rank));
        }
        let found = identical_models(
            [
                ("unlearned", Some(&*unlearned)),
                ("oracle", oracle.as_deref()),
                ("original", original.as_deref()),
            ],
            forget.as_deref(),
            if distinct { retain.as_deref() } else { forget.as_deref() },
        );
        identical.extend(found.into_iter().map(|(code, role, how)| (k, code, role, how)));
        records.push(unlearned.record.clone());
        records.extend(oracle.map(|o| o.record.clone()));
        records.extend(original.map(|o| o.record.clone()));
    }
    #[cfg(feature = "full")]
    let (across, not_tested) = if reports.len() >= 2 {
        ruler::across_runs(&reports, req.fdr).map_err(|e| Error::from(e).usage())?
    } else {
        (Vec::new(), Vec::new())
    };
    #[cfg(not(feature = "full"))]
    let (across, not_tested): (Vec<ruler::MetricAcrossRuns>, Vec<ruler::MetricNotTested>) = (Vec::new(), Vec::new());
    let core_warnings: Vec<String> = not_tested
        .iter()
        .map(|m| format!("{}: not tested across runs: {}", short(m.metric), m.reason))
        .collect();
    let rank_histograms = reports
        .iter()
        .filter_map(|r| r.nn_percentile_rank.as_ref())
        .map(|m4| plots::histogram_in(&m4.ranks, plots::RANK_BINS, (0.0, 1.0)))
        .collect::<Result<Vec<_>>>()?;
    // The index or split files the rows came from, with their SHA-256 (as `lethe ruler --json` records them).
    for (role, file, text, rows) in [
        ("forget", forget_file, forget_text, &forget),
        ("retain", retain_file, retain_text, &retain),
    ] {
        if let Some(d) = file {
            records.push(row_file_record(role, d, text, rows.as_ref().map_or(0, Vec::len)));
        }
    }
    let refs: Vec<(&str, &Input)> = warned.iter().map(|(r, i)| (*r, &**i)).collect();
    let load_warnings = load_warnings(&refs);
    let mut warnings: Vec<Warning> = overlap.and_then(|o| o.0).into_iter().collect();
    let identical_warned = identical_warnings(&identical, reports.len());
    warnings.extend(identical_warned.iter().cloned());
    warnings.extend(loader_warnings(&load_warnings));
    warnings.extend(not_tested.iter().map(|m| {
        Warning::new(
            "metric_not_tested",
            None,
            format!("{} is not tested across runs: {}", short(m.metric), m.reason),
            Some(
                "give runs from different seeds (one unlearned, oracle and original model per seed); the other \
                 metrics are still tested"
                    .into(),
            ),
        )
    }));
    let mut metric_calls = match reports.as_slice() {
        [one] => single_run_calls(one),
        #[cfg(feature = "full")]
        _ => across_run_calls(
            &across,
            &not_tested,
            reports.first().map_or(&[][..], |r| r.withheld.as_slice()),
            req.fdr,
        ),
        #[cfg(not(feature = "full"))]
        _ => Vec::new(),
    };
    let control = apply_control(&mut metric_calls, &controls, reports.len(), with_oracle);
    let negative = apply_negative_control(&mut metric_calls, &negatives, reports.len());
    let mut headline = overall(&metric_calls, reports.len(), req.fdr);
    if let Some(w) = &control
        && headline.is_inconclusive()
    {
        // m4's own reading was the one call it could give: say why it gives none.
        headline = Headline::inconclusive(
            "Inconclusive: m4 cannot detect memorisation on this data, because the original model, which was \
             trained on the forget records, shows no sign of them either",
            {
                let others: Vec<&str> = metric_calls
                    .iter()
                    .filter(|c| c.metric != "m4" && matches!(c.call, Headline::INCONCLUSIVE | "withheld"))
                    .map(|c| c.text.as_str())
                    .collect();
                format!(
                    "{}. What would help: {}{}",
                    w.message,
                    w.fix.as_deref().unwrap_or_default(),
                    if others.is_empty() {
                        String::new()
                    } else {
                        format!(". The other metrics: {}", others.join("; "))
                    }
                )
            },
        );
    }
    if let Some(w) = &negative
        && control.is_none()
        && headline.is_inconclusive()
    {
        headline = Headline::inconclusive(
            "Inconclusive: m4's null does not hold on this data, because the oracle, which never saw the forget \
             records, reads outside it too",
            format!(
                "{}. What would help: {}",
                w.message,
                w.fix.as_deref().unwrap_or_default()
            ),
        );
    }
    if !headline.is_inconclusive() {
        // The metrics that gave no call, grouped by why.
        let mut whys: Vec<(&str, Vec<&str>)> = Vec::new();
        for c in &metric_calls {
            if let Some(why) = c.why.as_deref()
                && matches!(c.call, Headline::INCONCLUSIVE | "withheld")
            {
                match whys.iter_mut().find(|(w, _)| *w == why) {
                    Some((_, ms)) => ms.push(c.metric),
                    None => whys.push((why, vec![c.metric])),
                }
            }
        }
        for (why, ms) in whys {
            headline.text.push_str(&format!(" ({} {why})", ms.join(" and ")));
        }
    }
    warnings.extend(control);
    warnings.extend(negative);
    // The unlearned model is the original, or the oracle, in every run: a call the truth rules out is no call (the
    // original cannot have over-corrected, and shows no memorisation only where the metrics cannot see it; the
    // oracle never saw the forget records).
    let every = |code: &str| {
        let mut runs: Vec<usize> = identical.iter().filter(|f| f.1 == code).map(|f| f.0).collect();
        runs.dedup();
        !reports.is_empty() && runs.len() == reports.len()
    };
    let said = headline.text.split(':').next().unwrap_or_default().to_string();
    let ruled_out = match headline.call.as_str() {
        "at_null" if every("unlearned_is_original") => Some((
            "Inconclusive: the unlearned model is the original model (the same values), and no metric sees \
             memorisation in it, so on this data they cannot tell forgetting from remembering"
                .to_string(),
            "the original model was trained on the forget records; metrics that read it as forgotten would read \
             an unlearned model the same way",
        )),
        "over_displaced" if every("unlearned_is_original") => Some((
            format!(
                "Inconclusive: the unlearned model is the original model (the same values), which cannot have \
                 over-corrected, so the metrics' reading (\u{201c}{said}\u{201d}) is of the data, not of unlearning"
            ),
            "a model that was not unlearned at all cannot have pushed the forget records away",
        )),
        "residual_memorisation" | "over_displaced" if every("unlearned_is_oracle") => Some((
            format!(
                "Inconclusive: the unlearned model is the oracle (the same values), which never saw the forget \
                 records, so the metrics' reading (\u{201c}{said}\u{201d}) is of the data, not of memory"
            ),
            "the oracle is the reference of perfect unlearning: it holds no memory of the forget records and \
             cannot be pushed past itself",
        )),
        _ => None,
    };
    let noted = ruled_out.is_some();
    if let Some((text, why)) = ruled_out {
        headline = Headline::inconclusive(
            text,
            format!("{why}. Give the embeddings of the model after unlearning as the unlearned model"),
        );
    }
    for w in identical_warned
        .iter()
        .filter(|w| !noted || w.code == "original_is_oracle")
    {
        let what = match w.code.as_str() {
            "unlearned_is_original" => "the unlearned model is the original model",
            "unlearned_is_oracle" => "the unlearned model is the oracle",
            _ => "the original model is the oracle",
        };
        headline
            .text
            .push_str(&format!("; note: {what} (the same values; see the warnings)"));
    }
    let specs = |role: &str| -> Vec<String> {
        records
            .iter()
            .filter(|r| r.role == role)
            .map(|r| r.spec.clone())
            .collect()
    };
    let parameters = RulerParameters {
        unlearned: specs("unlearned"),
        oracle: specs("oracle"),
        original: specs("original"),
        forget: rows_text(ws, &req.forget),
        retain: rows_text(ws, &req.retain),
        ties: req.ties.clone(),
        fdr: req.fdr,
    };
    Ok(RulerOutput {
        load_warnings,
        result: RulerResult {
            runs: reports,
            across_runs: across,
            not_tested,
            positive_controls: controls,
            negative_controls: negatives,
            warnings: core_warnings,
        },
        parameters,
        inputs: records,
        headline,
        metric_calls,
        warnings,
        rank_histograms,
    })
}

/// The record of a row index file (or split column) that rows given on their own came from (RULER's forget and
/// retain rows, the calibrated pools and targets); its spec is the rows' text, else the file's name.
pub(super) fn row_file_record(
    role: &str,
    d: crate::workspace::FileDigest,
    text: Option<String>,
    rows: usize,
) -> InputRecord {
    InputRecord::row_file(role, text.unwrap_or_else(|| d.path.clone()), d, rows)
}

/// RULER's models given as the CLI takes them (`unlearned`, `oracle`, `original` at the top: one input each, or a
/// list of one per run, paired in order) become its `runs`, so `lethe.ruler(unlearned=u, oracle=o, …)` and a manifest
/// line `{"analysis": "ruler", "unlearned": …}` read as `lethe ruler --unlearned … --oracle …` does.
pub fn flat_ruler_runs(map: &mut serde_json::Map<String, serde_json::Value>) -> Result<()> {
    const MODELS: [&str; 3] = ["unlearned", "oracle", "original"];
    if !MODELS.iter().any(|k| map.contains_key(*k)) {
        return Ok(());
    }
    if map.contains_key("runs") {
        return Err(Error::msg(
            "give the models either as runs (a list of {unlearned, oracle, original}) or as unlearned/oracle/original, \
             not both",
        )
        .usage());
    }
    let lists: Vec<(&str, Vec<serde_json::Value>)> = MODELS
        .iter()
        .filter_map(|k| {
            map.remove(*k).map(|v| match v {
                serde_json::Value::Array(items) => (*k, items),
                serde_json::Value::Null => (*k, Vec::new()),
                one => (*k, vec![one]),
            })
        })
        .collect();
    let runs = lists
        .iter()
        .find(|(k, _)| *k == "unlearned")
        .map_or(0, |(_, v)| v.len());
    if runs == 0 {
        return Err(Error::at("unlearned", "give the unlearned model's embeddings (one per run)").usage());
    }
    for (k, v) in &lists {
        if !v.is_empty() && v.len() != runs {
            return Err(Error::at(
                *k,
                format!(
                    "`{}` was given {} time(s) but `{}` {runs} time(s); give one per run",
                    words::role(k),
                    v.len(),
                    words::role("unlearned")
                ),
            )
            .usage());
        }
    }
    let runs: Vec<serde_json::Value> = (0..runs)
        .map(|i| {
            let mut run = serde_json::Map::new();
            for (k, v) in &lists {
                if let Some(x) = v.get(i) {
                    run.insert((*k).to_string(), x.clone());
                }
            }
            serde_json::Value::Object(run)
        })
        .collect();
    map.insert("runs".into(), serde_json::Value::Array(runs));
    Ok(())
}

// ---------------------------------------------------------------------------------------------------------------
// The registry's entry

/// `lethe ruler` in the registry ([`crate::registry`]).
pub struct Ruler;

in_browser_at_once!(Ruler, "ruler", RulerRequest => RulerOutput, ruler, lean = true);

registered! {
impl crate::registry::Analysis for Ruler {
    const NAME: &'static str = <Self as crate::browser::InBrowser>::NAME;
    type Request = RulerRequest;
    const ROLES: Roles = Roles {
        inputs: &["unlearned", "oracle", "original"],
        rows: &["forget", "retain"],
        texts: &[],
    };
    fn resolve(_: &mut Workspace, m: &mut serde_json::Map<String, serde_json::Value>) -> Result<()> {
        flat_ruler_runs(m)
    }
    /// Each run's nearest-neighbour percentile ranks.
    fn plots(r: &serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
        let hs: Vec<serde_json::Value> = r["runs"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|run| plots::numbers(&run["nn_percentile_rank"]["ranks"]))
            .filter_map(|ranks| plots::json(plots::histogram_in(&ranks, plots::RANK_BINS, (0.0, 1.0))))
            .collect();
        [("rank_histograms".to_string(), serde_json::Value::from(hs))].into_iter().collect()
    }
    fn run(ws: &mut Workspace, req: &RulerRequest, _: &mut Control<'_>) -> Result<serde_json::Value> {
        report(&ruler(ws, req)?.report())
    }
}
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Rows × cols embeddings, deterministic and all different.
    fn embeddings(rows: usize, cols: usize, seed: f64) -> Vec<u8> {
        let v: Vec<f64> = (0..rows * cols)
            .map(|i| ((i as f64 + 1.0) * (0.37 + seed)).sin())
            .collect();
        crate::npy::f64_bytes(&v, &[rows, cols])
    }

    fn all(source: u32) -> InputRef {
        InputRef {
            source,
            tensor: None,
            rows: Rows::All,
        }
    }

    fn text(t: &str) -> Rows {
        Rows::Text { text: t.into() }
    }

    fn request(oracle: Option<u32>, forget: &str, retain: &str) -> RulerRequest {
        RulerRequest {
            runs: vec![RulerRun {
                unlearned: all(1),
                oracle: oracle.map(all),
                original: None,
            }],
            forget: text(forget),
            retain: text(retain),
            ..RulerRequest::default()
        }
    }

    fn ws(files: &[(u32, &str, Vec<u8>)]) -> Workspace {
        let mut ws = Workspace::new();
        for (id, name, bytes) in files {
            ws.add(*id, name, Arc::new(bytes.clone()));
        }
        ws
    }

    /// An .npy of `rows` × 8 float64 whose values are made on demand (a file over the memory limit, without its
    /// memory): row r, column c holds sin(0.37·(8r + c + 1)) + 0.01·r.
    struct Big {
        header: Vec<u8>,
        rows: u64,
    }

    impl Big {
        fn new(rows: u64) -> Self {
            let dict = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({rows}, 8), }}");
            let mut h = dict.into_bytes();
            while (10 + h.len() + 1) % 64 != 0 {
                h.push(b' ');
            }
            h.push(b'\n');
            let mut header = b"\x93NUMPY\x01\x00".to_vec();
            header.extend(u16::try_from(h.len()).unwrap().to_le_bytes());
            header.extend(h);
            Self { header, rows }
        }
        fn value(k: u64) -> f64 {
            ((k as f64 + 1.0) * 0.37).sin() + 0.01 * (k / 8) as f64
        }
    }

    impl lethe::data::ByteSource for Big {
        fn len(&self) -> u64 {
            self.header.len() as u64 + self.rows * 64
        }
        fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
            let h = self.header.len() as u64;
            for (i, b) in buf.iter_mut().enumerate() {
                let at = offset + i as u64;
                *b = if at < h {
                    self.header[at as usize]
                } else {
                    let k = (at - h) / 8;
                    Self::value(k).to_le_bytes()[((at - h) % 8) as usize]
                };
            }
            Ok(())
        }
    }

    /// Issue 24: a model file over the memory limit whose forget and retain rows are a few is run on those rows
    /// (before, every row was loaded and the request refused for the memory of all of them), and gives the metrics
    /// of a small file holding just those rows.
    #[test]
    fn a_large_file_is_loaded_for_the_selected_rows_only() {
        let rows = 20_000_000_u64; // 20 M × 8 float64: 1.28 GB, over the 1 GiB limit
        assert!(rows * 64 > crate::workspace::MAX_BYTES);
        let mut w = Workspace::new();
        w.add(1, "big.npy", Arc::new(Big::new(rows)));
        let big = ruler(&mut w, &request(None, "0..50", "1000..1200")).unwrap();
        assert_eq!(
            big.inputs[0].rows_used, rows as usize,
            "the record names the whole file"
        );
        assert_eq!(big.inputs[0].path, "big.npy");
        let small: Vec<f64> = (0..50)
            .chain(1000..1200)
            .flat_map(|r: u64| (0..8).map(move |c| Big::value(r * 8 + c)))
            .collect();
        let mut w = ws(&[(1, "small.npy", crate::npy::f64_bytes(&small, &[250, 8]))]);
        let want = ruler(&mut w, &request(None, "0..50", "50..250")).unwrap();
        assert_eq!(
            serde_json::to_string(&big.result).unwrap(),
            serde_json::to_string(&want.result).unwrap()
        );
        assert_eq!(big.headline.text, want.headline.text);
    }

    /// Issue 24: the slot of a model file over the memory limit (the page's check of one input, before the forget
    /// and retain rows are chosen) opens it without loading it, as the run will read only the selected rows; it
    /// was loaded whole and refused ("needs 1280000000 bytes … load a subset of rows").
    #[test]
    fn a_model_slot_opens_a_large_file_without_loading_every_row() {
        let rows = 20_000_000_u64;
        let mut w = Workspace::new();
        w.add(1, "big.npy", Arc::new(Big::new(rows)));
        assert!(
            w.load("unlearned", &all(1)).is_err(),
            "the whole file is over the limit"
        );
        for role in ["unlearned", "oracle", "original"] {
            assert!(crate::analyses::opens_in_place(role), "{role}");
            let s = w.open(role, &all(1)).unwrap().summary();
            assert_eq!((s.rows, s.cols, s.in_place), (rows as usize, 8, true), "{role}");
        }
        assert!(
            !crate::analyses::opens_in_place("forget"),
            "index files are read as rows, not opened"
        );
    }

    #[test]
    fn an_oracle_with_embeddings_of_another_size_is_refused_naming_both_files() {
        let mut w = ws(&[
            (1, "u.npy", embeddings(40, 8, 0.0)),
            (2, "o.npy", embeddings(40, 6, 0.1)),
        ]);
        let e = ruler(&mut w, &request(Some(2), "0..10", "10..40")).unwrap_err();
        assert_eq!(e.code.as_deref(), Some("columns_differ"));
        assert_eq!(e.input.as_deref(), Some("oracle"));
        for needle in ["`o.npy`", "40 × 6", "`u.npy`", "40 × 8", "same layer"] {
            assert!(e.message.contains(needle), "{needle}: {}", e.message);
        }
        assert!(!e.message.contains("_forget"), "{}", e.message);
    }

    #[test]
    fn an_oracle_with_other_rows_is_refused() {
        let mut w = ws(&[
            (1, "u.npy", embeddings(40, 8, 0.0)),
            (2, "o.npy", embeddings(39, 8, 0.1)),
        ]);
        let e = ruler(&mut w, &request(Some(2), "0..10", "10..39")).unwrap_err();
        assert_eq!(e.code.as_deref(), Some("row_counts_differ"));
        assert_eq!(e.input.as_deref(), Some("oracle"));
        assert!(
            e.message.contains("`o.npy` has 39 rows") && e.message.contains("`u.npy` has 40"),
            "{}",
            e.message
        );
        let mut w = ws(&[
            (1, "u.npy", embeddings(40, 8, 0.0)),
            (2, "o.npy", embeddings(40, 8, 0.1)),
        ]);
        assert!(ruler(&mut w, &request(Some(2), "0..10", "10..40")).is_ok());
    }

    #[test]
    fn one_number_per_record_is_refused() {
        let flat = crate::npy::f64_bytes(&(0..40).map(f64::from).collect::<Vec<_>>(), &[40]);
        let mut w = ws(&[(1, "u.npy", flat)]);
        let e = ruler(&mut w, &request(None, "0..10", "10..40")).unwrap_err();
        assert_eq!(e.code.as_deref(), Some("one_number_embeddings"));
        assert!(e.message.contains("1-D array of 40 numbers"), "{}", e.message);
        let column = crate::npy::f64_bytes(&(0..40).map(f64::from).collect::<Vec<_>>(), &[40, 1]);
        let mut w = ws(&[(1, "u.npy", column)]);
        let e = ruler(&mut w, &request(None, "0..10", "10..40")).unwrap_err();
        assert_eq!(e.code.as_deref(), Some("one_number_embeddings"));
    }

    #[test]
    fn overlapping_rows_are_warned_and_identical_rows_refused() {
        let mut w = ws(&[(1, "u.npy", embeddings(40, 8, 0.0))]);
        let out = ruler(&mut w, &request(None, "0..10", "5..40")).unwrap();
        let warn = out.warnings.iter().find(|w| w.code == "forget_retain_overlap").unwrap();
        assert!(warn.message.starts_with("5 of the 10 forget rows"), "{}", warn.message);
        assert_eq!(warn.input.as_deref(), Some("retain"));
        let e = ruler(&mut w, &request(None, "0..10", "0,1,2,3,4,5,6,7,8,9")).unwrap_err();
        assert_eq!(e.code.as_deref(), Some("forget_retain_identical"));
        assert!(e.message.contains("same 10 rows"), "{}", e.message);
        let clean = ruler(&mut w, &request(None, "0..10", "10..40")).unwrap();
        assert!(clean.warnings.iter().all(|w| !w.code.starts_with("forget_retain")));
    }

    #[test]
    fn an_fdr_outside_zero_one_is_a_usage_error_even_for_one_run() {
        let mut w = ws(&[(1, "u.npy", embeddings(40, 8, 0.0))]);
        let e = ruler(
            &mut w,
            &RulerRequest {
                fdr: 2.0,
                ..request(None, "0..10", "10..40")
            },
        )
        .unwrap_err();
        // The option is named once, as the request names it; the CLI says `--fdr`.
        assert!(e.usage && e.message.contains(&words::opt("fdr")), "{e:?}");
        assert!(words::cli(&e.message).contains("(--fdr) is 2"), "{e:?}");
    }

    #[test]
    fn a_range_past_the_model_file_is_refused_before_it_is_expanded() {
        let mut w = ws(&[(1, "u.npy", embeddings(40, 8, 0.0))]);
        let e = ruler(&mut w, &request(None, "0..99999999999999", "10..40")).unwrap_err();
        assert_eq!(e.input.as_deref(), Some("forget"));
        assert!(
            e.message
                .starts_with("rows 0..99999999999999 are out of range for `u.npy`, which has 40 rows"),
            "{}",
            e.message
        );
    }

    fn report_with(m4: f64, n_forget: usize) -> RulerReport {
        RulerReport {
            oracle_similarity: Some(0.9),
            calibration_gap: Some(-0.01),
            representation_shift: None,
            nn_percentile_rank: Some(ruler::PercentileRank {
                value: m4,
                ranks: Vec::new(),
                forget_nn: Vec::new(),
                retain_nn: Vec::new(),
                null_sd: 1.0 / (12.0 * n_forget as f64).sqrt(),
                tie_rule: TieRule::AtMost,
            }),
            withheld: Vec::new(),
            nulls: ruler::NULLS,
            n_forget,
            n_retain: 100,
        }
    }

    #[test]
    fn one_run_gets_a_call_per_metric_and_one_overall() {
        // n_f = 48: null sd 1/24 ≈ 0.0417, so ±2 sds is [0.4167, 0.5833].
        for (m4, call, overall_call) in [
            (0.6, "above_null", "residual_memorisation"),
            (0.4, "below_null", "over_displaced"),
            (0.55, "at_null", "at_null"),
        ] {
            let calls = single_run_calls(&report_with(m4, 48));
            let names: Vec<&str> = calls.iter().map(|c| c.metric).collect();
            assert_eq!(names, ["m1", "m2", "m4"]);
            assert_eq!(calls[0].call, "no_null");
            assert_eq!(calls[1].call, Headline::INCONCLUSIVE, "one run cannot test m2");
            assert!(calls[1].text.contains("residual memorisation"), "{}", calls[1].text);
            assert_eq!(calls[2].call, call, "m4 = {m4}");
            assert_eq!(overall(&calls, 1, 0.05).call, overall_call, "m4 = {m4}");
        }
        let none = overall(&single_run_calls(&report_with(0.5, 48))[..2], 1, 0.05);
        assert!(none.is_inconclusive() && none.reason.is_some());
    }

    #[test]
    fn too_few_runs_are_inconclusive_not_at_null() {
        let runs: Vec<RulerReport> = [0.7, 0.72, 0.69].iter().map(|&m4| report_with(m4, 48)).collect();
        let (across, _) = ruler::across_runs(&runs, 0.05).unwrap();
        let calls = across_run_calls(&across, &[], &[], 0.05);
        assert!(calls.iter().all(|c| c.call == Headline::INCONCLUSIVE), "{calls:?}");
        assert!(
            calls[0].text.contains("cannot reach a p-value below 0.25"),
            "{}",
            calls[0].text
        );
        let h = overall(&calls, 3, 0.05);
        assert!(h.is_inconclusive() && h.text.contains("3 runs are too few"), "{h:?}");
        // Six runs, all above the null: significant.
        let runs: Vec<RulerReport> = (0..6).map(|k| report_with(0.7 + 0.01 * f64::from(k), 48)).collect();
        let (across, _) = ruler::across_runs(&runs, 0.05).unwrap();
        let calls = across_run_calls(&across, &[], &[], 0.05);
        let m4 = calls.iter().find(|c| c.metric == "m4").unwrap();
        assert_eq!(m4.call, "above_null", "{m4:?}");
        assert_eq!(overall(&calls, 6, 0.05).call, "residual_memorisation");
    }

    #[test]
    fn the_demo_run_reports_parameters_as_the_cli_was_given_them() {
        let mut w = Workspace::new();
        let act = include_bytes!("../../../examples/data/digits/act_unlearned.npy");
        w.add(1, "act_unlearned.npy", Arc::new(act.to_vec()));
        let out = ruler(&mut w, &request(None, "0..144", "144..544")).unwrap();
        assert_eq!(
            out.parameters,
            RulerParameters {
                unlearned: vec!["act_unlearned.npy".into()],
                oracle: Vec::new(),
                original: Vec::new(),
                forget: "0..144".into(),
                retain: "144..544".into(),
                ties: "at-most".into(),
                fdr: 0.05,
            }
        );
        assert_eq!(out.metric_calls.len(), 1, "m4 only without the oracle");
        assert!(!out.headline.text.is_empty());
        let report = serde_json::to_value(out.report()).unwrap();
        assert_eq!(report["command"], "ruler");
        assert_eq!(report["headline"]["call"], out.headline.call.as_str());
    }

    fn run(u: u32, o: Option<u32>, g: Option<u32>) -> RulerRun {
        RulerRun {
            unlearned: all(u),
            oracle: o.map(all),
            original: g.map(all),
        }
    }

    /// Identical models are found by their values, not their names: the same numbers as float32 in one file and
    /// float64 in another are the same model; the same forget rows with other retain rows are named as such.
    #[test]
    fn identical_models_are_compared_by_value() {
        let v: Vec<f32> = (0..40 * 8).map(|i| ((i as f32 + 1.0) * 0.37).sin()).collect();
        let wide: Vec<f64> = v.iter().map(|&x| f64::from(x)).collect();
        let mut other = wide.clone();
        other[39 * 8] += 1.0; // a retain row differs
        let mut w = ws(&[
            (1, "after.npy", crate::npy::f32_bytes(&v, &[40, 8])),
            (2, "before.npy", crate::npy::f64_bytes(&wide, &[40, 8])),
            (3, "retrained.npy", crate::npy::f64_bytes(&other, &[40, 8])),
            (4, "fresh.npy", embeddings(40, 8, 0.3)),
        ]);
        let req = |runs| RulerRequest {
            runs,
            ..request(None, "0..10", "10..40")
        };
        let out = ruler(&mut w, &req(vec![run(1, Some(3), Some(2))])).unwrap();
        let codes: Vec<&str> = out.warnings.iter().map(|w| w.code.as_str()).collect();
        assert!(codes.contains(&"unlearned_is_original"), "{codes:?}");
        let same = out.warnings.iter().find(|w| w.code == "unlearned_is_original").unwrap();
        assert!(
            same.message
                .contains("`after.npy` and `before.npy` hold the same values on every forget and retain row"),
            "{}",
            same.message
        );
        // The oracle shares the forget rows' values only: m1 is 1 all the same, and the message says which rows.
        let oracle = out.warnings.iter().find(|w| w.code == "unlearned_is_oracle").unwrap();
        assert!(
            oracle.message.contains("the same values on every forget row"),
            "{}",
            oracle.message
        );
        assert!(
            out.headline.text.contains("the unlearned model is the original model"),
            "{}",
            out.headline.text
        );
        // Another unlearned model: no word of it (the original and this oracle still share their forget rows).
        let out = ruler(&mut w, &req(vec![run(4, Some(3), Some(2))])).unwrap();
        let codes: Vec<&str> = out.warnings.iter().map(|w| w.code.as_str()).collect();
        assert!(!codes.iter().any(|c| c.starts_with("unlearned_is")), "{codes:?}");
        assert!(codes.contains(&"original_is_oracle"), "{codes:?}");
        // Across runs, one warning that counts the runs.
        let out = ruler(&mut w, &req(vec![run(1, Some(4), Some(2)), run(4, Some(3), Some(2))])).unwrap();
        let same: Vec<&Warning> = out
            .warnings
            .iter()
            .filter(|w| w.code == "unlearned_is_original")
            .collect();
        assert_eq!(same.len(), 1);
        assert!(
            same[0].message.contains("in 1 of the 2 runs (run 1;"),
            "{}",
            same[0].message
        );
    }

    /// The positive control: m4's call on the unlearned model stands when the original shows memorisation, and
    /// becomes inconclusive, with a warning, when it does not.
    /// Constant embeddings: every similarity ties, m4 is the tie rule's 1.0, far above the band. Neither the
    /// control nor m4's call may say `above_null` (the control said it before).
    #[test]
    fn tied_similarities_give_no_verdict() {
        let mut r = report_with(1.0, 48);
        let m4 = r.nn_percentile_rank.as_mut().unwrap();
        m4.forget_nn = vec![1.0; 48];
        m4.retain_nn = vec![1.0; 100];
        let m4 = r.nn_percentile_rank.clone().unwrap();
        assert_eq!(control_of(0, &m4, 0.5).call, Headline::INCONCLUSIVE);
        let calls = single_run_calls(&r);
        let c = calls.iter().find(|c| c.metric == "m4").unwrap();
        assert_eq!(c.call, Headline::INCONCLUSIVE, "{c:?}");
        assert!(c.text.contains("constant embeddings"), "{}", c.text);
        // One similarity apart, the band reads it as before.
        let mut r2 = r.clone();
        r2.nn_percentile_rank.as_mut().unwrap().retain_nn[0] = 0.9;
        assert_eq!(
            control_of(0, r2.nn_percentile_rank.as_ref().unwrap(), 0.5).call,
            "above_null"
        );
    }

    #[test]
    fn m4_is_read_only_where_the_original_shows_memorisation() {
        let control = |value: f64| control_of(0, &report_with(value, 48).nn_percentile_rank.unwrap(), 0.5);
        assert_eq!(control(0.7).call, "above_null");
        assert_eq!(control(0.5).call, "at_null");
        assert_eq!(control(0.3).call, "below_null");
        let mut calls = single_run_calls(&report_with(0.5, 48));
        assert!(apply_control(&mut calls, &[control(0.7)], 1, true).is_none());
        assert_eq!(calls.iter().find(|c| c.metric == "m4").unwrap().call, "at_null");
        assert_eq!(overall(&calls, 1, 0.05).call, "at_null");
        for failed in [0.5, 0.3] {
            let mut calls = single_run_calls(&report_with(0.5, 48));
            let w = apply_control(&mut calls, &[control(failed)], 1, false).unwrap();
            assert_eq!(
                (w.code.as_str(), w.input.as_deref()),
                ("m4_cannot_detect", Some("original"))
            );
            assert!(w.fix.as_deref().unwrap().starts_with("give the oracle"), "{w:?}");
            let m4 = calls.iter().find(|c| c.metric == "m4").unwrap();
            assert_eq!(m4.call, Headline::INCONCLUSIVE);
            assert!(overall(&calls, 1, 0.05).is_inconclusive());
        }
        // The negative control (the oracle's m4): outside its band, m4's null does not hold, whatever m4 reads.
        for (oracle, holds) in [(0.5, true), (0.7, false), (0.3, false)] {
            let mut calls = single_run_calls(&report_with(0.7, 48));
            let w = apply_negative_control(&mut calls, &[control(oracle)], 1);
            assert_eq!(w.is_none(), holds, "oracle m4 {oracle}");
            let m4 = calls.iter().find(|c| c.metric == "m4").unwrap();
            assert_eq!(m4.call == "above_null", holds, "{m4:?}");
            if let Some(w) = w {
                assert_eq!(
                    (w.code.as_str(), w.input.as_deref()),
                    ("m4_null_does_not_hold", Some("oracle"))
                );
                assert!(overall(&calls, 1, 0.05).is_inconclusive());
            }
        }
        // Several runs: one failed control is enough, and the warning counts them.
        let mut calls = single_run_calls(&report_with(0.5, 48));
        let w = apply_control(&mut calls, &[control(0.7), control(0.52)], 2, true).unwrap();
        assert!(w.message.contains("in 1 of the 2 runs given it"), "{}", w.message);
    }

    /// Across runs, a metric not tested gets an inconclusive call with its reason, and the headline still rests
    /// on the metrics that were tested.
    #[test]
    fn a_metric_not_tested_across_runs_leaves_the_others_their_calls() {
        let runs: Vec<RulerReport> = (0..6)
            .map(|k| RulerReport {
                representation_shift: Some(0.0),
                ..report_with(0.7 + 0.01 * f64::from(k), 48)
            })
            .collect();
        let (across, not_tested) = ruler::across_runs(&runs, 0.05).unwrap();
        let calls = across_run_calls(&across, &not_tested, &[], 0.05);
        let names: Vec<&str> = calls.iter().map(|c| c.metric).collect();
        assert_eq!(names, ["m2", "m3", "m4"]);
        let m3 = &calls[1];
        assert_eq!(m3.call, Headline::INCONCLUSIVE);
        assert!(
            m3.text
                .starts_with("m3 is not tested across the 6 runs: every run gives exactly 0"),
            "{}",
            m3.text
        );
        assert_eq!(m3.why.as_deref(), Some("not tested: the same value in every run"));
        assert_eq!(calls[2].call, "above_null");
        assert_eq!(overall(&calls, 6, 0.05).call, "residual_memorisation");
    }

    /// The same rows for forget and retain: with the oracle, m1 is computed and m2 and m4 withheld, with a
    /// warning; the headline says what was withheld.
    #[test]
    fn the_same_forget_and_retain_rows_withhold_m2_and_m4() {
        let mut w = ws(&[
            (1, "u.npy", embeddings(40, 8, 0.0)),
            (2, "o.npy", embeddings(40, 8, 0.1)),
        ]);
        let out = ruler(&mut w, &request(Some(2), "0..10", "0..10")).unwrap();
        let r = &out.result.runs[0];
        assert!(r.oracle_similarity.is_some());
        assert!(r.calibration_gap.is_none() && r.nn_percentile_rank.is_none());
        let warn = out
            .warnings
            .iter()
            .find(|w| w.code == "forget_retain_identical")
            .unwrap();
        assert!(
            warn.message.contains("m1 and m3 use the forget records only"),
            "{}",
            warn.message
        );
        let withheld: Vec<&str> = out
            .metric_calls
            .iter()
            .filter(|c| c.call == "withheld")
            .map(|c| c.metric)
            .collect();
        assert_eq!(withheld, ["m2", "m4"]);
        assert!(out.headline.is_inconclusive());
        assert!(
            out.headline.text.contains("m2 and m4 withheld"),
            "{}",
            out.headline.text
        );
        assert!(out.rank_histograms.is_empty());
    }
}
