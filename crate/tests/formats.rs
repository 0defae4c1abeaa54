//! Data readers (`lethe::data`) against files written by the reference libraries, bad inputs, and real data.
//!
//! Where the numbers come from:
//! - `tests/fixtures/formats/**` and `expected.json`, written by `tests/fixtures/formats/make_fixtures.py` with
//!   numpy 2.4.6 (`np.save`, `np.lib.format.write_array` for versions 1.0/2.0/3.0, `np.savez`,
//!   `np.savez_compressed`, `np.savetxt`), safetensors 0.8.0 (`safetensors.numpy.save_file`; BF16 written from
//!   the format spec, its values defined by the bf16→f32 bit widening) and pandas 3.1.1 (`DataFrame.to_csv`).
//!   Expected values are the IEEE bit patterns of numpy's `arr.reshape(n, -1).astype(float64)` and
//!   `.astype(float32)` (text: Python's `float()` of each cell), so every value is compared bit for bit —
//!   NaN, -0.0, subnormals, int64 extremes and the int64→float32 single rounding included.
//! - Real data: `examples/data/digits/act_original.npy` and the test and forget indices of its `manifest.json`
//!   (a subset of the shared demo's MLP activations on scikit-learn digits, copied into the repository by
//!   `examples/data/make_demo_subset.py`): always present, so that test never skips.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic is how a test reports failure

mod common;

use std::cell::Cell;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use common::MaxDev;
use lethe::data::{self, ByteSource, DataError, FileInfo, Format, LabelColumn, LoadOptions, Loaded, Matrix};
use serde_json::Value;

fn fixture(rel: &str) -> PathBuf {
    common::fixture_path("formats").join(rel)
}

fn bytes(rel: &str) -> Vec<u8> {
    std::fs::read(fixture(rel)).unwrap_or_else(|e| panic!("reading fixture {rel}: {e}"))
}

fn expected() -> Value {
    let text = std::fs::read_to_string(fixture("expected.json")).expect("expected.json");
    serde_json::from_str(&text).expect("expected.json parses")
}

fn opts() -> LoadOptions {
    LoadOptions::default()
}

fn named(name: &str) -> LoadOptions {
    LoadOptions {
        name: Some(name.to_string()),
        ..LoadOptions::default()
    }
}

