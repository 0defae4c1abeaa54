//! Delimited text: CSV, TSV (the TensorBoard Embedding Projector's `vectors.tsv`/labelled TSVs),
//! semicolon-separated and whitespace-separated (`np.savetxt`) tables of numbers.
//!
//! - **Delimiter**: sniffed from the first 20 lines: the first of tab, semicolon, comma that occurs the same
//!   (non-zero) number of times on each, outside double quotes; else the one most frequent on the first line;
//!   else runs of whitespace.
//! - **Header**: the first row is a header when one of its cells is not a number where the second row's cell
//!   is one (or is empty where the second row's is not, as pandas writes an unnamed index column);
//!   [`LoadOptions::has_header`] overrides.
//! - **Labels**: with [`LabelColumn::Auto`], a first (else last) column that is not a number in the first data
//!   row is read as row labels, verbatim.
//! - **Numbers** are parsed as Rust's `f64::from_str` does (correctly rounded, as Python's `float()` and
//!   numpy's `loadtxt`), accepting `nan`, `inf`, `-inf`, `infinity` in any case; they are kept and reported in
//!   the warnings, not hidden. Loading as `f32` rounds the f64 value once more, as `loadtxt(dtype=float32)`.
//! - Empty lines are skipped; `#` lines before the first row are skipped (an `np.savetxt` header); a UTF-8
//!   byte-order mark is ignored; rows of different lengths are an error naming the line.
//!
//! Text has no header giving its size, so it is read whole: [`LoadOptions::max_bytes`] bounds the file size.

use super::array;
use super::load::{ArrayInfo, FileInfo, Format, LabelColumn, LoadOptions, Loaded, nonfinite_warning};
use super::source::ByteSource;
use super::{DataError, Matrix, Scalar};

/// Lines looked at to sniff the delimiter.
const SNIFF_LINES: usize = 20;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Delim {
    Byte(u8),
    Whitespace,
}

impl Delim {
    fn describe(self) -> &'static str {
        match self {
            Delim::Byte(b'\t') => "tab-separated",
            Delim::Byte(b';') => "semicolon-separated",
            Delim::Byte(_) => "comma-separated",
            Delim::Whitespace => "whitespace-separated",
        }
    }
}

/// A number as text formats spell it: `f64::from_str` on the trimmed cell.
pub(crate) fn parse_num(cell: &str) -> Option<f64> {
    cell.trim().parse::<f64>().ok()
}

/// Reads the whole source as UTF-8 text (BOM removed), refusing sources over `max_bytes`.
pub(crate) fn read_text(input: &str, src: &dyn ByteSource, max_bytes: u64) -> Result<String, DataError> {
    let len = src.len();
    if len > max_bytes {
        return Err(DataError::TooLarge {
            input: input.to_string(),
            needed: len,
            limit: max_bytes,
            hint: " (text files are read whole); split the file, save the array as .npy (which loads row \
                   subsets without reading the rest), or raise max_bytes"
                .to_string(),
        });
    }
    let n = usize::try_from(len).map_err(|_| DataError::OutOfMemory {
        input: input.to_string(),
        bytes: len,
    })?;
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(n).map_err(|_| DataError::OutOfMemory {
        input: input.to_string(),
        bytes: len,
    })?;
    bytes.resize(n, 0);
    src.read_at(0, &mut bytes)
        .map_err(|e| array::io_error(input, "the text", &e))?;
    if bytes.starts_with(b"\xef\xbb\xbf") {
        bytes.drain(..3);
    }
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        DataError::corrupt(
            input,
            format!("it is not UTF-8 text (invalid byte at offset {at}, line {line})"),
            "save it as UTF-8 text, or as .npy",
        )
    })
}

fn count_outside_quotes(line: &str, d: u8) -> usize {
    let mut quoted = false;
    line.bytes()
        .filter(|&b| {
            if b == b'"' {
                quoted = !quoted;
            }
            !quoted && b == d
        })
        .count()
}

