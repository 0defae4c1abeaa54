//! The placebo check of an SDE call: subsets of known truth drawn from each reference's rows, their exact shuffle
//! means, and the null a target's exact mean is read against. The analysis layer draws the placebos and words the
//! call (`lethe_analysis`'s `sde_run::placebo`, whose module doc derives the null); these are its numbers, carried
//! in the report as [`super::SdeReport::placebos`].

use serde::Serialize;

/// Student's t one-sided 95% quantile with `df` degrees of freedom: the Cornish–Fisher expansion about the normal
/// quantile (Abramowitz & Stegun 26.7.5, five terms), within 2.4e-4 of `scipy.stats.t.ppf(0.95, df)` at df = 4 and
/// 4e-6 from df = 9 on (tests below). The z a call needs, with the null's sd estimated from `df + 1` subsets.
pub fn t95(df: f64) -> f64 {
    let z: f64 = 1.644_853_626_951_472_2;
    let (z3, z5, z7, z9) = (z.powi(3), z.powi(5), z.powi(7), z.powi(9));
    z + (z3 + z) / (4.0 * df)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * df.powi(2))
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * df.powi(3))
        + (79.0 * z9 + 776.0 * z7 + 1482.0 * z5 - 1920.0 * z3 - 945.0 * z) / (92160.0 * df.powi(4))
}

/// The sd of a fresh subset's exact mean about the mean of `draws` subsets of `rows` rows drawn from a pool of
/// `pool` rows whose means have sample sd `sd` (see the module's doc): finite-pool corrected, widened for the
/// pool's own error and the draws'.
pub fn null_sd(sd: f64, pool: usize, rows: usize, draws: usize) -> f64 {
    let (big, n) = (pool as f64, rows as f64);
    let fresh = sd * sd * (big - 1.0) / (big - n).max(1.0);
    (fresh * (1.0 + n / big) + sd * sd / draws as f64).sqrt()
}

/// One class's placebos: their exact shuffle means and the null a target's mean is read against.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlaceboClass {
    /// Rows of the class's input the placebos were drawn from.
    pub pool_rows: usize,
    /// The placebos' exact shuffle means, in draw order.
    pub means: Vec<f64>,
    /// Their mean and sample sd.
    pub mean: f64,
    pub sd: f64,
    /// The sd of a target's exact mean about `mean` were it of this class (see the module's doc).
    pub null_sd: f64,
}

/// One target read against both classes' placebos.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlaceboTarget {
    pub name: String,
    /// The target's exact shuffle mean (the core's, from the run's split).
    pub exact_mean: f64,
    /// How far beyond the out-of-training placebos it lies towards the in-training side, in their null sds
    /// (a call "in training" needs [`Placebos::threshold`]).
    #[serde(serialize_with = "crate::json::f64")]
    pub z_out_of_training: f64,
    /// How far beyond the in-training placebos it lies towards the out-of-training side.
    #[serde(serialize_with = "crate::json::f64")]
    pub z_in_training: f64,
}

/// The placebo check of a run (`result.placebos` of the report).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Placebos {
    /// Rows per placebo subset: the target's.
    pub rows: usize,
    /// Placebos per class.
    pub draws: usize,
    /// The z a call needs (5% of one class's subsets reach it).
    pub threshold: f64,
    /// Whether in-training subsets have the larger exact mean on this data.
    pub in_training_higher: bool,
    pub in_training: PlaceboClass,
    pub out_of_training: PlaceboClass,
    /// In-training placebos the check calls in training: the rate it detects an in-training subset at.
    pub detected_in_training: usize,
    /// Out-of-training placebos the check calls out of training.
    pub detected_out_of_training: usize,
    /// Out-of-training placebos the reference pair's nearer exact mean calls in training, and in-training ones
    /// it calls out of training: the single pair's false calls on this data, without the check.
    pub pair_false_in_training: usize,
    pub pair_false_out_of_training: usize,
    pub targets: Vec<PlaceboTarget>,
}

impl PlaceboClass {
    pub fn of(means: Vec<f64>, pool: usize, rows: usize) -> Self {
        let k = means.len() as f64;
        let mean = means.iter().sum::<f64>() / k;
        let sd = (means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (k - 1.0)).sqrt();
        Self {
            pool_rows: pool,
            mean,
            sd,
            null_sd: null_sd(sd, pool, rows, means.len()),
            means,
        }
    }
}

impl Placebos {
    fn dir(&self) -> f64 {
        if self.in_training_higher { 1.0 } else { -1.0 }
    }

    /// `(z_out, z_in)` of an exact mean `m` (±inf where a class's placebos do not vary).
    pub fn z(&self, m: f64) -> (f64, f64) {
        let ratio = |d: f64, sd: f64| if sd > 0.0 { d / sd } else { d * f64::INFINITY };
        (
            ratio(
                (m - self.out_of_training.mean) * self.dir(),
                self.out_of_training.null_sd,
            ),
            ratio((self.in_training.mean - m) * self.dir(), self.in_training.null_sd),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `scipy.stats.t.ppf(0.95, df)` (scipy 1.17.1), for the expansion's tolerance.
    #[test]
    fn t95_is_students_t_quantile() {
        for (df, want, tol) in [
            (4.0, 2.1318467863266495, 2.4e-4),
            (9.0, 1.833112932656237, 4e-6),
            (19.0, 1.7291328115213682, 1e-7),
            (39.0, 1.6848751217112248, 1e-8),
            (99.0, 1.6603911560169906, 1e-10),
        ] {
            assert!((t95(df) - want).abs() < tol, "df {df}: {} vs {want}", t95(df));
        }
    }
}
