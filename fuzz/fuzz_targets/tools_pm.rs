#![no_main]
//! The privacy-meter, LeakPro and competition readers (`lethe::tools::{privacy_meter, leakpro, competition}`
//! through `lethe::tools::detect`, `detect_set`, `load_key`, `accuracies`) over arbitrary bytes. The first byte
//! picks the mode: even — one file (an .npz, .npy or JSON object as the bytes start); odd — two files, split where
//! the next two bytes say (a privacy-meter log folder's memberships + signals, or the competition's two files).
//! Checks: no panic or hang; every key a summary lists (and every key an offer reads) loads as a matrix whose rows
//! are the listed shape's first dimension, or fails with a message naming the file; an attack result's members and
//! non-members add up to its samples.

use lethe::data::{ByteSource, LoadOptions};
use lethe::tools::{self, Summary};
use libfuzzer_sys::fuzz_target;

fn rows_of(name: &str, src: &[u8], key: &str) -> Option<usize> {
    let opts = LoadOptions {
        name: Some(key.to_string()),
        ..LoadOptions::default()
    };
    let got = tools::load_key::<f64>(name, &src, &opts)
        .unwrap_or_else(|| lethe::data::load::<f64>(name, &src, &opts));
    match got {
        Ok(l) => {
            assert_eq!(l.matrix.as_slice().len(), l.matrix.rows() * l.matrix.cols());
            Some(l.matrix.rows())
        }
        Err(e) => {
            assert!(e.to_string().contains(name), "{e}");
            None
        }
    }
}

fn check(s: &Summary, files: &[(&str, &[u8])]) {
    assert!(!s.description.is_empty() && !s.follows.is_empty());
    let file = |n: &str| files.iter().find(|(f, _)| *f == n).map(|(_, b)| *b);
    let mut counts = (None, None, None);
    for e in &s.entries {
        let Some(src) = (if e.key.contains('#') { None } else { file(files[0].0) }) else { continue };
        if e.shape.is_empty() {
            continue; // a scalar the ordinary loader refuses
        }
        if let Some(rows) = rows_of(files[0].0, src, &e.key) {
            assert_eq!(rows as u64, e.shape[0], "key {}", e.key);
            match e.key.as_str() {
                "members" => counts.0 = Some(rows),
                "non_members" => counts.1 = Some(rows),
                "scores" | "signal_values" => counts.2 = Some(rows),
                _ => {}
            }
        }
    }
    if let (Some(m), Some(n), Some(all)) = counts {
        assert_eq!(m + n, all);
    }
    for o in &s.offers {
        assert!(o.cli.starts_with("lethe "));
        for i in &o.inputs {
            if let (Some(src), Some(k)) = (file(&i.file), &i.key) {
                let _ = rows_of(&i.file, src, k);
            }
        }
    }
}

fuzz_target!(|bytes: &[u8]| {
    if bytes.len() > 1 << 20 || bytes.is_empty() {
        return;
    }
    let (mode, rest) = (bytes[0], &bytes[1..]);
    if mode % 2 == 0 {
        let name = "fuzz.bin";
        match tools::detect(name, &rest) {
            Some(Ok(s)) => check(&s, &[(name, rest)]),
            Some(Err(e)) => assert!(e.to_string().contains(name)),
            None => {}
        }
        for key in ["members", "non_members", "model=0", "model=3", "signal_values", "true_labels"] {
            let _ = rows_of(name, rest, key);
        }
    } else if rest.len() >= 2 {
        let at = usize::from(u16::from_le_bytes([rest[0], rest[1]])).min(rest.len() - 2);
        let (a, b) = rest[2..].split_at(at);
        let files: [(&str, &dyn ByteSource); 2] = [("memberships.npy", &a), ("signals/rmia_signals.npy", &b)];
        if let Some(Ok(s)) = tools::detect_set(&files) {
            for o in &s.offers {
                for i in &o.inputs {
                    let src = if i.file == "memberships.npy" { a } else { b };
                    if let Some(k) = &i.key {
                        let _ = rows_of(&i.file, src, k);
                    }
                }
            }
        }
        if let Some(acc) = tools::accuracies(("r.npz", &a), ("u.npz", &b)) {
            assert!(acc.iter().all(|v| (0.0..=1.0).contains(v)), "{acc:?}");
        }
    }
});