fn sniff(lines: &[&str]) -> Delim {
    const CANDIDATES: [u8; 3] = [b'\t', b';', b','];
    for d in CANDIDATES {
        let counts: Vec<usize> = lines.iter().map(|l| count_outside_quotes(l, d)).collect();
        if counts.first().is_some_and(|&c| c > 0) && counts.iter().all(|&c| c == counts[0]) {
            return Delim::Byte(d);
        }
    }
    let first = lines.first().copied().unwrap_or("");
    CANDIDATES
        .iter()
        .map(|&d| (count_outside_quotes(first, d), d))
        .filter(|&(c, _)| c > 0)
        .max_by_key(|&(c, _)| c)
        .map_or(Delim::Whitespace, |(_, d)| Delim::Byte(d))
}

/// Calls `row(line, cells)` for every non-empty record.
fn records(
    input: &str,
    body: &str,
    first_line: usize,
    delim: Delim,
    mut row: impl FnMut(usize, &[&str]) -> Result<(), DataError>,
) -> Result<(), DataError> {
    match delim {
        Delim::Whitespace => {
            let mut cells = Vec::new();
            for (i, line) in body.lines().enumerate() {
                cells.clear();
                cells.extend(line.split_whitespace());
                if !cells.is_empty() {
                    row(first_line + i, &cells)?;
                }
            }
        }
        Delim::Byte(d) => {
            let mut rdr = csv::ReaderBuilder::new()
                .delimiter(d)
                .has_headers(false)
                .flexible(true)
                .trim(csv::Trim::All)
                .from_reader(body.as_bytes());
            let mut rec = csv::StringRecord::new();
            // The csv reader's own line count skips blank lines; count newlines up to each record instead.
            let (mut line, mut seen) = (first_line, 0usize);
            loop {
                match rdr.read_record(&mut rec) {
                    Ok(false) => break,
                    Ok(true) => {}
                    Err(e) => {
                        return Err(DataError::corrupt(
                            input,
                            format!("unreadable {} text: {e}", delim.describe()),
                            "check the quoting on that line (a quote opened and never closed), or save the data \
                             as .npy",
                        ));
                    }
                }
                if rec.iter().all(str::is_empty) {
                    continue; // a blank line, or one of spaces
                }
                let mut at = rec.position().map_or(seen, |p| p.byte() as usize).min(body.len());
                // A record's position is where the previous one ended, before any blank lines.
                while matches!(body.as_bytes().get(at), Some(b'\n' | b'\r')) {
                    at += 1;
                }
                line += body.as_bytes()[seen.min(at)..at]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                seen = seen.max(at);
                let cells: Vec<&str> = rec.iter().collect();
                row(line, &cells)?;
            }
        }
    }
    Ok(())
}

fn is_header(row0: &[String], row1: Option<&[String]>) -> bool {
    match row1 {
        None => row0.iter().all(|c| parse_num(c).is_none()),
        Some(row1) => row0
            .iter()
            .zip(row1)
            .any(|(a, b)| parse_num(a).is_none() && (parse_num(b).is_some() || a.is_empty() && !b.is_empty())),
    }
}

/// The parsed table, before row selection.
struct Table<T> {
    data: Vec<T>,
    rows: usize,
    cols: usize,
    labels: Option<Vec<String>>,
    columns: Option<Vec<String>>,
    note: String,
    warnings: Vec<String>,
}

