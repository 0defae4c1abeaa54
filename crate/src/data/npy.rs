//! NumPy `.npy` files (format versions 1.0, 2.0 and 3.0).
//!
//! Layout: the magic `\x93NUMPY`, a major and minor version byte, the header length (little-endian `u16` in
//! 1.0, `u32` in 2.0/3.0), then the header — a Python dict literal such as
//! `{'descr': '<f4', 'fortran_order': False, 'shape': (1797, 128), }` (latin-1 in 1.0/2.0, UTF-8 in 3.0) — and
//! then the raw array data. See numpy's `numpy/lib/format.py`.
//!
//! Lethe parses the header itself rather than through `npyz`: `npyz` reads from a sequential `Read`, allocates
//! whatever header length the file declares (up to 4 GiB) and parses with a recursive grammar, while Lethe needs
//! the header from a random-access source before touching the data, a bounded header, and row-subset reads by
//! byte offset. The header grammar is a tiny subset of Python literals (strings, `True`/`False`, integers,
//! tuples, lists, dicts), parsed here with a nesting limit. Like `np.load`, the dict must have exactly the keys
//! `descr`, `fortran_order` and `shape`.

use super::array::{self, Access, Layout, Located};
use super::dtype::{self, DType, Kind};
use super::load::{ArrayInfo, FileInfo, Format, LoadOptions, Loaded, finish};
use super::source::ByteSource;
use super::{DataError, Scalar};
use crate::note::{Note, NoteKind};

/// The magic bytes that open every .npy file.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// Headers longer than this are refused: numpy writes a few hundred bytes for any plain dtype, and refuses
/// headers over 10 000 bytes itself unless told the file is trusted.
const MAX_HEADER: u64 = 1 << 20;

/// Python literal nesting allowed in a header (structured dtypes nest; plain ones do not).
const MAX_DEPTH: usize = 32;

/// A parsed .npy header.
#[derive(Clone, Debug)]
pub(crate) struct Header {
    /// The `descr` string as written (`<f4`), or `structured` for a record dtype.
    pub descr: String,
    /// The element type, or numpy's name for an unsupported one.
    pub dtype: Result<DType, String>,
    pub shape: Vec<u64>,
    pub fortran: bool,
    /// Offset of the first data byte from the start of the .npy bytes.
    pub data_offset: u64,
}

impl Header {
    pub(crate) fn layout(&self) -> Option<Layout> {
        self.dtype.as_ref().ok().map(|&dtype| Layout {
            dtype,
            shape: self.shape.clone(),
            fortran: self.fortran,
        })
    }

    /// Data size in bytes, when the dtype is supported and the shape's product fits in 64 bits.
    pub(crate) fn data_bytes(&self) -> Option<u64> {
        self.layout().and_then(|l| l.data_bytes())
    }

    /// The info record for this array (`name` for .npz members).
    pub(crate) fn info(&self, name: Option<String>, base_offset: Option<u64>) -> ArrayInfo {
        let layout = self.layout();
        let (rows, cols, problem) = match (&self.dtype, &layout) {
            (Err(name), _) => (0, 0, Some(unsupported_text(name))),
            (Ok(_), Some(l)) => match l.matrix_shape() {
                Ok((r, c)) => (r, c, None),
                Err(why) => (0, 0, Some(why)),
            },
            (Ok(_), None) => (0, 0, None),
        };
        ArrayInfo {
            name,
            dtype: match &self.dtype {
                Ok(d) => d.name().to_string(),
                Err(n) => n.clone(),
            },
            stored_dtype: self.descr.clone(),
            shape: self.shape.clone(),
            fortran_order: self.fortran,
            byte_size: self.data_bytes().unwrap_or(0),
            data_offset: base_offset.map(|b| b + self.data_offset),
            compressed_size: None,
            rows,
            cols,
            note: layout.as_ref().and_then(Layout::note),
            problem,
        }
    }
}

