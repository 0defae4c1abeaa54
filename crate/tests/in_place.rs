//! SDE on arrays read in place from their files ([`ArrayFile`], column panels) against the same rows loaded into
//! memory: the reports must be identical, bit for bit — the panels are summed in the order of one pass over all
//! columns, and the column centring depends on each column alone. Wide enough that the kernels read several panels.

#![allow(clippy::unwrap_used)] // a panic is how a test reports failure

mod common;

use lethe::Matrix;
use lethe::backend::{CpuBackend, Precision};
use lethe::data::{ArrayFile, LoadOptions, Source, load_bytes};
use lethe::progress::Silent;
use lethe::sde::{RowSubset, SdeParams, Split, sde_subsets_with};

use common::block_on;

/// `rows × cols` seeded values as a float32 .npy file (C or Fortran order).
fn npy(rows: usize, cols: usize, seed: u64, fortran: bool) -> Vec<u8> {
    let mut s = seed;
    let mut v = vec![0f32; rows * cols];
    for x in &mut v {
        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *x = ((s >> 40) as f32 / (1u32 << 24) as f32).max(0.3) - 0.3; // sparse-ish, non-negative (ReLU-like)
    }
    let mut header = format!(
        "{{'descr': '<f4', 'fortran_order': {}, 'shape': ({rows}, {cols}), }}",
        if fortran { "True" } else { "False" }
    );
    header.push_str(&" ".repeat(63 - (10 + header.len()) % 64));
    header.push('\n');
    let mut f = b"\x93NUMPY\x01\x00".to_vec();
    f.extend_from_slice(&(header.len() as u16).to_le_bytes());
    f.extend_from_slice(header.as_bytes());
    let stored: Vec<f32> = if fortran {
        (0..rows * cols).map(|k| v[(k % rows) * cols + k / rows]).collect()
    } else {
        v
    };
    for x in stored {
        f.extend_from_slice(&x.to_le_bytes());
    }
    f
}
#[test]
fn sde_in_place_equals_sde_in_memory() {
    // Halves of 24 rows at 15 000 columns: 4 MB panels of f32 + f64 hold 14 336 columns, so two panels.
    let (rows, cols) = (120, 15_000);
    for fortran in [false, true] {
        let bytes = npy(rows, cols, 7, fortran);
        let m: Matrix<f32> = load_bytes("pool.npy", &bytes, &LoadOptions::default()).unwrap().matrix;
        let file = ArrayFile::open("pool.npy", &bytes, None).unwrap().unwrap();
        let it: Vec<usize> = (0..48).collect();
        let oot: Vec<usize> = (48..96).collect();
        let t1: Vec<usize> = (60..108).rev().collect();
        let t2: Vec<usize> = (0..96).step_by(2).collect();
        for (precision, split) in [(Precision::F64, Split::First), (Precision::F32, Split::Random)] {
            let params = SdeParams {
                shuffles: 40,
                precision,
                split,
                seed: 3,
                baselines: false,
                ..SdeParams::default()
            };
            let sets = [&it[..], &oot[..], &t1[..], &t2[..]];
            let in_memory = run(Source::Memory(m.view()), sets, &params);
            let in_place = run(Source::File(&file), sets, &params);
            assert_eq!(in_place, in_memory, "fortran={fortran} {precision:?} {split:?}");
            assert!(
                in_place.targets[0]
                    .distribution
                    .values
                    .iter()
                    .all(|v| v.is_finite() && *v > 0.0)
            );
        }
    }
}

/// SDE with rows `sets` (in-training, out-of-training, two labelled targets) of `source`.
fn run(source: Source<'_, f32>, sets: [&[usize]; 4], params: &SdeParams) -> lethe::sde::SdeReport {
    let subset = |name, rows, label| RowSubset {
        name,
        source,
        rows: Some(rows),
        label,
    };
    block_on(sde_subsets_with(
        &mut CpuBackend::new(params.precision),
        &mut Silent,
        subset("in_training", sets[0], None),
        subset("out_of_training", sets[1], None),
        &[subset("t1", sets[2], Some(true)), subset("t2", sets[3], Some(false))],
        params,
    ))
    .unwrap()
}

