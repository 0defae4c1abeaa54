//! JSON arrays of numbers: a flat array (`n × 1`), an array of equal-length arrays (`n × d`), or an object
//! whose values are such arrays (one is picked by name, as for .npz).
//!
//! Non-finite values may be the strings `"nan"`, `"inf"`, `"-inf"` (any spelling `f64::from_str` accepts, such
//! as `"NaN"`, `"Infinity"`); the bare tokens `NaN`, `Infinity`, `-Infinity` that Python's `json.dumps` writes
//! (not valid JSON) are accepted too, with a warning. Other strings, booleans, nulls and nesting deeper than two
//! levels are errors. Numbers are parsed by `serde_json` with correct rounding (its `float_roundtrip`
//! feature), streamed straight into the matrix without building a JSON tree. Values of an object that are not
//! arrays are ignored with a warning. Like text, JSON is read whole: [`LoadOptions::max_bytes`] bounds the file
//! size.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::load::{ArrayInfo, FileInfo, Format, LoadOptions, Loaded, nonfinite_warning, pick};
use super::source::ByteSource;
use super::text::{parse_num, read_text};
use super::{DataError, Matrix, Scalar};
use crate::note::{Note, NoteKind};

/// Why parsing stopped, beyond what `serde_json` reports.
#[derive(Debug)]
enum Fail {
    Ragged { row: usize, got: usize, expected: usize },
    Mixed,
    Deep,
    Value(String),
}

/// One array being read: its shape so far and, if stored, its values.
struct Acc<T> {
    store: bool,
    data: Vec<T>,
    rows: usize,
    cols: Option<usize>,
    flat: Option<bool>,
}

impl<T: Scalar> Acc<T> {
    fn new(store: bool) -> Self {
        Self {
            store,
            data: Vec::new(),
            rows: 0,
            cols: None,
            flat: None,
        }
    }

    fn shape(&self) -> Vec<u64> {
        match self.flat {
            Some(false) => vec![self.rows as u64, self.cols.unwrap_or(0) as u64],
            _ => vec![self.rows as u64],
        }
    }
}

struct Cx<'c> {
    fail: &'c RefCell<Option<Fail>>,
}

impl Cx<'_> {
    fn fail<E: de::Error>(&self, f: Fail) -> E {
        let msg = format!("{f:?}");
        *self.fail.borrow_mut() = Some(f);
        E::custom(msg)
    }
}

/// A single value inside an array: a number or a non-finite spelling.
struct Scalar1<'a, 'c> {
    cx: &'a Cx<'c>,
}

impl<'de> DeserializeSeed<'de> for Scalar1<'_, '_> {
    type Value = f64;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<f64, D::Error> {
        d.deserialize_any(self)
    }
}

fn describe_str(s: &str) -> String {
    let short: String = s.chars().take(40).collect();
    format!("\"{short}\"")
}

