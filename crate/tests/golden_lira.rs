//! LiRA (`lethe::lira`) and the mi_lira_2021 directory reader (`lethe::tools::lira`) against
//! tests/fixtures/golden_lira (made by its make.py, which runs tensorflow/privacy's plot.py / score.py functions
//! copied verbatim; PROVENANCE.md there). Tolerances: predictions 1e-14 relative + 1e-14 absolute (seen: 1.1e-16) (numpy's strided
//! sums and its pairwise `np.std` may round the last bit differently); AUC exactly as scikit-learn's
//! `roc_auc_score` up to 1e-15; score.py's conversion 1e-12 (seen: bit for bit).
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test
mod common;
use common::*;

use lethe::lira::{LiraParams, Shadows, Variant, lira, shadow_counts, shadow_models};
use lethe::tools::lira::{Array, ScoreSource, assemble, list_dir, plan};

fn load(p: &str) -> Result<Array, String> {
    let l = lethe::data::load_path::<f64>(p, &lethe::data::LoadOptions::default()).map_err(|e| e.to_string())?;
    Ok(Array {
        values: l.matrix.into_vec(),
        shape: l.info.shape.clone(),
        dtype: l.info.dtype.clone(),
    })
}

fn read(dir: &str, source: ScoreSource) -> (Shadows, Vec<String>) {
    let d = fixture_path("golden_lira").join(dir);
    let files = list_dir(&d).unwrap();
    let layout = plan(&files, source).unwrap();
    assemble(&layout, &mut load).unwrap()
}

#[test]
fn directory_reads_as_plot_py_load_data() {
    let g = golden_lira();
    let (sh, notes) = read("exp", ScoreSource::Auto);
    assert_eq!(sh.models, g["models"].as_u64().unwrap() as usize);
    assert_eq!(sh.examples, g["examples"].as_u64().unwrap() as usize);
    assert_eq!(sh.augmentations, g["augmentations"].as_u64().unwrap() as usize);
    // experiment-16_16 has keep.npy but no scores: left out, with a note.
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("experiment-16_16"), "{notes:?}");
    // experiment-3_16's scores are the last file (0000000100.npy), not the zeros of 0000000050.npy.
    assert!(sh.score(3, 0).iter().any(|&v| v != 0.0));
    let shadows = shadow_models(sh.models, &[sh.models - 1]);
    let c = shadow_counts(&sh, &shadows);
    let sizes = &g["sizes_target_last"];
    assert_eq!(c.fewest_in().0 as u64, sizes["in_size"].as_u64().unwrap());
    assert_eq!(c.fewest_out().0 as u64, sizes["out_size"].as_u64().unwrap());
}

fn golden_lira() -> serde_json::Value {
    let p = fixture_path("golden_lira").join("lira.json");
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn every_variant_matches_plot_py() {
    let g = golden_lira();
    let (sh, _) = read("exp", ScoreSource::Auto);
    let mut dev = MaxDev::default();
    let mut cases = 0;
    for c in g["cases"].as_array().unwrap() {
        let variant: Variant = c["variant"].as_str().unwrap().parse().unwrap();
        let targets: Vec<usize> = c["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_u64().unwrap() as usize)
            .collect();
        let params = LiraParams {
            targets: targets.clone(),
            ..LiraParams::new(variant, sh.models)
        };
        let r = lira(&sh, &params, &mut |_, _| true).unwrap();
        let want = nums(&c["prediction"]);
        assert_eq!(r.prediction.len(), want.len(), "{variant} {targets:?}");
        for (k, (&got, &w)) in r.prediction.iter().zip(&want).enumerate() {
            assert_close(
                got,
                w,
                1e-12,
                1e-12,
                format!("{variant} targets {targets:?} prediction[{k}]"),
            );
            dev.add(got, w);
        }
        // Labels: the targets' keep rows, target after target.
        assert_eq!(
            r.answers.iter().filter(|&&a| a).count() as u64,
            c["members"].as_u64().unwrap()
        );
        // The membership score −prediction has plot.py's sweep AUC (scikit-learn auc of roc_curve(x, −prediction)).
        let (m, n): (Vec<f64>, Vec<f64>) = {
            let mut m = Vec::new();
            let mut n = Vec::new();
            for (&s, &a) in r.membership.iter().zip(&r.answers) {
                if a { m.push(s) } else { n.push(s) }
            }
            (m, n)
        };
        let roc = lethe::roc::roc(&m, &n).unwrap();
        let auc = lethe::roc::summary(&roc).auc;
        assert_close(
            auc,
            num(&c["sklearn_roc_auc_score_of_minus_prediction"]),
            1e-15,
            0.0,
            format!("{variant} AUC"),
        );
        assert_close(auc, num(&c["sweep_auc"]), 1e-12, 0.0, format!("{variant} sweep AUC"));
        cases += 1;
    }
    assert_eq!(cases, 15);
    dev.report("LiRA predictions vs plot.py");
}

#[test]
fn logits_convert_as_score_py() {
    let g = golden_lira();
    let (sh, notes) = read("exp_logits", ScoreSource::Auto);
    assert!(notes.is_empty(), "{notes:?}");
    let l = &g["logits"];
    let want = l["scores"].as_array().unwrap();
    assert_eq!(sh.models, want.len());
    let mut dev = MaxDev::default();
    for (m, w) in want.iter().enumerate() {
        let w = nums(w);
        let got = &sh.scores[m * sh.examples * sh.augmentations..(m + 1) * sh.examples * sh.augmentations];
        for (k, (&a, &b)) in got.iter().zip(&w).enumerate() {
            assert_close(a, b, 1e-12, 1e-12, format!("model {m} score[{k}]"));
            dev.add(a, b);
        }
    }
    // The extreme example of model 0: every wrong class's exp underflows, log(0 + 1e-45).
    assert!(sh.scores[0] > 100.0, "{}", sh.scores[0]);
    dev.report("score.py conversion");
}
