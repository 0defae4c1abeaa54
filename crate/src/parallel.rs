//! Native threads over independent work items (subsets of an SDE run, batches of shuffles), for the CLI.
//!
//! Native only: the browser parallelises with a pool of Web Workers, each its own wasm instance. Every item
//! already has its own random stream ([`crate::permute`]), so an item's values do not depend on which thread
//! computes it or when: the threaded drivers ([`crate::sde::threaded`], [`crate::hsic::hsic_test_threaded`]) give
//! the same bits as one thread. Items are handed out in order (an atomic counter), results are put back in order.
//!
//! Progress and cancellation: each worker reports its item's own progress to the calling thread over a channel;
//! the calling thread combines them into one overall fraction and asks the caller's monitor, whose `false` sets a
//! stop flag that every worker reads at its next checkpoint (so a stopped run ends within one batch per thread).

use std::num::NonZero;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use crate::error::Result;
use crate::progress::Progress;

/// The default thread count: what the operating system says this process may use (1 if it cannot tell).
pub fn available_threads() -> usize {
    std::thread::available_parallelism().map_or(1, NonZero::get)
}

/// A synchronous progress callback as the threaded drivers take it: called on the calling thread only, with the
/// overall fraction; `false` asks the run to stop.
pub type ProgressFn<'a> = dyn FnMut(&Progress) -> bool + 'a;

/// A job of [`run_items`]: `(state, item, tick) → result`.
pub(crate) type Job<'a, W, T> = dyn Fn(&mut W, usize, &mut dyn FnMut(f64) -> bool) -> Result<T> + Sync + 'a;

enum Msg<T> {
    /// Item `item` is this far through its own work.
    Tick {
        item: usize,
        fraction: f64,
    },
    Done {
        item: usize,
        result: Result<T>,
    },
}

/// Runs `job(&mut state, item, tick)` for every item in `0..weights.len()` on up to `threads` scoped threads,
/// each with its own `state` from `init()`. `tick(f)` reports that the item is a fraction `f` done and returns
/// `false` once the run should stop (a job then ends early, returning what it has). `weights` are the items'
/// shares of the overall progress; `phase(done, count)` names it. After an error in any item the others are
/// asked to stop too. Returns one slot per item, in item order: `None` for an item never started (the run was
/// stopped first); a stopped job decides what an early end returns.
pub(crate) fn run_items<W, T: Send>(
    threads: usize,
    weights: &[f64],
    monitor: &mut ProgressFn<'_>,
    phase: &dyn Fn(usize, usize) -> String,
    init: &(dyn Fn() -> W + Sync),
    job: &Job<'_, W, T>,
) -> Vec<Option<Result<T>>> {
    let count = weights.len();
    let total: f64 = weights.iter().sum::<f64>().max(f64::MIN_POSITIVE);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let mut results: Vec<Option<Result<T>>> = (0..count).map(|_| None).collect();
    let mut cancelled = false;
    let (tx, rx) = mpsc::channel::<Msg<T>>();
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, count.max(1)) {
            let tx = tx.clone();
            let (next, stop) = (&next, &stop);
            s.spawn(move || {
                let mut state = init();
                while !stop.load(Ordering::Relaxed) {
                    let item = next.fetch_add(1, Ordering::Relaxed);
                    if item >= count {
                        break;
                    }
                    let mut tick = |fraction: f64| {
                        // The receiver outlives every worker (it is dropped after the scope).
                        let _ = tx.send(Msg::Tick { item, fraction });
                        !stop.load(Ordering::Relaxed)
                    };
                    let result = job(&mut state, item, &mut tick);
                    if result.is_err() {
                        stop.store(true, Ordering::Relaxed);
                    }
                    let _ = tx.send(Msg::Done { item, result });
                }
            });
        }
        drop(tx);
        // The calling thread: combine progress, ask the monitor, collect results (until every worker has ended).
        let mut done_fraction = vec![0.0f64; count];
        let mut finished = 0;
        for msg in rx {
            match msg {
                Msg::Tick { item, fraction } => done_fraction[item] = fraction.clamp(0.0, 1.0),
                Msg::Done { item, result } => {
                    finished += 1;
                    done_fraction[item] = 1.0;
                    results[item] = Some(result);
                }
            }
            if !cancelled {
                let fraction = weights.iter().zip(&done_fraction).map(|(w, f)| w * f).sum::<f64>() / total;
                let p = Progress {
                    fraction: fraction.min(1.0),
                    phase: phase(finished, count),
                };
                if !monitor(&p) {
                    cancelled = true;
                    stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    results
}

/// The first error among `results` in item order, if any.
pub(crate) fn first_error<T>(results: &mut [Option<Result<T>>]) -> Result<()> {
    match results.iter().position(|r| matches!(r, Some(Err(_)))) {
        Some(k) => match results[k].take() {
            Some(Err(e)) => Err(e),
            _ => Ok(()),
        },
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_come_back_in_order_with_monotone_progress() {
        let weights = vec![1.0; 40];
        let mut seen = Vec::new();
        let mut monitor = |p: &Progress| {
            seen.push(p.fraction);
            true
        };
        let r = run_items(
            3,
            &weights,
            &mut monitor,
            &|d, c| format!("{d}/{c}"),
            &|| 0usize,
            &|calls: &mut usize, item, tick| {
                *calls += 1;
                tick(0.5);
                Ok(item * item)
            },
        );
        let got: Vec<usize> = r.into_iter().map(|x| x.unwrap().unwrap()).collect();
        assert_eq!(got, (0..40).map(|i| i * i).collect::<Vec<_>>());
        assert!((seen.last().copied().unwrap() - 1.0).abs() < 1e-12);
        assert!(seen.iter().all(|f| (0.0..=1.0).contains(f)));
    }

    #[test]
    fn stopping_and_errors_stop_the_workers() {
        let weights = vec![1.0; 1000];
        let mut calls = 0;
        let mut monitor = |_: &Progress| {
            calls += 1;
            calls < 5
        };
        let r = run_items(
            2,
            &weights,
            &mut monitor,
            &|_, _| String::new(),
            &|| (),
            // Each item works (ticks) until it is asked to stop, so only the first item of each thread starts.
            &|_, item, tick| {
                for _ in 0..10_000 {
                    if !tick(0.5) {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_micros(200));
                }
                Ok(item)
            },
        );
        assert_eq!(calls, 5, "not asked again once it said stop");
        assert!(r.iter().filter(|x| x.is_some()).count() <= 2);
        let mut r = run_items(
            2,
            &weights,
            &mut |_: &Progress| true,
            &|_, _| String::new(),
            &|| (),
            &|_, item, _| {
                if item >= 7 {
                    Err(crate::Error::param("item", item, "below 7"))
                } else {
                    Ok(item)
                }
            },
        );
        assert!(r.iter().filter(|x| x.is_some()).count() < 1000);
        let e = first_error(&mut r).unwrap_err().to_string();
        assert!(e.contains("`item`") && e.contains('7'), "{e}");
    }
}
