//! The directory tensorflow/privacy's `research/mi_lira_2021` writes (commit
//! `03035d5d4a271ac795dab80f5bc1cef82fc3d462`), read as `plot.py` `load_data` reads it:
//!
//! ```text
//! DIR/
//!   x_train.npy, y_train.npy        train.py get_data (y_train.npy: the labels score.py reads)
//!   experiment-N_M/  (README: experiment_N_of_M/)
//!     keep.npy                      train.py main: np.save(keep.npy, keep), bool[dataset_size]
//!     logits/0000000100.npy         inference.py: float32 [examples, 1, augmentations, classes]
//!     scores/0000000100.npy         score.py load_one: float64 [examples, augmentations]
//! ```
//!
//! * An experiment is a folder whose name starts with `experiment` (at any depth, as `os.walk`), with a `scores/`
//!   folder that is not empty; its scores are the **last file of `scores/` in sorted name order** (`last_epoch[-1]`:
//!   the latest epoch), its membership `keep.npy`. A folder without scores is skipped, as `plot.py` skips it (here
//!   with a note). Without any `scores/`, or when asked, the scores are made from `logits/` (its last file) and
//!   `y_train.npy` as `score.py` makes them ([`crate::lira::logit_scaled`]).
//! * `keep` is cut to the scores' examples (`np.array(keep)[:, :scores.shape[1]]`).
//! * Order: `plot.py` stacks experiments in `os.walk`'s order, which the file system chooses, and `do_plot` takes the
//!   **last** one as the target; here the experiments are ordered by the number `N` in their names
//!   (`experiment-N_M`, `experiment_N_of_M`), then by name, so "the last model" is the highest-numbered one.
//!
//! Paths are `/`-separated (`\` is read as `/`), relative or not: a dropped folder's `webkitRelativePath`s or the
//! files found on disk. Messages name the file and say what would fix it.

use std::fmt;

use crate::lira::{self, Shadows};

/// A file of the layout this reader could not use: which, what is wrong, the fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiraDirError {
    pub file: String,
    pub detail: String,
    pub fix: String,
}

impl fmt::Display for LiraDirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}; {}", self.file, self.detail, self.fix)
    }
}

impl std::error::Error for LiraDirError {}

fn err(file: &str, detail: impl Into<String>, fix: impl Into<String>) -> LiraDirError {
    LiraDirError {
        file: file.to_string(),
        detail: detail.into(),
        fix: fix.into(),
    }
}

/// Where a model's scores come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ScoreSource {
    /// `scores/` where the folder has one, else `logits/` converted.
    #[default]
    Auto,
    /// `scores/` only.
    Scores,
    /// `logits/` converted as `score.py` does, even where `scores/` exists.
    Logits,
}

impl std::str::FromStr for ScoreSource {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" | "" => Ok(Self::Auto),
            "scores" => Ok(Self::Scores),
            "logits" => Ok(Self::Logits),
            o => Err(format!("`{o}` is not one of auto, scores, logits")),
        }
    }
}

/// One `experiment*` folder.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Experiment {
    /// The folder's path.
    pub dir: String,
    /// `N` of `experiment-N_M` / `experiment_N_of_M`.
    pub number: Option<u64>,
    pub keep: Option<String>,
    /// The last `scores/` file (sorted by name).
    pub scores: Option<String>,
    /// The last `logits/` file (sorted by name).
    pub logits: Option<String>,
}

/// The folders found and what will be read.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Layout {
    /// The experiments used, in model order.
    pub experiments: Vec<Experiment>,
    /// `y_train.npy` beside the experiments, when found.
    pub labels: Option<String>,
    /// Whether each model's scores come from its logits.
    pub from_logits: bool,
    /// Folders left out, with why (as `plot.py` leaves them out).
    pub skipped: Vec<String>,
}

fn parent(p: &str) -> &str {
    p.rsplit_once('/').map_or("", |(d, _)| d)
}

