//! LiRA from shadow-model results (`lethe lira`, issue 13 item 2): a request with the CLI's option names and
//! defaults, the checks that read the inputs and say what is wrong in the files' own terms, the core's scores
//! (`lethe::lira`, each variant named after the tensorflow/privacy `mi_lira_2021/plot.py` function it follows), and
//! the membership audit of those scores by the layer's `mia` analysis ([`prepare_mia`]): AUC with its interval, TPR
//! at low FPR with the realized FPR, exactly as `lethe mia` reports them.
//!
//! Inputs, either:
//! * `files`: the files of a directory in the layout `mi_lira_2021` writes (`experiment*/keep.npy`,
//!   `experiment*/scores/*.npy`, or `experiment*/logits/*.npy` + `y_train.npy`), each source named by its path
//!   (the CLI: the paths under the directory; the page: a dropped folder's relative paths). Read by
//!   `lethe::tools::lira` (plot.py `load_data`'s rules: the last scores file of each experiment, keep cut to the
//!   scored examples; experiments ordered by their number, so the last model is the highest-numbered one).
//! * `scores` (models × examples × augmentations, or models × examples) and `keep` (models × examples; 0/1 or
//!   bool; cut to the scores' examples as plot.py cuts it): stacked arrays, e.g. `runs.npz#scores`, `runs.npz#keep`.
//!
//! Checks, once for every front end:
//! * Refused: a NaN or infinite score (`non_finite`, naming the model and example); an example that no shadow model
//!   holds IN (online variants: `no_in_shadows`) or OUT (`no_out_shadows`): plot.py would fit an empty set and score
//!   NaN; targets whose keep rows are all IN or all OUT (`one_class_empty`): the audit needs both.
//! * Warned: plot.py cuts every example to the smallest IN/OUT count over the examples (`shadows_cut`: how many
//!   shadows' scores are unused); a per-example variance fitted to fewer than 2 shadows (its standard deviation is
//!   0, and `+1e-30` decides the score: `degenerate_variance`); fewer than 64 shadow models with a per-example
//!   variance (`few_shadows`: the LiRA paper fixes the variance below that); folders left out and 0/1 keep files
//!   (`file_reader`).

use lethe::lira::{self, LiraParams, Shadows, Variant};
use lethe::tools::lira::{self as dir, Array, ScoreSource};

use super::*;
use crate::report::{Headline, Report, Warning};
use crate::words;

/// `lethe lira`'s options. With the `clap` feature (the CLI's), the options are the subcommand's arguments: each is
/// declared here once.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[serde(default)]
pub struct LiraRequest {
    /// The files of an mi_lira_2021 directory (sources named by their paths).
    #[cfg_attr(feature = "clap", arg(skip))]
    pub files: Vec<u32>,
    /// The folder the files came from, as the report records it (the CLI's argument; the page: the folder's name).
    #[cfg_attr(feature = "clap", arg(skip))]
    pub dir: Option<String>,
    /// Stacked scores: models × examples × augmentations (or models × examples).
    #[cfg_attr(feature = "clap", arg(skip))]
    pub scores: Option<InputRef>,
    /// Stacked keep flags: models × examples.
    #[cfg_attr(feature = "clap", arg(skip))]
    pub keep: Option<InputRef>,
    /// Which LiRA score, each plot.py's function: online (generate_ours), online-fixed-variance
    /// (generate_ours(fix_variance=True)), offline (generate_ours_offline), offline-fixed-variance, global
    /// (generate_global)
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["online", "online-fixed-variance", "offline", "offline-fixed-variance", "global"], default_value = "online"))]
    pub variant: String,
    /// Target model(s), comma-separated, numbered from 0 in the order of the experiment numbers [default: the last
    /// model, as plot.py]; the other models are the shadows
    // Their scores are scored, their keep rows are the labels; empty: the last model (plot.py).
    #[cfg_attr(feature = "clap", arg(long = "target", value_name = "TARGET", value_delimiter = ','))]
    pub targets: Vec<usize>,
    /// Directory scores from scores/ (score.py's files), from logits/ converted as score.py does, or auto (scores/
    /// where present)
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["auto", "scores", "logits"], default_value = "auto"))]
    pub from: String,
    /// Use the first K augmentations [default: all]
    #[cfg_attr(feature = "clap", arg(long, value_name = "K"))]
    pub augmentations: Option<usize>,
    /// plot.py's in_size cap on the IN shadows per example
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LiraRequest::default().in_size))]
    pub in_size: usize,
    /// plot.py's out_size cap on the OUT shadows per example
    #[cfg_attr(feature = "clap", arg(long, default_value_t = LiraRequest::default().out_size))]
    pub out_size: usize,
    // The membership audit's options (`lethe mia`'s).
    /// 1 − the level of every interval (0.05: 95%)
    #[cfg_attr(feature = "clap", arg(long, default_value_t = MiaRequest::default().alpha))]
    pub alpha: f64,
    /// Interval on the AUC: delong, bootstrap or both (as lethe mia)
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["delong", "bootstrap", "both"], default_value = "delong"))]
    pub ci: String,
    /// Bootstrap resamples
    #[cfg_attr(feature = "clap", arg(long, default_value_t = MiaRequest::default().resamples))]
    pub resamples: usize,
    /// Seed of the bootstrap's resamples
    #[cfg_attr(feature = "clap", arg(long, default_value_t = MiaRequest::default().seed))]
    pub seed: u64,
    /// How TPR is read at a target FPR (as lethe mia): leakpro, privacy-meter, jax-privacy, all
    #[cfg_attr(feature = "clap", arg(long, value_parser = ["leakpro", "privacy-meter", "jax-privacy", "all"], default_value = "leakpro"))]
    pub rule: String,
    /// Target FPRs, comma-separated
    #[cfg_attr(feature = "clap", arg(long, value_delimiter = ',', default_values_t = DEFAULT_FPRS))]
    pub fpr: Vec<f64>,
    /// Most ROC points in the report
    #[cfg_attr(feature = "clap", arg(long, default_value_t = DEFAULT_CURVE_POINTS))]
    pub curve_points: usize,
}