fn unsupported_text(name: &str) -> String {
    let fix = match name {
        "object" => {
            "object arrays hold pickled Python objects, which Lethe never unpickles; save a numeric \
                     array (`arr.astype(np.float64)`)"
        }
        "structured" => "save each field as its own array (`np.savez(f, x=arr['x'], ...)`)",
        _ => "convert it first, e.g. `np.save(f, arr.astype(np.float32))`",
    };
    format!("dtype {name} is not supported ({}); {fix}", dtype::SUPPORTED)
}

/// The error for loading an array of unsupported dtype.
pub(crate) fn unsupported(input: &str, name: &str) -> DataError {
    DataError::UnsupportedDtype {
        input: input.to_string(),
        dtype: name.to_string(),
        supported: dtype::SUPPORTED,
    }
}

/// A bad .npy header: what numpy.save writes never looks like this.
fn corrupt(input: &str, detail: impl Into<String>) -> DataError {
    DataError::corrupt(
        input,
        detail,
        "it is not a valid .npy file: re-save the array with numpy.save (np.save), or download the file again",
    )
}

/// From the first bytes of a .npy (at least 12, or all there are): `(header text start, header length,
/// utf8)`.
pub(crate) fn preamble(input: &str, head: &[u8]) -> Result<(u64, u64, bool), DataError> {
    let magic_len = head.len().min(MAGIC.len());
    if head[..magic_len] != MAGIC[..magic_len] {
        return Err(corrupt(input, "it does not start with the .npy magic bytes \\x93NUMPY"));
    }
    let truncated = |need: usize| DataError::Truncated {
        input: input.to_string(),
        detail: format!("the .npy preamble needs {need} bytes, only {} are present", head.len()),
    };
    let (Some(&major), Some(&minor)) = (head.get(6), head.get(7)) else {
        return Err(truncated(10));
    };
    let (start, utf8) = match major {
        1 => (10usize, false),
        2 => (12, false),
        3 => (12, true),
        _ => {
            return Err(corrupt(
                input,
                format!("unsupported .npy format version {major}.{minor} (Lethe reads 1.0, 2.0 and 3.0)"),
            ));
        }
    };
    let len_bytes = head.get(8..start).ok_or_else(|| truncated(start))?;
    let hlen = len_bytes.iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    if hlen > MAX_HEADER {
        return Err(corrupt(
            input,
            format!("the .npy header claims {hlen} bytes; headers of plain arrays are a few hundred bytes"),
        ));
    }
    Ok((start as u64, hlen, utf8))
}

/// Parses the header text (the dict literal, padding and newline included).
pub(crate) fn parse_header(input: &str, text: &[u8], utf8: bool, data_offset: u64) -> Result<Header, DataError> {
    let err = |what: String| corrupt(input, format!("bad .npy header: {what}"));
    if utf8 && std::str::from_utf8(text).is_err() {
        return Err(err("a version 3.0 header must be UTF-8".into()));
    }
    let mut p = Parser { s: text, i: 0 };
    let dict = p.value(0).map_err(&err)?;
    p.ws();
    if p.i != text.len() {
        return Err(err(format!("unexpected text after the dict at byte {}", p.i)));
    }
    let Py::Dict(entries) = dict else {
        return Err(err("it is not a dict literal".into()));
    };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    for (k, v) in entries {
        let Py::Str(k) = k else {
            return Err(err("a key is not a string".into()));
        };
        let slot = match k.as_str() {
            "descr" => &mut descr,
            "fortran_order" => &mut fortran,
            "shape" => &mut shape,
            other => return Err(err(format!("unexpected key '{other}' (numpy refuses it too)"))),
        };
        if slot.replace(v).is_some() {
            return Err(err(format!("key '{k}' appears twice")));
        }
    }
    let (Some(descr), Some(fortran), Some(shape)) = (descr, fortran, shape) else {
        return Err(err("it must have the keys 'descr', 'fortran_order' and 'shape'".into()));
    };
    let Py::Bool(fortran) = fortran else {
        return Err(err("'fortran_order' must be True or False".into()));
    };
    let Py::Seq(dims) = shape else {
        return Err(err("'shape' must be a tuple of integers".into()));
    };
    let shape = dims
        .into_iter()
        .map(|d| match d {
            Py::Int(Some(v)) => Ok(v),
            Py::Int(None) => Err(err("a dimension is negative or larger than 2^64".into())),
            _ => Err(err("'shape' must be a tuple of integers".into())),
        })
        .collect::<Result<Vec<u64>, _>>()?;
    let (descr, dtype) = match descr {
        Py::Str(s) => {
            let dt = parse_descr(&s).map_err(|e| err(format!("descr '{s}': {e}")))?;
            (s, dt)
        }
        Py::Seq(_) => ("structured".to_string(), Err("structured".to_string())),
        _ => return Err(err("'descr' must be a string or a list".into())),
    };
    Ok(Header {
        descr,
        dtype,
        shape,
        fortran,
        data_offset,
    })
}

