//! The NeurIPS 2023 machine-unlearning competition's evaluation files (google-deepmind/unlearning_evaluation).
//!
//! * `retrain_confs.npz` — `main.py` at commit ffae0ff (May 2024), `get_unlearned_and_retrained_confs_and_accs`:
//!   `np.savez(retrained_confs_path, retrained_confs=retrained_confs_forget, retrain_retain_accs=…,
//!   retrain_test_accs=…, retrain_forget_accs=…)`. `retrained_confs` is models × forget examples (`np.stack` of each
//!   retrained model's `_get_confs`: metric.py's logit-scaled confidences), the three accuracies one per model
//!   (`surf.compute_accuracy_surf`). `main.py` reloads the file only when `retrained_confs.shape[0]` equals its
//!   `--num_models`.
//! * `main.py` never writes the **unlearned** models' confidences or accuracies. Lethe reads them from a file of the
//!   same layout that one added statement writes (docs/cli.md, "The competition's files"), placed in that function
//!   after `unlearned_confs_forget = np.stack(unlearned_confs_forget)`:
//!
//!   ```python
//!   np.savez(os.path.join(_OUTPUT_DIR.value, 'unlearned_confs.npz'), unlearned_confs=unlearned_confs_forget,
//!            unlearned_retain_accs=unlearned_retain_accs, unlearned_test_accs=unlearned_test_accs,
//!            unlearned_forget_accs=unlearned_forget_accs)
//!   ```
//!
//! The final score is main.py's `forget_score * (u_r_mean / r_r_mean) * (u_t_mean / r_t_mean)` with each mean
//! `np.mean` of the per-model accuracies ([`accuracies`]: numpy's pairwise sum, [`crate::numpy::mean`]).

use super::{Entry, Offer, Probe, Summary, Tool, options};
use crate::data::{ByteSource, Format, Matrix};

const FOLLOWS: &str = "google-deepmind/unlearning_evaluation at ffae0ff (May 2024): main.py \
                       get_unlearned_and_retrained_confs_and_accs (np.savez of retrain_confs.npz)";
const FOLLOWS_UNLEARNED: &str = "the unlearned models' file of the same layout written by the one np.savez line \
                                 docs/cli.md adds to google-deepmind/unlearning_evaluation main.py (ffae0ff)";