impl Default for LiraRequest {
    fn default() -> Self {
        let m = MiaRequest::default();
        Self {
            files: Vec::new(),
            dir: None,
            scores: None,
            keep: None,
            from: "auto".into(),
            variant: Variant::Online.name().into(),
            targets: Vec::new(),
            augmentations: None,
            in_size: lira::DEFAULT_SIZE,
            out_size: lira::DEFAULT_SIZE,
            alpha: m.alpha,
            ci: m.ci,
            resamples: m.resamples,
            seed: m.seed,
            rule: m.rule,
            fpr: m.fpr,
            curve_points: m.curve_points,
        }
    }
}

/// `lethe lira`'s parameters as reports record them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LiraParameters {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scores: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keep: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    pub variant: String,
    /// The code the variant follows.
    pub follows: String,
    pub targets: Vec<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub augmentations: Option<usize>,
    pub in_size: usize,
    pub out_size: usize,
    pub alpha: f64,
    pub ci: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resamples: Option<usize>,
    pub rule: String,
    pub fpr: Vec<f64>,
}

/// How many shadows held the examples IN and OUT.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShadowSummary {
    pub shadows: usize,
    pub fewest_in: usize,
    pub fewest_in_example: usize,
    pub most_in: usize,
    pub fewest_out: usize,
    pub fewest_out_example: usize,
    pub most_out: usize,
    /// IN / OUT shadows per example the fit used (plot.py's `in_size`, `out_size`; 0 where unused).
    pub in_used: usize,
    pub out_used: usize,
}

/// `lethe lira`'s result.
#[derive(Clone, Debug, Serialize)]
pub struct LiraResult {
    pub variant: String,
    pub follows: String,
    pub models: usize,
    pub examples: usize,
    /// Augmentations used (of `augmentations_available`).
    pub augmentations: usize,
    pub augmentations_available: usize,
    pub targets: Vec<usize>,
    /// The experiment folders in model order (directory input).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub experiments: Vec<String>,
    pub shadow_counts: ShadowSummary,
    pub members: usize,
    pub non_members: usize,
    /// LiRA's membership score of each target example, target after target: higher = member (`−prediction` of
    /// plot.py, whose sweep ranks `−prediction`).
    #[serde(serialize_with = "lethe::json::vec_f64")]
    pub scores: Vec<f64>,
    /// The targets' keep flags (1 = member), row for row with `scores`.
    pub labels: Vec<u8>,
    /// The membership audit of `scores` against `labels` (`lethe mia`'s result).
    pub audit: MiaResult,
}

pub type LiraReport = Report<LiraParameters, LiraResult>;

/// A checked `lethe lira` request, ready to run.
pub struct LiraJob {
    shadows: Shadows,
    params: LiraParams,
    available: usize,
    experiments: Vec<String>,
    parameters: LiraParameters,
    inputs: Vec<InputRecord>,
    warnings: Vec<Warning>,
    mia: MiaRequest,
}

fn array_of(input: &Input) -> Array {
    Array {
        values: input.matrix.as_slice().to_vec(),
        shape: input.record.shape.clone(),
        dtype: input.record.dtype.clone(),
    }
}

fn plain(source: u32) -> InputRef {
    InputRef {
        source,
        tensor: None,
        rows: Rows::default(),
    }
}

/// What the inputs held: the shadow results, the experiment folders (directory input), the readers' notes, and the
/// records of the files read.
struct Read {
    sh: Shadows,
    experiments: Vec<String>,
    notes: Vec<String>,
    records: Vec<InputRecord>,
}

