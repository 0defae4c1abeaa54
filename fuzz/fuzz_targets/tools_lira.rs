#![no_main]
//! The mi_lira_2021 folder reader (`lethe::tools::lira`: `plan`, `assemble`, and `detect_set` through
//! `lethe::tools::detect_set`) and LiRA itself (`lethe::lira`) over arbitrary bytes. The first byte gives the number
//! of experiment folders (1–4) and which files they have; then, per folder, two little-endian u16 lengths cut the
//! keep.npy and scores/*.npy bytes from the rest. Checks: no panic or hang; a folder the reader accepts gives
//! shadow results of consistent lengths, and every variant either scores every target example or says why; a
//! refusal names a file.

use lethe::data::{ByteSource, LoadOptions};
use lethe::lira::{LiraParams, Variant, lira};
use lethe::tools::lira::{Array, ScoreSource, assemble, plan};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&head, mut rest)) = data.split_first() else {
        return;
    };
    let k = usize::from(head & 3) + 1;
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    for m in 0..k {
        for (what, present) in [
            ("keep.npy", head & (4 << m) == 0 || m > 0),
            ("scores/0000000100.npy", true),
        ] {
            if rest.len() < 2 {
                break;
            }
            let n = usize::from(u16::from_le_bytes([rest[0], rest[1]])).min(rest.len() - 2);
            let bytes = rest[2..2 + n].to_vec();
            rest = &rest[2 + n..];
            if present {
                files.push((format!("d/experiment-{m}_{k}/{what}"), bytes));
            }
        }
    }
    let paths: Vec<String> = files.iter().map(|(p, _)| p.clone()).collect();
    let srcs: Vec<(&str, &dyn ByteSource)> = files.iter().map(|(p, b)| (p.as_str(), b as &dyn ByteSource)).collect();
    if let Some(Err(e)) = lethe::tools::detect_set(&srcs) {
        // It names a file or folder of the set (every path here starts with `d`).
        assert!(e.message.contains("`d"), "{e}");
    }
    let Ok(layout) = plan(&paths, ScoreSource::Auto) else {
        return;
    };
    let mut load = |p: &str| -> Result<Array, String> {
        let bytes = &files.iter().find(|(q, _)| q == p).ok_or("missing")?.1;
        let l = lethe::data::load_bytes::<f64>(p, bytes, &LoadOptions::default()).map_err(|e| e.to_string())?;
        Ok(Array {
            values: l.matrix.into_vec(),
            shape: l.info.shape.clone(),
            dtype: l.info.dtype.clone(),
        })
    };
    let Ok((sh, _)) = assemble(&layout, &mut load) else {
        return;
    };
    assert_eq!(sh.scores.len(), sh.models * sh.examples * sh.augmentations);
    assert_eq!(sh.keep.len(), sh.models * sh.examples);
    for v in Variant::ALL {
        let p = LiraParams::new(v, sh.models);
        if let Ok(r) = lira(&sh, &p, &mut |_, _| true) {
            assert_eq!(r.prediction.len(), sh.examples);
            assert_eq!(r.answers.len(), sh.examples);
        }
    }
});
