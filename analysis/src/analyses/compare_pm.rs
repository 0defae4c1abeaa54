//! ML Privacy Meter's attack result as one run of a method in `lethe compare` (issue 23): the
//! `report/exp/attack_result_<i>.npz` that privacy-meter's `audit.py` `get_audit_results` writes (np.savez of
//! `fpr`, `tpr`, `auc`, `one_tenth_fpr`, `zero_fpr`, `scores`, `memberships`; github.com/privacytrustlab/
//! ml_privacy_meter at e384af8).
//!
//! What the run's metrics are, decided here once for every front end:
//!
//! * The audit of its `scores` and `memberships` that `lethe mia --scores FILE#scores --labels FILE#memberships`
//!   runs ([`super::prepare_mia`], its defaults: a higher score is a member, as privacy-meter's `roc_curve(
//!   memberships, scores)` reads them; DeLong's interval), its report's numbers named as a `lethe mia --json`
//!   report's are ([`crate::report::report_columns`]): an archive and the `lethe mia` report made from it give the
//!   same metrics, names and directions (`summary.auc`, compared on its built-in direction, closest to 0.5).
//! * `one_tenth_fpr` and `zero_fpr`: the TPR at 0.1% and at 0% FPR by privacy-meter's rule (the last point of
//!   scikit-learn's thinned ROC with FPR at most the target; [`lethe::roc::RocRule::PrivacyMeter`]), computed from
//!   the same scores, under the names privacy-meter stores them by and logs beside the AUC. They have no built-in
//!   direction (how close to the FPR is close enough is the study's to say): named in `metrics_left_out` unless
//!   asked for (`one_tenth_fpr:lower`).
//! * The numbers the archive stores are not taken on trust but checked: where its `auc`, `one_tenth_fpr` or
//!   `zero_fpr` differs from the value its own scores give by more than 1e-12, a warning
//!   (`stored_value_differs`) names the file and both values; the comparison uses the scores' values.

use lethe::roc::{self, RocRule};

use super::compare_files::{FileMetric, ROLE, report_metrics};
use super::*;
use crate::report::{Warning, num};
use crate::words;

/// Whether a source is a zip archive (an `.npz`), from its first bytes.
pub(super) fn is_npz(ws: &Workspace, source: u32) -> bool {
    let Ok(src) = ws.source(source) else {
        return false;
    };
    let mut head = [0u8; 4];
    src.data.len() >= 4 && src.data.read_at(0, &mut head).is_ok() && &head == b"PK\x03\x04"
}

/// privacy-meter's stored numbers: the array's name, what it is, and the FPR its TPR is read at (`None`: the AUC).
const STORED: [(&str, &str, Option<f64>); 3] = [
    ("auc", "AUC", None),
    ("one_tenth_fpr", "TPR at 0.1% FPR", Some(0.001)),
    ("zero_fpr", "TPR at 0% FPR", Some(0.0)),
];

/// How far a stored number may be from the one its scores give (float rounding of scikit-learn's trapezoid).
const STORED_TOLERANCE: f64 = 1e-12;

