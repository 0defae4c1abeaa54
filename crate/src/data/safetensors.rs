//! `.safetensors` files: an 8-byte little-endian header length, a JSON header mapping tensor names to
//! `{dtype, shape, data_offsets}`, then the tensors' little-endian C-order bytes.
//!
//! The header is read alone (at most 100 MB, the `safetensors` crate's limit) and validated by the
//! `safetensors` crate's `Metadata` (offsets contiguous from 0, sizes matching shapes, no overflow); the data
//! is then read by offset, only the selected rows.

use ::safetensors::tensor::{Dtype, Metadata};

use super::array::{self, Access, Layout, Located};
use super::dtype::{DType, Kind};
use super::load::{ArrayInfo, FileInfo, Format, LoadOptions, Loaded, finish, pick};
use super::source::ByteSource;
use super::{DataError, Scalar};

/// The fix for a file the safetensors format does not allow.
const RESAVE: &str =
    "it is not a valid .safetensors file: re-save it with safetensors' save_file, or download it again";

/// The `safetensors` crate refuses longer headers.
const MAX_HEADER: u64 = 100_000_000;

fn dtype(d: Dtype) -> Option<DType> {
    let (kind, size) = match d {
        Dtype::BOOL => (Kind::Bool, 1),
        Dtype::U8 => (Kind::UInt, 1),
        Dtype::I8 => (Kind::Int, 1),
        Dtype::I16 => (Kind::Int, 2),
        Dtype::U16 => (Kind::UInt, 2),
        Dtype::F16 => (Kind::Float, 2),
        Dtype::BF16 => (Kind::BFloat, 2),
        Dtype::I32 => (Kind::Int, 4),
        Dtype::U32 => (Kind::UInt, 4),
        Dtype::F32 => (Kind::Float, 4),
        Dtype::F64 => (Kind::Float, 8),
        Dtype::I64 => (Kind::Int, 8),
        Dtype::U64 => (Kind::UInt, 8),
        _ => return None,
    };
    Some(DType::new(kind, size, false))
}

struct Parsed {
    meta: Metadata,
    /// File offset of the data section.
    data_start: u64,
    names: Vec<String>,
}

fn read(input: &str, src: &dyn ByteSource) -> Result<Parsed, DataError> {
    let len = src.len();
    let io = |e: std::io::Error| array::io_error(input, "the safetensors header", &e);
    if len < 8 {
        return Err(DataError::Truncated {
            input: input.to_string(),
            detail: format!("a .safetensors file starts with an 8-byte header length; only {len} bytes are present"),
        });
    }
    let mut n = [0u8; 8];
    src.read_at(0, &mut n).map_err(io)?;
    let n = u64::from_le_bytes(n);
    if n > MAX_HEADER {
        return Err(DataError::corrupt(
            input,
            format!("the header length is {n} bytes; the format allows at most {MAX_HEADER}"),
            RESAVE,
        ));
    }
    if 8 + n > len {
        return Err(DataError::Truncated {
            input: input.to_string(),
            detail: format!("the header needs {} bytes, only {len} are present", 8 + n),
        });
    }
    let mut text = vec![0u8; n as usize]; // n ≤ MAX_HEADER and ≤ the source length
    src.read_at(8, &mut text).map_err(io)?;
    let meta: Metadata = serde_json::from_slice(&text)
        .map_err(|e| DataError::corrupt(input, format!("bad safetensors header: {e}"), RESAVE))?;
    let data_start = 8 + n;
    let need = data_start + meta.data_len() as u64;
    if need > len {
        return Err(DataError::Truncated {
            input: input.to_string(),
            detail: format!("the header declares {need} bytes in all, only {len} are present"),
        });
    }
    if need < len {
        return Err(DataError::corrupt(
            input,
            format!(
                "{} bytes follow the last tensor; the format allows no trailing data (the safetensors library \
                 refuses this file too)",
                len - need
            ),
            RESAVE,
        ));
    }
    let names = meta.offset_keys();
    Ok(Parsed {
        meta,
        data_start,
        names,
    })
}