/// Reads the directory's files.
fn read_dir(ws: &mut Workspace, files: &[u32], from: ScoreSource) -> Result<Read> {
    let mut by_name = std::collections::HashMap::new();
    let mut names = Vec::new();
    for &id in files {
        let name = ws.source(id)?.name.replace('\\', "/");
        by_name.insert(name.clone(), id);
        names.push(name);
    }
    let layout = dir::plan(&names, from).map_err(|e| Error::refused("lira_layout", Some("dir"), e.to_string()))?;
    let mut records = Vec::new();
    let mut failure = None;
    let result = dir::assemble(&layout, &mut |path| {
        let Some(&id) = by_name.get(path) else {
            return Err("the file was listed but not given".to_string());
        };
        match ws.load("dir", &plain(id)) {
            Ok(input) => {
                records.push(input.record.clone());
                Ok(array_of(&input))
            }
            Err(e) => {
                let m = e.message.clone();
                failure = Some(e);
                Err(m)
            }
        }
    });
    match result {
        Ok((sh, notes)) => {
            // Each record's role says which model's file it is: `scores[3]`, `keep[3]`, `logits[3]`, `labels`.
            let mut roles = std::collections::HashMap::new();
            for (m, e) in layout.experiments.iter().enumerate() {
                for (what, p) in [("keep", &e.keep), ("scores", &e.scores), ("logits", &e.logits)] {
                    if let Some(p) = p {
                        roles.insert(p.as_str(), format!("{what}[{m}]"));
                    }
                }
            }
            for r in &mut records {
                let path = r.path.replace('\\', "/");
                r.role = roles.get(path.as_str()).cloned().unwrap_or_else(|| "labels".into());
            }
            let experiments = layout.experiments.iter().map(|e| e.dir.clone()).collect();
            Ok(Read {
                sh,
                experiments,
                notes,
                records,
            })
        }
        // A file the workspace could not read: its own error (it names the file).
        Err(_) if failure.is_some() => Err(failure.map_or_else(|| Error::msg("unreadable file"), |e| e.or_at("dir"))),
        Err(e) => Err(Error::refused("lira_layout", Some("dir"), e.to_string())),
    }
}

/// The arrays of the stacked scores' and keep's files (.npz, .safetensors) that neither names: a `target` or
/// `member` array a user exported beside them is never read, and is named rather than ignored silently.
fn unused_arrays(ws: &Workspace, s: &InputRef, k: &InputRef) -> Vec<String> {
    let mut used: Vec<(u32, Option<&str>)> = vec![(s.source, s.tensor.as_deref()), (k.source, k.tensor.as_deref())];
    used.dedup();
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for &(src, _) in &used {
        if seen.contains(&src) {
            continue;
        }
        seen.push(src);
        let Some(info) = ws.inspect(src).ok().and_then(|i| i.info) else {
            continue;
        };
        if info.arrays.len() < 2 {
            continue;
        }
        for a in &info.arrays {
            let Some(name) = &a.name else { continue };
            let named = |t: Option<&str>| t.is_some_and(|t| t == name || t.strip_suffix(".npy") == Some(name));
            if !used.iter().any(|&(u, t)| u == src && named(t)) && !out.contains(name) {
                out.push(name.clone());
            }
        }
    }
    out
}

/// Reads stacked `scores` and `keep`.
fn read_stacked(ws: &mut Workspace, s: &InputRef, k: &InputRef) -> Result<Read> {
    let si = ws.load("scores", s)?;
    let ki = ws.load("keep", k)?;
    let shape = &si.record.shape;
    let (m, n, a) = match shape.as_slice() {
        [m, n] => (*m as usize, *n as usize, 1),
        [m, n, a] => (*m as usize, *n as usize, *a as usize),
        _ => {
            return Err(Error::at(
                "scores",
                format!(
                    "`{}` has shape {shape:?}, but LiRA's stacked scores are models × examples × augmentations (or \
                     models × examples): stack each model's scores/*.npy with np.stack",
                    si.record.spec
                ),
            ));
        }
    };
    let ks = &ki.record.shape;
    let (km, kn) = match ks.as_slice() {
        [km, kn] => (*km as usize, *kn as usize),
        _ => {
            return Err(Error::at(
                "keep",
                format!(
                    "`{}` has shape {ks:?}, but keep is models × examples (one keep.npy per model, stacked)",
                    ki.record.spec
                ),
            ));
        }
    };
    if km != m || kn < n {
        return Err(Error::refused(
            "lira_shape",
            Some("keep"),
            format!(
                "`{}` is {km} models × {kn} examples but `{}` holds {m} models × {n} examples: keep needs a row per \
                 model and a flag for every scored example (plot.py cuts longer rows to the scores' examples). \
                 Stack the keep.npy of the same models, in the same order",
                ki.record.spec, si.record.spec
            ),
        ));
    }
    let kv = ki.matrix.as_slice();
    let mut notes = Vec::new();
    if let Some(pos) = kv.iter().position(|&v| v != 0.0 && v != 1.0) {
        return Err(Error::refused(
            "lira_keep_not_binary",
            Some("keep"),
            format!(
                "`{}` holds {} at model {}, example {}: keep flags are true/false (1/0)",
                ki.record.spec,
                kv[pos],
                pos / kn,
                pos % kn
            ),
        ));
    }
    if ki.record.dtype != "bool" {
        notes.push(format!(
            "`{}` holds {} 0/1 values, read as flags (plot.py needs a boolean keep: with integers numpy's keep[:, j] \
             indexes rows instead of selecting them)",
            ki.record.spec, ki.record.dtype
        ));
    }
    let mut keep = Vec::with_capacity(m * n);
    for r in 0..m {
        keep.extend(kv[r * kn..r * kn + n].iter().map(|&v| v != 0.0));
    }
    let sh = Shadows::new(m, n, a, si.matrix.as_slice().to_vec(), keep).map_err(Error::from)?;
    Ok(Read {
        sh,
        experiments: Vec::new(),
        notes,
        records: vec![si.record.clone(), ki.record.clone()],
    })
}

