#![no_main]
//! The open-unlearning, TOFU and MUSE readers (`lethe::tools::{open_unlearning, tofu, muse}`) over arbitrary bytes:
//! Python-style JSON parsing, detection through `lethe::tools::detect`, every key a summary lists, and the
//! value-level functions the analyses call. Checks: no panic or hang; a key the summary lists reads as a matrix of
//! the listed number of rows (or fails with a message); texts and score sets have one entry per sample.

use lethe::tools::{self, muse, open_unlearning as ou, tofu};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    if bytes.len() > 1 << 20 {
        return;
    }
    // The whole dispatch, as `lethe inspect` and the page call it.
    if let Some(Ok(summary)) = tools::detect("fuzz.json", &bytes) {
        for e in &summary.entries {
            let opts = lethe::data::LoadOptions {
                name: Some(e.key.clone()),
                ..Default::default()
            };
            if let Some(Ok(l)) = tools::load_key::<f64>("fuzz.json", &bytes, &opts) {
                assert_eq!(l.matrix.as_slice().len(), l.matrix.rows() * l.matrix.cols());
            }
        }
        assert!(!summary.description.is_empty());
    }
    let Ok(v) = ou::parse_python_json(bytes) else { return };
    if let Some(Ok(f)) = ou::read(&v) {
        let s = ou::summary("fuzz.json", &f);
        for e in &s.entries {
            if let Some(Ok(m)) = ou::column_of_value(&v, &e.key) {
                assert_eq!(m.as_slice().len(), m.rows() * m.cols());
                if let Some(&n) = e.shape.first() {
                    assert_eq!(m.rows() as u64, n, "key {}", e.key);
                }
            }
        }
        for m in &f.metrics {
            match &m.shape {
                ou::MetricShape::Mia { forget, holdout, .. } => {
                    let (fs, hs, _) = ou::mia_scores(&v, &m.name).expect("a metric read as MIA has its scores");
                    assert_eq!((fs.len(), hs.len()), (*forget, *holdout));
                }
                ou::MetricShape::PerSample { samples, .. } => {
                    if let Ok(t) = ou::texts(&v, &m.name, "generation") {
                        assert_eq!(t.len(), *samples);
                    }
                    let _ = ou::truth_ratios(&v, Some(&m.name));
                }
                ou::MetricShape::Aggregate => {
                    let _ = ou::agg_value(&v, &m.name);
                }
            }
        }
    }
    if let Some(Ok(tasks)) = tofu::read(&v) {
        for (task, stats, _) in &tasks {
            for s in stats {
                if let Ok(m) = tofu::stat(&v, task.as_deref(), s) {
                    assert_eq!(m.as_slice().len(), m.rows() * m.cols());
                }
            }
            let _ = tofu::generations(&v, task.as_deref());
        }
        let _ = tofu::truth_ratios(&v);
        let _ = tofu::column_of_value(&v, "eval_log_forget.json/rougeL_recall");
    }
    for split in ["forget", "retain", "holdout"] {
        let _ = muse::scores(&v, split, "Min-40%");
    }
    let _ = muse::auc(&v, "forget_holdout_Min-40%");
    let _ = muse::column_of_value(&v, "forget/PPL");
});
