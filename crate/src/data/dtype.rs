//! Stored element types and their exact conversion to the matrix scalar.
//!
//! Conversions follow numpy's `astype`: integers and booleans become the nearest float (round half to even),
//! in one rounding step from the stored integer to the target type — `int64 → float32` is rounded once, as numpy
//! does, not through float64 (which could round twice). Half, bfloat16 and single floats widen exactly.
//! Booleans map 0 → 0.0 and any other byte → 1.0.

use super::Scalar;

/// What the element bits mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Bool,
    Int,
    UInt,
    Float,
    /// bfloat16 (safetensors `BF16`).
    BFloat,
}

/// A fixed-size numeric element type with its byte order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DType {
    pub kind: Kind,
    /// Bytes per element: 1, 2, 4 or 8.
    pub size: usize,
    pub big_endian: bool,
}

/// The dtypes every reader accepts, for error messages.
pub(crate) const SUPPORTED: &str = "float16, bfloat16 (safetensors), float32, float64, int8/16/32/64, \
                                    uint8/16/32/64, bool; little- or big-endian";

impl DType {
    pub(crate) const fn new(kind: Kind, size: usize, big_endian: bool) -> Self {
        Self { kind, size, big_endian }
    }

    /// numpy's name for the type (`float32`, `uint8`, `bool`; `bfloat16` as in ml_dtypes/torch).
    pub(crate) fn name(self) -> &'static str {
        match (self.kind, self.size) {
            (Kind::Bool, _) => "bool",
            (Kind::Int, 1) => "int8",
            (Kind::Int, 2) => "int16",
            (Kind::Int, 4) => "int32",
            (Kind::Int, _) => "int64",
            (Kind::UInt, 1) => "uint8",
            (Kind::UInt, 2) => "uint16",
            (Kind::UInt, 4) => "uint32",
            (Kind::UInt, _) => "uint64",
            (Kind::Float, 2) => "float16",
            (Kind::Float, 4) => "float32",
            (Kind::Float, _) => "float64",
            (Kind::BFloat, _) => "bfloat16",
        }
    }
}

fn is_f32<T: 'static>() -> bool {
    std::any::TypeId::of::<T>() == std::any::TypeId::of::<f32>()
}

/// `i64 → T` rounded once, as numpy's `astype` does.
#[inline]
fn from_i64<T: Scalar>(v: i64, f32_target: bool) -> T {
    if f32_target {
        T::from_f64(f64::from(v as f32))
    } else {
        T::from_f64(v as f64)
    }
}

#[inline]
fn from_u64<T: Scalar>(v: u64, f32_target: bool) -> T {
    if f32_target {
        T::from_f64(f64::from(v as f32))
    } else {
        T::from_f64(v as f64)
    }
}

/// Decodes `out.len()` elements of type `dt` from `bytes` (exactly `out.len() * dt.size` bytes) into `out`.
pub(crate) fn decode<T: Scalar>(dt: DType, bytes: &[u8], out: &mut [T]) {
    debug_assert_eq!(
        bytes.len(),
        out.len() * dt.size,
        "decode: byte count does not match the element count"
    );
    let be = dt.big_endian;
    let f32_target = is_f32::<T>();
    macro_rules! each {
        ($ty:ty, $n:literal, |$v:ident| $conv:expr) => {
            for (o, c) in out.iter_mut().zip(bytes.chunks_exact($n)) {
                let mut a = [0u8; $n];
                a.copy_from_slice(c);
                let $v = if be {
                    <$ty>::from_be_bytes(a)
                } else {
                    <$ty>::from_le_bytes(a)
                };
                *o = $conv;
            }
        };
    }
    match (dt.kind, dt.size) {
        (Kind::Bool, _) => {
            for (o, &b) in out.iter_mut().zip(bytes) {
                *o = T::from_f64(if b == 0 { 0.0 } else { 1.0 });
            }
        }
        (Kind::Int, 1) => each!(i8, 1, |v| T::from_f64(f64::from(v))),
        (Kind::Int, 2) => each!(i16, 2, |v| T::from_f64(f64::from(v))),
        (Kind::Int, 4) => each!(i32, 4, |v| T::from_f64(f64::from(v))),
        (Kind::Int, _) => each!(i64, 8, |v| from_i64::<T>(v, f32_target)),
        (Kind::UInt, 1) => each!(u8, 1, |v| T::from_f64(f64::from(v))),
        (Kind::UInt, 2) => each!(u16, 2, |v| T::from_f64(f64::from(v))),
        (Kind::UInt, 4) => each!(u32, 4, |v| T::from_f64(f64::from(v))),
        (Kind::UInt, _) => each!(u64, 8, |v| from_u64::<T>(v, f32_target)),
        (Kind::Float, 2) => each!(u16, 2, |v| T::from_f64(half::f16::from_bits(v).to_f64())),
        (Kind::Float, 4) => each!(f32, 4, |v| T::from_f64(f64::from(v))),
        (Kind::Float, _) => each!(f64, 8, |v| T::from_f64(v)),
        (Kind::BFloat, _) => each!(u16, 2, |v| T::from_f64(half::bf16::from_bits(v).to_f64())),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a panic is how a test reports failure
mod tests {
    use super::*;

    #[test]
    fn int64_to_f32_rounds_once_like_numpy() {
        // 2^60 + 2^36 + 1 lies just above the midpoint of two f32 neighbours; through f64 it lands on the midpoint
        // and ties-to-even would round down.
        let v: i64 = (1 << 60) + (1 << 36) + 1;
        let mut out = [0f32; 1];
        decode(DType::new(Kind::Int, 8, false), &v.to_le_bytes(), &mut out);
        assert_eq!(out[0], ((1u64 << 60) + (1u64 << 37)) as f32);
        let mut out64 = [0f64; 1];
        decode(DType::new(Kind::Int, 8, true), &v.to_be_bytes(), &mut out64);
        assert_eq!(out64[0], v as f64);
    }

    #[test]
    fn bool_nonzero_is_one() {
        let mut out = [9f64; 3];
        decode(DType::new(Kind::Bool, 1, false), &[0, 1, 7], &mut out);
        assert_eq!(out, [0.0, 1.0, 1.0]);
    }
}
