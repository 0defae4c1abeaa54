//! Tools' files (issue 14): which tool wrote a workspace source (or a set of them: a dropped folder), what it holds,
//! and its offers turned into the layer's requests, so every front end runs them the same way.
//!
//! Detection and the summaries are the core's (`lethe::tools`, from the files' content); here a source id becomes
//! the bytes the core reads, and an offer's inputs (`FILE#KEY`) become [`InputRef`]s of the sources the front end
//! holds, so the page's "Membership audit of members vs non-members" is `lethe mia --scores FILE#scores --labels
//! FILE#memberships`'s request, and its report equals that command's `--json`.

use lethe::tools::{Offer, Summary, ToolError};

use super::*;

/// What the tools' readers make of a file or a set of files: a summary, or what is almost right.
#[derive(Clone, Debug, Serialize)]
pub struct ToolFile {
    /// The summary, when the file is a tool's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Summary>,
    /// What is wrong with a file that is almost a tool's, and the fix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<ToolProblem>,
}

/// A file that is almost a tool's, as reports carry it.
#[derive(Clone, Debug, Serialize)]
pub struct ToolProblem {
    pub tool: lethe::tools::Tool,
    /// The whole message: the file, what is wrong, which version the reader follows, the fix.
    pub message: String,
}

impl From<ToolError> for ToolProblem {
    fn from(e: ToolError) -> Self {
        Self {
            tool: e.tool,
            message: e.to_string(),
        }
    }
}

impl ToolFile {
    fn of(found: Option<std::result::Result<Summary, ToolError>>) -> Option<Self> {
        Some(match found? {
            Ok(s) => Self {
                summary: Some(s),
                problem: None,
            },
            Err(e) => Self {
                summary: None,
                problem: Some(e.into()),
            },
        })
    }
}

/// Whether source `id` is a tool's file, as [`lethe::tools::detect`] decides from its content. `None`: no tool's
/// file (or a source that cannot be read: the ordinary inspect says why).
pub fn tool_file(ws: &Workspace, id: u32) -> Option<ToolFile> {
    let src = ws.source(id).ok()?;
    ToolFile::of(lethe::tools::detect(&src.name, &*src.data))
}

/// Whether sources `ids` together are a tool's set of files (a dropped folder: privacy-meter's log folder, ...),
/// named by `paths` (their paths inside the folder, in the order of `ids`; the source names when `None`).
pub fn tool_set(ws: &Workspace, ids: &[u32], paths: Option<&[String]>) -> Option<ToolFile> {
    let mut names = Vec::with_capacity(ids.len());
    let mut data = Vec::with_capacity(ids.len());
    for (i, &id) in ids.iter().enumerate() {
        let src = ws.source(id).ok()?;
        names.push(
            paths
                .and_then(|p| p.get(i).cloned())
                .unwrap_or_else(|| src.name.clone()),
        );
        data.push(Arc::clone(&src.data));
    }
    let files: Vec<(&str, &dyn lethe::data::ByteSource)> = names
        .iter()
        .zip(&data)
        .map(|(n, d)| (n.as_str(), &**d as &dyn lethe::data::ByteSource))
        .collect();
    ToolFile::of(lethe::tools::detect_set(&files))
}

/// The request of `offer` as JSON (the analysis's serde request: `lethe <offer.analysis>`'s options), its inputs
/// the sources whose names (or paths in a set) are `files[i].0` with ids `files[i].1`.
///
/// # Errors
/// An input whose file is not among `files`: the message names it (the page then asks for that file).
pub fn offer_request(offer: &Offer, files: &[(String, u32)]) -> Result<serde_json::Value> {
    let mut req = offer.options.clone();
    for input in &offer.inputs {
        let Some((_, id)) = files.iter().find(|(n, _)| *n == input.file) else {
            return Err(Error::at(
                input.role.as_str(),
                format!(
                    "{} needs `{}` as well: add that file (it was not among those given)",
                    offer.label, input.file
                ),
            ));
        };
        let r = InputRef {
            source: *id,
            tensor: input.key.clone(),
            rows: Rows::default(),
        };
        req.insert(
            input.role.clone(),
            serde_json::to_value(r).map_err(|e| Error::msg(e.to_string()))?,
        );
    }
    Ok(serde_json::Value::Object(req))
}

/// The final score's accuracies `[RA_unlearned, RA_retrained, TA_unlearned, TA_retrained]` when `retrained` is the
/// competition's `retrain_confs.npz` and `unlearned` the unlearned models' file of its layout (each main.py's
/// `np.mean` over the models): what `lethe epsilon` uses when `--accuracies` is not given.
pub fn competition_accuracies(ws: &Workspace, retrained: &InputRef, unlearned: &InputRef) -> Option<[f64; 4]> {
    let r = ws.source(retrained.source).ok()?;
    let u = ws.source(unlearned.source).ok()?;
    lethe::tools::accuracies((&r.name, &*r.data), (&u.name, &*u.data))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::tests::ws_with;

    const LEAKPRO: &str = r#"{"result_name": "rmia", "result_type": "MIAResult", "id": "rmia-abc",
     "tpr": [0.0, 1.0], "fpr": [0.0, 1.0], "roc_auc": 0.75, "accuracy": [0.5], "config": {}, "fixed_fpr": {},
     "signal_values": [0.9, 0.1, 0.8, 0.3], "true_labels": [1, 0, 1, 0]}"#;

    #[test]
    fn an_offer_runs_as_the_cli_request() {
        let mut ws = ws_with(&[(1, "x.json", LEAKPRO.as_bytes())]);
        let found = tool_file(&ws, 1).unwrap().summary.unwrap();
        let offer = &found.offers[0];
        let req = offer_request(offer, &[("x.json".into(), 1)]).unwrap();
        let req: MiaRequest = serde_json::from_value(req).unwrap();
        let job = prepare_mia(&mut ws, &req).unwrap();
        let report = job.run(1, &mut |_, _| true).unwrap();
        let auc = serde_json::to_value(&report).unwrap()["result"]["summary"]["auc"]
            .as_f64()
            .unwrap();
        assert_eq!(auc, 1.0);
        let e = offer_request(offer, &[("y.json".into(), 1)]).unwrap_err();
        assert!(e.message.contains("x.json"), "{}", e.message);
    }
}