/// The files of folder `dir` (mi_lira_2021's layout) the layout can use: every keep.npy and y_train.npy, and the
/// last file (sorted by name) of each experiment's scores/ and logits/ (the one plot.py reads; the others are not
/// opened), as paths under `dir`, sorted.
///
/// # Errors
/// `dir` is not a directory (a usage error naming the fix); the directory cannot be listed.
#[cfg(not(target_arch = "wasm32"))]
pub fn lira_layout_files(dir: &std::path::Path) -> Result<Vec<String>> {
    if !dir.is_dir() {
        return Err(Error::msg(format!(
            "`{}` is not a directory: give the folder mi_lira_2021 writes (with experiment*/ folders), or the \
             stacked arrays with {} and {}",
            dir.display(),
            words::opt("scores"),
            words::opt("keep")
        ))
        .usage());
    }
    let all =
        dir::list_dir(dir).map_err(|e| Error::msg(format!("`{}`: cannot list the directory: {e}", dir.display())))?;
    let mut last: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
    let mut out = Vec::new();
    for p in all {
        let name = p.rsplit('/').next().unwrap_or(&p);
        let parent = p.rsplit_once('/').map_or("", |(d, _)| d);
        if name == "keep.npy" || name == "y_train.npy" {
            out.push(p.clone());
        } else if parent.ends_with("/scores") || parent.ends_with("/logits") {
            let e = last.entry(parent.to_string()).or_default();
            if p > *e {
                *e = p.clone();
            }
        }
    }
    out.extend(last.into_values());
    out.sort();
    Ok(out)
}

/// Opens the files of folder `dir` the layout can use ([`lira_layout_files`]) in `ws` (role `dir`): the request's
/// `files` (its `dir` is the folder as given, as the report records it).
///
/// # Errors
/// As [`lira_layout_files`]; a file that cannot be opened.
#[cfg(not(target_arch = "wasm32"))]
pub fn open_lira_dir(ws: &mut Workspace, dir: &std::path::Path) -> Result<Vec<u32>> {
    lira_layout_files(dir)?
        .iter()
        .map(|p| ws.add_path("dir", std::path::Path::new(p)))
        .collect()
}