/// One privacy-meter attack result read as a run: its name, metrics and record; a warning per stored number that its
/// scores do not give.
///
/// # Errors
/// An archive that cannot be read, or lacks `scores` or `memberships`; scores and memberships of different lengths,
/// memberships other than 0/1, one class only; NaN scores or every score equal (as `lethe mia` refuses them). Each
/// names the file and the method, and says how to mend it.
pub(super) fn read_attack_result(
    ws: &mut Workspace,
    method: &str,
    source: u32,
    warnings: &mut Vec<Warning>,
) -> Result<(String, Vec<FileMetric>, InputRecord)> {
    let src = ws.source(source).map_err(|e| Error::at(ROLE, e.message))?;
    let name = src.name.clone();
    let data = src.data.clone();
    let place = format!("`{name}` (method `{method}`)");
    let refused = |code: &str, m: String| Error::refused(code, Some(ROLE), m);
    let pm_file = "ML Privacy Meter's attack result (report/exp/attack_result_0.npz, written by its audit)";
    let info = lethe::data::npz::inspect(&name, &*data).map_err(|e| {
        refused(
            "not_a_result_file",
            format!("{place} is a zip archive Lethe cannot read as a NumPy .npz ({e}): give {pm_file}"),
        )
    })?;
    let has = |n: &str| info.arrays.iter().any(|a| a.name.as_deref() == Some(n));
    let missing: Vec<&str> = ["scores", "memberships"].into_iter().filter(|n| !has(n)).collect();
    if !missing.is_empty() {
        let held: Vec<String> = info
            .arrays
            .iter()
            .filter_map(|a| a.name.as_deref().map(|n| format!("`{n}`")))
            .collect();
        return Err(refused(
            "not_a_result_file",
            format!(
                "{place} is a NumPy archive without {} (it holds {}): {pm_file} holds the attack's `scores` and \
                 the `memberships` of the same samples (1 = in the target model's training set). Give that file; \
                 scores saved another way are audited with {} first, its JSON report given here",
                missing
                    .iter()
                    .map(|n| format!("a `{n}` array"))
                    .collect::<Vec<_>>()
                    .join(" or "),
                if held.is_empty() {
                    "no arrays".to_string()
                } else {
                    held.join(", ")
                },
                words::cmd("mia")
            ),
        ));
    }
    let input = |tensor: &str| InputRef {
        source,
        tensor: Some(tensor.to_string()),
        rows: Rows::All,
    };
    let (scores, memberships) = (input("scores"), input("memberships"));
    let values = |ws: &mut Workspace, r: &InputRef, what: &str| -> Result<Vec<f64>> {
        let a = ws.load(ROLE, r).map_err(|e| {
            refused(
                "not_a_result_file",
                format!(
                    "{place}: its `{what}` array cannot be read ({}): give {pm_file}",
                    e.message
                ),
            )
        })?;
        Ok(a.matrix.as_slice().to_vec())
    };
    let s = values(ws, &scores, "scores")?;
    let m = values(ws, &memberships, "memberships")?;
    let rewrite = "write it again with privacy-meter's audit, or leave the file out";
    if s.len() != m.len() {
        return Err(refused(
            "labels_length",
            format!(
                "{place} holds {} scores but {} memberships: privacy-meter saves one membership per score, so the \
                 archive is not as its audit wrote it; {rewrite}",
                s.len(),
                m.len()
            ),
        ));
    }
    if let Some(k) = m.iter().position(|&v| v != 0.0 && v != 1.0) {
        return Err(refused(
            "labels_not_binary",
            format!(
                "{place}: membership {k} (counting from 0) is {}, but a membership is 1 (a member of the target \
                 model's training set) or 0; {rewrite}",
                num(m[k])
            ),
        ));
    }
    let members = m.iter().filter(|&&v| v == 1.0).count();
    if members == 0 || members == m.len() {
        let (all, other) = if members == 0 {
            ("non-members (memberships all 0)", "members")
        } else {
            ("members (memberships all 1)", "non-members")
        };
        return Err(refused(
            "one_class_empty",
            format!(
                "every one of the {} samples in {place} is among the {all}: with no {other} there is no attack to \
                 measure (an AUC compares the two). Audit the target model on samples it was trained on and on \
                 samples it never saw, as privacy-meter's audit does, or leave the file out",
                m.len()
            ),
        ));
    }
    // The audit `lethe mia --scores FILE#scores --labels FILE#memberships` runs, with its defaults.
    let req = MiaRequest {
        scores: Some(scores),
        labels: Some(memberships),
        ..MiaRequest::default()
    };
    let job = prepare_mia(ws, &req).map_err(|e| Error {
        message: format!("{place}, ML Privacy Meter's attack result: {}", e.message),
        ..e
    })?;
    let (mem, non, _, _, _) = job.checked_inputs();
    let curve = roc::roc(mem, non).map_err(Error::from)?;
    let mut ours = Vec::with_capacity(STORED.len());
    for (_, _, fpr) in STORED {
        ours.push(match fpr {
            None => roc::summary(&curve).auc,
            Some(t) => {
                roc::tpr_at_fpr(&curve, t, RocRule::PrivacyMeter, req.alpha)
                    .map_err(Error::from)?
                    .tpr
            }
        });
    }
    let report = job.run(1, &mut |_, _| true)?;
    let v = serde_json::to_value(&report).map_err(|e| Error::msg(e.to_string()))?;
    let mut cols = serde_json::Map::new();
    crate::report::report_columns(&v, &mut cols);
    // privacy-meter's TPRs first: where they are left out, the warning's short list names them before the
    // report's own numbers.
    let mut metrics: Vec<FileMetric> = STORED
        .iter()
        .zip(&ours)
        .filter(|((key, _, _), _)| *key != "auc")
        .map(|((key, _, _), &x)| ((*key).to_string(), Some(x), None))
        .collect();
    metrics.extend(report_metrics(&cols));
    for ((key, what, _), &x) in STORED.iter().zip(&ours) {
        let stored = lethe::data::npz::scalar(&name, &*data, key).map_err(|e| Error::data(ROLE, "", &e))?;
        if let Some(y) = stored.filter(|y| (y - x).abs() > STORED_TOLERANCE || y.is_nan()) {
            warnings.push(Warning::new(
                "stored_value_differs",
                Some(ROLE),
                format!(
                    "{place} stores {key} = {y:?} but its own scores and memberships give {what} = {x:?} (as {} \
                     computes it from them): the stored number does not come from the scores beside it. The \
                     comparison uses the scores' {what}",
                    words::cmd("mia"),
                ),
                Some(
                    "check that the archive is the one privacy-meter's audit wrote (not edited, not another run's \
                     scores); writing it again with the audit makes the two agree"
                        .into(),
                ),
            ));
        }
    }
    let sha256 = ws.sha256(source, |_, _| ())?;
    let rec = InputRecord {
        role: ROLE.into(),
        spec: format!("{method}={name}"),
        path: name.clone(),
        sha256,
        format: "ML Privacy Meter attack result".into(),
        dtype: "npz".into(),
        shape: vec![s.len() as u64],
        tensor: None,
        rows_used: 1,
        row_file: None,
    };
    Ok((name, metrics, rec))
}