/// The two files' keys: confidences, then retain, test and forget accuracies.
struct Layout {
    who: &'static str,
    confs: &'static str,
    accs: [&'static str; 3],
}

const RETRAINED: Layout = Layout {
    who: "retrained",
    confs: "retrained_confs",
    accs: ["retrain_retain_accs", "retrain_test_accs", "retrain_forget_accs"],
};
const UNLEARNED: Layout = Layout {
    who: "unlearned",
    confs: "unlearned_confs",
    accs: ["unlearned_retain_accs", "unlearned_test_accs", "unlearned_forget_accs"],
};

fn layout(p: &Probe<'_>) -> Option<&'static Layout> {
    if p.format != Format::Npz {
        return None;
    }
    let members = p.members();
    [&RETRAINED, &UNLEARNED]
        .into_iter()
        .find(|l| members.contains(&l.confs) || l.accs.iter().any(|a| members.contains(a)))
}

/// The models × examples confidences and per-model accuracies of a competition file, or what is wrong.
struct Read {
    models: u64,
    examples: u64,
    means: [f64; 3],
}

fn read(p: &Probe<'_>, l: &Layout) -> Result<Read, String> {
    let members = p.members();
    let missing: Vec<&str> = std::iter::once(l.confs)
        .chain(l.accs)
        .filter(|k| !members.contains(k))
        .collect();
    if !missing.is_empty() {
        let fix = if l.who == "retrained" {
            "main.py (google-deepmind/unlearning_evaluation, May 2024) writes all four in retrain_confs.npz: delete \
             the file and run main.py again to have it rewritten"
        } else {
            "write the file with the np.savez line in docs/cli.md (\"The competition's files\"), which saves all four"
        };
        let quoted: Vec<String> = missing.iter().map(|k| format!("`{k}`")).collect();
        return Err(format!("it lacks {}; {fix}", quoted.join(", ")));
    }
    let shape = p.header(Some(l.confs)).map(|a| a.shape.clone()).unwrap_or_default();
    if shape.len() != 2 {
        return Err(format!(
            "its `{}` have shape {shape:?}, where main.py saves one row per {} model and one column per forget \
             example (models × examples, `np.stack` of each model's confidences): re-save them stacked",
            l.confs, l.who
        ));
    }
    let (models, examples) = (shape[0], shape[1]);
    let mut means = [0.0; 3];
    for (mean, key) in means.iter_mut().zip(l.accs) {
        let a = p.array(Some(key))?;
        let v = a.as_slice();
        if v.len() as u64 != models || (a.rows() != 1 && a.cols() != 1) {
            return Err(format!(
                "its `{key}` hold {} values, but its confidences come from {models} models; main.py saves one \
                 accuracy per model: re-save the file from one run",
                v.len()
            ));
        }
        if let Some(i) = v.iter().position(|x| !x.is_finite() || *x < 0.0 || *x > 1.0) {
            return Err(format!(
                "its `{key}` hold {} for model {i}; accuracies are fractions between 0 and 1 (what \
                 surf.compute_accuracy_surf returns)",
                v[i]
            ));
        }
        *mean = crate::numpy::mean(v);
    }
    Ok(Read {
        models,
        examples,
        means,
    })
}

pub(super) fn detect(p: &Probe<'_>) -> Option<Result<Summary, String>> {
    let l = layout(p)?;
    let r = match read(p, l) {
        Ok(r) => r,
        Err(e) => return Some(Err(e)),
    };
    let [ra, ta, fa] = r.means;
    let mut entries = vec![Entry {
        key: l.confs.into(),
        shape: vec![r.models, r.examples],
        what: format!(
            "each {} model's logit-scaled confidence on each forget example (models × examples)",
            l.who
        ),
    }];
    for (key, set) in l.accs.iter().zip(["retain", "test", "forget"]) {
        entries.push(Entry {
            key: (*key).into(),
            shape: vec![r.models],
            what: format!("each {} model's {set}-set accuracy", l.who),
        });
    }
    let (kind, follows, other, other_key) = if l.who == "retrained" {
        ("retrain_confs", FOLLOWS, "unlearned_confs.npz", "unlearned_confs")
    } else {
        (
            "unlearned_confs",
            FOLLOWS_UNLEARNED,
            "retrain_confs.npz",
            "retrained_confs",
        )
    };
    let warnings = vec![format!(
        "the forget and final scores also need the {} models' file ({other}); give both to {} ({} {}), or drop \
         both on the page; main.py never writes the unlearned models' file: docs/cli.md gives the np.savez line that \
         does",
        if l.who == "retrained" { "unlearned" } else { "retrained" },
        crate::words::cmd("epsilon"),
        crate::words::opt_is("retrained", "retrain_confs.npz#retrained_confs"),
        crate::words::opt_is("unlearned", "unlearned_confs.npz#unlearned_confs")
    )];
    // The other file, beside this one (as main.py's output folder holds both).
    let sibling = match p.name.rfind(['/', '\\']) {
        Some(i) => format!("{}{other}", &p.name[..=i]),
        None => other.to_string(),
    };
    let (retrained, unlearned) = if l.who == "retrained" {
        ((p.name, RETRAINED.confs), (sibling.as_str(), other_key))
    } else {
        ((sibling.as_str(), other_key), (p.name, UNLEARNED.confs))
    };
    let offers = vec![Offer::new(
        "epsilon",
        "Forget score and final score (the competition's), with the other models' file",
        &[
            ("retrained", retrained.0, Some(retrained.1)),
            ("unlearned", unlearned.0, Some(unlearned.1)),
        ],
        options(&[]),
    )];
    Some(Ok(Summary {
        tool: Tool::Competition,
        kind: kind.into(),
        follows: follows.into(),
        description: format!(
            "the unlearning competition's file of the {} models: {} models' confidences on {} forget examples; mean accuracy \
             retain {ra}, test {ta}, forget {fa}",
            l.who, r.models, r.examples
        ),
        samples: Some(r.examples),
        models: (0..r.models).map(|k| format!("{} model {k}", l.who)).collect(),
        entries,
        offers,
        warnings,
        files: Vec::new(),
    }))
}

pub(super) fn column(_p: &Probe<'_>, _key: &str) -> Option<Result<Matrix<f64>, String>> {
    // Every key of these files is an array of the archive: the ordinary loader reads it.
    None
}

/// The means of a competition file's retain and test accuracies, `[retain, test]`, if `src` is one of the given
/// `who` ("retrained" or "unlearned").
fn means(name: &str, src: &dyn ByteSource, l: &Layout) -> Option<[f64; 2]> {
    let p = Probe::new(name, src)?;
    if !std::ptr::eq(layout(&p)?, l) {
        return None;
    }
    let r = read(&p, l).ok()?;
    Some([r.means[0], r.means[1]])
}

/// The final score's accuracies `[RA_unlearned, RA_retrained, TA_unlearned, TA_retrained]` (the order of
/// `lethe epsilon --accuracies`), each main.py's `np.mean` over the models, when `retrained` is a
/// `retrain_confs.npz` and `unlearned` the unlearned models' file of the same layout (see the module's doc).
pub fn accuracies(retrained: (&str, &dyn ByteSource), unlearned: (&str, &dyn ByteSource)) -> Option<[f64; 4]> {
    let [rr, rt] = means(retrained.0, retrained.1, &RETRAINED)?;
    let [ur, ut] = unlearned_accuracies(unlearned.0, unlearned.1)?;
    Some([ur, rr, ut, rt])
}

/// The unlearned models' mean retain and test accuracies `[retain, test]` of their file (see the module's doc).
pub fn unlearned_accuracies(name: &str, src: &dyn ByteSource) -> Option<[f64; 2]> {
    means(name, src, &UNLEARNED)
}