/// Loads and checks a `lethe lira` request.
///
/// # Errors
/// Malformed options (usage errors); unreadable inputs; the refusals of the module documentation.
pub fn prepare_lira(ws: &mut Workspace, req: &LiraRequest) -> Result<LiraJob> {
    let variant: Variant = req.variant.parse().map_err(|_| {
        Error::msg(format!(
            "the variant `{}` is not one of online, online-fixed-variance, offline, offline-fixed-variance, global",
            req.variant
        ))
        .usage()
    })?;
    let from: ScoreSource = req.from.parse().map_err(|m: String| Error::msg(m).usage())?;
    if req.in_size == 0 || req.out_size == 0 {
        return Err(Error::msg("the in/out size caps must be at least 1 (plot.py's default is 100000)").usage());
    }
    if req.augmentations == Some(0) {
        return Err(Error::msg("use at least 1 augmentation").usage());
    }
    let mut unused = Vec::new();
    let (read, dir_param, s_param, k_param) = match (req.files.is_empty(), &req.scores, &req.keep) {
        (false, None, None) => {
            let r = read_dir(ws, &req.files, from)?;
            (r, Some(req.dir.clone().unwrap_or_else(|| ".".into())), None, None)
        }
        (true, Some(s), Some(k)) => {
            unused = unused_arrays(ws, s, k);
            let r = read_stacked(ws, s, k)?;
            let (sp, kp) = (r.records[0].spec.clone(), r.records[1].spec.clone());
            (r, None, Some(sp), Some(kp))
        }
        (true, None, None) if req.dir.is_some() => {
            // A folder with none of the layout's files.
            let mut e = dir::plan(&[], from).err().unwrap_or_else(|| dir::LiraDirError {
                file: String::new(),
                detail: "no experiment folder".into(),
                fix: String::new(),
            });
            e.file = req.dir.clone().unwrap_or_default();
            return Err(Error::refused("lira_layout", Some("dir"), e.to_string()));
        }
        _ => {
            return Err(Error::msg(format!(
                "give a directory of shadow-model results (mi_lira_2021's experiment folders), or the stacked \
                 scores and keep arrays ({} and {}), not both",
                words::opt("scores"),
                words::opt("keep")
            ))
            .usage());
        }
    };
    let Read {
        mut sh,
        experiments,
        notes,
        records: inputs,
    } = read;
    let mut warnings: Vec<Warning> = notes
        .iter()
        .map(|n| {
            Warning::new(
                "file_reader",
                Some(if dir_param.is_some() { "dir" } else { "keep" }),
                n.clone(),
                None,
            )
        })
        .collect();
    if !unused.is_empty() {
        let names: Vec<String> = unused.iter().map(|n| format!("`{n}`")).collect();
        warnings.push(Warning::new(
            "lira_arrays_unused",
            Some("scores"),
            format!(
                "the file(s) of the stacked scores and keep flags also hold {}, which LiRA does not read: its members \
                 are each model's keep row, and the audited model is chosen by its number (the last model unless a \
                 target model is given), not by an array",
                names.join(", ")
            ),
            Some(
                "choose the audited model by its number; to audit one model's own scores against member flags, give \
                 them to the membership audit as scores with labels"
                    .into(),
            ),
        ));
    }
    let role = if dir_param.is_some() { "dir" } else { "scores" };
    let available = sh.augmentations;
    if let Some(k) = req.augmentations {
        if k > available {
            return Err(Error::at(
                role,
                format!("{k} augmentations asked for, but the scores hold {available} per example"),
            )
            .usage());
        }
        if k < available {
            let mut s = Vec::with_capacity(sh.models * sh.examples * k);
            for row in sh.scores.chunks(available) {
                s.extend_from_slice(&row[..k]);
            }
            sh = Shadows::new(sh.models, sh.examples, k, s, sh.keep).map_err(Error::from)?;
        }
    }
    if let Some(pos) = sh.scores.iter().position(|v| !v.is_finite()) {
        let a = sh.augmentations;
        let (m, j) = (pos / a / sh.examples, pos / a % sh.examples);
        let n = sh.scores.iter().filter(|v| !v.is_finite()).count();
        let file = experiments.get(m).map_or(String::new(), |e| format!(" (`{e}/`)"));
        return Err(Error::refused(
            "non_finite",
            Some(role),
            format!(
                "{n} score(s) are not finite numbers, the first ({}) of model {m}{file}, example {j}, augmentation {}: \
                 a Gaussian cannot be fitted to them. Rescore that model (score.py), or leave it out",
                sh.scores[pos],
                pos % a
            ),
        ));
    }
    let targets = if req.targets.is_empty() {
        vec![sh.models - 1]
    } else {
        req.targets.clone()
    };
    for &t in &targets {
        if t >= sh.models {
            return Err(Error::at(
                role,
                format!(
                    "target model {t} does not exist: there are {} models, numbered 0 to {}{}",
                    sh.models,
                    sh.models - 1,
                    if experiments.is_empty() {
                        ""
                    } else {
                        " in the order of their experiment numbers"
                    }
                ),
            )
            .usage());
        }
    }
    let shadows = lira::shadow_models(sh.models, &targets);
    if shadows.is_empty() && variant != Variant::Global {
        return Err(Error::refused(
            "no_shadows",
            Some(role),
            format!(
                "every one of the {} models is a target, so no shadow model is left to fit LiRA's Gaussians to",
                sh.models
            ),
        ));
    }
    let counts = lira::shadow_counts(&sh, &shadows);
    let (fi, fij) = counts.fewest_in();
    let (fo, foj) = counts.fewest_out();
    let most_in = counts.n_in.iter().copied().max().unwrap_or(0);
    let most_out = counts.n_out.iter().copied().max().unwrap_or(0);
    let (code_none, side, count, ex) = if variant.uses_in() && fi == 0 {
        (
            "no_in_shadows",
            "IN",
            counts.n_in.iter().filter(|&&c| c == 0).count(),
            fij,
        )
    } else if variant.uses_out() && fo == 0 {
        (
            "no_out_shadows",
            "OUT",
            counts.n_out.iter().filter(|&&c| c == 0).count(),
            foj,
        )
    } else {
        ("", "", 0, 0)
    };
    if !code_none.is_empty() {
        let other = if side == "IN" {
            " The offline variants need OUT shadows only."
        } else {
            ""
        };
        return Err(Error::refused(
            code_none,
            Some(role),
            format!(
                "{count} example(s) are {side} in none of the {} shadow models, the first example {ex}: {} fits a \
                 Gaussian to each example's {side} shadows, and plot.py would fit an empty set there and score NaN. \
                 Train more shadow models (train.py with --num_experiments gives every example to half of them), \
                 or choose other targets.{other}",
                shadows.len(),
                variant.reference()
            ),
        ));
    }
    let in_used = if variant.uses_in() { fi.min(req.in_size) } else { 0 };
    let out_used = if variant.uses_out() { fo.min(req.out_size) } else { 0 };
    let labels: Vec<bool> = targets
        .iter()
        .flat_map(|&t| (0..sh.examples).map(move |j| (t, j)))
        .map(|(t, j)| sh.kept(t, j))
        .collect();
    let members = labels.iter().filter(|&&l| l).count();
    if members == 0 || members == labels.len() {
        return Err(Error::refused(
            "one_class_empty",
            Some(role),
            format!(
                "the target model(s) {targets:?} trained on {} of their {} examples: the audit compares members with \
                 non-members and needs both. Choose a target whose keep.npy has both true and false flags",
                if members == 0 { "none" } else { "all" },
                labels.len()
            ),
        ));
    }
    // plot.py cuts every example to the smallest count.
    let unused: usize = if variant.uses_in() {
        counts.n_in.iter().map(|&c| c - in_used).sum()
    } else {
        0
    } + if variant.uses_out() {
        counts.n_out.iter().map(|&c| c - out_used).sum()
    } else {
        0
    };
    if unused > 0 {
        let mut parts = Vec::new();
        if variant.uses_in() && most_in > in_used {
            parts.push(format!(
                "IN counts run from {fi} (example {fij}) to {most_in}, and each example's IN Gaussian uses its first \
                 {in_used}"
            ));
        }
        if variant.uses_out() && most_out > out_used {
            parts.push(format!(
                "OUT counts run from {fo} (example {foj}) to {most_out}, and each example's OUT Gaussian uses its \
                 first {out_used}"
            ));
        }
        warnings.push(Warning::new(
            "shadows_cut",
            Some(role),
            format!(
                "plot.py fits every example to the same number of shadows, the smallest count: {}; {unused} shadow \
                 scores are not used",
                parts.join("; ")
            ),
            Some(
                "give every example to the same number of shadows (train.py's --num_experiments does), or raise the \
                 smallest count"
                    .into(),
            ),
        ));
    }
    let per_example_var = matches!(variant, Variant::Online | Variant::Offline);
    if per_example_var {
        let low = if variant.uses_in() {
            in_used.min(out_used)
        } else {
            out_used
        };
        if low < 2 {
            warnings.push(Warning::new(
                "degenerate_variance",
                Some(role),
                format!(
                    "each example's standard deviation is fitted to {low} shadow score(s), so it is 0 and plot.py's \
                     +1e-30 decides the scores: the ranking says little"
                ),
                Some(format!(
                    "use the {}-fixed-variance variant ({}), or more shadow models",
                    variant.name(),
                    words::opt_is("variant", &format!("{}-fixed-variance", variant.name()))
                )),
            ));
        } else if shadows.len() < 64 {
            warnings.push(Warning::new(
                "few_shadows",
                Some(role),
                format!(
                    "{} shadow models: each example's standard deviation comes from {}{low} scores; the LiRA paper \
                     (Carlini et al. 2022) fixes the variance globally when there are fewer than 64 shadow models",
                    shadows.len(),
                    if in_used.max(out_used) > low {
                        format!("{} or ", in_used.max(out_used))
                    } else {
                        String::new()
                    }
                ),
                Some(format!(
                    "compare with the {}-fixed-variance variant ({})",
                    variant.name(),
                    words::opt_is("variant", &format!("{}-fixed-variance", variant.name()))
                )),
            ));
        }
    }
    let mia = MiaRequest {
        alpha: req.alpha,
        ci: req.ci.clone(),
        resamples: req.resamples,
        seed: req.seed,
        rule: req.rule.clone(),
        fpr: req.fpr.clone(),
        curve_points: req.curve_points,
        ..MiaRequest::default()
    };
    let params = LiraParams {
        variant,
        targets: targets.clone(),
        in_size: req.in_size,
        out_size: req.out_size,
    };
    let parameters = LiraParameters {
        dir: dir_param,
        scores: s_param,
        keep: k_param,
        from: (!req.files.is_empty()).then(|| req.from.clone()),
        variant: variant.name().into(),
        follows: variant.reference().into(),
        targets,
        augmentations: req.augmentations,
        in_size: req.in_size,
        out_size: req.out_size,
        alpha: req.alpha,
        ci: req.ci.clone(),
        resamples: (req.ci != "delong").then_some(req.resamples),
        rule: req.rule.clone(),
        fpr: req.fpr.clone(),
    };
    Ok(LiraJob {
        shadows: sh,
        params,
        available,
        experiments,
        parameters,
        inputs,
        warnings,
        mia,
    })
}