fn info(p: &Parsed, name: &str) -> Option<(ArrayInfo, Option<Layout>)> {
    let t = p.meta.info(name)?;
    let shape: Vec<u64> = t.shape.iter().map(|&d| d as u64).collect();
    let dt = dtype(t.dtype);
    let layout = dt.map(|dtype| Layout {
        dtype,
        shape: shape.clone(),
        fortran: false,
    });
    let stored = format!("{:?}", t.dtype);
    let (rows, cols, problem) = match &layout {
        None => (
            0,
            0,
            Some(format!("dtype {stored} is not supported ({})", super::dtype::SUPPORTED)),
        ),
        Some(l) => match l.matrix_shape() {
            Ok((r, c)) => (r, c, None),
            Err(why) => (0, 0, Some(why)),
        },
    };
    let info = ArrayInfo {
        name: Some(name.to_string()),
        dtype: dt.map_or_else(|| stored.clone(), |d| d.name().to_string()),
        stored_dtype: stored,
        shape,
        fortran_order: false,
        byte_size: (t.data_offsets.1 - t.data_offsets.0) as u64,
        data_offset: Some(p.data_start + t.data_offsets.0 as u64),
        compressed_size: None,
        rows,
        cols,
        note: layout.as_ref().and_then(Layout::note),
        problem,
    };
    Some((info, layout))
}

/// Lists the tensors of a .safetensors file (in data order), reading only the header.
///
/// # Errors
/// [`DataError::Corrupt`] for a malformed or inconsistent header, [`DataError::Truncated`] when the file is
/// shorter than the header declares.
///
/// # Examples
/// ```
/// let mut f = Vec::new();
/// let header = br#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
/// f.extend_from_slice(&(header.len() as u64).to_le_bytes());
/// f.extend_from_slice(header);
/// f.extend_from_slice(&[0, 0, 128, 63, 0, 0, 0, 64]);
/// let info = lethe::data::safetensors::inspect("w.safetensors", &f).unwrap();
/// assert_eq!((info.arrays[0].dtype.as_str(), info.arrays[0].rows), ("float32", 2));
/// ```
pub fn inspect(input: &str, src: &dyn ByteSource) -> Result<FileInfo, DataError> {
    let p = read(input, src)?;
    let arrays = p.names.iter().filter_map(|n| info(&p, n).map(|(i, _)| i)).collect();
    Ok(FileInfo {
        input: input.to_string(),
        format: Format::Safetensors,
        file_size: src.len(),
        arrays,
        warnings: Vec::new(),
    })
}

/// Loads one tensor (`opts.name`; implied when there is one) as a matrix, reading only the selected rows.
///
/// # Errors
/// As [`inspect`], plus [`DataError::NotFound`]/[`DataError::Ambiguous`] for the tensor name,
/// [`DataError::UnsupportedDtype`] (FP8, FP4, complex), [`DataError::BadShape`], [`DataError::TooLarge`] and
/// [`DataError::RowOutOfRange`].
///
/// # Examples
/// ```
/// let mut f = Vec::new();
/// let header = br#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
/// f.extend_from_slice(&(header.len() as u64).to_le_bytes());
/// f.extend_from_slice(header);
/// f.extend_from_slice(&[0, 0, 128, 63, 0, 0, 0, 64]);
/// let m = lethe::data::safetensors::load::<f64>("w.safetensors", &f, &Default::default()).unwrap().matrix;
/// assert_eq!(m.as_slice(), &[1.0, 2.0]);
/// ```
pub fn load<T: Scalar>(input: &str, src: &dyn ByteSource, opts: &LoadOptions) -> Result<Loaded<T>, DataError> {
    let l = locate(input, src, opts.name.as_deref())?;
    let plan = array::plan::<T>(input, &l.layout, opts.rows.as_deref(), opts.max_bytes, Access::Random)?;
    let data = array::read_random::<T>(input, src, l.offset.unwrap_or(0), &plan)?;
    finish(Format::Safetensors, input, &plan, data, l.info, Vec::new())
}

/// Where one tensor of a .safetensors file is (`name`; implied when there is one): for [`load`] and
/// [`crate::data::ArrayFile`].
pub(crate) fn locate(input: &str, src: &dyn ByteSource, name: Option<&str>) -> Result<Located, DataError> {
    let p = read(input, src)?;
    let name = pick(input, "tensor", &p.names, name, |_| None)?;
    let Some((info, layout)) = info(&p, name) else {
        return Err(DataError::internal(input, format!("tensor `{name}` vanished")));
    };
    let layout = layout.ok_or_else(|| DataError::UnsupportedDtype {
        input: input.to_string(),
        dtype: info.stored_dtype.clone(),
        supported: super::dtype::SUPPORTED,
    })?;
    let offset = info.data_offset.unwrap_or(p.data_start);
    Ok(Located {
        label: input.to_string(),
        info,
        layout,
        offset: Some(offset),
    })
}
