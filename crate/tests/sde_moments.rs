//! The exact shuffle moments against many-shuffle runs on real activations (examples/data/digits: MLP
//! penultimate activations, a subset of the shared demo): the sample mean and variance of 20,000 shuffles must
//! match the closed forms within a few standard errors.
use lethe::data::{LoadOptions, load_path};
use lethe::sde::{SdeParams, split_half};

fn demo(rows: std::ops::Range<usize>) -> lethe::Matrix {
    let p = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/data/digits/act_unlearned.npy");
    load_path::<f64>(
        p,
        &LoadOptions {
            rows: Some(rows.collect()),
            ..Default::default()
        },
    )
    .expect("demo data")
    .matrix
}

#[test]
fn exact_moments_match_twenty_thousand_shuffles() {
    for (rows, bw) in [(0..100, "sqrt_dim"), (144..244, "median"), (544..584, "sqrt_dim")] {
        let s = demo(rows.clone());
        let p = SdeParams {
            shuffles: 20_000,
            bandwidth: bw.parse().expect("bw"),
            seed: 5,
            ..Default::default()
        };
        let h = split_half(s.view(), &p).expect("split half");
        let t = h.values.len() as f64;
        let mean = h.values.iter().sum::<f64>() / t;
        let var = h.values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (t - 1.0);
        let m4 = h.values.iter().map(|v| (v - mean).powi(4)).sum::<f64>() / t;
        let z_mean = (mean - h.moments.mean) / (h.moments.sd / t.sqrt());
        // Standard error of the sample variance, from the sample fourth moment.
        let z_var = (var - h.moments.variance) / ((m4 - var * var) / t).sqrt();
        println!(
            "rows {rows:?} sigma {bw}: exact mean {:.6e} sd {:.3e}; 20k shuffles mean {mean:.6e} sd {:.3e}; z_mean {z_mean:.2}, z_var {z_var:.2}",
            h.moments.mean,
            h.moments.sd,
            var.sqrt()
        );
        assert!(
            z_mean.abs() < 4.5 && z_var.abs() < 4.5,
            "z_mean {z_mean}, z_var {z_var}"
        );
    }
}