fn load64(rel: &str, o: &LoadOptions) -> Loaded<f64> {
    data::load_bytes::<f64>(rel, &bytes(rel), o).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn load32(rel: &str, o: &LoadOptions) -> Loaded<f32> {
    data::load_bytes::<f32>(rel, &bytes(rel), o).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn inspect(rel: &str) -> FileInfo {
    let b = bytes(rel);
    data::inspect(rel, &b).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn hex_bits(v: &Value) -> Vec<u64> {
    v.as_array()
        .expect("bits array")
        .iter()
        .map(|h| u64::from_str_radix(h.as_str().expect("hex"), 16).expect("hex digits"))
        .collect()
}

/// Tallies bit-exact comparisons for the report.
#[derive(Default)]
struct Exact {
    values: usize,
    dev: MaxDev,
}

impl Exact {
    fn check(&mut self, key: &str, exp: &Value, m64: &Matrix<f64>, m32: &Matrix<f32>) {
        let want64 = hex_bits(&exp["f64_bits"]);
        let want32 = hex_bits(&exp["f32_bits"]);
        let (rows, cols) = (
            exp["rows"].as_u64().unwrap() as usize,
            exp["cols"].as_u64().unwrap() as usize,
        );
        assert_eq!((m64.rows(), m64.cols()), (rows, cols), "{key}: f64 shape");
        assert_eq!((m32.rows(), m32.cols()), (rows, cols), "{key}: f32 shape");
        for (i, (&g, &w)) in m64.as_slice().iter().zip(&want64).enumerate() {
            assert_eq!(
                g.to_bits(),
                w,
                "{key}: f64 value {i}: got {g:e}, want {:e}",
                f64::from_bits(w)
            );
            self.dev.add(g, f64::from_bits(w));
        }
        for (i, (&g, &w)) in m32.as_slice().iter().zip(&want32).enumerate() {
            let w = w as u32;
            assert_eq!(
                g.to_bits(),
                w,
                "{key}: f32 value {i}: got {g:e}, want {:e}",
                f32::from_bits(w)
            );
            self.dev.add(f64::from(g), f64::from(f32::from_bits(w)));
        }
        assert_eq!(want64.len(), rows * cols, "{key}: fixture size");
        self.values += want64.len() + want32.len();
    }

    fn report(&self, what: &str) {
        println!("{what}: {} values compared bit for bit", self.values);
        self.dev.report(what);
    }
}

fn expect_matrix_rows<T: lethe::data::Scalar>(full: &Matrix<T>, sel: &[usize], got: &Matrix<T>, ctx: &str) {
    let want = full.select_rows(sel, ctx).unwrap();
    let same = want
        .as_slice()
        .iter()
        .zip(got.as_slice())
        .all(|(a, b)| a.to_f64().to_bits() == b.to_f64().to_bits());
    assert!(
        same && want.rows() == got.rows() && want.cols() == got.cols(),
        "{ctx}: row subset differs"
    );
}

// ---------------------------------------------------------------------------------------------------------------
// Round trips against numpy / safetensors / pandas

#[test]
fn npy_every_dtype_order_and_version_matches_numpy() {
    let exp = expected();
    let mut exact = Exact::default();
    let mut files = 0;
    for (key, e) in exp["files"].as_object().unwrap() {
        if !key.starts_with("npy/") {
            continue;
        }
        let a = load64(key, &opts());
        let b = load32(key, &opts());
        exact.check(key, e, &a.matrix, &b.matrix);
        let shape: Vec<u64> = e["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .collect();
        assert_eq!(a.info.shape, shape, "{key}");
        assert_eq!(a.info.dtype, e["dtype"].as_str().unwrap(), "{key}");
        assert_eq!(a.info.fortran_order, e["fortran_order"].as_bool().unwrap(), "{key}");
        assert_eq!(a.info.note.is_some(), shape.len() >= 3, "{key}: reshape note");
        assert_eq!(
            inspect(key).arrays[0],
            a.info,
            "{key}: inspect and load describe it alike"
        );
        files += 1;
    }
    assert!(files >= 50, "only {files} .npy fixtures found");
    exact.report(&format!("npy ({files} files, f64 and f32)"));
}

#[test]
fn npz_stored_and_deflated_members_match_numpy() {
    let exp = expected();
    let mut exact = Exact::default();
    for (key, e) in exp["files"].as_object().unwrap() {
        let Some(rest) = key.strip_prefix("npz/") else { continue };
        let (file, member) = rest.split_once(':').unwrap();
        let rel = format!("npz/{file}");
        let a = load64(&rel, &named(member));
        let b = load32(&rel, &named(&format!("{member}.npy")));
        exact.check(key, e, &a.matrix, &b.matrix);
        assert_eq!(a.info.name.as_deref(), Some(member));
        let deflated = file.contains("compressed");
        assert_eq!(a.info.compressed_size.is_some(), deflated, "{key}");
        assert_eq!(a.info.data_offset.is_some(), !deflated, "{key}");
    }
    exact.report("npz members (stored and deflated)");
    // A single member is implied; several must be named.
    assert_eq!(load64("npz/single.npz", &opts()).info.name.as_deref(), Some("arr_0"));
    assert_eq!(load64("npz/single_compressed.npz", &opts()).matrix.rows(), 15);
    let err = data::load_bytes::<f64>("stored.npz", &bytes("npz/stored.npz"), &opts()).unwrap_err();
    assert!(matches!(err, DataError::Ambiguous { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        ["`a`", "`b`", "`c`", "`nested/d`"].iter().all(|n| msg.contains(n)),
        "{msg}"
    );
    let err = data::load_bytes::<f64>("stored.npz", &bytes("npz/stored.npz"), &named("zz")).unwrap_err();
    assert!(
        matches!(err, DataError::NotFound { .. }) && err.to_string().contains("`nested/d`"),
        "{err}"
    );
}

#[test]
fn npz_inspect_lists_members_and_stored_offsets_point_at_the_data() {
    let raw = bytes("npz/stored.npz");
    let info = inspect("npz/stored.npz");
    assert_eq!(info.format, Format::Npz);
    let names: Vec<_> = info.arrays.iter().map(|a| a.name.clone().unwrap()).collect();
    assert_eq!(names, ["a", "b", "c", "nested/d"]);
    // Member `a` is float32 (5, 4): its raw little-endian bytes sit at data_offset.
    let a = &info.arrays[0];
    let off = a.data_offset.unwrap() as usize;
    let first = f32::from_le_bytes(raw[off..off + 4].try_into().unwrap());
    assert_eq!(first, -7.0 / 4.0);
    assert_eq!(a.byte_size, 80);
    let b = &info.arrays[1];
    assert_eq!(
        (b.dtype.as_str(), b.stored_dtype.as_str(), b.fortran_order),
        ("int32", ">i4", true)
    );
    let d = &info.arrays[3];
    assert_eq!((d.rows, d.cols, d.shape.clone()), (2, 12, vec![2, 3, 4]));
    assert!(d.note.as_deref().unwrap().contains("flattened"));
    let c = inspect("npz/compressed.npz");
    assert!(
        c.arrays
            .iter()
            .all(|a| a.data_offset.is_none() && a.compressed_size.is_some())
    );
    assert_eq!(
        c.arrays.iter().map(|a| a.shape.clone()).collect::<Vec<_>>(),
        info.arrays.iter().map(|a| a.shape.clone()).collect::<Vec<_>>()
    );
}

#[test]
fn safetensors_every_dtype_matches_the_safetensors_library() {
    let exp = expected();
    let mut exact = Exact::default();
    for (key, e) in exp["files"].as_object().unwrap() {
        let Some(rest) = key.strip_prefix("safetensors/") else {
            continue;
        };
        let (file, tensor) = rest.split_once(':').unwrap();
        let rel = format!("safetensors/{file}");
        let a = load64(&rel, &named(tensor));
        let b = load32(&rel, &named(tensor));
        exact.check(key, e, &a.matrix, &b.matrix);
        assert_eq!(a.info.dtype, e["dtype"].as_str().unwrap(), "{key}");
    }
    exact.report("safetensors tensors (F16 BF16 F32 F64 I8-64 U8-64 BOOL)");
    let info = inspect("safetensors/mixed.safetensors");
    assert_eq!(info.arrays.len(), 14);
    let raw = bytes("safetensors/mixed.safetensors");
    let f64t = info.arrays.iter().find(|a| a.name.as_deref() == Some("f64")).unwrap();
    let off = f64t.data_offset.unwrap() as usize;
    assert_eq!(f64::from_le_bytes(raw[off + 16..off + 24].try_into().unwrap()), 1.5);
    assert_eq!(
        load64("safetensors/single.safetensors", &opts()).info.name.as_deref(),
        Some("emb")
    );
    let err = data::load_bytes::<f64>("m.safetensors", &raw, &opts()).unwrap_err();
    assert!(matches!(err, DataError::Ambiguous { .. }), "{err}");
}

#[test]
fn text_and_json_match_python_float_parsing() {
    let exp = expected();
    let mut exact = Exact::default();
    for (key, e) in exp["files"].as_object().unwrap() {
        if !(key.starts_with("text/") || key.starts_with("json/")) {
            continue;
        }
        let (rel, name) = key.split_once(':').map_or((key.as_str(), None), |(f, n)| (f, Some(n)));
        let o = name.map_or_else(opts, named);
        let a = load64(rel, &o);
        let b = load32(rel, &o);
        exact.check(key, e, &a.matrix, &b.matrix);
        let strings = |v: &Value| -> Option<Vec<String>> {
            v.as_array()
                .map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect())
        };
        if key.starts_with("text/") {
            assert_eq!(a.labels, strings(&e["labels"]), "{key}: labels");
            assert_eq!(a.column_names, strings(&e["column_names"]), "{key}: column names");
        }
    }
    exact.report("CSV/TSV/JSON cells");
}

#[test]
fn text_detection_reports_what_it_decided() {
    let t = load64("text/projector.tsv", &opts());
    assert!(t.info.note.as_deref().unwrap().starts_with("tab-separated"));
    assert!(t.warnings.iter().any(|w| w.contains("labels")), "{:?}", t.warnings);
    let t = load64("text/spellings.csv", &opts());
    assert!(
        t.warnings.iter().any(|w| w.contains("2 NaN, 3 +inf, 2 -inf")),
        "{:?}",
        t.warnings
    );
    // Forcing the reading: no header, every column data.
    let forced = LoadOptions {
        has_header: Some(false),
        label_column: LabelColumn::None,
        ..opts()
    };
    let err = data::load_bytes::<f64>("h.csv", &bytes("text/header.csv"), &forced).unwrap_err();
    assert!(matches!(err, DataError::Parse { line: 1, column: 1, .. }), "{err}");
    let first = LoadOptions {
        label_column: LabelColumn::First,
        ..opts()
    };
    let t = data::load_bytes::<f64>("p.csv", &bytes("text/plain.csv"), &first).unwrap();
    assert_eq!(t.labels.unwrap(), ["1", "4.5"]);
    assert_eq!(t.matrix.cols(), 2);
    let t = load64("json/python_nan.json", &opts());
    assert!(t.warnings.iter().any(|w| w.contains("bare NaN")), "{:?}", t.warnings);
    let info = inspect("json/object.json");
    assert_eq!(
        info.arrays.iter().map(|a| a.shape.clone()).collect::<Vec<_>>(),
        [vec![2, 2], vec![3, 2]]
    );
    assert!(info.warnings.iter().any(|w| w.contains("`note`")));
    let err = data::load_bytes::<f64>("o.json", &bytes("json/object.json"), &opts()).unwrap_err();
    assert!(matches!(err, DataError::Ambiguous { .. }), "{err}");
    // The name only hints: a .npy-named CSV is read as CSV, and said so.
    let t = data::load_bytes::<f64>("really.npy", b"1,2\n3,4\n", &opts()).unwrap();
    assert!(
        t.warnings.iter().any(|w| w.contains("named like .npy")),
        "{:?}",
        t.warnings
    );
}

// ---------------------------------------------------------------------------------------------------------------
// Row subsets

/// Counts the bytes a reader asks for.
struct Counting<'a> {
    inner: &'a dyn ByteSource,
    read: Cell<u64>,
}

impl ByteSource for Counting<'_> {
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        self.read.set(self.read.get() + buf.len() as u64);
        self.inner.read_at(offset, buf)
    }
}

#[test]
fn row_subsets_equal_the_same_rows_of_the_full_load_in_every_format() {
    let sel = [2, 0, 2, 1];
    for (rel, name) in [
        ("npy/f8_le_C.npy", None),
        ("npy/f4_be_F.npy", None),
        ("npy/i8_be_F.npy", None),
        ("npy/rank3_F.npy", None),
        ("npy/rank4_F.npy", None),
        ("npy/rank4_C.npy", None),
        ("npz/stored.npz", Some("b")),
        ("npz/stored.npz", Some("a")),
        ("npz/compressed.npz", Some("a")),
        ("npz/compressed.npz", Some("b")),
        ("npz/compressed.npz", Some("nested/d")),
        ("safetensors/mixed.safetensors", Some("conv")),
        ("safetensors/bf16.safetensors", None),
        ("text/projector.tsv", None),
        ("json/rows.json", None),
    ] {
        let base = name.map_or_else(opts, named);
        let full = load64(rel, &base);
        let rows: Vec<usize> = sel.iter().copied().filter(|&r| r < full.matrix.rows()).collect();
        let sub = load64(
            rel,
            &LoadOptions {
                rows: Some(rows.clone()),
                ..base.clone()
            },
        );
        expect_matrix_rows(&full.matrix, &rows, &sub.matrix, &format!("{rel} {name:?}"));
        if let Some(l) = &full.labels {
            let want: Vec<_> = rows.iter().map(|&r| l[r].clone()).collect();
            assert_eq!(sub.labels.as_ref().unwrap(), &want);
        }
        let n = full.matrix.rows();
        let err = data::load_bytes::<f64>(
            rel,
            &bytes(rel),
            &LoadOptions {
                rows: Some(vec![0, n + 5]),
                ..base
            },
        )
        .unwrap_err();
        assert!(matches!(err, DataError::RowOutOfRange { .. }), "{rel}: {err}");
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("{}", n + 5)) && msg.contains(&format!("{n} rows")),
            "{msg}"
        );
    }
}

