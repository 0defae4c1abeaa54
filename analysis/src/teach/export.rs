//! Hand-off: a topic's data as `.npy` files, for "try it on your data" and for checking the page against the CLI.

use serde::{Deserialize, Serialize};

use super::bounds::{ScoresSpec, scores};
use super::epsilon::{EpsilonSpec, epsilon_samples};
use super::hsic::{PairsSpec, pairs};
use super::mia::{MiaSpec, mia_scores};
use super::ranks::{RankRequest, rank_samples};
use crate::Result;

/// A generated file (`.npy`), for "try it on your data" and for checking the page against the CLI.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExportFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// Which topic's data to export, with that topic's request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "topic", rename_all = "snake_case")]
pub enum ExportRequest {
    Hsic(PairsSpec),
    Ranks(RankRequest),
    Epsilon(EpsilonSpec),
    Bounds(ScoresSpec),
    Mia(MiaSpec),
}

/// The data of a topic as `.npy` files (one column each; the epsilon samples as `models × 1` matrices, the layout
/// `lethe epsilon` and the competition panel read).
///
/// # Errors
/// As the topic's data generator.
pub fn export(req: &ExportRequest) -> Result<Vec<ExportFile>> {
    let col = |name: String, v: &[f64]| ExportFile {
        name,
        bytes: crate::npy::f64_bytes(v, &[v.len(), 1]),
    };
    Ok(match req {
        ExportRequest::Hsic(spec) => {
            let (x, y) = pairs(spec)?;
            let s = spec.seed;
            vec![
                col(format!("hsic_x_seed{s}.npy"), &x),
                col(format!("hsic_y_seed{s}.npy"), &y),
            ]
        }
        ExportRequest::Ranks(r) => {
            let ((x, y), (a, b)) = rank_samples(r)?;
            vec![
                col("mwu_x.npy".into(), &x),
                col("mwu_y.npy".into(), &y),
                col("wilcoxon_x.npy".into(), &a),
                col("wilcoxon_y.npy".into(), &b),
            ]
        }
        ExportRequest::Epsilon(spec) => {
            let (r, u) = epsilon_samples(spec)?;
            let s = spec.seed;
            vec![
                col(format!("teach_retrained_seed{s}.npy"), &r),
                col(format!("teach_unlearned_seed{s}.npy"), &u),
            ]
        }
        ExportRequest::Bounds(spec) => vec![col(format!("teach_scores_seed{}.npy", spec.seed), &scores(spec)?)],
        ExportRequest::Mia(spec) => {
            let (m, n) = mia_scores(spec)?;
            let s = spec.seed;
            vec![
                col(format!("teach_members_seed{s}.npy"), &m),
                col(format!("teach_non_members_seed{s}.npy"), &n),
            ]
        }
    })
}
