//! SDE and the calibrated verdict with their subsets evaluated on native threads (the CLI's `--threads`).
//!
//! Every subset of an analysis is independent once the inputs are checked and the references drawn: subset k
//! shuffles with its own stream (and splits with its own, [`crate::permute`]), builds its own kernels and scores
//! its own shuffles. So these drivers evaluate the subsets on up to N threads ([`crate::parallel`]), each with
//! its own [`CpuBackend`], and then assemble the report in subset order exactly as the one-thread drivers do: the
//! report is the same, bit for bit, for any thread count (tested here and in the CLI's tests).
//!
//! Progress goes to a synchronous callback on the calling thread ([`ProgressFn`]); when it answers `false`, every
//! thread stops at its next batch of shuffles and the report holds what a one-thread run stopped at that point
//! would: the targets finished in order (`complete: false`), none if a reference was unfinished (SDE), or
//! [`Error::Cancelled`] (the calibrated verdict, stopped inside its references).

use super::calibrated::{self, CalibratedParams, CalibratedReport, SubsetStats, TargetRows};
use super::{
    BaselineVerdicts, RowSubset, SdeParams, SdeReport, SplitHalf, baseline, check_subsets_on, report, sde_subsets_with,
    split_half_rows_on, target_outcome, work,
};
use crate::backend::{Backend, CpuBackend, now};
use crate::data::{Scalar, Source};
use crate::error::{Error, Result};
use crate::parallel::{ProgressFn, first_error, run_items};
use crate::progress::Progress;