fn parse<T: Scalar>(input: &str, text: &str, opts: &LoadOptions) -> Result<Table<T>, DataError> {
    // `#` lines before the first data row: np.savetxt's header.
    let mut skipped = 0;
    let mut body = text;
    loop {
        let (line, rest) = body.split_once('\n').unwrap_or((body, ""));
        if line.trim_start().starts_with('#') || (line.trim().is_empty() && !rest.is_empty()) {
            body = rest;
            skipped += 1;
        } else {
            break;
        }
    }
    let sample: Vec<&str> = body
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(SNIFF_LINES)
        .collect();
    if sample.is_empty() {
        return Err(DataError::Empty {
            input: input.to_string(),
            detail: "the text holds no rows".into(),
        });
    }
    let delim = sniff(&sample);
    let first_line = skipped + 1;

    // The first two records decide header and labels; they are held as owned strings until then.
    let mut head: Vec<(usize, Vec<String>)> = Vec::new();
    let mut layout: Option<Layout> = None;
    let mut t = Table::<T> {
        data: Vec::new(),
        rows: 0,
        cols: 0,
        labels: None,
        columns: None,
        note: String::new(),
        warnings: Vec::new(),
    };
    let flush = |head: &mut Vec<(usize, Vec<String>)>, t: &mut Table<T>| -> Result<Layout, DataError> {
        let l = decide(input, head, opts, delim, t)?;
        for (k, (line, cells)) in std::mem::take(head).into_iter().enumerate() {
            if !(l.header && k == 0) {
                let refs: Vec<&str> = cells.iter().map(String::as_str).collect();
                push_row(input, line, &refs, &l, t)?;
            }
        }
        Ok(l)
    };
    records(input, body, first_line, delim, |line, cells| match &layout {
        Some(l) => push_row(input, line, cells, l, &mut t),
        None => {
            head.push((line, cells.iter().map(|c| (*c).to_string()).collect()));
            if head.len() == 2 {
                layout = Some(flush(&mut head, &mut t)?);
            }
            Ok(())
        }
    })?;
    if layout.is_none() {
        flush(&mut head, &mut t)?; // fewer than two records
    }
    if t.rows == 0 {
        return Err(DataError::Empty {
            input: input.to_string(),
            detail: "the text holds a header row but no data rows".into(),
        });
    }
    Ok(t)
}

/// Where the numbers and labels are in each record.
struct Layout {
    width: usize,
    header: bool,
    label: Option<usize>,
}

/// Decides header and label column from the first (up to) two records; consumes the header row.
fn decide<T>(
    input: &str,
    head: &[(usize, Vec<String>)],
    opts: &LoadOptions,
    delim: Delim,
    t: &mut Table<T>,
) -> Result<Layout, DataError> {
    let Some((_, row0)) = head.first() else {
        return Err(DataError::Empty {
            input: input.to_string(),
            detail: "the text holds no rows".into(),
        });
    };
    let row1 = head.get(1).map(|(_, r)| r.as_slice());
    let header = match opts.has_header {
        Some(h) => h,
        None => {
            let h = is_header(row0, row1);
            if h {
                t.warnings.push(format!(
                    "`{input}`: the first row was read as column names (has_header overrides this)"
                ));
            }
            h
        }
    };
    let width = row0.len();
    let first_data = if header { row1 } else { Some(row0.as_slice()) };
    let label = match (opts.label_column, first_data) {
        (LabelColumn::None, _) => None,
        (LabelColumn::First, _) => Some(0),
        (LabelColumn::Last, _) => Some(width.saturating_sub(1)),
        (LabelColumn::Auto, Some(r)) if r.len() >= 2 => {
            let pick = if parse_num(&r[0]).is_none() {
                Some(0)
            } else if parse_num(&r[r.len() - 1]).is_none() {
                Some(r.len() - 1)
            } else {
                None
            };
            if let Some(c) = pick {
                t.warnings.push(format!(
                    "`{input}`: column {} is not numeric and was read as row labels (label_column overrides this)",
                    c + 1
                ));
            }
            pick
        }
        (LabelColumn::Auto, _) => None,
    };
    if label.is_some() && width < 2 {
        return Err(DataError::BadShape {
            input: input.to_string(),
            shape: vec![head.len() as u64, width as u64],
            expected: "a label column needs at least one numeric column beside it".into(),
        });
    }
    if header {
        t.columns = Some(
            row0.iter()
                .enumerate()
                .filter(|&(j, _)| Some(j) != label)
                .map(|(_, c)| c.clone())
                .collect(),
        );
    }
    if label.is_some() {
        t.labels = Some(Vec::new());
    }
    t.cols = width - usize::from(label.is_some());
    t.note = format!(
        "{} text{}{}",
        delim.describe(),
        if header { ", header row" } else { "" },
        match label {
            Some(0) => ", labels in the first column",
            Some(_) => ", labels in the last column",
            None => "",
        }
    );
    Ok(Layout { width, header, label })
}