/// numpy type string → dtype. `Ok(Err(name))` for a valid but unsupported type, `Err` for nonsense.
fn parse_descr(s: &str) -> Result<Result<DType, String>, String> {
    let b = s.as_bytes();
    let (big, rest) = match b.first() {
        Some(b'>') => (true, &b[1..]),
        Some(b'<' | b'|' | b'=') => (false, &b[1..]),
        _ => (false, b),
    };
    let Some((&kind, digits)) = rest.split_first() else {
        return Err("empty type string".into());
    };
    let digits = std::str::from_utf8(digits).map_err(|_| "not ASCII".to_string())?;
    let (num, unit) = match digits.find('[') {
        Some(i) => (&digits[..i], &digits[i..]),
        None => (digits, ""),
    };
    let size: Option<usize> = if num.is_empty() { None } else { num.parse().ok() };
    if !num.is_empty() && size.is_none() {
        return Err(format!("bad item size '{num}'"));
    }
    let unsupported = |n: String| Ok(Err(n));
    let dt = |k: Kind, n: usize| Ok(Ok(DType::new(k, n, big && n > 1)));
    match (kind, size) {
        (b'f', Some(n @ (2 | 4 | 8))) => dt(Kind::Float, n),
        (b'f', Some(n)) => unsupported(format!("float{}", n * 8)),
        (b'i', Some(n @ (1 | 2 | 4 | 8))) => dt(Kind::Int, n),
        (b'u', Some(n @ (1 | 2 | 4 | 8))) => dt(Kind::UInt, n),
        (b'b' | b'?', Some(1) | None) => dt(Kind::Bool, 1),
        (b'c', Some(n)) => unsupported(format!("complex{}", n * 8)),
        (b'O', _) => unsupported("object".into()),
        (b'U', _) => unsupported(format!("str ({s})")),
        (b'S' | b'a', _) => unsupported(format!("bytes ({s})")),
        (b'V', _) => unsupported(format!("void ({s}; e.g. ml_dtypes bfloat16)")),
        (b'M', _) => unsupported(format!("datetime64{unit}")),
        (b'm', _) => unsupported(format!("timedelta64{unit}")),
        _ => Err("not a numpy type string".into()),
    }
}

