#![no_main]
//! The text reader with a column choice: the first line of the input is the array name (`columns=…`, `drop=…`,
//! or anything else, which the reader ignores with a warning), the rest the table. Checks: no panic, shapes that
//! agree (values, labels, text columns and names per row and column), and `inspect`, which keeps no values, says
//! the shape a default load gives.

use lethe::data::{ByteSource, ColumnChoice, LoadOptions, text};
use libfuzzer_sys::fuzz_target;

const MAX_BYTES: u64 = 16 << 20;

fn check(name: &str, table: &[u8], opts: &LoadOptions) -> Option<(usize, usize)> {
    let src: &dyn ByteSource = &table;
    match text::load::<f64>(name, src, opts) {
        Ok(l) => {
            let (rows, cols) = (l.matrix.rows(), l.matrix.cols());
            assert!(rows > 0 && cols > 0, "an empty matrix was returned");
            assert_eq!(l.matrix.as_slice().len(), rows * cols);
            if let Some(sel) = &opts.rows {
                assert_eq!(rows, sel.len());
            }
            if let Some(labels) = &l.labels {
                assert_eq!(labels.len(), rows);
            }
            for c in &l.text_columns {
                assert_eq!(c.values.len(), rows, "text column {}", c.name);
            }
            if let Some(names) = &l.column_names {
                assert_eq!(names.len(), cols);
            }
            assert_eq!((l.info.rows, l.info.cols), (rows as u64, cols as u64));
            Some((rows, cols))
        }
        Err(e) => {
            assert!(!e.to_string().is_empty());
            None
        }
    }
}

fuzz_target!(|bytes: &[u8]| {
    let (name, table) = match bytes.iter().position(|&b| b == b'\n') {
        Some(i) => (String::from_utf8_lossy(&bytes[..i]).into_owned(), &bytes[i + 1..]),
        None => (String::new(), bytes),
    };
    let base = LoadOptions {
        max_bytes: MAX_BYTES,
        ..LoadOptions::default()
    };
    // The default reading, and what inspect says about it.
    let shape = check("fuzz.csv", table, &base);
    let src: &dyn ByteSource = &table;
    match (text::inspect("fuzz.csv", src), shape) {
        (Ok(info), Some((r, c))) => assert_eq!(info.arrays[0].shape, [r as u64, c as u64]),
        (Ok(info), None) => panic!("inspect read {:?} where a load fails", info.arrays[0].shape),
        (Err(_), Some(s)) => panic!("inspect fails where a load reads {s:?}"),
        (Err(_), None) => {}
    }
    // The named choice, as the command line's FILE#NAME gives it, with and without a row subset.
    let named = LoadOptions {
        name: Some(name.clone()),
        ..base.clone()
    };
    check("fuzz.csv", table, &named);
    if let Some(choice) = ColumnChoice::from_name(&name) {
        let explicit = LoadOptions {
            columns: choice,
            rows: Some(vec![1, 0, 1]),
            ..base
        };
        check("fuzz.csv", table, &explicit);
    }
});