fn push_row<T: Scalar>(
    input: &str,
    line: usize,
    cells: &[&str],
    l: &Layout,
    t: &mut Table<T>,
) -> Result<(), DataError> {
    if cells.len() != l.width {
        return Err(DataError::Ragged {
            input: input.to_string(),
            location: format!("line {line}"),
            got: cells.len(),
            expected: l.width,
        });
    }
    for (j, cell) in cells.iter().enumerate() {
        if Some(j) == l.label {
            if let Some(labels) = t.labels.as_mut() {
                labels.push((*cell).to_string());
            }
            continue;
        }
        let v = parse_num(cell).ok_or_else(|| DataError::Parse {
            input: input.to_string(),
            text: (*cell).to_string(),
            line,
            column: j + 1,
            hint: hint(j, l, t.cols),
        })?;
        if t.data.try_reserve(1).is_err() {
            return Err(DataError::OutOfMemory {
                input: input.to_string(),
                bytes: (t.data.len() as u64 + 1) * std::mem::size_of::<T>() as u64,
            });
        }
        t.data.push(T::from_f64(v));
    }
    t.rows += 1;
    Ok(())
}

fn hint(j: usize, l: &Layout, cols: usize) -> String {
    let edge = j == 0 || j + 1 == l.width;
    if l.label.is_none() && edge && cols >= 1 {
        "; if this column holds row labels: a first or last label column is recognised only when its entry in \
         the first data row is not a number"
            .into()
    } else {
        "; numbers are written like 1.5, -2e-3, nan, inf (decimal point, not comma)".into()
    }
}

fn select<T: Scalar>(input: &str, t: Table<T>, rows: Option<&[usize]>) -> Result<Table<T>, DataError> {
    let Some(sel) = rows else {
        return Ok(t);
    };
    if sel.is_empty() {
        return Err(DataError::Empty {
            input: input.to_string(),
            detail: "the row subset is empty; pass at least one row index".into(),
        });
    }
    if let Some(&bad) = sel.iter().find(|&&r| r >= t.rows) {
        return Err(DataError::RowOutOfRange {
            input: input.to_string(),
            index: bad,
            rows: t.rows as u64,
        });
    }
    let mut data = array::alloc::<T>(input, sel.len() * t.cols)?;
    for (i, &r) in sel.iter().enumerate() {
        data[i * t.cols..(i + 1) * t.cols].copy_from_slice(&t.data[r * t.cols..(r + 1) * t.cols]);
    }
    let labels = t
        .labels
        .as_ref()
        .map(|l| sel.iter().map(|&r| l.get(r).cloned().unwrap_or_default()).collect());
    Ok(Table {
        data,
        rows: sel.len(),
        labels,
        ..t
    })
}

fn info<T>(t: &Table<T>, len: u64) -> ArrayInfo {
    ArrayInfo {
        name: None,
        dtype: "float64".into(),
        stored_dtype: "text".into(),
        shape: vec![t.rows as u64, t.cols as u64],
        fortran_order: false,
        byte_size: len,
        data_offset: None,
        compressed_size: None,
        rows: t.rows as u64,
        cols: t.cols as u64,
        note: Some(t.note.clone()),
        problem: None,
    }
}

fn into_loaded<T: Scalar>(
    input: &str,
    t: Table<T>,
    info: ArrayInfo,
    mut warnings: Vec<String>,
) -> Result<Loaded<T>, DataError> {
    let matrix = Matrix::from_vec(t.rows, t.cols, t.data)
        .map_err(|e| DataError::internal(input, format!("assembling the matrix: {e}")))?;
    warnings.extend(t.warnings);
    warnings.extend(nonfinite_warning(input, &matrix));
    Ok(Loaded {
        format: Format::Csv,
        matrix,
        labels: t.labels,
        column_names: t.columns,
        info,
        warnings,
    })
}