/// A Python literal, as far as .npy headers use them.
#[derive(Debug)]
enum Py {
    Str(String),
    Bool(bool),
    /// `None` when negative or too large for `u64`.
    Int(Option<u64>),
    Seq(Vec<Py>),
    Dict(Vec<(Py, Py)>),
    NoneLit,
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Py, String> {
        if depth > MAX_DEPTH {
            return Err(format!("literal nested deeper than {MAX_DEPTH} levels"));
        }
        let at = self.i;
        match self.peek() {
            None => Err("it ends early".into()),
            Some(q @ (b'\'' | b'"')) => self.string(q),
            Some(b'(') => self.seq(b')', depth),
            Some(b'[') => self.seq(b']', depth),
            Some(b'{') => {
                self.i += 1;
                let mut out = Vec::new();
                loop {
                    if self.eat(b'}') {
                        return Ok(Py::Dict(out));
                    }
                    let k = self.value(depth + 1)?;
                    if !self.eat(b':') {
                        return Err(format!("expected ':' at byte {}", self.i));
                    }
                    let v = self.value(depth + 1)?;
                    out.push((k, v));
                    if !self.eat(b',') && self.peek() != Some(b'}') {
                        return Err(format!("expected ',' or '}}' at byte {}", self.i));
                    }
                }
            }
            Some(c) if c.is_ascii_digit() || c == b'-' || c == b'+' => {
                let neg = c == b'-';
                if c == b'-' || c == b'+' {
                    self.i += 1;
                }
                let mut v: Option<u64> = Some(0);
                let start = self.i;
                while let Some(d) = self.s.get(self.i).filter(|d| d.is_ascii_digit()) {
                    v = v
                        .and_then(|v| v.checked_mul(10))
                        .and_then(|v| v.checked_add(u64::from(d - b'0')));
                    self.i += 1;
                }
                if self.i == start {
                    return Err(format!("bad number at byte {at}"));
                }
                if matches!(self.s.get(self.i), Some(b'L' | b'l')) {
                    self.i += 1; // Python 2 long suffix, written by very old numpy
                }
                Ok(Py::Int(if neg && v != Some(0) { None } else { v }))
            }
            Some(_) => {
                let rest = &self.s[self.i..];
                for (word, val) in [
                    (&b"True"[..], Py::Bool(true)),
                    (b"False", Py::Bool(false)),
                    (b"None", Py::NoneLit),
                ] {
                    if rest.starts_with(word) {
                        self.i += word.len();
                        return Ok(val);
                    }
                }
                Err(format!("unexpected character at byte {at}"))
            }
        }
    }

    fn seq(&mut self, close: u8, depth: usize) -> Result<Py, String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            if self.eat(close) {
                return Ok(Py::Seq(out));
            }
            out.push(self.value(depth + 1)?);
            if !self.eat(b',') && self.peek() != Some(close) {
                return Err(format!("expected ',' or '{}' at byte {}", close as char, self.i));
            }
        }
    }

    fn string(&mut self, q: u8) -> Result<Py, String> {
        let start = self.i;
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return Err(format!("unterminated string starting at byte {start}")),
                Some(&c) if c == q => {
                    self.i += 1;
                    // Headers are latin-1 (1.0/2.0) or UTF-8 (3.0); both read the same for ASCII, and the rare
                    // non-ASCII name is only shown in messages.
                    return Ok(Py::Str(
                        String::from_utf8(out)
                            .unwrap_or_else(|e| e.into_bytes().iter().map(|&b| char::from(b)).collect()),
                    ));
                }
                Some(b'\\') => {
                    if let Some(&c) = self.s.get(self.i + 1) {
                        out.push(c);
                    }
                    self.i += 2;
                }
                Some(&c) => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
    }
}

/// Reads and parses the header of the .npy bytes in `src` (the whole source).
pub(crate) fn read_header(input: &str, src: &dyn ByteSource) -> Result<Header, DataError> {
    let len = src.len();
    let mut head = [0u8; 12];
    let n = usize::try_from(len).map_or(12, |l| l.min(12));
    src.read_at(0, &mut head[..n])
        .map_err(|e| array::io_error(input, "the .npy header", &e))?;
    let (start, hlen, utf8) = preamble(input, &head[..n])?;
    if start + hlen > len {
        return Err(DataError::Truncated {
            input: input.to_string(),
            detail: format!("the .npy header needs {} bytes, only {len} are present", start + hlen),
        });
    }
    // hlen ≤ MAX_HEADER, checked by `preamble`.
    let mut text = vec![0u8; hlen as usize];
    src.read_at(start, &mut text)
        .map_err(|e| array::io_error(input, "the .npy header", &e))?;
    parse_header(input, &text, utf8, start + hlen)
}

