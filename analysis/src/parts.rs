//! Subsets of one SDE run computed by different workers (the page's pool of plain Web Workers, each with its own
//! wasm instance): what a worker sends back for each subset it computed, and reading it in again in the worker
//! that assembles the report.
//!
//! The core's result types serialize but do not deserialize (they are reports), so this module mirrors them for
//! reading (serde's remote derive: every field is public). The values cross workers as JavaScript numbers
//! (structured clone), which are f64: the assembled report is bit for bit the single-worker one.

use lethe::backend::PairStats;
use lethe::kernel::{KernelStats, MatrixSums};
use lethe::sde::{BaselineVerdicts, ShuffleMoments, SplitHalf};
use serde::{Deserialize, Deserializer, Serialize};

/// One subset computed by a worker: its number in the run (0, 1: references; 2 + i: target i), its distribution,
/// and for a target the baseline verdicts (when asked for).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartSubset {
    pub subset: u64,
    #[serde(deserialize_with = "SplitHalfDef::deserialize")]
    pub distribution: SplitHalf,
    #[serde(default, deserialize_with = "baselines")]
    pub baselines: Option<BaselineVerdicts>,
}

/// What one worker of a pooled run returns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SdePart {
    pub subsets: Vec<PartSubset>,
    /// False when the worker was stopped (the subsets listed are those it finished).
    pub complete: bool,
}

#[derive(Deserialize)]
#[serde(remote = "MatrixSums")]
struct MatrixSumsDef {
    h: usize,
    total: f64,
    trace: f64,
    row_sq: f64,
    col_sq: f64,
    row_col: f64,
    diag_row: f64,
    diag_col: f64,
    diag_sq: f64,
    sq: f64,
    sq_transpose: f64,
}

#[derive(Deserialize)]
#[serde(remote = "KernelStats")]
struct KernelStatsDef {
    n: usize,
    sigma: f64,
    mean_all: f64,
    mean_offdiag: f64,
}

#[derive(Deserialize)]
#[serde(remote = "PairStats")]
struct PairStatsDef {
    n: usize,
    #[serde(with = "KernelStatsDef")]
    x: KernelStats,
    #[serde(with = "KernelStatsDef")]
    y: KernelStats,
    #[serde(with = "MatrixSumsDef")]
    kc_sums: MatrixSums,
    #[serde(with = "MatrixSumsDef")]
    l_sums: MatrixSums,
}

#[derive(Deserialize)]
#[serde(remote = "ShuffleMoments")]
struct ShuffleMomentsDef {
    mean: f64,
    variance: f64,
    sd: f64,
}

#[derive(Deserialize)]
#[serde(remote = "SplitHalf")]
struct SplitHalfDef {
    values: Vec<f64>,
    half: usize,
    rows: usize,
    sigma_1: f64,
    sigma_2: f64,
    #[serde(with = "PairStatsDef")]
    kernels: PairStats,
    #[serde(with = "ShuffleMomentsDef")]
    moments: ShuffleMoments,
    shuffles_planned: usize,
    complete: bool,
}

#[derive(Deserialize)]
#[serde(remote = "BaselineVerdicts")]
struct BaselineVerdictsDef {
    mmd_target_it: f64,
    mmd_target_oot: f64,
    mmd_in_training: Option<bool>,
    wasserstein_target_it: f64,
    wasserstein_target_oot: f64,
    wasserstein_in_training: Option<bool>,
}

fn baselines<'de, D: Deserializer<'de>>(d: D) -> Result<Option<BaselineVerdicts>, D::Error> {
    #[derive(Deserialize)]
    struct Wrap(#[serde(with = "BaselineVerdictsDef")] BaselineVerdicts);
    Ok(Option::<Wrap>::deserialize(d)?.map(|w| w.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_reads_back_what_it_wrote() {
        let m = lethe::Matrix::from_rows(
            &(0..12)
                .map(|i| [f64::from(i).sin(), f64::from(i % 5)])
                .collect::<Vec<_>>(),
        )
        .unwrap();
        let params = lethe::sde::SdeParams {
            shuffles: 20,
            ..Default::default()
        };
        let distribution = lethe::sde::split_half(m.view(), &params).unwrap();
        let part = SdePart {
            subsets: vec![PartSubset {
                subset: 3,
                distribution,
                baselines: Some(BaselineVerdicts {
                    mmd_target_it: 0.5,
                    mmd_target_oot: 0.25,
                    mmd_in_training: Some(false),
                    wasserstein_target_it: 1.0,
                    wasserstein_target_oot: 2.0,
                    wasserstein_in_training: None,
                }),
            }],
            complete: true,
        };
        let json = serde_json::to_string(&part).unwrap();
        let back: SdePart = serde_json::from_str(&json).unwrap();
        assert_eq!(back, part);
    }
}