impl LiraJob {
    /// The warnings the checks found.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Fits and scores (progress over the examples fitted), then audits the scores as `lethe mia` does (its
    /// bootstrap's progress, on `threads` threads). `progress(done, total)`: `false` stops the run (cancelled).
    ///
    /// # Errors
    /// Cancelled; the audit's refusals (every score equal: `constant_scores`); the core's errors.
    pub fn run(self, threads: usize, progress: &mut dyn FnMut(usize, usize) -> bool) -> Result<LiraReport> {
        let (scored, job) = self.score(progress)?;
        let audit = job.run(threads, progress).map_err(|e| scored.attribute(e))?;
        scored.finish(audit)
    }

    /// As [`LiraJob::run`], the audit's bootstrap reporting to `monitor` between blocks of resamples (the page's
    /// worker: progress posted, a cancel stops it keeping the resamples done); the fit itself is quick and runs
    /// through.
    ///
    /// # Errors
    /// As [`LiraJob::run`].
    pub async fn run_with<M: Monitor>(self, threads: usize, monitor: &mut M) -> Result<LiraReport> {
        let (scored, job) = self.score(&mut |_, _| true)?;
        let audit = job.run_with(threads, monitor).await.map_err(|e| scored.attribute(e))?;
        scored.finish(audit)
    }