/// Checks that `len` bytes hold the header's data; returns a warning, naming the file and what to do, if there are
/// bytes after it.
pub(crate) fn check_size(input: &str, h: &Header, len: u64) -> Result<Option<Note>, DataError> {
    let Some(layout) = h.layout() else {
        return Ok(None);
    };
    let data = layout.data_bytes().ok_or_else(|| {
        corrupt(
            input,
            format!("shape {:?} describes more bytes than fit in 64 bits", h.shape),
        )
    })?;
    let need = h
        .data_offset
        .checked_add(data)
        .ok_or_else(|| corrupt(input, "the data size overflows"))?;
    if need > len {
        return Err(DataError::Truncated {
            input: input.to_string(),
            detail: format!(
                "its header declares {} {} values of shape {:?} ({need} bytes with the header), but only {len} \
                 bytes are present",
                h.shape.iter().product::<u64>(),
                layout.dtype.name(),
                h.shape
            ),
        });
    }
    Ok((need < len).then(|| {
        Note::new(
            NoteKind::TrailingBytes,
            format!(
                "`{input}`: {} bytes after the array data (shape {:?}, {}) were ignored; np.save writes none, so the \
             file was appended to or its header describes less than was written: check the shape, and re-save the \
             array with np.save if it is not the one meant",
                len - need,
                h.shape,
                layout.dtype.name()
            ),
        )
    }))
}

/// Lists the array in a .npy file, reading only its header.
///
/// # Errors
/// [`DataError::Corrupt`] for a malformed header, [`DataError::Truncated`] when the file is shorter than the
/// header declares.
///
/// # Examples
/// ```
/// let bytes: &[u8] = b"\x93NUMPY\x01\x00\x3a\x00{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n\
///               \x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x40";
/// let info = lethe::data::npy::inspect("x.npy", &bytes).unwrap();
/// assert_eq!(info.arrays[0].shape, vec![2]);
/// assert_eq!(info.arrays[0].dtype, "float64");
/// ```
pub fn inspect(input: &str, src: &dyn ByteSource) -> Result<FileInfo, DataError> {
    let h = read_header(input, src)?;
    let extra = check_size(input, &h, src.len())?;
    Ok(FileInfo {
        input: input.to_string(),
        format: Format::Npy,
        file_size: src.len(),
        arrays: vec![h.info(None, Some(0))],
        warnings: extra.into_iter().collect(),
    })
}

/// Loads the array of a .npy file as a matrix; see [`crate::data::load()`] for the options.
///
/// Only the header and the data of the selected rows are read (C order); Fortran-order data is streamed once.
///
/// # Errors
/// As [`inspect`], plus [`DataError::UnsupportedDtype`], [`DataError::BadShape`] (rank 0, zero-size),
/// [`DataError::TooLarge`] (checked from the header, before any data is read) and
/// [`DataError::RowOutOfRange`].
///
/// # Examples
/// ```
/// use lethe::data::{LoadOptions, npy};
/// let bytes: &[u8] = b"\x93NUMPY\x01\x00\x3a\x00{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n\
///               \x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x40";
/// let m = npy::load::<f64>("x.npy", &bytes, &LoadOptions::default()).unwrap().matrix;
/// assert_eq!((m.rows(), m.cols(), m.as_slice()), (2, 1, &[1.0, 2.0][..]));
/// ```
pub fn load<T: Scalar>(input: &str, src: &dyn ByteSource, opts: &LoadOptions) -> Result<Loaded<T>, DataError> {
    let h = read_header(input, src)?;
    let extra = check_size(input, &h, src.len())?;
    let mut warnings: Vec<Note> = extra.into_iter().collect();
    if let Some(name) = &opts.name {
        warnings.push(Note::new(
            NoteKind::Reader,
            format!("`{input}` is a single .npy array; the array name `{name}` was ignored"),
        ));
    }
    let info = h.info(None, Some(0));
    let layout = h.layout().ok_or_else(|| unsupported(input, &info.dtype))?;
    let plan = array::plan::<T>(input, &layout, opts.rows.as_deref(), opts.max_bytes, Access::Random)?;
    let data = array::read_random::<T>(input, src, h.data_offset, &plan)?;
    finish(Format::Npy, input, &plan, data, info, warnings)
}