/// `N` of `experiment-N_M`, `experiment_N_of_M`, `experiment-N`.
fn number(name: &str) -> Option<u64> {
    let rest = name.strip_prefix("experiment")?;
    let digits: String = rest
        .trim_start_matches(|c: char| !c.is_ascii_digit())
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Finds the experiments among `paths` (every file of the folder, or at least its `keep.npy`, `scores/*`,
/// `logits/*` and `y_train.npy`).
///
/// # Errors
/// No experiment folder; one with scores (or logits) but no `keep.npy`; logits to convert but no `y_train.npy`.
pub fn plan(paths: &[String], source: ScoreSource) -> Result<Layout, LiraDirError> {
    use std::collections::BTreeMap;
    let mut found: BTreeMap<String, Experiment> = BTreeMap::new();
    let mut labels: Vec<String> = Vec::new();
    for raw in paths {
        let p = raw.replace('\\', "/");
        let parts: Vec<&str> = p.split('/').collect();
        if parts.last() == Some(&"y_train.npy") {
            labels.push(p.clone());
            continue;
        }
        // …/experiment*/keep.npy or …/experiment*/{scores,logits}/FILE
        let n = parts.len();
        let (dir_end, kind) = if n >= 2 && parts[n - 1] == "keep.npy" && parts[n - 2].starts_with("experiment") {
            (n - 1, "keep")
        } else if n >= 3
            && parts[n - 3].starts_with("experiment")
            && (parts[n - 2] == "scores" || parts[n - 2] == "logits")
        {
            (n - 2, parts[n - 2])
        } else {
            continue;
        };
        let dir = parts[..dir_end].join("/");
        let e = found.entry(dir.clone()).or_insert_with(|| Experiment {
            number: number(parts[dir_end - 1]),
            dir,
            keep: None,
            scores: None,
            logits: None,
        });
        let slot = match kind {
            "keep" => &mut e.keep,
            "scores" => &mut e.scores,
            _ => &mut e.logits,
        };
        // The last file in sorted name order (plot.py: sorted(os.listdir(...))[-1]).
        if slot.as_ref().is_none_or(|s| p > *s) {
            *slot = Some(p);
        }
    }
    if found.is_empty() {
        return Err(err(
            &common_dir(paths),
            "no `experiment*` folder with keep.npy and scores/ (or logits/) was found",
            "give the folder mi_lira_2021 writes (train.py makes experiment-N_M/keep.npy, score.py its scores/*.npy), \
             or the stacked arrays (scores: models × examples × augmentations, keep: models × examples)",
        ));
    }
    let any_scores = found.values().any(|e| e.scores.is_some());
    let from_logits = match source {
        ScoreSource::Logits => true,
        ScoreSource::Scores => false,
        ScoreSource::Auto => !any_scores,
    };
    let mut experiments = Vec::new();
    let mut skipped = Vec::new();
    for (_, e) in found {
        let data = if from_logits { &e.logits } else { &e.scores };
        let Some(data) = data else {
            let what = if from_logits { "logits/" } else { "scores/" };
            skipped.push(format!(
                "`{}/` has no {what} file: left out, as plot.py leaves out a model without scores{}",
                e.dir,
                if !from_logits && e.logits.is_some() {
                    " (it has logits/: run score.py on the folder, or read the logits instead)"
                } else {
                    ""
                }
            ));
            continue;
        };
        if e.keep.is_none() {
            return Err(err(
                &format!("{}/", e.dir),
                format!("has {data} but no keep.npy, so which examples this model trained on is unknown"),
                "copy the keep.npy train.py wrote for this experiment into the folder (or leave the folder out)",
            ));
        }
        experiments.push(e);
    }
    if experiments.is_empty() {
        return Err(err(
            &common_dir(paths),
            "no experiment folder has a scores/ file",
            "run score.py on the folder (it writes scores/ from logits/ and y_train.npy), or read the logits",
        ));
    }
    experiments.sort_by(|a, b| (a.number.is_none(), a.number, &a.dir).cmp(&(b.number.is_none(), b.number, &b.dir)));
    let label = if from_logits {
        // score.py: os.path.join(logdir, "y_train.npy"), logdir holding the experiment folders.
        let root = parent(&experiments[0].dir).to_string();
        let l = labels.iter().find(|l| parent(l) == root).or(labels.first()).cloned();
        if l.is_none() {
            return Err(err(
                &format!("{}/", if root.is_empty() { "." } else { &root }),
                "the models' scores are to be made from their logits, which needs the labels y_train.npy beside the \
                 experiment folders (score.py reads it there), and it is missing",
                "add y_train.npy (train.py saves it), or give scores/ files",
            ));
        }
        l
    } else {
        labels.into_iter().next()
    };
    Ok(Layout {
        experiments,
        labels: label,
        from_logits,
        skipped,
    })
}

fn common_dir(paths: &[String]) -> String {
    let first = paths.first().map_or(".", |p| p.split('/').next().unwrap_or("."));
    if first.is_empty() { ".".into() } else { first.into() }
}

/// A loaded array: values in C order as f64, the shape as stored, numpy's dtype name.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub values: Vec<f64>,
    pub shape: Vec<u64>,
    pub dtype: String,
}

/// Reads the layout's files through `load` (a path → its array, or a message) into [`Shadows`], with notes.
///
/// # Errors
/// A file that does not load (the loader's message); a keep.npy that is not 1-D or not 0/1; a scores file that is
/// not `[examples]` or `[examples, augmentations]` (logits: `[examples, k, augmentations, classes]`); shapes that
/// differ between experiments; keep shorter than the scores.
pub fn assemble(
    layout: &Layout,
    load: &mut dyn FnMut(&str) -> Result<Array, String>,
) -> Result<(Shadows, Vec<String>), LiraDirError> {
    let mut notes = layout.skipped.clone();
    let mut load_one = |p: &str| load(p).map_err(|m| err(p, m, "check the file, or leave its experiment out"));
    let labels = match (&layout.labels, layout.from_logits) {
        (Some(l), true) => Some(load_one(l)?),
        _ => None,
    };
    let mut shape: Option<(String, usize, usize)> = None;
    let mut scores = Vec::new();
    let mut keeps: Vec<(String, Vec<f64>)> = Vec::new();
    let mut non_bool = None;
    for e in &layout.experiments {
        let (file, arr) = if layout.from_logits {
            let f = e.logits.as_deref().unwrap_or_default();
            let a = load_one(f)?;
            let [n, k, aug, c] = match a.shape.as_slice() {
                &[n, k, aug, c] => [n, k, aug, c].map(|v| v as usize),
                s => {
                    return Err(err(
                        f,
                        format!(
                            "has shape {s:?}, but inference.py writes logits as examples × 1 × augmentations × classes"
                        ),
                        "give the logits file inference.py wrote, or its scores/ made by score.py",
                    ));
                }
            };
            let lab = labels.as_ref().map_or(&[][..], |l| l.values.as_slice());
            let s = lira::logit_scaled(&a.values, [n, k, aug, c], lab, a.dtype == "float32").map_err(|x| {
                err(
                    f,
                    x.to_string(),
                    format!(
                        "score.py reads one class index per example from `{}`",
                        layout.labels.as_deref().unwrap_or("y_train.npy")
                    ),
                )
            })?;
            (
                f,
                Array {
                    values: s,
                    shape: vec![n as u64, aug as u64],
                    dtype: "float64".into(),
                },
            )
        } else {
            let f = e.scores.as_deref().unwrap_or_default();
            (f, load_one(f)?)
        };
        let (n, a) = match arr.shape.as_slice() {
            &[n] => (n as usize, 1),
            &[n, a] => (n as usize, a as usize),
            s => {
                return Err(err(
                    file,
                    format!(
                        "has shape {s:?}, but score.py writes one score per example and augmentation (examples × augmentations)"
                    ),
                    "give the scores/ file score.py wrote for this model",
                ));
            }
        };
        match &shape {
            None => shape = Some((file.to_string(), n, a)),
            Some((f0, n0, a0)) if (*n0, *a0) != (n, a) => {
                return Err(err(
                    file,
                    format!("holds {n} examples × {a} augmentations, but `{f0}` holds {n0} × {a0}"),
                    "plot.py stacks every model's scores into one array, so all need the same examples and \
                     augmentations: rerun inference.py and score.py for this model with the others' settings, or \
                     leave it out",
                ));
            }
            _ => {}
        }
        scores.extend(arr.values);
        let kf = e.keep.as_deref().unwrap_or_default();
        let k = load_one(kf)?;
        if k.shape.len() != 1 {
            return Err(err(
                kf,
                format!(
                    "has shape {:?}, but keep.npy is one flag per example of the dataset",
                    k.shape
                ),
                "give the keep.npy train.py wrote for this experiment",
            ));
        }
        if k.dtype != "bool" {
            if let Some(x) = k.values.iter().find(|&&v| v != 0.0 && v != 1.0) {
                return Err(err(
                    kf,
                    format!("holds {x}: keep flags are true/false (1/0) per example"),
                    "save the boolean mask train.py makes (np.save('keep.npy', keep))",
                ));
            }
            non_bool.get_or_insert_with(|| (kf.to_string(), k.dtype.clone()));
        }
        keeps.push((kf.to_string(), k.values));
    }
    let Some((_, n, a)) = shape else {
        return Err(err(".", "no experiment to read", "give the experiment folders"));
    };
    let mut keep = Vec::with_capacity(keeps.len() * n);
    for (kf, k) in &keeps {
        if k.len() < n {
            return Err(err(
                kf,
                format!("has {} flags, but the scores have {n} examples", k.len()),
                "keep.npy must cover every scored example: use the keep.npy of the same training run",
            ));
        }
        // plot.py: keep = np.array(keep)[:, :scores.shape[1]]
        keep.extend(k[..n].iter().map(|&v| v != 0.0));
    }
    if let Some((kf, dtype)) = non_bool {
        notes.push(format!(
            "`{kf}` (and maybe others) holds {dtype} 0/1 values, read as flags; plot.py needs a boolean keep.npy (with \
             integers numpy's keep[:, j] indexes rows instead of selecting them)"
        ));
    }
    let models = keeps.len();
    let sh = Shadows::new(models, n, a, scores, keep).map_err(|e| err(".", e.to_string(), "check the files"))?;
    Ok((sh, notes))
}

/// The writer versions this reader follows.
pub const FOLLOWS: &str = "tensorflow/privacy@03035d5d4a271ac795dab80f5bc1cef82fc3d462 research/mi_lira_2021: train.py \
                           main (keep.npy), score.py load_one (scores/), inference.py main (logits/), read as plot.py \
                           load_data reads them";

/// A dropped folder (or files given with their paths) in mi_lira_2021's layout, said before anything runs: how many
/// experiments, examples and augmentations, which folders are left out, and the LiRA runs it offers. `None` when no
/// `experiment*` folder with a keep.npy and scores/ or logits/ is among the paths; `Some(Err)` when there is one
/// but the files are not what those scripts write (a keep.npy that is not one flag per example, scores of another
/// rank, shapes that differ between experiments, a folder without keep.npy).
pub(super) fn detect_set(probes: &[super::Probe<'_>]) -> Option<Result<super::Summary, String>> {
    let names: Vec<String> = probes.iter().map(|p| p.name.replace('\\', "/")).collect();
    let layout = match plan(&names, ScoreSource::Auto) {
        Ok(l) => l,
        Err(e) if e.detail.starts_with("no `experiment*` folder") => return None,
        Err(e) => return Some(Err(e.to_string())),
    };
    let header = |path: &str| {
        probes
            .iter()
            .zip(&names)
            .find(|(_, n)| n.as_str() == path)
            .and_then(|(p, _)| p.header(None).cloned())
    };
    let mut shape: Option<(String, Vec<u64>)> = None;
    for e in &layout.experiments {
        let keep = e.keep.as_deref().unwrap_or_default();
        match header(keep) {
            Some(h) if h.shape.len() == 1 => {}
            Some(h) => {
                return Some(Err(format!(
                    "`{keep}` has shape {:?}, but train.py writes keep.npy as one flag per example: give the keep.npy \
                     of that training run",
                    h.shape
                )));
            }
            None => {
                return Some(Err(format!(
                    "`{keep}` is not a .npy array: give the keep.npy train.py wrote"
                )));
            }
        }
        let data = if layout.from_logits { &e.logits } else { &e.scores };
        let data = data.as_deref().unwrap_or_default();
        let Some(h) = header(data) else {
            return Some(Err(format!(
                "`{data}` is not a .npy array: give the file score.py (or inference.py) wrote"
            )));
        };
        let want = if layout.from_logits { 4 } else { 2 };
        if h.shape.len() != want && !(want == 2 && h.shape.len() == 1) {
            return Some(Err(format!(
                "`{data}` has shape {:?}, but {} writes {}",
                h.shape,
                if layout.from_logits { "inference.py" } else { "score.py" },
                if layout.from_logits {
                    "logits as examples × 1 × augmentations × classes"
                } else {
                    "scores as examples × augmentations"
                }
            )));
        }
        match &shape {
            None => shape = Some((data.to_string(), h.shape.clone())),
            Some((f0, s0)) if *s0 != h.shape => {
                return Some(Err(format!(
                    "`{data}` has shape {:?} but `{f0}` has {s0:?}: every model's scores need the same examples and \
                     augmentations (plot.py stacks them); rerun inference.py and score.py for it, or leave it out",
                    h.shape
                )));
            }
            _ => {}
        }
    }
    let (_, s) = shape?;
    let examples = s[0];
    let augs = if layout.from_logits {
        s[2]
    } else {
        s.get(1).copied().unwrap_or(1)
    };
    let models = layout.experiments.len();
    let dir = layout.experiments[0]
        .dir
        .rsplit_once('/')
        .map_or(".".to_string(), |(d, _)| d.to_string());
    let offer = |variant: &str, label: &str| super::Offer {
        analysis: "lira".into(),
        label: label.into(),
        inputs: vec![super::OfferInput {
            role: "dir".into(),
            file: dir.clone(),
            key: None,
        }],
        options: super::options(&[("variant", serde_json::Value::String(variant.into()))]),
        cli: format!("lethe lira {dir} --variant {variant}"),
    };
    let mut files: Vec<String> = Vec::new();
    for e in &layout.experiments {
        files.extend([&e.keep, &e.scores, &e.logits].into_iter().flatten().cloned());
    }
    files.extend(layout.labels.iter().cloned());
    Some(Ok(super::Summary {
        tool: super::Tool::Lira,
        kind: "experiment_dir".into(),
        follows: FOLLOWS.into(),
        description: format!(
            "shadow-model results of mi_lira_2021: {models} models on {examples} examples × {augs} augmentation(s){}; \
             each model's keep.npy says which examples it trained on",
            if layout.from_logits {
                ", as logits (scored as score.py does)"
            } else {
                ""
            }
        ),
        samples: Some(examples),
        models: layout.experiments.iter().map(|e| e.dir.clone()).collect(),
        entries: Vec::new(),
        offers: vec![
            offer(
                "online",
                "LiRA online (plot.py generate_ours), the last model as target, audited",
            ),
            offer(
                "offline",
                "LiRA offline (plot.py generate_ours_offline), the last model as target, audited",
            ),
        ],
        warnings: layout.skipped.clone(),
        files,
    }))
}

/// Every file under `dir` (native), as `/`-separated paths beginning with `dir`.
///
/// # Errors
/// A folder that cannot be listed.
#[cfg(not(target_arch = "wasm32"))]
pub fn list_dir(dir: &std::path::Path) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let entry = entry?;
            let p = entry.path();
            if entry.file_type()?.is_dir() {
                stack.push(p);
            } else {
                out.push(p.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_string()).collect()
    }

    #[test]
    fn plans_in_number_order_with_last_scores() {
        let l = plan(
            &paths(&[
                "exp/experiment-10_16/keep.npy",
                "exp/experiment-10_16/scores/0000000100.npy",
                "exp/experiment-2_16/keep.npy",
                "exp/experiment-2_16/scores/0000000090.npy",
                "exp/experiment-2_16/scores/0000000100.npy",
                "exp/experiment-3_16/keep.npy",
                "exp/y_train.npy",
            ]),
            ScoreSource::Auto,
        )
        .unwrap();
        let dirs: Vec<&str> = l.experiments.iter().map(|e| e.dir.as_str()).collect();
        assert_eq!(dirs, ["exp/experiment-2_16", "exp/experiment-10_16"]);
        assert_eq!(
            l.experiments[0].scores.as_deref(),
            Some("exp/experiment-2_16/scores/0000000100.npy")
        );
        assert_eq!(l.skipped.len(), 1);
        assert!(l.skipped[0].contains("experiment-3_16"));
    }

    #[test]
    fn missing_keep_named() {
        let e = plan(&paths(&["d/experiment_0_of_2/scores/1.npy"]), ScoreSource::Auto).unwrap_err();
        assert_eq!(e.file, "d/experiment_0_of_2/");
        assert!(e.to_string().contains("no keep.npy"), "{e}");
        let e = plan(&paths(&["d/other/file.npy"]), ScoreSource::Auto).unwrap_err();
        assert!(e.detail.contains("no `experiment*` folder"));
    }

    #[test]
    fn logits_need_labels() {
        let p = paths(&["d/experiment-0_2/keep.npy", "d/experiment-0_2/logits/1.npy"]);
        let e = plan(&p, ScoreSource::Auto).unwrap_err();
        assert!(e.detail.contains("y_train.npy"), "{e}");
        let mut p = p;
        p.push("d/y_train.npy".into());
        let l = plan(&p, ScoreSource::Auto).unwrap();
        assert!(l.from_logits);
        assert_eq!(l.labels.as_deref(), Some("d/y_train.npy"));
    }

    #[test]
    fn detects_the_fixture_folder_from_its_headers() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/golden_lira/exp");
        let paths = list_dir(&root).unwrap();
        let bytes: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(p).unwrap()).collect();
        let files: Vec<(&str, &dyn crate::data::ByteSource)> = paths
            .iter()
            .zip(&bytes)
            .map(|(p, b)| (p.as_str(), b as &dyn crate::data::ByteSource))
            .collect();
        let s = crate::tools::detect_set(&files).unwrap().unwrap();
        assert_eq!(s.tool, crate::tools::Tool::Lira);
        assert_eq!(s.samples, Some(200));
        assert_eq!(s.models.len(), 16);
        assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
        assert!(
            s.offers[0].cli.ends_with("golden_lira/exp --variant online"),
            "{}",
            s.offers[0].cli
        );
        // A keep.npy of another rank: almost LiRA.
        let mut bytes = bytes;
        let k = paths
            .iter()
            .position(|p| p.ends_with("experiment-2_16/keep.npy"))
            .unwrap();
        bytes[k] = std::fs::read(
            paths
                .iter()
                .find(|p| p.ends_with("experiment-2_16/scores/0000000100.npy"))
                .unwrap(),
        )
        .unwrap();
        let files: Vec<(&str, &dyn crate::data::ByteSource)> = paths
            .iter()
            .zip(&bytes)
            .map(|(p, b)| (p.as_str(), b as &dyn crate::data::ByteSource))
            .collect();
        let e = crate::tools::detect_set(&files).unwrap().unwrap_err();
        assert!(
            e.message.contains("experiment-2_16/keep.npy") && e.message.contains("one flag per example"),
            "{e}"
        );
    }

    #[test]
    fn assemble_checks_shapes() {
        let l = plan(
            &paths(&[
                "d/experiment-0_2/keep.npy",
                "d/experiment-0_2/scores/1.npy",
                "d/experiment-1_2/keep.npy",
                "d/experiment-1_2/scores/1.npy",
            ]),
            ScoreSource::Auto,
        )
        .unwrap();
        let mut load = |p: &str| -> Result<Array, String> {
            Ok(if p.ends_with("keep.npy") {
                Array {
                    values: vec![1.0, 0.0, 1.0, 0.0],
                    shape: vec![4],
                    dtype: "bool".into(),
                }
            } else if p.contains("experiment-1") {
                Array {
                    values: vec![0.5; 4],
                    shape: vec![2, 2],
                    dtype: "float64".into(),
                }
            } else {
                Array {
                    values: vec![0.5; 6],
                    shape: vec![3, 2],
                    dtype: "float64".into(),
                }
            })
        };
        let e = assemble(&l, &mut load).unwrap_err();
        assert_eq!(e.file, "d/experiment-1_2/scores/1.npy");
        assert!(e.detail.contains("2 examples × 2 augmentations"), "{e}");
        let mut load2 = |p: &str| -> Result<Array, String> {
            Ok(if p.ends_with("keep.npy") {
                Array {
                    values: vec![1.0, 0.0, 1.0, 0.0],
                    shape: vec![4],
                    dtype: "bool".into(),
                }
            } else {
                Array {
                    values: vec![0.5; 6],
                    shape: vec![3, 2],
                    dtype: "float64".into(),
                }
            })
        };
        let (sh, notes) = assemble(&l, &mut load2).unwrap();
        assert_eq!((sh.models, sh.examples, sh.augmentations), (2, 3, 2));
        assert_eq!(sh.keep, vec![true, false, true, true, false, true]);
        assert!(notes.is_empty());
    }
}