    /// LiRA's scores, and the audit of them prepared (the layer's `mia` analysis on the two score vectors, handed
    /// over as .npy sources).
    fn score(self, progress: &mut dyn FnMut(usize, usize) -> bool) -> Result<(Scored, MiaJob)> {
        let LiraJob {
            shadows: sh,
            params,
            available,
            experiments,
            parameters,
            inputs,
            warnings,
            mia,
        } = self;
        let role = if parameters.dir.is_some() { "dir" } else { "scores" };
        let scored = lira::lira(&sh, &params, progress).map_err(Error::from)?;
        let mut members = Vec::new();
        let mut non_members = Vec::new();
        for (&s, &a) in scored.membership.iter().zip(&scored.answers) {
            if a { members.push(s) } else { non_members.push(s) }
        }
        let mut scratch = Workspace::new();
        let targets = params
            .targets
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(",");
        for (id, name, v) in [
            (0, format!("LiRA scores of model {targets}'s members"), &members),
            (1, format!("LiRA scores of model {targets}'s non-members"), &non_members),
        ] {
            let bytes = crate::npy::f64_bytes(v, &[v.len()]);
            scratch.add(id, &name, Arc::new(bytes));
        }
        let req = MiaRequest {
            members: Some(plain(0)),
            non_members: Some(plain(1)),
            ..mia
        };
        let out = Scored {
            sh,
            params,
            available,
            experiments,
            parameters,
            inputs,
            warnings,
            scored,
            members: members.len(),
            non_members: non_members.len(),
            role,
            seed: req.seed,
        };
        let job = prepare_mia(&mut scratch, &req).map_err(|e| out.attribute(e))?;
        Ok((out, job))
    }
}

/// A LiRA run scored, waiting for its audit.
struct Scored {
    sh: Shadows,
    params: LiraParams,
    available: usize,
    experiments: Vec<String>,
    parameters: LiraParameters,
    inputs: Vec<InputRecord>,
    warnings: Vec<Warning>,
    scored: lira::LiraScores,
    members: usize,
    non_members: usize,
    role: &'static str,
    seed: u64,
}

impl Scored {
    /// The audit's errors concern this analysis's scores.
    fn attribute(&self, mut e: Error) -> Error {
        e.input = Some(self.role.into());
        e
    }

    fn finish(self, audit: MiaReport) -> Result<LiraReport> {
        let Scored {
            sh,
            params,
            available,
            experiments,
            parameters,
            inputs,
            mut warnings,
            scored,
            members,
            non_members,
            role,
            seed,
        } = self;
        for w in audit.warnings {
            // The audit's inputs are this analysis's scores: its warnings concern them.
            let input = w.input.as_ref().map(|_| role);
            warnings.push(Warning::new(&w.code, input, w.message, w.fix));
        }
        let v = params.variant;
        let who = if params.targets.len() == 1 {
            format!("target model {}", params.targets[0])
        } else {
            let t: Vec<String> = params.targets.iter().map(ToString::to_string).collect();
            format!("target models {}", t.join(","))
        };
        let prefix = format!(
            "LiRA {} ({}), {who} against {} shadow models: ",
            v.name(),
            v.reference(),
            scored.shadows
        );
        let mut headline: Headline = audit.headline;
        headline.text = format!("{prefix}{}", headline.text);
        let counts = lira::shadow_counts(&sh, &lira::shadow_models(sh.models, &params.targets));
        let (fi, fij) = counts.fewest_in();
        let (fo, foj) = counts.fewest_out();
        let result = LiraResult {
            variant: v.name().into(),
            follows: v.reference().into(),
            models: sh.models,
            examples: sh.examples,
            augmentations: sh.augmentations,
            augmentations_available: available,
            targets: params.targets.clone(),
            experiments,
            shadow_counts: ShadowSummary {
                shadows: scored.shadows,
                fewest_in: fi,
                fewest_in_example: fij,
                most_in: counts.n_in.iter().copied().max().unwrap_or(0),
                fewest_out: fo,
                fewest_out_example: foj,
                most_out: counts.n_out.iter().copied().max().unwrap_or(0),
                in_used: scored.in_size,
                out_used: scored.out_size,
            },
            members,
            non_members,
            scores: scored.membership,
            labels: scored.answers.iter().map(|&a| u8::from(a)).collect(),
            audit: audit.result,
        };
        let seed = (parameters.ci != "delong").then_some(seed);
        Ok(Report::new(
            "lira", parameters, seed, inputs, headline, warnings, result,
        ))
    }
}

// ---------------------------------------------------------------------------------------------------------------
// The registry's entry

/// `lethe lira` in the registry ([`crate::registry`]).
pub struct Lira;

/// From the files of a dropped folder (sources named by their relative paths) or stacked arrays: quick to fit, then
/// the audit as `mia`'s, its bootstrap posting progress and stopping on a cancel as mia's does.
impl InBrowser for Lira {
    const NAME: &'static str = "lira";
    type Request = LiraRequest;
    type Job = LiraJob;
    type Output = LiraReport;
    fn prepare(ws: &mut Workspace, req: LiraRequest) -> Result<LiraJob> {
        prepare_lira(ws, &req)
    }
    async fn finish<C: Compute, M: Monitor>(job: LiraJob, _: &mut C, monitor: &mut M) -> Result<LiraReport> {
        job.run_with(1, monitor).await
    }
}