#[test]
fn c_order_row_subset_reads_only_the_selected_rows() {
    // A 3 × 4 float64 file with a 128-byte header; rows 1 and 0 of it.
    let raw = bytes("npy/f8_le_C.npy");
    let src = Counting {
        inner: &raw,
        read: Cell::new(0),
    };
    let o = LoadOptions {
        rows: Some(vec![1, 0]),
        ..opts()
    };
    data::load::<f64>("x.npy", &src, &o).unwrap();
    // Detection (64 bytes), the 12-byte preamble, the rest of the header, two rows of 4 × 8 bytes.
    assert_eq!(src.read.get(), 64 + 12 + (128 - 10) + 2 * 32);
}

#[test]
fn rows_wider_than_a_read_chunk_load_exactly() {
    // 3 × 200 000 float64: each row is 1.6 MB, more than the 1 MiB the readers decode per step.
    let (n, d) = (3usize, 200_000usize);
    let value = |i: usize, j: usize| (i * d + j) as f64 * 0.5 - 7.0;
    for fortran in [false, true] {
        let mut b = npy_header_order("<f8", &format!("({n}, {d})"), fortran);
        for k in 0..n * d {
            let (i, j) = if fortran { (k % n, k / n) } else { (k / d, k % d) };
            b.extend_from_slice(&value(i, j).to_le_bytes());
        }
        for rows in [None, Some(vec![2, 0])] {
            let o = LoadOptions {
                rows: rows.clone(),
                ..opts()
            };
            let m = data::load_bytes::<f64>("wide.npy", &b, &o).unwrap().matrix;
            let want: Vec<usize> = rows.unwrap_or_else(|| (0..n).collect());
            assert_eq!((m.rows(), m.cols()), (want.len(), d));
            for (r, &i) in want.iter().enumerate() {
                assert!(
                    m.row(r).iter().enumerate().all(|(j, &v)| v == value(i, j)),
                    "fortran {fortran} row {i}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------------------
// Bad inputs: every one an error, never a panic

fn must_fail(input: &str, b: &[u8]) -> DataError {
    let r = std::panic::catch_unwind(|| data::load_bytes::<f64>(input, b, &opts()));
    match r {
        Err(_) => panic!("{input}: load panicked on {} bytes", b.len()),
        Ok(Ok(_)) => panic!("{input}: {} bytes loaded without error", b.len()),
        Ok(Err(e)) => e,
    }
}

#[test]
fn every_truncated_prefix_of_binary_files_is_an_error() {
    let mut truncated = 0;
    for rel in [
        "npy/f8_le_C.npy",
        "npy/f2_be_F.npy",
        "npy/version_2_0.npy",
        "npy/version_3_0.npy",
        "npz/stored.npz",
        "npz/compressed.npz",
        "npz/single_compressed.npz",
        "safetensors/mixed.safetensors",
        "safetensors/bf16.safetensors",
    ] {
        let full = bytes(rel);
        for cut in 0..full.len() {
            let prefix = &full[..cut];
            let e = must_fail(rel, prefix);
            assert!(!e.to_string().is_empty());
            let b = prefix.to_vec();
            let inspected = std::panic::catch_unwind(|| data::inspect(rel, &b));
            assert!(inspected.is_ok(), "{rel}: inspect panicked on {cut} bytes");
            truncated += usize::from(matches!(e, DataError::Truncated { .. }));
        }
    }
    println!("truncated prefixes reported as Truncated: {truncated}");
    // Cutting the data of a .npy says how much was expected.
    let full = bytes("npy/f8_le_C.npy");
    let e = must_fail("x.npy", &full[..full.len() - 5]);
    let msg = e.to_string();
    assert!(
        matches!(e, DataError::Truncated { .. }) && msg.contains("224 bytes") && msg.contains("219"),
        "{msg}"
    );
}

#[test]
fn corrupted_header_bytes_never_panic() {
    for rel in [
        "npy/f4_le_C.npy",
        "safetensors/bf16.safetensors",
        "npz/stored.npz",
        "npz/compressed.npz",
    ] {
        let full = bytes(rel);
        let limit = full.len().min(200);
        for pos in 0..limit {
            for v in [0u8, 0xff, b'(', b'9', b'{', b' ', b'\'', full[pos] ^ 0x20] {
                let mut b = full.clone();
                b[pos] = v;
                let r = std::panic::catch_unwind(|| {
                    let _ = data::load_bytes::<f64>(rel, &b, &opts());
                    let _ = data::inspect(rel, &b);
                });
                assert!(r.is_ok(), "{rel}: panicked with byte {pos} set to {v:#x}");
            }
        }
    }
    // The central directory and local headers of the zip archives too.
    let full = bytes("npz/compressed.npz");
    for pos in full.len().saturating_sub(400)..full.len() {
        let mut b = full.clone();
        b[pos] ^= 0xff;
        let r = std::panic::catch_unwind(|| data::load_bytes::<f64>("c.npz", &b, &named("a")).map(|_| ()));
        assert!(r.is_ok(), "panicked with byte {pos} flipped");
    }
}

#[test]
fn unusable_arrays_are_refused_with_the_reason() {
    for (rel, want) in [
        ("bad/rank0.npy", "0-d"),
        ("bad/zero_rows.npy", "zero-size"),
        ("bad/zero_cols.npy", "zero-size"),
    ] {
        let e = must_fail(rel, &bytes(rel));
        assert!(
            matches!(e, DataError::BadShape { .. }) && e.to_string().contains(want),
            "{rel}: {e}"
        );
        assert!(inspect(rel).arrays[0].problem.as_deref().unwrap().contains(want));
    }
    for (rel, dtype) in [
        ("bad/object.npy", "object"),
        ("bad/unicode.npy", "str"),
        ("bad/complex.npy", "complex128"),
        ("bad/structured.npy", "structured"),
        ("bad/longdouble.npy", "float128"),
    ] {
        let e = must_fail(rel, &bytes(rel));
        assert!(matches!(e, DataError::UnsupportedDtype { .. }), "{rel}: {e}");
        let msg = e.to_string();
        assert!(msg.contains(dtype) && msg.contains("float32"), "{rel}: {msg}");
        assert!(inspect(rel).arrays[0].problem.is_some(), "{rel}");
    }
    let e = must_fail("empty.npz", &bytes("bad/empty.npz"));
    assert!(matches!(e, DataError::Empty { .. }), "{e}");
    let e = must_fail("r.csv", &bytes("bad/ragged.csv"));
    assert!(
        matches!(
            e,
            DataError::Ragged {
                got: 2,
                expected: 3,
                ..
            }
        ) && e.to_string().contains("line 3"),
        "{e}"
    );
    let e = must_fail("r.json", &bytes("bad/ragged.json"));
    assert!(
        matches!(
            e,
            DataError::Ragged {
                got: 1,
                expected: 2,
                ..
            }
        ) && e.to_string().contains("row 1"),
        "{e}"
    );
    let e = must_fail("t.csv", &bytes("bad/text_in_data.csv"));
    assert!(
        matches!(e, DataError::Parse { line: 2, column: 2, .. }) && e.to_string().contains("oops"),
        "{e}"
    );
    let e = must_fail("d.json", &bytes("bad/deep.json"));
    assert!(matches!(e, DataError::BadShape { .. }), "{e}");
    let e = must_fail("e.csv", &bytes("bad/empty.csv"));
    assert!(matches!(e, DataError::Empty { .. }), "{e}");
    let e = must_fail("b.csv", b"1,2\n\x00\x01\x02\x03\x04\x05\x06\x07\x08");
    assert!(matches!(e, DataError::UnknownFormat { .. }), "{e}");
    let e = must_fail("l.csv", b"1,2\n3,\xff\n");
    assert!(
        matches!(e, DataError::Corrupt { .. }) && e.to_string().contains("line 2"),
        "{e}"
    );
    let e = must_fail("z.npy", b"");
    assert!(matches!(e, DataError::Empty { .. }), "{e}");
}

/// Corrupt files and failed reads say what would fix them (every message names the input, the problem and the
/// fix); the message for several arrays names the choices without naming one caller's way to choose.
#[test]
fn corrupt_io_and_ambiguous_messages_say_what_would_fix_them() {
    let fix = |e: &DataError| match e {
        DataError::Corrupt { fix, .. } | DataError::Io { fix, .. } => fix.clone(),
        other => panic!("expected Corrupt or Io, got {other:?}"),
    };
    // A .npy header numpy would never write.
    let mut b = npy_header("<f8", "(2,)");
    b[10] = b'x';
    b.extend_from_slice(&[0; 16]);
    let e = must_fail("bad.npy", &b);
    assert!(fix(&e).contains("numpy.save"), "{e}");
    assert!(
        e.to_string().starts_with("`bad.npy` is corrupt: bad .npy header"),
        "{e}"
    );
    assert!(e.to_string().ends_with(&fix(&e)), "the fix is part of the message: {e}");
    // Invalid JSON: where, and how to get past it.
    let e = must_fail("j.json", b"[[1, 2], [3, }");
    assert!(fix(&e).contains("correct the JSON"), "{e}");
    assert!(e.to_string().contains("line 1"), "{e}");
    // A safetensors header that is not JSON.
    let h = b"{not json";
    let mut s = (h.len() as u64).to_le_bytes().to_vec();
    s.extend_from_slice(h);
    let e = data::safetensors::load::<f64>("s.safetensors", &s, &opts()).unwrap_err();
    assert!(fix(&e).contains("save_file"), "{e}");
    // Text that is not UTF-8.
    let e = must_fail("l.csv", b"1,2\n3,\xff\n");
    assert_eq!(fix(&e), "save it as UTF-8 text, or as .npy");
    // A missing file, a directory.
    let dir = scratch_dir("io");
    let e = data::load_path::<f64>(dir.join("absent.npy"), &opts()).unwrap_err();
    assert!(fix(&e).contains("check the path"), "{e}");
    assert!(e.to_string().contains("absent.npy"), "{e}");
    let e = data::load_path::<f64>(&dir, &opts()).unwrap_err();
    assert!(fix(&e).contains("not of a directory"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
    // Several arrays and none named: the choices, and no option of one particular caller.
    let e = data::load_path::<f64>(fixture("npz/stored.npz"), &opts()).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, DataError::Ambiguous { .. }), "{msg}");
    assert!(msg.contains("choose which one to load") && !msg.contains("--"), "{msg}");
}

/// A fresh scratch directory under the system's temporary directory.
fn scratch_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lethe_formats_{tag}_{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A .npy header, padded as numpy pads it.
fn npy_header(descr: &str, shape: &str) -> Vec<u8> {
    npy_header_order(descr, shape, false)
}

fn npy_header_order(descr: &str, shape: &str, fortran: bool) -> Vec<u8> {
    let order = if fortran { "True" } else { "False" };
    let mut h = format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': {shape}, }}");
    while (10 + h.len() + 1) % 64 != 0 {
        h.push(' ');
    }
    h.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    out.extend_from_slice(h.as_bytes());
    out
}

#[test]
fn a_3_gb_array_is_refused_from_its_header_without_reading_the_data() {
    // 375 000 000 × 1 float64 = 3 GB: a sparse file, so the test costs no disk.
    let header = npy_header("<f8", "(375000000, 1)");
    let path = std::env::temp_dir().join(format!("lethe_3gb_{}.npy", std::process::id()));
    {
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(&header).unwrap();
        f.set_len(header.len() as u64 + 3_000_000_000).unwrap();
    }
    let file = std::fs::File::open(&path).unwrap();
    let src = Counting {
        inner: &file,
        read: Cell::new(0),
    };
    let t = Instant::now();
    let err = data::load::<f64>("big.npy", &src, &opts()).unwrap_err();
    let elapsed = t.elapsed();
    let info = data::inspect("big.npy", &src).unwrap();
    std::fs::remove_file(&path).ok();
    let msg = err.to_string();
    assert!(
        matches!(
            err,
            DataError::TooLarge {
                needed: 3_000_000_000,
                ..
            }
        ),
        "{msg}"
    );
    assert!(msg.contains("subset of rows") && msg.contains("big.npy"), "{msg}");
    assert!(src.read.get() < 4096, "read {} bytes", src.read.get());
    assert!(elapsed.as_millis() < 1000, "took {elapsed:?}");
    assert_eq!(info.arrays[0].byte_size, 3_000_000_000);
    println!(
        "3 GB header refused in {elapsed:?} after reading {} bytes",
        src.read.get()
    );
    // The same file, a few rows of it: allowed, and only those rows are read.
    let mut f = std::fs::File::create(&path).unwrap();
    f.write_all(&header).unwrap();
    f.set_len(header.len() as u64 + 3_000_000_000).unwrap();
    drop(f);
    let file = std::fs::File::open(&path).unwrap();
    let rows = LoadOptions {
        rows: Some(vec![374_999_999, 7]),
        ..opts()
    };
    let got = data::load::<f64>("big.npy", &file, &rows).unwrap();
    std::fs::remove_file(&path).ok();
    assert_eq!(got.matrix.as_slice(), &[0.0, 0.0]);
}

#[test]
fn forged_headers_are_refused_before_allocating() {
    // Declares 3 GB but holds none of it.
    let e = must_fail("f.npy", &npy_header("<f8", "(375000000, 1)"));
    assert!(matches!(e, DataError::Truncated { .. }), "{e}");
    // Shape product overflows u64.
    let e = must_fail("o.npy", &npy_header("<f8", "(4294967296, 4294967296, 16)"));
    assert!(
        matches!(e, DataError::Corrupt { .. }) && e.to_string().contains("64 bits"),
        "{e}"
    );
    // Header length beyond the file.
    let mut b = b"\x93NUMPY\x02\x00\xff\xff\xff\x7f{".to_vec();
    b.extend_from_slice(&[b' '; 20]);
    let e = must_fail("h.npy", &b);
    assert!(
        matches!(e, DataError::Corrupt { .. } | DataError::Truncated { .. }),
        "{e}"
    );
    // safetensors header length of 2^40.
    // (Detection takes it for no known format: real headers are far below 2^32 bytes.)
    let mut s = (1u64 << 40).to_le_bytes().to_vec();
    s.extend_from_slice(b"{}");
    let e = must_fail("s.safetensors", &s);
    assert!(matches!(e, DataError::UnknownFormat { .. }), "{e}");
    let e = data::safetensors::load::<f64>("s.safetensors", &s, &opts()).unwrap_err();
    assert!(matches!(e, DataError::Corrupt { .. }), "{e}");
    // safetensors tensor of 2^62 elements.
    let h = br#"{"w":{"dtype":"F64","shape":[4611686018427387904, 4],"data_offsets":[0,8]}}"#;
    let mut s = (h.len() as u64).to_le_bytes().to_vec();
    s.extend_from_slice(h);
    s.extend_from_slice(&[0; 8]);
    let e = must_fail("s.safetensors", &s);
    assert!(matches!(e, DataError::Corrupt { .. }), "{e}");
}

#[test]
fn a_deflate_bomb_is_inflated_no_further_than_max_bytes() {
    use zip::write::SimpleFileOptions;
    // 64 MiB of zeros deflate to about 64 KiB.
    let mut npy = npy_header("<f8", "(8192, 1024)");
    npy.resize(npy.len() + 8192 * 1024 * 8, 0);
    let mut zw = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zw.start_file(
        "bomb.npy",
        SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated),
    )
    .unwrap();
    zw.write_all(&npy).unwrap();
    let z = zw.finish().unwrap().into_inner();
    println!("64 MiB member deflated to {} bytes", z.len());
    let small = LoadOptions {
        max_bytes: 1 << 20,
        ..opts()
    };
    let t = Instant::now();
    let e = data::load_bytes::<f64>("bomb.npz", &z, &small).unwrap_err();
    assert!(matches!(e, DataError::TooLarge { .. }), "{e}");
    // Even rows near the start need the whole member inflated (its CRC-32 is checked at its end): refused, with
    // the reason and the fix.
    let first = LoadOptions {
        rows: Some(vec![3, 1]),
        ..small.clone()
    };
    let e = data::load_bytes::<f64>("bomb.npz", &z, &first).unwrap_err();
    assert!(matches!(e, DataError::TooLarge { .. }), "{e}");
    assert!(
        e.to_string().contains("CRC-32") && e.to_string().contains("uncompressed"),
        "{e}"
    );
    // Within the default limit they load (and the member is checked).
    let got = data::load_bytes::<f64>(
        "bomb.npz",
        &z,
        &LoadOptions {
            rows: Some(vec![3, 1]),
            ..opts()
        },
    )
    .unwrap();
    assert_eq!((got.matrix.rows(), got.matrix.cols()), (2, 1024));
    // Rows deep in the member would need 64 MiB inflated: refused.
    let deep = LoadOptions {
        rows: Some(vec![8000]),
        ..small
    };
    assert!(matches!(
        data::load_bytes::<f64>("bomb.npz", &z, &deep),
        Err(DataError::TooLarge { .. })
    ));
    assert!(t.elapsed().as_millis() < 2000, "took {:?}", t.elapsed());
}

// ---------------------------------------------------------------------------------------------------------------
// Real data

/// The repository's real-data example: a subset of the shared demo (MLP activations on scikit-learn digits),
/// copied by examples/data/make_demo_subset.py; always present, so this test never skips.
fn demo_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../examples/data/digits")
}

#[test]
fn real_digits_activations_load_and_row_subsets_match() {
    let dir = demo_dir();
    let path = dir.join("act_original.npy");
    let info = data::inspect_path(&path).unwrap();
    let a = &info.arrays[0];
    assert_eq!(
        (a.dtype.as_str(), a.shape.clone(), a.fortran_order),
        ("float32", vec![744, 128], false)
    );
    let full = data::load_path::<f32>(&path, &opts()).unwrap();
    assert_eq!((full.matrix.rows(), full.matrix.cols()), (744, 128));
    assert!(full.warnings.is_empty(), "{:?}", full.warnings);
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("manifest.json")).unwrap()).unwrap();
    // A scattered, out-of-order subset: every 7th test row, backwards, then every 5th forget row.
    let test: Vec<usize> = manifest["test"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    let forget: Vec<usize> = manifest["forget"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as usize)
        .collect();
    let rows: Vec<usize> = test
        .iter()
        .rev()
        .step_by(7)
        .chain(forget.iter().step_by(5))
        .copied()
        .collect();
    let file = std::fs::File::open(&path).unwrap();
    let src = Counting {
        inner: &file,
        read: Cell::new(0),
    };
    let sub = data::load::<f32>(
        "act_original.npy",
        &src,
        &LoadOptions {
            rows: Some(rows.clone()),
            ..opts()
        },
    )
    .unwrap();
    expect_matrix_rows(&full.matrix, &rows, &sub.matrix, "scattered rows");
    let row_bytes = 128 * 4;
    assert_eq!(src.read.get(), 64 + 12 + (128 - 10) + rows.len() as u64 * row_bytes);
    println!("row subset: read {} of {} bytes", src.read.get(), file.len());
    let y = data::load_path::<f64>(dir.join("y.npy"), &opts()).unwrap();
    assert_eq!(
        (y.matrix.rows(), y.matrix.cols(), y.info.dtype.as_str()),
        (744, 1, "int64")
    );
}

#[test]
fn result_types_can_cross_to_a_worker() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Loaded<f32>>();
    send_sync::<FileInfo>();
    send_sync::<DataError>();
    send_sync::<LoadOptions>();
    let _ = Path::new("");
}
