//! What every fuzz target checks: a reader given arbitrary bytes returns (never panics, never hangs, never
//! allocates beyond the limit), and what it returns is self-consistent.

use lethe::data::{self, ByteSource, DataError, FileInfo, LoadOptions, Loaded};

/// Small enough that a fuzzed header cannot make a target allocate much; large enough for every fixture.
pub const MAX_BYTES: u64 = 16 << 20;

pub type LoadFn<T> = fn(&str, &dyn ByteSource, &LoadOptions) -> Result<Loaded<T>, DataError>;
pub type InspectFn = fn(&str, &dyn ByteSource) -> Result<FileInfo, DataError>;

fn check<T: data::Scalar>(r: Result<Loaded<T>, DataError>, rows: Option<&[usize]>) {
    match r {
        Ok(l) => {
            let m = &l.matrix;
            assert_eq!(m.as_slice().len(), m.rows() * m.cols());
            assert!(m.rows() > 0 && m.cols() > 0, "an empty matrix was returned");
            match rows {
                Some(sel) => assert_eq!(m.rows(), sel.len()),
                None => assert_eq!(m.rows() as u64, l.info.rows),
            }
            if let Some(labels) = &l.labels {
                assert_eq!(labels.len(), m.rows());
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

/// Runs `inspect` and several loads (f64, f32, a row subset, a name) of one format's reader over `bytes`.
pub fn exercise(input: &str, bytes: &[u8], load64: LoadFn<f64>, load32: LoadFn<f32>, inspect: InspectFn) {
    let src: &dyn ByteSource = &bytes;
    let base = LoadOptions {
        max_bytes: MAX_BYTES,
        ..LoadOptions::default()
    };
    let _ = inspect(input, src);
    check(load64(input, src, &base), None);
    check(load32(input, src, &base), None);
    let rows = [1usize, 0, 1];
    let sub = LoadOptions {
        rows: Some(rows.to_vec()),
        ..base.clone()
    };
    check(load64(input, src, &sub), Some(&rows));
    let named = LoadOptions {
        name: Some("a".into()),
        label_column: data::LabelColumn::Last,
        has_header: Some(true),
        ..base
    };
    check(load64(input, src, &named), None);
}