registered! {
impl crate::registry::Analysis for Lira {
    const NAME: &'static str = <Self as crate::browser::InBrowser>::NAME;
    type Request = LiraRequest;
    const ROLES: Roles = Roles::inputs(&["scores", "keep"]);
    /// Its request's `files`, listed by the resolve step from the folder `dir` (as `lethe lira DIR`).
    const RESOLVED_KEYS: &'static [&'static str] = &["files"];
    /// LiRA's `dir` (a folder in mi_lira_2021's layout) becomes the request's `files`, listed as the CLI lists
    /// them ([`open_lira_dir`]); `files` itself is not an option.
    fn resolve(ws: &mut Workspace, m: &mut serde_json::Map<String, serde_json::Value>) -> Result<()> {
        if m.contains_key("files") {
            return Err(crate::registry::entry::<Self>().unknown_option("files"));
        }
        if let Some(serde_json::Value::String(dir)) = m.get("dir") {
            let files = open_lira_dir(ws, std::path::Path::new(dir))?;
            m.insert("files".into(), serde_json::Value::from(files));
        }
        Ok(())
    }
    fn run(ws: &mut Workspace, req: &LiraRequest, ctl: &mut Control<'_>) -> Result<serde_json::Value> {
        let job = prepare_lira(ws, req)?;
        report(&job.run(ctl.threads.max(1), &mut bootstrap_progress(&mut *ctl.monitor))?)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn fixture_files(ws: &mut Workspace, dir: &str) -> Vec<u32> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/golden_lira")
            .join(dir);
        let files = dir::list_dir(&root).unwrap();
        files
            .iter()
            .map(|f| ws.add_path("dir", std::path::Path::new(f)).unwrap())
            .collect()
    }

    #[test]
    fn directory_runs_with_audit_and_warnings() {
        let mut ws = Workspace::new();
        let files = fixture_files(&mut ws, "exp");
        let req = LiraRequest {
            files,
            dir: Some("exp".into()),
            ..LiraRequest::default()
        };
        let job = prepare_lira(&mut ws, &req).unwrap();
        let codes: Vec<&str> = job.warnings().iter().map(|w| w.code.as_str()).collect();
        assert!(codes.contains(&"few_shadows"), "{codes:?}");
        assert!(codes.contains(&"file_reader"), "{codes:?}"); // experiment-16_16 left out
        let r = job.run(1, &mut |_, _| true).unwrap();
        assert_eq!(r.result.models, 16);
        assert_eq!(r.result.targets, vec![15]);
        assert_eq!(r.result.members + r.result.non_members, 200);
        // plot.py's sweep AUC of the online variant, target = last (lira.json).
        assert!(
            (r.result.audit.summary.auc - 0.805_4).abs() < 1e-3,
            "{}",
            r.result.audit.summary.auc
        );
        assert_eq!(r.headline.call, "distinguishes");
        assert!(
            r.headline
                .text
                .starts_with("LiRA online (mi_lira_2021/plot.py generate_ours)"),
            "{}",
            r.headline.text
        );
        assert_eq!(r.inputs.len(), 32);
    }

    #[test]
    fn run_with_a_monitor_gives_the_same_report() {
        let mut ws = Workspace::new();
        let files = fixture_files(&mut ws, "exp");
        let req = LiraRequest {
            files,
            ci: "both".into(),
            resamples: 50,
            ..LiraRequest::default()
        };
        let a = prepare_lira(&mut ws, &req).unwrap().run(1, &mut |_, _| true).unwrap();
        let mut seen = 0;
        let b = {
            let mut monitor = |_: &lethe::progress::Progress| {
                seen += 1;
                true
            };
            let job = prepare_lira(&mut ws, &req).unwrap();
            let mut f = std::pin::pin!(job.run_with(1, &mut monitor));
            let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
            let std::task::Poll::Ready(b) = f.as_mut().poll(&mut cx) else {
                panic!("the CPU run never waits")
            };
            b.unwrap()
        };
        assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
        assert!(seen > 0);
    }

    #[test]
    fn online_refuses_an_example_without_in_shadows() {
        let mut ws = Workspace::new();
        // 3 models, 2 examples: example 1 is IN in no shadow (models 0, 1); the target (model 2) has both classes.
        let scores = crate::npy::f64_bytes(&[0.1, 0.2, 0.3, 0.4, 0.5, 0.6], &[3, 2]);
        let keep = crate::npy::f64_bytes(&[1.0, 0.0, 0.0, 0.0, 0.0, 1.0], &[3, 2]);
        ws.add(0, "s.npy", Arc::new(scores));
        ws.add(1, "k.npy", Arc::new(keep));
        let req = LiraRequest {
            scores: Some(plain(0)),
            keep: Some(plain(1)),
            ..LiraRequest::default()
        };
        let e = prepare_lira(&mut ws, &req).err().unwrap();
        assert_eq!(e.code.as_deref(), Some("no_in_shadows"), "{}", e.message);
        assert!(e.message.contains("example 1"), "{}", e.message);
        let off = LiraRequest {
            variant: "offline".into(),
            ..req
        };
        assert!(prepare_lira(&mut ws, &off).is_ok());
    }

    #[test]
    fn missing_keep_is_named() {
        let mut ws = Workspace::new();
        let bytes = crate::npy::f64_bytes(&[0.1, 0.2], &[2]);
        ws.add(0, "exp/experiment-0_2/scores/0000000100.npy", Arc::new(bytes));
        let req = LiraRequest {
            files: vec![0],
            ..LiraRequest::default()
        };
        let e = prepare_lira(&mut ws, &req).err().unwrap();
        assert_eq!(e.code.as_deref(), Some("lira_layout"));
        assert!(
            e.message.contains("exp/experiment-0_2/") && e.message.contains("keep.npy"),
            "{}",
            e.message
        );
    }
}

}
