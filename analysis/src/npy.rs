//! Writing .npy bytes (format 1.0, C order, little-endian), so that typed arrays handed over by an embedding page
//! and the synthetic examples go through the same readers as dropped files.

/// Element types written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dtype {
    F32,
    F64,
}

/// The header of a C-order array of `shape`, padded so the data starts at a multiple of 64 bytes.
fn header(dtype: Dtype, shape: &[usize]) -> Vec<u8> {
    let descr = match dtype {
        Dtype::F32 => "<f4",
        Dtype::F64 => "<f8",
    };
    let dims = match shape {
        [one] => format!("({one},)"),
        _ => format!(
            "({})",
            shape.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")
        ),
    };
    let mut dict = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {dims}, }}");
    // magic (6) + version (2) + header length (2) + dict + '\n' ≡ 0 (mod 64)
    let unpadded = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    dict.push('\n');
    let mut out = Vec::with_capacity(10 + dict.len());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    // The dict is a few dozen bytes, far below u16::MAX.
    out.extend_from_slice(&u16::try_from(dict.len()).unwrap_or(u16::MAX).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

/// .npy bytes of f64 values with `shape` (the caller guarantees `values.len()` is the product of `shape`).
pub fn f64_bytes(values: &[f64], shape: &[usize]) -> Vec<u8> {
    let mut out = header(Dtype::F64, shape);
    out.reserve(values.len() * 8);
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

/// .npy bytes of f32 values with `shape`.
pub fn f32_bytes(values: &[f32], shape: &[usize]) -> Vec<u8> {
    let mut out = header(Dtype::F32, shape);
    out.reserve(values.len() * 4);
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_the_core_reader() {
        let b = f64_bytes(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]);
        assert_eq!(b.len() % 8, 0);
        let m = lethe::data::load_bytes::<f64>("a.npy", &b, &Default::default())
            .unwrap()
            .matrix;
        assert_eq!((m.rows(), m.cols()), (3, 2));
        assert_eq!(m.row(2), &[5.0, 6.0]);
        let v = f32_bytes(&[0.5, 1.5], &[2]);
        let info = lethe::data::inspect("v.npy", &&v[..]).unwrap();
        assert_eq!(info.arrays[0].dtype, "float32");
        assert_eq!(info.arrays[0].shape, vec![2]);
        assert_eq!((info.arrays[0].data_offset.unwrap()) % 64, 0);
    }
}
