//! The exhaustive threshold attack (every distinct pooled value, both directions) and its Clopper–Pearson
//! high-probability version. Positives are always the retrained outputs.

use super::{Attack, AttackRule, ExampleEpsilon, Outcome, ThresholdAttack};
use crate::binomial;
use crate::error::Result;

/// Epsilon of one attack from its rates, as the paper's Algorithm 1 with Eq. 1: `inf` when both rates are 0,
/// `None` (discarded) when exactly one is, else the larger of the terms `ln((1 − δ − a)/b)` whose numerator is
/// positive, clipped below at 0.
pub(crate) fn rates_epsilon(fpr: f64, fnr: f64, delta: f64) -> Option<f64> {
    if fpr == 0.0 && fnr == 0.0 {
        return Some(f64::INFINITY);
    }
    if fpr == 0.0 || fnr == 0.0 {
        return None;
    }
    Some(bound_terms(fpr, fnr, fpr, fnr, delta))
}

/// `max(0, ln((1 − δ − fpr_num)/fnr_den), ln((1 − δ − fnr_num)/fpr_den))`, skipping terms whose numerator is ≤ 0.
fn bound_terms(fpr_num: f64, fnr_num: f64, fpr_den: f64, fnr_den: f64, delta: f64) -> f64 {
    let mut eps = 0.0f64;
    for (num, den) in [(1.0 - delta - fpr_num, fnr_den), (1.0 - delta - fnr_num, fpr_den)] {
        if num > 0.0 {
            eps = eps.max((num / den).ln());
        }
    }
    eps
}

/// Every attack of the exhaustive family in order: rules `x ≥ t` for each distinct pooled value `t` ascending, then
/// rules `x < t` in the same order; each predicts "retrained".
pub(crate) fn attacks(retrained: &[f64], unlearned: &[f64]) -> Vec<(AttackRule, usize, usize)> {
    let mut r = retrained.to_vec();
    let mut u = unlearned.to_vec();
    r.sort_by(f64::total_cmp);
    u.sort_by(f64::total_cmp);
    let mut pooled: Vec<f64> = r.iter().chain(u.iter()).copied().collect();
    pooled.sort_by(f64::total_cmp);
    pooled.dedup();
    let (nr, nu) = (r.len(), u.len());
    let mut ge = Vec::with_capacity(pooled.len());
    let mut lt = Vec::with_capacity(pooled.len());
    let (mut ir, mut iu) = (0usize, 0usize);
    for &t in &pooled {
        while ir < nr && r[ir] < t {
            ir += 1;
        }
        while iu < nu && u[iu] < t {
            iu += 1;
        }
        // x ≥ t predicts retrained: FP = unlearned ≥ t, FN = retrained < t.
        ge.push((AttackRule::AtLeast { threshold: t }, nu - iu, ir));
        // x < t predicts retrained: FP = unlearned < t, FN = retrained ≥ t.
        lt.push((AttackRule::Below { threshold: t }, iu, nr - ir));
    }
    ge.extend(lt);
    ge
}

/// The exhaustive attack table with per-attack epsilons (see [`super::exhaustive_attacks`]).
pub(crate) fn table(retrained: &[f64], unlearned: &[f64], delta: f64) -> Vec<ThresholdAttack> {
    let (nr, nu) = (retrained.len() as f64, unlearned.len() as f64);
    attacks(retrained, unlearned)
        .into_iter()
        .map(|(rule, fp, fn_)| {
            let (fpr, fnr) = (fp as f64 / nu, fn_ as f64 / nr);
            ThresholdAttack {
                rule,
                false_positives: fp,
                false_negatives: fn_,
                fpr,
                fnr,
                epsilon: rates_epsilon(fpr, fnr, delta).unwrap_or(f64::NAN),
            }
        })
        .collect()
}

/// One example under the exhaustive rule (`None` epsilon bound → point estimate) or its Clopper–Pearson bound.
pub(crate) fn example(
    retrained: &[f64],
    unlearned: &[f64],
    delta: f64,
    cp: Option<&CpTables>,
) -> Result<(ExampleEpsilon, Outcome)> {
    let (nr, nu) = (retrained.len(), unlearned.len());
    let mut best: Option<(f64, usize, AttackRule, usize, usize, f64, f64)> = None;
    for (index, (rule, fp, fn_)) in attacks(retrained, unlearned).into_iter().enumerate() {
        let (fpr, fnr, eps) = match cp {
            None => {
                let (fpr, fnr) = (fp as f64 / nu as f64, fn_ as f64 / nr as f64);
                match rates_epsilon(fpr, fnr, delta) {
                    Some(e) => (fpr, fnr, e),
                    None => continue,
                }
            }
            Some(t) => {
                let (fpr_hi, fnr_hi) = (t.upper_fp(fp)?, t.upper_fn(fn_)?);
                (fpr_hi, fnr_hi, bound_terms(fpr_hi, fnr_hi, fpr_hi, fnr_hi, delta))
            }
        };
        if best.as_ref().is_none_or(|b| eps > b.0) {
            best = Some((eps, index, rule, fp, fn_, fpr, fnr));
        }
    }
    let outcome = if best.is_some() {
        Outcome::Scored
    } else {
        Outcome::NoAttack
    };
    let (epsilon, best_attack) = match best {
        Some((eps, index, rule, fp, fn_, fpr, fnr)) => (
            eps,
            Some(Attack {
                rule,
                positive_is_retrained: true,
                false_positives: fp,
                false_negatives: fn_,
                fpr,
                fnr,
                index,
            }),
        ),
        None => (0.0, None),
    };
    Ok((
        ExampleEpsilon {
            epsilon,
            best_attack,
            positive_is_retrained: true,
            peaky: false,
            bucket: None,
            points: 0.0,
        },
        outcome,
    ))
}

/// Clopper–Pearson upper bounds for every possible count, computed once per call: `upper(c, n, α)` of statsmodels'
/// two-sided `proportion_confint(c, n, α, method="beta")`.
pub(crate) struct CpTables {
    fp: Vec<f64>,
    fn_: Vec<f64>,
}

impl CpTables {
    pub(crate) fn new(n_unlearned: usize, n_retrained: usize, alpha: f64) -> Result<Self> {
        let table = |n: usize| -> Result<Vec<f64>> {
            (0..=n)
                .map(|c| binomial::two_sided(c as u64, n as u64, alpha).map(|(_, hi)| hi))
                .collect()
        };
        Ok(CpTables {
            fp: table(n_unlearned)?,
            fn_: table(n_retrained)?,
        })
    }
    fn upper_fp(&self, c: usize) -> Result<f64> {
        lookup(&self.fp, c)
    }
    fn upper_fn(&self, c: usize) -> Result<f64> {
        lookup(&self.fn_, c)
    }
}

fn lookup(t: &[f64], c: usize) -> Result<f64> {
    t.get(c).copied().ok_or_else(|| {
        crate::Error::param(
            "count",
            c,
            format!("a count of at most {} (internal table size)", t.len().saturating_sub(1)),
        )
    })
}