/// The MMD and Wasserstein baselines need whole subsets: read from the file in one panel, they equal the in-memory
/// ones too.
#[test]
fn baselines_in_place_equal_baselines_in_memory() {
    let bytes = npy(120, 200, 5, false);
    let m: Matrix<f32> = load_bytes("pool.npy", &bytes, &LoadOptions::default()).unwrap().matrix;
    let file = ArrayFile::open("pool.npy", &bytes, None).unwrap().unwrap();
    let (it, oot, t1, t2): (Vec<usize>, Vec<usize>, Vec<usize>, Vec<usize>) = (
        (0..48).collect(),
        (48..96).collect(),
        (60..108).collect(),
        (72..120).collect(),
    );
    let params = SdeParams {
        shuffles: 20,
        baselines: true,
        ..SdeParams::default()
    };
    let sets = [&it[..], &oot[..], &t1[..], &t2[..]];
    let in_place = run(Source::File(&file), sets, &params);
    assert_eq!(in_place, run(Source::Memory(m.view()), sets, &params));
    assert!(in_place.targets.iter().all(|t| t.baselines.is_some()));
}

#[test]
fn a_bad_value_in_the_file_is_named_when_it_is_read() {
    let mut bytes = npy(20, 300, 1, false);
    // Row 13, column 250 of a C-order f32 file.
    let header = 10 + usize::from(u16::from_le_bytes([bytes[8], bytes[9]]));
    let at = header + (13 * 300 + 250) * 4;
    bytes[at..at + 4].copy_from_slice(&f32::INFINITY.to_le_bytes());
    let file = ArrayFile::open("acts.npy", &bytes, None).unwrap().unwrap();
    let rows: Vec<usize> = (0..20).collect();
    let subset = RowSubset {
        name: "target",
        source: Source::<f32>::File(&file),
        rows: Some(&rows),
        label: None,
    };
    let e = block_on(sde_subsets_with(
        &mut CpuBackend::default(),
        &mut Silent,
        subset,
        subset,
        &[subset],
        &SdeParams::default(),
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("row 13 of `acts.npy`, column 250"), "{e}");
    let out_of_range = RowSubset {
        rows: Some(&[0, 1, 2, 20]),
        ..subset
    };
    let e = block_on(sde_subsets_with(
        &mut CpuBackend::default(),
        &mut Silent,
        out_of_range,
        subset,
        &[subset],
        &SdeParams::default(),
    ))
    .unwrap_err()
    .to_string();
    assert!(e.contains("20"), "{e}");
}

/// A subset whose kernels could not be allocated (here 100 000 rows per half: 3 × 10¹⁰ f64 kernel values) is
/// refused with a message before any work, not an allocation failure — reading in place makes such subsets easy
/// to ask for.
#[test]
fn subsets_too_large_for_their_kernels_are_refused() {
    let m = Matrix::from_rows(&[[0.0], [1.0], [2.0], [3.0]]).unwrap();
    let many: Vec<usize> = (0..200_000).map(|i| i % 4).collect();
    let small = RowSubset {
        name: "in_training",
        source: Source::Memory(m.view()),
        rows: None,
        label: None,
    };
    let huge = RowSubset {
        name: "target[0]",
        rows: Some(&many),
        ..small
    };
    let e = block_on(sde_subsets_with(
        &mut CpuBackend::default(),
        &mut Silent,
        small,
        small,
        &[huge],
        &SdeParams::default(),
    ))
    .unwrap_err()
    .to_string();
    // Roles are marked for each front end to name (lethe::words); the command line says them as the request does.
    let e = lethe::words::cli(&e);
    assert!(
        e.contains("`target[0]` is too large") && e.contains("100000 rows"),
        "{e}"
    );
}