/// Where the array of a .npy file is: for [`crate::data::ArrayFile`].
pub(crate) fn locate(input: &str, src: &dyn ByteSource) -> Result<Located, DataError> {
    let h = read_header(input, src)?;
    check_size(input, &h, src.len())?;
    let info = h.info(None, Some(0));
    let layout = h.layout().ok_or_else(|| unsupported(input, &info.dtype))?;
    Ok(Located {
        label: input.to_string(),
        info,
        layout,
        offset: Some(h.data_offset),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a panic is how a test reports failure
mod tests {
    use super::*;

    fn header(text: &str) -> Result<Header, DataError> {
        parse_header("t", text.as_bytes(), false, 0)
    }

    #[test]
    fn parses_numpy_headers() {
        let h = header("{'descr': '>i8', 'fortran_order': True, 'shape': (3, 4), }   \n").unwrap();
        assert_eq!(h.shape, vec![3, 4]);
        assert!(h.fortran);
        assert_eq!(h.dtype.unwrap(), DType::new(Kind::Int, 8, true));
        let h = header("{\"shape\": [2L], \"fortran_order\": False, \"descr\": \"|b1\"}").unwrap();
        assert_eq!(h.shape, vec![2]);
        assert_eq!(h.dtype.unwrap().kind, Kind::Bool);
        let h = header("{'descr': [('x', '<f4'), ('y', '<i4', (2,))], 'fortran_order': False, 'shape': ()}").unwrap();
        assert_eq!(h.dtype.unwrap_err(), "structured");
        assert_eq!(
            header("{'descr': '|O', 'fortran_order': False, 'shape': (3,)}")
                .unwrap()
                .dtype
                .unwrap_err(),
            "object"
        );
    }

    /// Bytes after the data: loaded, with a warning naming the file, what is odd and what to do.
    #[test]
    fn trailing_bytes_are_a_warning_with_the_fix() {
        let mut f = b"\x93NUMPY\x01\x00\x3a\x00{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n".to_vec();
        for v in [1.0f64, 2.0] {
            f.extend_from_slice(&v.to_le_bytes());
        }
        f.extend_from_slice(b"garbage");
        let got = load::<f64>("x.npy", &f.as_slice(), &LoadOptions::default()).unwrap();
        assert_eq!(got.matrix.as_slice(), &[1.0, 2.0]);
        let w = got
            .warnings
            .iter()
            .map(|w| w.message.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        assert!(
            w.contains("`x.npy`: 7 bytes after the array data") && w.contains("re-save the array with np.save"),
            "{w}"
        );
        assert_eq!(inspect("x.npy", &f.as_slice()).unwrap().warnings, got.warnings);
    }

    #[test]
    fn refuses_malformed_headers() {
        for bad in [
            "",
            "{",
            "{'descr': '<f8', 'fortran_order': False}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,)}",
            "{'descr': '<f8', 'fortran_order': 0, 'shape': (1,)}",
            "{'descr': '<q8', 'fortran_order': False, 'shape': (1,)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'extra': 1}",
            "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}",
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} junk",
            "{'descr': '<f8 , 'fortran_order': False, 'shape': (1,)}",
        ] {
            assert!(header(bad).is_err(), "{bad:?} was accepted");
        }
        let deep = format!("{{'descr': {}'<f8'{}}}", "[".repeat(100), "]".repeat(100));
        assert!(header(&deep).is_err());
    }
}