impl<'de> Visitor<'de> for Scalar1<'_, '_> {
    type Value = f64;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number")
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<f64, E> {
        Ok(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<f64, E> {
        match parse_num(v) {
            Some(x) if !x.is_finite() => Ok(x),
            _ => Err(self.cx.fail(Fail::Value(describe_str(v)))),
        }
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<f64, E> {
        Err(self.cx.fail(Fail::Value(v.to_string())))
    }
    fn visit_unit<E: de::Error>(self) -> Result<f64, E> {
        Err(self.cx.fail(Fail::Value("null".into())))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, _: A) -> Result<f64, A::Error> {
        Err(self.cx.fail(Fail::Deep))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<f64, A::Error> {
        Err(self.cx.fail(Fail::Value("an object".into())))
    }
}

/// An element of the outer array: a number (flat form) or a row.
struct Elem<'a, 'c, T> {
    acc: &'a mut Acc<T>,
    cx: &'a Cx<'c>,
}

impl<'de, T: Scalar> DeserializeSeed<'de> for Elem<'_, '_, T> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<T: Scalar> Elem<'_, '_, T> {
    fn scalar<E: de::Error>(self, v: Result<f64, E>) -> Result<(), E> {
        let v = v?;
        if self.acc.flat == Some(false) {
            return Err(self.cx.fail(Fail::Mixed));
        }
        self.acc.flat = Some(true);
        if self.acc.store {
            self.acc.data.push(T::from_f64(v));
        }
        self.acc.rows += 1;
        Ok(())
    }
}

impl<'de, T: Scalar> Visitor<'de> for Elem<'_, '_, T> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number or an array of numbers")
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<(), E> {
        self.scalar(Ok(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<(), E> {
        self.scalar(Ok(v as f64))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<(), E> {
        self.scalar(Ok(v as f64))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        let x = Scalar1 { cx: self.cx }.visit_str(v);
        self.scalar(x)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<(), E> {
        Err(self.cx.fail(Fail::Value(v.to_string())))
    }
    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        Err(self.cx.fail(Fail::Value("null".into())))
    }
    fn visit_map<A: MapAccess<'de>>(self, _: A) -> Result<(), A::Error> {
        Err(self.cx.fail(Fail::Value("an object".into())))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if self.acc.flat == Some(true) {
            return Err(self.cx.fail(Fail::Mixed));
        }
        self.acc.flat = Some(false);
        let mut n = 0usize;
        while let Some(v) = seq.next_element_seed(Scalar1 { cx: self.cx })? {
            if self.acc.store {
                self.acc.data.push(T::from_f64(v));
            }
            n += 1;
        }
        match self.acc.cols {
            Some(c) if c != n => {
                return Err(self.cx.fail(Fail::Ragged {
                    row: self.acc.rows,
                    got: n,
                    expected: c,
                }));
            }
            _ => self.acc.cols = Some(n),
        }
        self.acc.rows += 1;
        Ok(())
    }
}

/// An array value (the top level, or an object's value). Yields `false` for a value that is not an array.
struct ArrayValue<'a, 'c, T> {
    acc: &'a mut Acc<T>,
    cx: &'a Cx<'c>,
}

impl<'de, T: Scalar> DeserializeSeed<'de> for ArrayValue<'_, '_, T> {
    type Value = bool;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, T: Scalar> Visitor<'de> for ArrayValue<'_, '_, T> {
    type Value = bool;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        while seq
            .next_element_seed(Elem {
                acc: &mut *self.acc,
                cx: self.cx,
            })?
            .is_some()
        {}
        Ok(true)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(false)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<bool, E> {
        Ok(false)
    }
    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(false)
    }
}

/// What the top level held.
enum Top<T> {
    /// A bare array.
    Array(Acc<T>),
    /// An object: each array-valued key with its shape, and the stored one (if any), by index.
    Object {
        arrays: Vec<(String, Vec<u64>)>,
        stored: Option<(usize, Acc<T>)>,
        ignored: Vec<String>,
    },
}

/// Which object key to store: `Some(name)`, or the first array when `None`; `store = false` stores nothing.
struct TopVisitor<'a, 'c> {
    cx: &'a Cx<'c>,
    wanted: Option<&'a str>,
    store: bool,
}

impl<'de, T: Scalar> DeserializeSeed<'de> for TopSeed<'_, '_, T> {
    type Value = Top<T>;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Top<T>, D::Error> {
        d.deserialize_any(self)
    }
}

struct TopSeed<'a, 'c, T> {
    v: TopVisitor<'a, 'c>,
    _t: std::marker::PhantomData<T>,
}

impl<'de, T: Scalar> Visitor<'de> for TopSeed<'_, '_, T> {
    type Value = Top<T>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array of numbers, an array of arrays, or an object of such arrays")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Top<T>, A::Error> {
        let mut acc = Acc::new(self.v.store);
        ArrayValue {
            acc: &mut acc,
            cx: self.v.cx,
        }
        .visit_seq(seq)?;
        Ok(Top::Array(acc))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Top<T>, A::Error> {
        let mut arrays = Vec::new();
        let mut ignored = Vec::new();
        let mut stored: Option<(usize, Acc<T>)> = None;
        while let Some(key) = map.next_key::<String>()? {
            let keep = self.v.store
                && match self.v.wanted {
                    Some(w) => w == key,
                    None => stored.is_none(),
                };
            let mut acc = Acc::new(keep);
            let is_array = map.next_value_seed(ArrayValue {
                acc: &mut acc,
                cx: self.v.cx,
            })?;
            if !is_array {
                ignored.push(key);
                continue;
            }
            arrays.push((key, acc.shape()));
            if keep {
                stored = Some((arrays.len() - 1, acc));
            }
        }
        Ok(Top::Object {
            arrays,
            stored,
            ignored,
        })
    }
}

/// Rewrites the bare `NaN`, `Infinity`, `-Infinity` tokens Python writes into JSON strings; `None` if there
/// are none.
fn quote_bare_nonfinite(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let (mut i, mut in_str, mut prev) = (0, false, b' ');
    while i < b.len() {
        let c = b[i];
        if in_str {
            match c {
                b'\\' => i += 1,
                b'"' => in_str = false,
                _ => {}
            }
            i += 1;
            continue;
        }
        if c == b'"' {
            in_str = true;
        } else if matches!(prev, b'[' | b',' | b':') {
            let rest = &b[i..];
            let hit = [("-Infinity", "\"-inf\""), ("Infinity", "\"inf\""), ("NaN", "\"nan\"")]
                .into_iter()
                .find(|(tok, _)| {
                    rest.starts_with(tok.as_bytes()) && !rest.get(tok.len()).is_some_and(|n| n.is_ascii_alphanumeric())
                });
            if let Some((tok, rep)) = hit {
                let o = out.get_or_insert_with(|| String::with_capacity(text.len() + 64));
                o.push_str(&text[copied..i]);
                o.push_str(rep);
                i += tok.len();
                copied = i;
                prev = b'"';
                continue;
            }
        }
        if !c.is_ascii_whitespace() {
            prev = c;
        }
        i += 1;
    }
    out.map(|mut o| {
        o.push_str(&text[copied..]);
        o
    })
}

fn parse<T: Scalar>(
    input: &str,
    text: &str,
    wanted: Option<&str>,
    store: bool,
) -> Result<(Top<T>, Vec<Note>), DataError> {
    let mut warnings = Vec::new();
    let fixed = quote_bare_nonfinite(text);
    if fixed.is_some() {
        warnings.push(Note::new(
            NoteKind::Reader,
            format!(
                "`{input}` contains bare NaN/Infinity tokens (not valid JSON, but what Python's json.dumps writes); \
                 they were read as nan/inf"
            ),
        ));
    }
    let text = fixed.as_deref().unwrap_or(text);
    let fail = RefCell::new(None);
    let cx = Cx { fail: &fail };
    let mut de = serde_json::Deserializer::from_str(text);
    let seed = TopSeed::<T> {
        v: TopVisitor { cx: &cx, wanted, store },
        _t: std::marker::PhantomData,
    };
    let result = seed.deserialize(&mut de).and_then(|top| de.end().map(|()| top));
    match result {
        Ok(top) => Ok((top, warnings)),
        Err(e) => Err(match fail.into_inner() {
            Some(Fail::Ragged { row, got, expected }) => DataError::Ragged {
                input: input.to_string(),
                location: format!(
                    "row {row} (counting from 0; at line {}, column {} of the text, both counting from 1)",
                    e.line(),
                    e.column()
                ),
                got,
                expected,
            },
            Some(Fail::Value(text)) => DataError::Parse {
                input: input.to_string(),
                text,
                line: e.line(),
                column: e.column(),
                hint: "; values must be numbers, or the strings \"nan\", \"inf\", \"-inf\"".into(),
            },
            Some(Fail::Mixed) => DataError::BadShape {
                input: input.to_string(),
                shape: Vec::new(),
                expected: format!(
                    "an array must hold only numbers or only rows, not both (line {}, column {}, both counting from 1)",
                    e.line(),
                    e.column()
                ),
            },
            Some(Fail::Deep) => DataError::BadShape {
                input: input.to_string(),
                shape: Vec::new(),
                expected: format!(
                    "JSON input must be a flat array or an array of rows (nested at most 2 deep); found deeper \
                     nesting at line {}, column {} (both counting from 1); save higher-rank arrays as .npy",
                    e.line(),
                    e.column()
                ),
            },
            None => DataError::corrupt(
                input,
                format!("invalid JSON: {e}"),
                "correct the JSON at that position (a JSON validator shows the problem), or save the data as \
                 .npy or CSV",
            ),
        }),
    }
}

fn array_info(name: Option<String>, shape: Vec<u64>, len: u64) -> ArrayInfo {
    let rows = shape.first().copied().unwrap_or(0);
    let cols = shape.get(1).copied().unwrap_or(1);
    let problem = (rows == 0 || cols == 0).then(|| "it is empty (no values)".to_string());
    ArrayInfo {
        name,
        dtype: "float64".into(),
        stored_dtype: "text".into(),
        shape,
        fortran_order: false,
        byte_size: len,
        data_offset: None,
        compressed_size: None,
        rows: if problem.is_some() { 0 } else { rows },
        cols: if problem.is_some() { 0 } else { cols },
        note: None,
        problem,
    }
}

fn ignored_warning(input: &str, ignored: &[String]) -> Option<Note> {
    (!ignored.is_empty()).then(|| {
        Note::new(
            NoteKind::IgnoredKeys,
            format!(
                "`{input}`: keys whose values are not arrays were ignored: {}",
                ignored.iter().map(|k| format!("`{k}`")).collect::<Vec<_>>().join(", ")
            ),
        )
    })
}

/// Lists the arrays of a JSON file (one for a bare array; one per array-valued key of an object). JSON has
/// no header, so the whole file is parsed (without keeping the values).
///
/// # Errors
/// As [`load`] with default options, except that several arrays are listed rather than refused.
///
/// # Examples
/// ```
/// let json: &[u8] = br#"{"a": [[1, 2]], "b": [1, 2, 3]}"#;
/// let info = lethe::data::json::inspect("d.json", &json).unwrap();
/// assert_eq!(info.arrays[1].shape, vec![3]);
/// ```
pub fn inspect(input: &str, src: &dyn ByteSource) -> Result<FileInfo, DataError> {
    let text = read_text(input, src, super::DEFAULT_MAX_BYTES)?;
    let (top, mut warnings) = parse::<f64>(input, &text, None, false)?;
    let arrays = match top {
        Top::Array(acc) => vec![array_info(None, acc.shape(), src.len())],
        Top::Object { arrays, ignored, .. } => {
            warnings.extend(ignored_warning(input, &ignored));
            arrays
                .into_iter()
                .map(|(name, shape)| array_info(Some(name), shape, src.len()))
                .collect()
        }
    };
    Ok(FileInfo {
        input: input.to_string(),
        format: Format::Json,
        file_size: src.len(),
        arrays,
        warnings,
    })
}

/// Loads a JSON array (or one array of a JSON object, `opts.name`; implied when there is one) as a matrix.
///
/// # Errors
/// [`DataError::TooLarge`] over `max_bytes`, [`DataError::Corrupt`] for invalid JSON (with line and column),
/// [`DataError::Parse`] for a value that is not a number, [`DataError::Ragged`], [`DataError::BadShape`] for
/// deeper nesting or mixed forms, [`DataError::Empty`], [`DataError::NotFound`]/[`DataError::Ambiguous`],
/// [`DataError::RowOutOfRange`].
///
/// # Examples
/// ```
/// let json: &[u8] = br#"[[1, "nan"], [3, 4]]"#;
/// let m = lethe::data::json::load::<f64>("x.json", &json, &Default::default())
///     .unwrap()
///     .matrix;
/// assert!(m.as_slice()[1].is_nan() && m.row(1) == [3.0, 4.0]);
/// ```
pub fn load<T: Scalar>(input: &str, src: &dyn ByteSource, opts: &LoadOptions) -> Result<Loaded<T>, DataError> {
    let text = read_text(input, src, opts.max_bytes)?;
    let (top, mut warnings) = parse::<T>(input, &text, opts.name.as_deref(), true)?;
    let (name, acc) = match top {
        Top::Array(acc) => {
            if let Some(name) = &opts.name {
                warnings.push(Note::new(
                    NoteKind::Reader,
                    format!("`{input}` is a single array; the array name `{name}` was ignored"),
                ));
            }
            (None, acc)
        }
        Top::Object {
            arrays,
            stored,
            ignored,
        } => {
            let names: Vec<String> = arrays.iter().map(|(n, _)| n.clone()).collect();
            let chosen = pick(input, "array", &names, opts.name.as_deref(), |_| None)?.to_string();
            if opts.name.as_deref() == Some(chosen.as_str()) {
                warnings.extend(ignored_warning(input, &ignored));
            }
            match stored {
                Some((_, acc)) => (Some(chosen), acc),
                None => {
                    return Err(DataError::internal(input, "the chosen array was not kept"));
                }
            }
        }
    };
    let info = array_info(name, acc.shape(), src.len());
    if let Some(problem) = &info.problem {
        return Err(DataError::Empty {
            input: input.to_string(),
            detail: problem.clone(),
        });
    }
    let cols = acc.cols.unwrap_or(1);
    let mut matrix = Matrix::from_vec(acc.rows, cols, acc.data)
        .map_err(|e| DataError::internal(input, format!("assembling the matrix: {e}")))?;
    if let Some(sel) = opts.rows.as_deref() {
        if sel.is_empty() {
            return Err(DataError::Empty {
                input: input.to_string(),
                detail: "the row subset is empty; pass at least one row index".into(),
            });
        }
        if let Some(&bad) = sel.iter().find(|&&r| r >= matrix.rows()) {
            return Err(DataError::RowOutOfRange {
                input: input.to_string(),
                index: bad,
                rows: matrix.rows() as u64,
            });
        }
        matrix = matrix
            .select_rows(sel, input)
            .map_err(|e| DataError::internal(input, format!("selecting rows: {e}")))?;
    }
    warnings.extend(nonfinite_warning(input, &matrix));
    Ok(Loaded {
        format: Format::Json,
        matrix,
        labels: None,
        text_columns: Vec::new(),
        column_names: None,
        info,
        warnings,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a panic is how a test reports failure
mod tests {
    use super::*;

    #[test]
    fn bare_python_tokens_are_quoted_outside_strings_only() {
        assert_eq!(
            quote_bare_nonfinite("[NaN, -Infinity,Infinity]").as_deref(),
            Some("[\"nan\", \"-inf\",\"inf\"]")
        );
        assert_eq!(quote_bare_nonfinite("[\"NaN\", 1]"), None);
        assert_eq!(
            quote_bare_nonfinite("{\"a\": NaN}").as_deref(),
            Some("{\"a\": \"nan\"}")
        );
        assert_eq!(quote_bare_nonfinite("[NaNa]"), None);
    }

    #[test]
    fn shapes_and_errors() {
        let l = |s: &str| load::<f64>("j.json", &s.as_bytes(), &LoadOptions::default());
        assert_eq!(l("[1, 2]").unwrap().matrix.cols(), 1);
        assert!(matches!(l("[[1, 2], [3]]"), Err(DataError::Ragged { .. })));
        assert!(matches!(l("[1, [2]]"), Err(DataError::BadShape { .. })));
        assert!(matches!(l("[[[1]]]"), Err(DataError::BadShape { .. })));
        assert!(matches!(l("[true]"), Err(DataError::Parse { .. })));
        assert!(matches!(l("[\"1.5\"]"), Err(DataError::Parse { .. })));
        assert!(matches!(l("[]"), Err(DataError::Empty { .. })));
        assert!(matches!(l("[[], []]"), Err(DataError::Empty { .. })));
        assert!(matches!(l("[1, 2"), Err(DataError::Corrupt { .. })));
        assert!(matches!(l("[1] x"), Err(DataError::Corrupt { .. })));
        assert!(matches!(
            l("{\"a\": [1], \"b\": [2]}"),
            Err(DataError::Ambiguous { .. })
        ));
        assert!(matches!(l("{\"a\": 1}"), Err(DataError::Empty { .. })));
    }
}