/// [`super::sde_subsets`] with the subsets evaluated on up to `threads` threads (`threads ≤ 1`: on this thread,
/// by [`sde_subsets_with`] itself), reporting to `monitor`. The report is the same for every thread count.
///
/// # Errors
/// As [`sde_subsets_with`]: when several subsets fail, the first in subset order (references, then targets) is
/// reported.
pub fn sde_subsets_threaded<S: Scalar>(
    threads: usize,
    mut monitor: &mut ProgressFn<'_>,
    in_training: RowSubset<'_, S>,
    out_of_training: RowSubset<'_, S>,
    targets: &[RowSubset<'_, S>],
    params: &SdeParams,
) -> Result<SdeReport> {
    if threads <= 1 {
        let mut backend = CpuBackend::new(params.precision);
        return now(sde_subsets_with(
            &mut backend,
            &mut monitor,
            in_training,
            out_of_training,
            targets,
            params,
        ));
    }
    let warnings = check_subsets_on(&in_training, &out_of_training, targets, params, threads)?;
    let subsets: Vec<&RowSubset<'_, S>> = [&in_training, &out_of_training].into_iter().chain(targets).collect();
    let weights: Vec<f64> = subsets.iter().map(|t| work(t.len(), params.shuffles)).collect();
    // The baselines compare each target with the whole references: gathered once, shared by every thread.
    let refs = if params.baselines {
        Some((in_training.gathered()?, out_of_training.gathered()?))
    } else {
        None
    };
    let job = |backend: &mut CpuBackend,
               k: usize,
               tick: &mut dyn FnMut(f64) -> bool|
     -> Result<(SplitHalf, Option<BaselineVerdicts>)> {
        let mut checkpoint = |p: &Progress| tick(p.fraction);
        let t = subsets[k];
        let dist = now(split_half_rows_on(
            backend,
            &mut checkpoint,
            t,
            params,
            k as u64,
            (0.0, 1.0),
        ))?;
        let baselines = match &refs {
            Some((r_it, r_oot)) if k >= 2 && dist.complete => {
                Some(baseline(t.gathered()?.view(), r_it.view(), r_oot.view(), params)?)
            }
            _ => None,
        };
        Ok((dist, baselines))
    };
    let phase = |done: usize, count: usize| format!("{done} of {count} subsets");
    let mut results = run_items(
        threads,
        &weights,
        monitor,
        &phase,
        &|| CpuBackend::new(params.precision),
        &job,
    );
    first_error(&mut results)?;
    let mut got: Vec<Option<(SplitHalf, Option<BaselineVerdicts>)>> =
        results.into_iter().map(|r| r.and_then(Result::ok)).collect();
    let info = CpuBackend::new(params.precision).info();
    // Subset 0 is the first handed out, so it has started whenever anything has.
    let Some((it, _)) = got[0].take() else {
        return Err(Error::Cancelled);
    };
    let oot = match got[1].take() {
        Some((oot, _)) if it.complete => oot,
        _ => return report(params, info, it, None, Vec::new(), false, warnings),
    };
    if !oot.complete {
        return report(params, info, it, Some(oot), Vec::new(), false, warnings);
    }
    let mut outcomes = Vec::with_capacity(targets.len());
    for (t, slot) in targets.iter().zip(&mut got[2..]) {
        match slot.take() {
            Some((dist, baselines)) if dist.complete => {
                outcomes.push(target_outcome(t.name, t.label, dist, baselines, &it, &oot, params)?);
            }
            _ => break,
        }
    }
    let complete = outcomes.len() == targets.len();
    report(params, info, it, Some(oot), outcomes, complete, warnings)
}

/// What one subset of the calibrated evaluation gives.
enum Part {
    Reference(SubsetStats),
    /// A paper-rule reference distribution.
    PaperReference(SplitHalf),
    Target(SubsetStats, Option<SplitHalf>),
}

/// [`calibrated::calibrated`] with its subsets (the 2R references, the paper rule's reference pair, the targets)
/// evaluated on up to `threads` threads (`threads ≤ 1`: on this thread, by [`calibrated::calibrated_with`]),
/// reporting to `monitor`. The report is the same for every thread count.
///
/// # Errors
/// As [`calibrated::calibrated_with`]; [`Error::Cancelled`] when stopped before every reference was done.
pub fn calibrated_threaded<'a, S: Scalar>(
    threads: usize,
    mut monitor: &mut ProgressFn<'_>,
    data: impl Into<Source<'a, S>>,
    in_training_pool: &[usize],
    out_of_training_pool: &[usize],
    targets: &[TargetRows],
    params: &CalibratedParams,
) -> Result<CalibratedReport> {
    let data = data.into();
    if threads <= 1 {
        let mut backend = CpuBackend::new(params.precision);
        return now(calibrated::calibrated_with(
            &mut backend,
            &mut monitor,
            data,
            in_training_pool,
            out_of_training_pool,
            targets,
            params,
        ));
    }
    let shape = calibrated::DataShape::of(data);
    let plan = calibrated::plan(shape, in_training_pool, out_of_training_pool, targets, params, threads)?;
    let r = params.references;
    let paper = params.paper_shuffles > 0;
    let sde_params = calibrated::sde_params(params);
    // Items: references 0..2r (in-training, then out-of-training), the paper rule's reference pair (2r, 2r + 1;
    // only when it runs), then the targets. The subset numbers of the random streams are those of the one-thread
    // run: 0..2r and 2r + i for the splits, 0, 1 and 2 + i for the paper rule's shuffles.
    let first = 2 * r + if paper { 2 } else { 0 };
    let count = first + targets.len();
    let shuffle_share = if paper {
        1.0 + params.paper_shuffles as f64 / 20.0
    } else {
        1.0
    };
    let weights: Vec<f64> = (0..count)
        .map(|k| if k < 2 * r { 1.0 } else { shuffle_share })
        .collect();
    let reference = |k: usize| {
        if k < r {
            (&plan.it_sets[k], format!("in-training reference {k}"))
        } else {
            (&plan.oot_sets[k - r], format!("out-of-training reference {}", k - r))
        }
    };
    let job = |backend: &mut CpuBackend, k: usize, tick: &mut dyn FnMut(f64) -> bool| -> Result<Part> {
        let mut checkpoint = |p: &Progress| tick(p.fraction);
        if k < 2 * r {
            let (rows, name) = reference(k);
            let st = now(calibrated::subset_stats(backend, data, rows, params, k as u64, &name))?;
            Ok(Part::Reference(st))
        } else if k < first {
            let (rows, _) = reference(if k == 2 * r { 0 } else { r });
            let (label, subset) = if k == 2 * r {
                ("in_training", 0)
            } else {
                ("out_of_training", 1)
            };
            let h = now(calibrated::paper_distribution(
                backend,
                &mut checkpoint,
                data,
                rows,
                label,
                &sde_params,
                subset,
            ))?;
            Ok(Part::PaperReference(h))
        } else {
            let i = k - first;
            let t = &targets[i];
            let st = now(calibrated::subset_stats(
                backend,
                data,
                &t.rows,
                params,
                (2 * r + i) as u64,
                &t.name,
            ))?;
            let h = if paper {
                Some(now(calibrated::paper_distribution(
                    backend,
                    &mut checkpoint,
                    data,
                    &t.rows,
                    &t.name,
                    &sde_params,
                    2 + i as u64,
                ))?)
            } else {
                None
            };
            Ok(Part::Target(st, h))
        }
    };
    let phase = |done: usize, count: usize| format!("{done} of {count} subsets");
    let mut results = run_items(
        threads,
        &weights,
        monitor,
        &phase,
        &|| CpuBackend::new(params.precision),
        &job,
    );
    first_error(&mut results)?;
    let mut parts = results.into_iter().map(|r| r.and_then(Result::ok));
    let mut it_stats = Vec::with_capacity(r);
    let mut oot_stats = Vec::with_capacity(r);
    for k in 0..2 * r {
        match parts.next().flatten() {
            Some(Part::Reference(st)) => {
                if k < r {
                    it_stats.push(st);
                } else {
                    oot_stats.push(st);
                }
            }
            _ => return Err(Error::Cancelled),
        }
    }
    let paper_refs = if paper {
        match (parts.next().flatten(), parts.next().flatten()) {
            (Some(Part::PaperReference(a)), Some(Part::PaperReference(b))) if a.complete && b.complete => {
                Some((a.values, b.values))
            }
            _ => return Err(Error::Cancelled),
        }
    } else {
        None
    };
    let mut computed = Vec::with_capacity(targets.len());
    for part in parts {
        match part {
            Some(Part::Target(st, h)) if h.as_ref().is_none_or(|h| h.complete) => {
                computed.push((st, h.map(|h| h.values)));
            }
            _ => break,
        }
    }
    let complete = computed.len() == targets.len();
    let info = CpuBackend::new(params.precision).info();
    calibrated::assemble(
        params, info, plan, it_stats, oot_stats, paper_refs, targets, computed, complete,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Precision;
    use crate::data::{Matrix, Source};
    use crate::sde::{Split, draw_targets, sde_subsets};

    fn pool(n: usize, d: usize, seed: u64) -> Matrix {
        let mut s = seed;
        let v = (0..n * d)
            .map(|i| {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let u = (s >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
                // Rows of the first half are tighter: the references separate.
                u * if i / d < n / 2 { 1.0 } else { 2.5 }
            })
            .collect();
        Matrix::from_vec(n, d, v).unwrap()
    }

    /// Any thread count gives the one-thread report, bit for bit: both precisions, both splits, baselines on.
    #[test]
    fn threads_give_the_one_thread_report() {
        let m = pool(300, 5, 1);
        let m32: Matrix<f32> = m.cast();
        let draws = draw_targets(None, 300, 7, 40, 3).unwrap();
        let it_rows: Vec<usize> = (0..40).collect();
        let oot_rows: Vec<usize> = (150..190).collect();
        for split in [Split::First, Split::Random] {
            for precision in [Precision::F64, Precision::F32] {
                let p = SdeParams {
                    shuffles: 70,
                    seed: 5,
                    split,
                    precision,
                    baselines: true,
                    ..Default::default()
                };
                let names: Vec<String> = (0..draws.len()).map(|k| format!("t{k}")).collect();
                let targets: Vec<RowSubset<'_, f32>> = draws
                    .iter()
                    .zip(&names)
                    .map(|(rows, name)| RowSubset {
                        name,
                        source: Source::Memory(m32.view()),
                        rows: Some(rows),
                        label: None,
                    })
                    .collect();
                let it = RowSubset {
                    name: "in_training",
                    source: Source::Memory(m32.view()),
                    rows: Some(&it_rows),
                    label: None,
                };
                let oot = RowSubset {
                    name: "out_of_training",
                    rows: Some(&oot_rows),
                    ..it
                };
                let want = sde_subsets(it, oot, &targets, &p).unwrap();
                assert_eq!(want.targets.len(), 7);
                for threads in [2, 3, 8] {
                    let mut fractions = Vec::new();
                    let mut monitor = |pr: &Progress| {
                        fractions.push(pr.fraction);
                        true
                    };
                    let got = sde_subsets_threaded(threads, &mut monitor, it, oot, &targets, &p).unwrap();
                    assert_eq!(got, want, "{split:?} {precision:?} {threads} threads");
                    assert!(fractions.windows(2).all(|w| w[0] <= w[1]), "progress goes forward");
                    assert!((fractions.last().copied().unwrap() - 1.0).abs() < 1e-9);
                }
            }
        }
    }

    /// Stopped, the threaded run keeps the targets finished in order, each as the full run computed it.
    #[test]
    fn stopping_keeps_a_prefix_of_finished_targets() {
        let m = pool(400, 4, 2);
        let draws = draw_targets(None, 400, 30, 40, 1).unwrap();
        let names: Vec<String> = (0..draws.len()).map(|k| format!("t{k}")).collect();
        let targets: Vec<RowSubset<'_, f64>> = draws
            .iter()
            .zip(&names)
            .map(|(rows, name)| RowSubset {
                name,
                source: Source::Memory(m.view()),
                rows: Some(rows),
                label: None,
            })
            .collect();
        let it = RowSubset::all("in_training", m.row_block(0, 40).unwrap(), None);
        let oot = RowSubset::all("out_of_training", m.row_block(200, 240).unwrap(), None);
        let p = SdeParams {
            shuffles: 64,
            ..Default::default()
        };
        let full = sde_subsets(it, oot, &targets, &p).unwrap();
        // The threads keep going until they read the stop flag, so how far a stopped run got depends on the
        // scheduler (on a loaded machine the calling thread may even see every subset finished first); what it
        // returns must always be a prefix of the full run, complete only if it is all of it.
        let check = |part: &SdeReport| {
            assert_eq!(part.targets[..], full.targets[..part.targets.len()]);
            assert_eq!(part.complete, part.targets.len() == targets.len());
            if part.complete {
                assert_eq!(part, &full);
            }
        };
        let mut stop = |pr: &Progress| pr.fraction < 0.5;
        let part = sde_subsets_threaded(2, &mut stop, it, oot, &targets, &p).unwrap();
        check(&part);
        assert!(
            !part.targets.is_empty(),
            "half the work means both references and some targets"
        );
        let mut never = |_: &Progress| false;
        check(&sde_subsets_threaded(3, &mut never, it, oot, &targets, &p).unwrap());
    }

    #[test]
    fn errors_name_the_first_bad_subset() {
        let m = pool(100, 3, 3);
        let mut bad = m.clone();
        bad.as_mut_slice()[7 * 3] = f64::NAN;
        let t = [
            RowSubset::all("t0", m.view(), None),
            RowSubset::all("t1", bad.view(), None),
        ];
        let it = RowSubset::all("in_training", m.row_block(0, 20).unwrap(), None);
        let p = SdeParams::default();
        let one = sde_subsets(it, it, &t, &p).unwrap_err().to_string();
        let two = sde_subsets_threaded(2, &mut |_: &Progress| true, it, it, &t, &p)
            .unwrap_err()
            .to_string();
        assert_eq!(one, two);
        assert!(two.contains("t1"), "{two}");
    }

    #[test]
    fn calibrated_threads_give_the_one_thread_report() {
        let m = pool(400, 3, 4);
        let it_pool: Vec<usize> = (0..200).collect();
        let oot_pool: Vec<usize> = (200..400).collect();
        let targets: Vec<TargetRows> = (0..5)
            .map(|k| TargetRows {
                name: format!("t{k}"),
                rows: (k * 30 + if k % 2 == 0 { 0 } else { 200 }..).take(20).collect(),
                label: Some(k % 2 == 0),
            })
            .collect();
        for (paper_shuffles, split) in [(0, Split::First), (30, Split::First), (30, Split::Random)] {
            let p = CalibratedParams {
                subset_size: 20,
                references: 4,
                paper_shuffles,
                split,
                precision: Precision::F32,
                ..Default::default()
            };
            let want = calibrated::calibrated(m.view(), &it_pool, &oot_pool, &targets, &p).unwrap();
            for threads in [2, 5] {
                let got = calibrated_threaded(
                    threads,
                    &mut |_: &Progress| true,
                    m.view(),
                    &it_pool,
                    &oot_pool,
                    &targets,
                    &p,
                )
                .unwrap();
                assert_eq!(
                    serde_json::to_string(&got).unwrap(),
                    serde_json::to_string(&want).unwrap(),
                    "{paper_shuffles} {split:?} {threads}"
                );
            }
        }
        let p = CalibratedParams {
            subset_size: 20,
            references: 4,
            ..Default::default()
        };
        // Stopped at the first message: cancelled inside the references, or (if the threads outran the calling
        // thread) a prefix of the full report's targets.
        let want = calibrated::calibrated(m.view(), &it_pool, &oot_pool, &targets, &p).unwrap();
        match calibrated_threaded(
            2,
            &mut |_: &Progress| false,
            m.view(),
            &it_pool,
            &oot_pool,
            &targets,
            &p,
        ) {
            Err(Error::Cancelled) => {}
            Ok(r) => {
                assert_eq!(r.complete, r.targets.len() == targets.len());
                for (a, b) in r.targets.iter().zip(&want.targets) {
                    assert_eq!(serde_json::to_string(a).unwrap(), serde_json::to_string(b).unwrap());
                }
            }
            Err(e) => panic!("{e}"),
        }
    }
}