/// Describes a text table (delimiter, header, labels, shape). Text has no header, so the whole file is parsed.
///
/// # Errors
/// As [`load`] with default options.
///
/// # Examples
/// ```
/// let tsv: &[u8] = b"cat\t1\t2\ndog\t3\t4\n";
/// let info = lethe::data::text::inspect("v.tsv", &tsv).unwrap();
/// assert_eq!((info.arrays[0].rows, info.arrays[0].cols), (2, 2));
/// ```
pub fn inspect(input: &str, src: &dyn ByteSource) -> Result<FileInfo, DataError> {
    let loaded = load::<f64>(input, src, &LoadOptions::default())?;
    Ok(FileInfo {
        input: input.to_string(),
        format: Format::Csv,
        file_size: src.len(),
        arrays: vec![loaded.info],
        warnings: loaded.warnings,
    })
}

/// Loads a delimited text table as a matrix, with row labels and column names when present.
///
/// # Errors
/// [`DataError::TooLarge`] over `max_bytes`, [`DataError::Corrupt`] for non-UTF-8 text,
/// [`DataError::Empty`], [`DataError::Ragged`] (naming the line), [`DataError::Parse`] (naming line and
/// column), [`DataError::RowOutOfRange`].
///
/// # Examples
/// ```
/// use lethe::data::{LoadOptions, text};
/// let tsv: &[u8] = b"cat\t0.5\t1\ndog\tnan\t2\n";
/// let got = text::load::<f64>("v.tsv", &tsv, &LoadOptions::default()).unwrap();
/// assert_eq!(got.labels.unwrap(), vec!["cat", "dog"]);
/// assert!(got.matrix.as_slice()[2].is_nan());
/// assert!(got.warnings.iter().any(|w| w.contains("1 NaN")));
/// ```
pub fn load<T: Scalar>(input: &str, src: &dyn ByteSource, opts: &LoadOptions) -> Result<Loaded<T>, DataError> {
    let text = read_text(input, src, opts.max_bytes)?;
    let mut warnings = Vec::new();
    if let Some(name) = &opts.name {
        warnings.push(format!(
            "`{input}` is a single table; the array name `{name}` was ignored"
        ));
    }
    let t = parse::<T>(input, &text, opts)?;
    let t = select(input, t, opts.rows.as_deref())?;
    let info = info(&t, src.len());
    into_loaded(input, t, info, warnings)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a panic is how a test reports failure
mod tests {
    use super::*;

    fn table(s: &str) -> Result<Loaded<f64>, DataError> {
        load("t.csv", &s.as_bytes(), &LoadOptions::default())
    }

    #[test]
    fn sniffs_delimiters() {
        assert_eq!(sniff(&["1,2,3", "4,5,6"]), Delim::Byte(b','));
        assert_eq!(sniff(&["a\tb, c\t1", "d\te\t2"]), Delim::Byte(b'\t'));
        assert_eq!(sniff(&["1;2", "3;4"]), Delim::Byte(b';'));
        assert_eq!(sniff(&["1 2", "3   4"]), Delim::Whitespace);
        assert_eq!(sniff(&["\"a,b\";1", "\"c\";2"]), Delim::Byte(b';'));
    }

    #[test]
    fn header_and_labels() {
        let t = table("id,x\n\"a\",1\nb,2\n").unwrap();
        assert_eq!(t.column_names.unwrap(), vec!["x"]);
        assert_eq!(t.labels.unwrap(), vec!["a", "b"]);
        let t = table("1\n2\n").unwrap();
        assert_eq!((t.matrix.rows(), t.matrix.cols()), (2, 1));
        assert!(t.column_names.is_none() && t.labels.is_none());
        let t = table("x\n5\n").unwrap();
        assert_eq!(t.column_names.unwrap(), vec!["x"]);
        assert!(table("x,y\n").unwrap_err().to_string().contains("no data rows"));
        assert!(table("").is_err());
        assert!(table("  \n\n").is_err());
    }

    #[test]
    fn ragged_and_bad_cells_name_the_line() {
        let e = table("1,2\n\n3\n").unwrap_err().to_string();
        assert!(e.contains("line 3"), "{e}");
        let e = table("# c\n1 2\n3 x\n").unwrap_err().to_string();
        assert!(
            e.contains("line 3") && e.contains("column 2") && e.contains("`x`"),
            "{e}"
        );
    }
}
