//! Seeded synthetic inputs for the panels that have no real demo data (competition epsilon, leakage bounds).
//!
//! They are made as files (.npy bytes, text) so that they go through the same loaders as user files, can be saved
//! from the page and given to the CLI, and are labelled as synthetic wherever they appear. They illustrate the
//! analyses; they are not measurements of any model.

use serde::Serialize;

use crate::npy;

/// A generated file.
#[derive(Clone, Debug, Serialize)]
pub struct SyntheticFile {
    pub name: String,
    pub bytes: Vec<u8>,
}

/// What a synthetic example consists of, and a line saying what it is.
#[derive(Clone, Debug, Serialize)]
pub struct Synthetic {
    pub files: Vec<SyntheticFile>,
    pub description: String,
}

/// splitmix64 with Box–Muller normals: small, seeded, identical on every platform (the synthetic examples and the
/// teaching topics' data in `teach`).
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator for `seed`, with a salt so that uses sharing a seed do not share numbers.
    pub(crate) fn new(seed: u64, salt: u64) -> Self {
        Rng(seed ^ salt)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub(crate) fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal (Box–Muller).
    pub(crate) fn normal(&mut self) -> f64 {
        let u = 1.0 - self.uniform();
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.uniform() * n as f64) as usize % n.max(1)
    }
}

/// Models and forget-set examples of the synthetic competition example.
pub const MODELS: usize = 32;
pub const EXAMPLES: usize = 100;

/// Retrained and unlearned models' logit-scaled confidences (`MODELS × EXAMPLES`): per example a common level;
/// for 60% of the examples the unlearned models match the retrained ones, for the rest they are shifted by
/// 0.5–3 standard deviations (imperfect forgetting).
pub fn competition(seed: u64) -> Synthetic {
    let mut rng = Rng::new(seed, 0x5eed_c0de);
    let level: Vec<f64> = (0..EXAMPLES).map(|_| 2.0 + 2.0 * rng.normal()).collect();
    let shift: Vec<f64> = (0..EXAMPLES)
        .map(|_| {
            if rng.uniform() < 0.6 {
                0.0
            } else {
                0.5 + 2.5 * rng.uniform()
            }
        })
        .collect();
    let mut retrained = Vec::with_capacity(MODELS * EXAMPLES);
    let mut unlearned = Vec::with_capacity(MODELS * EXAMPLES);
    for _ in 0..MODELS {
        for e in 0..EXAMPLES {
            retrained.push(level[e] + rng.normal());
            unlearned.push(level[e] + shift[e] + rng.normal());
        }
    }
    Synthetic {
        files: vec![
            SyntheticFile {
                name: format!("synthetic_retrained_seed{seed}.npy"),
                bytes: npy::f64_bytes(&retrained, &[MODELS, EXAMPLES]),
            },
            SyntheticFile {
                name: format!("synthetic_unlearned_seed{seed}.npy"),
                bytes: npy::f64_bytes(&unlearned, &[MODELS, EXAMPLES]),
            },
        ],
        description: format!(
            "Synthetic (seed {seed}): {MODELS} retrained and {MODELS} unlearned models × {EXAMPLES} forget examples of \
             Gaussian logit-scaled confidences; 40% of the examples are shifted in the unlearned models"
        ),
    }
}

/// Leakage scores in [0, 1] of 200 sampled answers: 60% exactly 0, the rest `u^1.5`.
pub fn scores(seed: u64) -> Synthetic {
    let mut rng = Rng::new(seed, 0x0bad_5eed);
    let v: Vec<f64> = (0..200)
        .map(|_| {
            if rng.uniform() < 0.6 {
                0.0
            } else {
                rng.uniform().powf(1.5)
            }
        })
        .collect();
    Synthetic {
        files: vec![SyntheticFile {
            name: format!("synthetic_scores_seed{seed}.npy"),
            bytes: npy::f64_bytes(&v, &[v.len()]),
        }],
        description: format!("Synthetic (seed {seed}): 200 leakage scores in [0, 1], 60% exactly 0"),
    }
}

/// Generations and a reference for ROUGE-L: 60 answers mixing words of the secret with filler words.
pub fn generations(seed: u64) -> Synthetic {
    const SECRET: &str = "the launch code for the vault is amber falcon seven";
    const FILLER: [&str; 12] = [
        "i",
        "cannot",
        "share",
        "that",
        "sorry",
        "information",
        "is",
        "private",
        "the",
        "answer",
        "unknown",
        "maybe",
    ];
    let secret: Vec<&str> = SECRET.split(' ').collect();
    let mut rng = Rng::new(seed, 0x7e47);
    let mut lines = Vec::new();
    for _ in 0..60 {
        let leak = rng.uniform();
        let len = 6 + rng.below(8);
        let words: Vec<&str> = (0..len)
            .map(|i| {
                if rng.uniform() < leak * leak {
                    secret[i % secret.len()]
                } else {
                    FILLER[rng.below(FILLER.len())]
                }
            })
            .collect();
        lines.push(words.join(" "));
    }
    Synthetic {
        files: vec![
            SyntheticFile {
                name: format!("synthetic_generations_seed{seed}.txt"),
                bytes: (lines.join("\n") + "\n").into_bytes(),
            },
            SyntheticFile {
                name: "synthetic_reference.txt".into(),
                bytes: format!("{SECRET}\n").into_bytes(),
            },
        ],
        description: format!(
            "Synthetic (seed {seed}): 60 generations that leak parts of a made-up secret to varying degrees"
        ),
    }
}

/// The synthetic example `kind` (`competition`, `scores`, `generations`).
///
/// # Errors
/// An unknown kind.
pub fn make(kind: &str, seed: u64) -> crate::Result<Synthetic> {
    match kind {
        "competition" => Ok(competition(seed)),
        "scores" => Ok(scores(seed)),
        "generations" => Ok(generations(seed)),
        other => Err(crate::Error::msg(format!("no synthetic example `{other}`"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn examples_are_seeded_and_load() {
        let a = competition(1);
        assert_eq!(a.files[0].bytes, competition(1).files[0].bytes);
        assert_ne!(a.files[0].bytes, competition(2).files[0].bytes);
        let m = lethe::data::load_bytes::<f64>("r.npy", &a.files[0].bytes, &Default::default())
            .unwrap()
            .matrix;
        assert_eq!((m.rows(), m.cols()), (MODELS, EXAMPLES));
        let s = lethe::data::load_bytes::<f64>("s.npy", &scores(3).files[0].bytes, &Default::default())
            .unwrap()
            .matrix;
        assert!(s.as_slice().iter().all(|v| (0.0..=1.0).contains(v)));
        let g = generations(0);
        assert_eq!(String::from_utf8(g.files[0].bytes.clone()).unwrap().lines().count(), 60);
        assert!(make("nope", 0).is_err());
    }
}
