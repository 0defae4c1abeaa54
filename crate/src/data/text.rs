//! Delimited text: CSV, TSV (the TensorBoard Embedding Projector's `vectors.tsv`/labelled TSVs),
//! semicolon-separated and whitespace-separated (`np.savetxt`) tables of numbers.
//!
//! - **Delimiter**: sniffed from the first 20 lines: the first of tab, semicolon, comma that occurs the same
//!   (non-zero) number of times on each, outside double quotes; else the one most frequent on the first line;
//!   else runs of whitespace (where a cell wrapped in double quotes, `"-0.12"`, loses its quotes, so a one-column
//!   file of quoted numbers reads like one of bare numbers).
//! - **Header**: the first row is a header when one of its cells is not a number where the second row's cell
//!   is one (or is empty where the second row's is not, as pandas writes an unnamed index column);
//!   [`LoadOptions::has_header`] overrides.
//! - **Labels**: with [`LabelColumn::Auto`], a first (else last) column that is not a number in the first data
//!   row is read as row labels, verbatim.
//! - **Label and ID columns**: with a header, a column named like a label, target, class, split or ID (`label`,
//!   `labels`, `target`, `class`, `y`, `id`, `idx`, `index`, `split`, `fold`, `subset`, names ending in `_id`,
//!   `_idx` or `_label`; `y` only as the first or last of at least three columns, none named `x`) is left out of
//!   the features when it holds whole numbers or text, with a warning naming it ([`ColumnChoice::Auto`]); one
//!   holding other numbers is kept, with a warning. [`LoadOptions::columns`] (or an array name `columns=…`,
//!   `drop=…`: see [`ColumnChoice::from_name`]) chooses the columns instead.
//! - **Numbers** are parsed as Rust's `f64::from_str` does (correctly rounded, as Python's `float()` and
//!   numpy's `loadtxt`), accepting `nan`, `inf`, `-inf`, `infinity` in any case; they are kept and reported in
//!   the warnings, not hidden. Loading as `f32` rounds the f64 value once more, as `loadtxt(dtype=float32)`.
//! - Empty lines are skipped; `#` lines before the first row are skipped (an `np.savetxt` header); a UTF-8
//!   byte-order mark is ignored; rows of different lengths are an error naming the line.
//!
//! The text is streamed from its source a chunk (1 MiB) at a time, cell by cell (`csv-core` for delimited text,
//! quoting included): [`inspect`] keeps nothing but counts and two bits per cell of the first row (a 1 GiB
//! one-line file costs 1 MiB plus 64 MiB, not a copy of the line), and [`load`] keeps only the values of the rows
//! asked for. Text has no header giving its size: [`LoadOptions::max_bytes`] bounds the file size, and the values
//! kept are allocated fallibly.

use std::collections::HashMap;

use super::array;
use super::load::{
    ArrayInfo, ColumnChoice, FileInfo, Format, LabelColumn, LoadOptions, Loaded, TextColumn, nonfinite_text,
    nonfinite_warning,
};
use super::source::ByteSource;
use super::{DataError, Matrix, Scalar};
use crate::note::{Note, NoteKind};

/// Lines looked at to sniff the delimiter.
const SNIFF_LINES: usize = 20;

/// Bytes read from the source per step.
const CHUNK: usize = 1 << 20;

/// The delimiters sniffed for, in order of preference.
const CANDIDATES: [u8; 3] = [b'\t', b';', b','];

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

fn too_large(input: &str, len: u64, max_bytes: u64) -> DataError {
    DataError::TooLarge {
        input: input.to_string(),
        needed: len,
        limit: max_bytes,
        hint: " (text files are read whole); split the file, save the array as .npy (which loads row \
               subsets without reading the rest), or raise max_bytes"
            .to_string(),
    }
}

/// Reads the whole source as UTF-8 text (BOM removed), refusing sources over `max_bytes` (JSON).
pub(crate) fn read_text(input: &str, src: &dyn ByteSource, max_bytes: u64) -> Result<String, DataError> {
    let len = src.len();
    if len > max_bytes {
        return Err(too_large(input, len, max_bytes));
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

/// Sequential reads of a source, a chunk at a time.
struct Chunks<'a> {
    input: &'a str,
    src: &'a dyn ByteSource,
    /// Offset of the first byte not yet in `buf`.
    next: u64,
    buf: Vec<u8>,
    /// Bytes of `buf` already used.
    lo: usize,
}

impl<'a> Chunks<'a> {
    fn new(input: &'a str, src: &'a dyn ByteSource, at: u64) -> Self {
        Self {
            input,
            src,
            next: at,
            buf: Vec::new(),
            lo: 0,
        }
    }

    /// The number of unused bytes in `buf[lo..]`, reading the next chunk when none are left; 0 at the end.
    fn fill(&mut self) -> Result<usize, DataError> {
        if self.lo == self.buf.len() {
            let left = self.src.len().saturating_sub(self.next);
            let n = usize::try_from(left).map_or(CHUNK, |l| l.min(CHUNK));
            self.buf.clear();
            self.buf.resize(n, 0);
            self.lo = 0;
            if n > 0 {
                self.src
                    .read_at(self.next, &mut self.buf)
                    .map_err(|e| array::io_error(self.input, "the text", &e))?;
                self.next += n as u64;
            }
        }
        Ok(self.buf.len() - self.lo)
    }

    fn pos(&self) -> u64 {
        self.next - (self.buf.len() - self.lo) as u64
    }
}

/// Where the rows start (after a byte-order mark, `#` lines and blank lines) and how many lines were skipped.
fn body_start(input: &str, src: &dyn ByteSource) -> Result<(u64, usize), DataError> {
    let mut bom = [0u8; 3];
    let start = if src.len() >= 3 {
        src.read_at(0, &mut bom)
            .map_err(|e| array::io_error(input, "the text", &e))?;
        if bom == *b"\xef\xbb\xbf" { 3 } else { 0 }
    } else {
        0
    };
    let mut c = Chunks::new(input, src, start);
    let mut skipped = 0;
    loop {
        let line_start = c.pos();
        // The line's first byte that is not a space, or the end of the line.
        let (mut first, mut ended) = (None, false);
        'line: loop {
            let n = c.fill()?;
            if n == 0 {
                break;
            }
            for i in 0..n {
                let b = c.buf[c.lo + i];
                if b == b'\n' {
                    c.lo += i + 1;
                    ended = true;
                    break 'line;
                }
                if first.is_none() && !b.is_ascii_whitespace() {
                    first = Some(b);
                    if b != b'#' {
                        return Ok((line_start, skipped));
                    }
                }
            }
            c.lo += n;
        }
        if !ended {
            return Ok((src.len(), skipped)); // only comments and blank lines: no rows
        }
        skipped += 1;
    }
}

/// The delimiter from the counts of each candidate outside quotes on each non-blank sampled line.
fn delim_from_counts(lines: &[[usize; 3]]) -> Delim {
    for (k, &d) in CANDIDATES.iter().enumerate() {
        let first = lines.first().map_or(0, |l| l[k]);
        if first > 0 && lines.iter().all(|l| l[k] == first) {
            return Delim::Byte(d);
        }
    }
    let first = lines.first().copied().unwrap_or([0; 3]);
    (0..3)
        .map(|k| (first[k], CANDIDATES[k]))
        .filter(|&(c, _)| c > 0)
        .max_by_key(|&(c, _)| c)
        .map_or(Delim::Whitespace, |(_, d)| Delim::Byte(d))
}

/// Counts of each candidate delimiter outside double quotes in `line` (what [`sniff_source`] counts line by line).
#[cfg(test)]
fn counts(line: &[u8]) -> [usize; 3] {
    let mut quoted = false;
    let mut out = [0; 3];
    for &b in line {
        if b == b'"' {
            quoted = !quoted;
        } else if !quoted && let Some(k) = CANDIDATES.iter().position(|&d| d == b) {
            out[k] += 1;
        }
    }
    out
}

#[cfg(test)]
fn sniff(lines: &[&str]) -> Delim {
    let c: Vec<[usize; 3]> = lines.iter().map(|l| counts(l.as_bytes())).collect();
    delim_from_counts(&c)
}

/// Sniffs the delimiter from the first [`SNIFF_LINES`] non-blank lines from `start`; `None` when there are none.
fn sniff_source(input: &str, src: &dyn ByteSource, start: u64) -> Result<Option<Delim>, DataError> {
    let mut c = Chunks::new(input, src, start);
    let mut lines = Vec::new();
    let (mut cur, mut quoted, mut blank) = ([0usize; 3], false, true);
    loop {
        let n = c.fill()?;
        if n == 0 {
            if !blank {
                lines.push(cur);
            }
            break;
        }
        for i in 0..n {
            let b = c.buf[c.lo + i];
            if b == b'\n' {
                if !blank {
                    lines.push(cur);
                    if lines.len() == SNIFF_LINES {
                        return Ok(Some(delim_from_counts(&lines)));
                    }
                }
                (cur, quoted, blank) = ([0; 3], false, true);
                continue;
            }
            if !b.is_ascii_whitespace() {
                blank = false;
            }
            if b == b'"' {
                quoted = !quoted;
            } else if !quoted && let Some(k) = CANDIDATES.iter().position(|&d| d == b) {
                cur[k] += 1;
            }
        }
        c.lo += n;
    }
    Ok((!lines.is_empty()).then(|| delim_from_counts(&lines)))
}

/// What the cell scanner reports.
enum Ev<'a> {
    /// Cell `col` (from 0) of the record that starts on line `line`, trimmed.
    Cell { line: usize, col: usize, text: &'a str },
    /// The end of a record of `cells` cells.
    End { line: usize, cells: usize },
}

/// Continue scanning (`true`) or stop.
type Flow = Result<bool, DataError>;

/// The record being scanned: records all of whose cells are empty (blank lines, lines of spaces or of bare
/// delimiters) are skipped, so their empty cells are held back until a cell with content comes.
#[derive(Default)]
struct Rec {
    line: usize,
    col: usize,
    pending: usize,
    content: bool,
}

impl Rec {
    fn cell(&mut self, text: &str, on: &mut dyn FnMut(Ev<'_>) -> Flow) -> Flow {
        if text.is_empty() && !self.content {
            self.pending += 1;
            self.col += 1;
            return Ok(true);
        }
        if !self.content {
            self.content = true;
            for col in 0..self.pending {
                if !on(Ev::Cell {
                    line: self.line,
                    col,
                    text: "",
                })? {
                    return Ok(false);
                }
            }
        }
        let col = self.col;
        self.col += 1;
        on(Ev::Cell {
            line: self.line,
            col,
            text,
        })
    }

    fn end(&mut self, on: &mut dyn FnMut(Ev<'_>) -> Flow) -> Flow {
        let go = if self.content {
            on(Ev::End {
                line: self.line,
                cells: self.col,
            })?
        } else {
            true
        };
        *self = Self::default();
        Ok(go)
    }
}

fn not_utf8(input: &str, line: usize, col: usize) -> DataError {
    DataError::corrupt(
        input,
        format!("it is not UTF-8 text (an invalid byte in line {line}, column {col}, both counting from 1)"),
        "save it as UTF-8 text, or as .npy",
    )
}

/// Ends the whitespace-separated cell in `field`, if any (a cell wrapped in double quotes loses them).
fn flush_ws(input: &str, field: &mut Vec<u8>, rec: &mut Rec, line: usize, on: &mut dyn FnMut(Ev<'_>) -> Flow) -> Flow {
    if field.is_empty() {
        return Ok(true);
    }
    if rec.col == 0 {
        rec.line = line;
    }
    let text = std::str::from_utf8(field).map_err(|_| not_utf8(input, line, rec.col + 1))?;
    let text = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(text);
    let go = rec.cell(text, on)?;
    field.clear();
    Ok(go)
}

/// Calls `on` for every cell and every record end of the text from byte `start` (where line `line0` begins),
/// until `on` says stop or the text ends.
fn scan(
    input: &str,
    src: &dyn ByteSource,
    start: u64,
    line0: usize,
    delim: Delim,
    on: &mut dyn FnMut(Ev<'_>) -> Flow,
) -> Result<(), DataError> {
    let mut c = Chunks::new(input, src, start);
    let mut rec = Rec::default();
    let mut field: Vec<u8> = Vec::new();
    let mut line = line0;
    match delim {
        Delim::Whitespace => loop {
            let n = c.fill()?;
            if n == 0 {
                if flush_ws(input, &mut field, &mut rec, line, on)? {
                    rec.end(on)?;
                }
                return Ok(());
            }
            for i in 0..n {
                let b = c.buf[c.lo + i];
                if b == b'\n' {
                    if !flush_ws(input, &mut field, &mut rec, line, on)? || !rec.end(on)? {
                        return Ok(());
                    }
                    line += 1;
                } else if b.is_ascii_whitespace() {
                    if !flush_ws(input, &mut field, &mut rec, line, on)? {
                        return Ok(());
                    }
                } else {
                    field.push(b);
                }
            }
            c.lo += n;
        },
        Delim::Byte(d) => {
            use csv_core::ReadFieldResult as R;
            let mut rdr = csv_core::ReaderBuilder::new().delimiter(d).build();
            field.resize(1024, 0);
            let (mut len, mut at_start) = (0usize, true);
            loop {
                let mut n = c.fill()?;
                if at_start {
                    // Line breaks between records (blank lines) are counted here, so a record's line is known.
                    let mut k = 0;
                    while k < n && matches!(c.buf[c.lo + k], b'\n' | b'\r') {
                        line += usize::from(c.buf[c.lo + k] == b'\n');
                        k += 1;
                    }
                    c.lo += k;
                    if n > 0 && k == n {
                        continue;
                    }
                    n -= k;
                    rec.line = line;
                    at_start = false;
                }
                let chunk = &c.buf[c.lo..c.lo + n];
                let (res, nin, nout) = rdr.read_field(chunk, &mut field[len..]);
                line += chunk[..nin].iter().filter(|&&b| b == b'\n').count();
                c.lo += nin;
                len += nout;
                match res {
                    R::InputEmpty => {
                        if n == 0 {
                            return Ok(()); // the reader wants more and there is none (it does not happen)
                        }
                    }
                    R::OutputFull => {
                        let grown = field.len().saturating_mul(2);
                        field.resize(grown, 0);
                    }
                    R::Field { record_end } => {
                        let text =
                            std::str::from_utf8(&field[..len]).map_err(|_| not_utf8(input, rec.line, rec.col + 1))?;
                        len = 0;
                        if !rec.cell(text.trim(), on)? {
                            return Ok(());
                        }
                        if record_end {
                            if !rec.end(on)? {
                                return Ok(());
                            }
                            at_start = true;
                        }
                    }
                    R::End => return Ok(()),
                }
            }
        }
    }
}

/// How a cell reads, for the header and label decisions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Num = 0,
    Empty = 1,
    Text = 2,
}

fn class(s: &str) -> Class {
    if s.is_empty() {
        Class::Empty
    } else if parse_num(s).is_some() {
        Class::Num
    } else {
        Class::Text
    }
}

/// The classes of the first row's cells, two bits each.
#[derive(Default)]
struct Classes {
    bits: Vec<u8>,
    len: usize,
}

impl Classes {
    fn push(&mut self, c: Class) {
        if self.len.is_multiple_of(4) {
            self.bits.push(0);
        }
        if let Some(b) = self.bits.last_mut() {
            *b |= (c as u8) << (2 * (self.len % 4));
        }
        self.len += 1;
    }

    fn get(&self, j: usize) -> Option<Class> {
        let b = (self.bits.get(j / 4)? >> (2 * (j % 4))) & 3;
        (j < self.len).then_some(match b {
            0 => Class::Num,
            1 => Class::Empty,
            _ => Class::Text,
        })
    }
}

/// How a header name marks its column as not a feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Named {
    /// A label, target, class, split or ID name; the number orders which one serves as row labels (split first).
    Strong(u8),
    /// `y`: only as the first or last of at least three columns, none named `x`.
    Y,
    /// No name in the first column: pandas' index (left out, with a warning, when it counts rows 0, 1, 2, …).
    Unnamed,
}

fn named(name: &str) -> Option<Named> {
    let n = name.trim();
    let is = |w: &str| n.eq_ignore_ascii_case(w);
    let ends = |w: &str| n.len() > w.len() && n.as_bytes()[n.len() - w.len()..].eq_ignore_ascii_case(w.as_bytes());
    if is("split") {
        Some(Named::Strong(0))
    } else if ["label", "labels", "target", "targets", "class", "classes"]
        .iter()
        .any(|w| is(w))
        || ends("_label")
    {
        Some(Named::Strong(1))
    } else if is("fold") || is("subset") {
        Some(Named::Strong(2))
    } else if ["id", "ids", "idx", "index", "unnamed: 0"].iter().any(|w| is(w)) || ends("_id") || ends("_idx") {
        Some(Named::Strong(3))
    } else if is("y") {
        Some(Named::Y)
    } else if n.is_empty() {
        Some(Named::Unnamed)
    } else {
        None
    }
}

/// What the first two records say (pass one).
#[derive(Default)]
struct Head {
    records: usize,
    classes0: Classes,
    /// Whether some cell of the first row is not a number where the second row's is one (or is empty where the
    /// second row's is not).
    header_vote: bool,
    /// Whether no cell of the first row is a number.
    all_text0: bool,
    width: [usize; 2],
    first: [Option<Class>; 2],
    last: [Option<Class>; 2],
    /// First-row cells named like a label or ID: column, name, kind.
    named: Vec<(usize, String, Named)>,
    x_col: bool,
    /// Column names asked for by [`ColumnChoice`], and where the first row has them.
    wanted: HashMap<String, Option<usize>>,
}

impl Head {
    fn read(
        input: &str,
        src: &dyn ByteSource,
        start: u64,
        line: usize,
        delim: Delim,
        wanted: &[String],
    ) -> Result<Self, DataError> {
        let mut h = Head {
            all_text0: true,
            wanted: wanted.iter().map(|w| (w.clone(), None)).collect(),
            ..Head::default()
        };
        scan(input, src, start, line, delim, &mut |ev| {
            match ev {
                Ev::Cell { col, text, .. } => {
                    let c = class(text);
                    let r = h.records;
                    h.first[r].get_or_insert(c);
                    h.last[r] = Some(c);
                    if r == 0 {
                        h.classes0.push(c);
                        h.all_text0 &= c != Class::Num;
                        // (A row of thousands of such names is no header anyone reads: the count is bounded.)
                        if let Some(kind) = named(text)
                            && (kind != Named::Unnamed || col == 0)
                            && h.named.len() < 4096
                        {
                            h.named.push((col, text.to_string(), kind));
                        }
                        h.x_col |= text.eq_ignore_ascii_case("x");
                        if let Some(slot @ None) = h.wanted.get_mut(text) {
                            *slot = Some(col);
                        }
                    } else if let Some(c0) = h.classes0.get(col) {
                        h.header_vote |=
                            c0 != Class::Num && (c == Class::Num || c0 == Class::Empty && c != Class::Empty);
                    }
                }
                Ev::End { cells, .. } => {
                    h.width[h.records] = cells;
                    h.records += 1;
                }
            }
            Ok(h.records < 2)
        })?;
        Ok(h)
    }
}

/// What a column is read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Role {
    /// Values of output column `out`.
    Feature(usize),
    /// Row labels, verbatim.
    Label,
    /// Named like a label or ID: read as output column `out` until the end says whether it is left out
    /// (candidate `k`).
    Candidate(usize, usize),
    /// Not read (not chosen).
    Skip,
}

/// The role of every column, held as the few columns that are not plain features (so a table a million columns
/// wide costs nothing per column).
struct Roles {
    /// Columns with another role, ascending, and how many of them up to and including each are not features.
    special: Vec<(usize, Role, usize)>,
    /// Whether the columns not in `special` are features (else they are not read).
    rest_features: bool,
    width: usize,
    /// Output columns.
    features: usize,
}

impl Roles {
    fn new(mut special: Vec<(usize, Role)>, rest_features: bool, width: usize) -> Self {
        special.retain(|&(c, _)| c < width);
        special.sort_by_key(|&(c, _)| c);
        let mut not = 0;
        let special: Vec<(usize, Role, usize)> = special
            .into_iter()
            .map(|(c, r)| {
                not += usize::from(!matches!(r, Role::Feature(_) | Role::Candidate(..)));
                (c, r, not)
            })
            .collect();
        let features = if rest_features {
            width - not
        } else {
            special.iter().filter(|(_, r, _)| matches!(r, Role::Feature(_))).count()
        };
        Self {
            special,
            rest_features,
            width,
            features,
        }
    }

    /// The role of column `col`; `None` past the width.
    fn get(&self, col: usize) -> Option<Role> {
        if col >= self.width {
            return None;
        }
        let i = self.special.partition_point(|&(c, ..)| c < col);
        match self.special.get(i) {
            Some(&(c, r, _)) if c == col => Some(r),
            _ if self.rest_features => {
                let before = i.checked_sub(1).map_or(0, |k| self.special[k].2);
                Some(Role::Feature(col - before))
            }
            _ => Some(Role::Skip),
        }
    }
}

/// Where the numbers and labels are in each record.
struct Layout {
    width: usize,
    header: bool,
    /// The row-label column.
    label: Option<usize>,
    roles: Roles,
    /// Output columns before candidates are decided.
    cols: usize,
    note: String,
}

/// A label/ID-named column: what its values turned out to be.
struct Candidate {
    col: usize,
    out: usize,
    name: String,
    kind: Named,
    /// Every numeric value is a whole number.
    integer: bool,
    /// Some value is not a number: the first such (line, text).
    text: Option<(usize, String)>,
    /// The values are 0, 1, 2, … in order (pandas' index).
    counting: bool,
    /// Its cells, verbatim, for the rows kept.
    values: Vec<String>,
}

impl Candidate {
    /// Left out of the features: a label/ID-named column of whole numbers or text, or an unnamed first column
    /// holding the row numbers 0, 1, 2, … (pandas' index, written without `index=False`).
    fn left_out(&self) -> bool {
        match self.kind {
            Named::Unnamed => self.counting && self.text.is_none(),
            _ => self.integer || self.text.is_some(),
        }
    }
}

fn column_list(names: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = names.map(|n| format!("`{n}`")).collect();
    if v.len() > 30 {
        format!("{}, … ({} in all)", v[..30].join(", "), v.len())
    } else if v.is_empty() {
        "none (the file has no header row)".into()
    } else {
        v.join(", ")
    }
}

/// The header's names (for messages), at most 31.
fn header_names(input: &str, src: &dyn ByteSource, start: u64, delim: Delim) -> Result<Vec<String>, DataError> {
    let mut names = Vec::new();
    scan(input, src, start, 1, delim, &mut |ev| match ev {
        Ev::Cell { text, .. } => {
            names.push(text.to_string());
            Ok(names.len() <= 30)
        }
        Ev::End { .. } => Ok(false),
    })?;
    Ok(names)
}

/// Decides header, label column and the role of every column from the first two records.
fn decide(
    input: &str,
    src: &dyn ByteSource,
    (start, line): (u64, usize),
    delim: Delim,
    opts: &LoadOptions,
    choice: &ColumnChoice,
    warnings: &mut Vec<Note>,
) -> Result<(Layout, Vec<Candidate>), DataError> {
    let wanted: &[String] = match choice {
        ColumnChoice::Use(v) | ColumnChoice::Drop(v) => v,
        _ => &[],
    };
    let h = Head::read(input, src, start, line, delim, wanted)?;
    if h.records == 0 {
        return Err(DataError::Empty {
            input: input.to_string(),
            detail: "the text holds no rows".into(),
        });
    }
    let header = match opts.has_header {
        Some(v) => v,
        None => {
            let v = if h.records >= 2 { h.header_vote } else { h.all_text0 };
            if v {
                warnings.push(Note::new(
                    NoteKind::HeaderRow,
                    format!(
                        "`{input}`: the first row was read as column names (it holds text where the next row \
                         holds numbers)"
                    ),
                ));
            }
            v
        }
    };
    let width = h.width[0];
    let data_row = usize::from(header);
    let data_width = if data_row < h.records {
        Some(h.width[data_row])
    } else {
        None
    };
    let label = match (opts.label_column, data_width) {
        (LabelColumn::None, _) => None,
        (LabelColumn::First, _) => Some(0),
        (LabelColumn::Last, _) => Some(width.saturating_sub(1)),
        (LabelColumn::Auto, Some(w)) if w >= 2 => {
            let pick = if h.first[data_row] != Some(Class::Num) {
                Some(0)
            } else if h.last[data_row] != Some(Class::Num) {
                Some(w - 1)
            } else {
                None
            };
            if let Some(c) = pick {
                warnings.push(Note::new(
                    NoteKind::LabelColumn,
                    format!(
                        "`{input}`: column {} (counting from 1) is not numeric in the first data row and was read as row labels, not \
                         as a feature",
                        c + 1
                    ),
                ));
            }
            pick
        }
        (LabelColumn::Auto, _) => None,
    };
    // A first data row longer than the first row points past the width: that row is ragged, which its end says.
    let label = label.filter(|&l| l < width);
    // A column asked for by name or number.
    let resolve = |name: &str| -> Result<usize, DataError> {
        if header && let Some(&Some(c)) = h.wanted.get(name) {
            return Ok(c);
        }
        match name.parse::<usize>() {
            Ok(n) if (1..=width).contains(&n) => Ok(n - 1),
            _ => Err(DataError::NotFound {
                input: input.to_string(),
                what: "column",
                name: name.to_string(),
                available: format!(
                    "{} (or a column number from 1 to {width})",
                    if header {
                        column_list(header_names(input, src, start, delim)?.into_iter())
                    } else {
                        column_list(std::iter::empty())
                    }
                ),
            }),
        }
    };
    let mut label = label;
    let mut candidates = Vec::new();
    let roles = match choice {
        ColumnChoice::Use(list) => {
            let mut special: Vec<(usize, Role)> = Vec::with_capacity(list.len() + 1);
            for (out, name) in list.iter().enumerate() {
                let c = resolve(name)?;
                if special.iter().any(|&(s, _)| s == c) {
                    return Err(DataError::BadShape {
                        input: input.to_string(),
                        shape: vec![width as u64],
                        expected: format!("column `{name}` is chosen twice; name each column once"),
                    });
                }
                special.push((c, Role::Feature(out)));
            }
            if label.is_some_and(|l| special.iter().any(|&(s, _)| s == l)) {
                label = None; // the choice wins
            }
            special.extend(label.map(|l| (l, Role::Label)));
            Roles::new(special, false, width)
        }
        _ => {
            let mut special: Vec<(usize, Role)> = Vec::new();
            special.extend(label.map(|l| (l, Role::Label)));
            if let ColumnChoice::Drop(list) = choice {
                for name in list {
                    special.push((resolve(name)?, Role::Skip));
                }
            }
            let detect = header && *choice == ColumnChoice::Auto && opts.label_column != LabelColumn::None;
            for &(c, _, k) in &h.named {
                let candidate = detect
                    && match k {
                        Named::Strong(_) => true,
                        Named::Y => (c == 0 || c + 1 == width) && width >= 3 && !h.x_col,
                        Named::Unnamed => c == 0,
                    };
                if candidate && c < width {
                    special.push((c, Role::Candidate(0, 0)));
                }
            }
            // The first role given to a column wins: the label, then a dropped column, then a candidate.
            special.sort_by_key(|&(c, _)| c);
            special.dedup_by_key(|s| s.0);
            let mut before = 0; // columns before this one that are not features
            for (c, role) in &mut special {
                if let Role::Candidate(..) = role {
                    let out = *c - before;
                    *role = Role::Candidate(candidates.len(), out);
                    if let Some((_, name, kind)) = h.named.iter().find(|(col, ..)| col == c) {
                        candidates.push(Candidate {
                            col: *c,
                            out,
                            name: name.clone(),
                            kind: *kind,
                            integer: true,
                            text: None,
                            counting: true,
                            values: Vec::new(),
                        });
                    }
                } else {
                    before += 1;
                }
            }
            Roles::new(special, true, width)
        }
    };
    let cols = roles.features;
    if label.is_some() && width < 2 {
        return Err(DataError::BadShape {
            input: input.to_string(),
            shape: vec![h.records as u64, width as u64],
            expected: "a label column needs at least one numeric column beside it".into(),
        });
    }
    if cols == 0 {
        return Err(DataError::BadShape {
            input: input.to_string(),
            shape: vec![h.records as u64, width as u64],
            expected: "no column is left to read as a feature; choose at least one".into(),
        });
    }
    let note = format!(
        "{} text{}{}{}",
        delim.describe(),
        if header { ", header row" } else { "" },
        match label {
            Some(0) => ", labels in the first column",
            Some(_) => ", labels in the last column",
            None => "",
        },
        match choice {
            ColumnChoice::Use(v) => format!(", columns {} chosen", column_list(v.iter().cloned())),
            ColumnChoice::Drop(v) => format!(", columns {} left out", column_list(v.iter().cloned())),
            _ => String::new(),
        }
    );
    Ok((
        Layout {
            width,
            header,
            label,
            roles,
            cols,
            note,
        },
        candidates,
    ))
}

/// The parsed table.
struct Table<T> {
    data: Vec<T>,
    rows: usize,
    cols: usize,
    labels: Option<Vec<String>>,
    text_columns: Vec<TextColumn>,
    columns: Option<Vec<String>>,
    note: String,
    warnings: Vec<Note>,
}

fn hint(j: usize, l: &Layout) -> String {
    let edge = j == 0 || j + 1 == l.width;
    if l.label.is_none() && edge && l.cols >= 1 {
        "; if this column holds row labels: a first or last label column is recognised only when its entry in \
         the first data row is not a number"
            .into()
    } else {
        "; numbers are written like 1.5, -2e-3, nan, inf (decimal point, not comma)".into()
    }
}

/// Reads the table (pass two): every row is parsed and checked; with `store`, the values, labels and names of the
/// rows `keep` (ascending, distinct; `None`: all) are kept.
#[allow(clippy::too_many_lines)] // one pass over the cells, with what each column is
fn parse<T: Scalar>(
    input: &str,
    src: &dyn ByteSource,
    opts: &LoadOptions,
    keep: Option<&[usize]>,
    store: bool,
) -> Result<Table<T>, DataError> {
    let (start, skipped) = body_start(input, src)?;
    let Some(delim) = sniff_source(input, src, start)? else {
        return Err(DataError::Empty {
            input: input.to_string(),
            detail: "the text holds no rows".into(),
        });
    };
    let line0 = skipped + 1;
    let choice = match (&opts.columns, opts.name.as_deref().and_then(ColumnChoice::from_name)) {
        (ColumnChoice::Auto, Some(c)) => c,
        (c, _) => c.clone(),
    };
    let mut warnings = Vec::new();
    if let Some(name) = &opts.name
        && ColumnChoice::from_name(name).is_none()
    {
        warnings.push(Note::new(
            NoteKind::Reader,
            format!("`{input}` is a single table; the array name `{name}` was ignored"),
        ));
    }
    let (l, mut cands) = decide(input, src, (start, line0), delim, opts, &choice, &mut warnings)?;
    let mut data: Vec<T> = Vec::new();
    let mut labels: Vec<String> = Vec::new();
    let mut names: Vec<String> = vec![String::new(); if store && l.header { l.cols } else { 0 }];
    let (mut record, mut rows, mut next_keep) = (0usize, 0usize, 0usize);
    let (mut kept, mut base) = (false, 0usize);
    // Non-finite values (NaN, +inf, -inf) and the first one's (row, output column), for a warning without the
    // values (inspect).
    let mut nonfinite = ([0usize; 3], None::<(usize, usize)>);
    let mut count_nonfinite = |v: f64, row: usize, out: usize| {
        if !v.is_finite() {
            nonfinite.0[usize::from(v > 0.0) + 2 * usize::from(v < 0.0)] += 1;
            nonfinite.1.get_or_insert((row, out));
        }
    };
    let oom = |n: usize| DataError::OutOfMemory {
        input: input.to_string(),
        bytes: (n as u64).saturating_mul(std::mem::size_of::<T>() as u64),
    };
    scan(input, src, start, line0, delim, &mut |ev| {
        let is_header = l.header && record == 0;
        match ev {
            Ev::Cell { line, col, text } => {
                if col == 0 && !is_header {
                    kept = store && keep.is_none_or(|k| k.get(next_keep) == Some(&rows));
                    if kept {
                        base = data.len();
                        data.try_reserve(l.cols).map_err(|_| oom(base + l.cols))?;
                        data.resize(base + l.cols, T::default());
                    }
                }
                let Some(role) = l.roles.get(col) else {
                    return Ok(true); // past the width: said at the record's end
                };
                if is_header {
                    if let Role::Feature(out) | Role::Candidate(_, out) = role
                        && let Some(n) = names.get_mut(out)
                    {
                        *n = text.to_string();
                    }
                    return Ok(true);
                }
                match role {
                    Role::Feature(out) => {
                        let v = parse_num(text).ok_or_else(|| DataError::Parse {
                            input: input.to_string(),
                            text: text.to_string(),
                            line,
                            column: col + 1,
                            hint: hint(col, &l),
                        })?;
                        count_nonfinite(v, rows, out);
                        if kept {
                            data[base + out] = T::from_f64(v);
                        }
                    }
                    Role::Label => {
                        if kept {
                            labels.push(text.to_string());
                        }
                    }
                    Role::Candidate(k, out) => {
                        let c = &mut cands[k];
                        match parse_num(text) {
                            Some(v) => {
                                c.integer &= v.is_finite() && v.fract() == 0.0;
                                c.counting &= v == rows as f64;
                                count_nonfinite(v, rows, out);
                                if kept {
                                    data[base + out] = T::from_f64(v);
                                }
                            }
                            None => {
                                c.counting = false;
                                c.text.get_or_insert_with(|| (line, text.to_string()));
                            }
                        }
                        if kept {
                            c.values.push(text.to_string());
                        }
                    }
                    Role::Skip => {}
                }
            }
            Ev::End { line, cells } => {
                if cells != l.width {
                    return Err(DataError::Ragged {
                        input: input.to_string(),
                        location: format!("line {line}"),
                        got: cells,
                        expected: l.width,
                    });
                }
                if !is_header {
                    if kept {
                        next_keep += 1;
                    }
                    rows += 1;
                }
                record += 1;
            }
        }
        Ok(true)
    })?;
    if rows == 0 {
        return Err(DataError::Empty {
            input: input.to_string(),
            detail: "the text holds a header row but no data rows".into(),
        });
    }
    // Label/ID-named columns: left out when whole numbers or text, else kept (and said).
    let file = |c: &Candidate| format!("column {} (`{}`, counting from 1)", c.col + 1, c.name);
    for c in &cands {
        match c.kind {
            Named::Unnamed if c.left_out() => warnings.push(Note::new(
                NoteKind::LabelColumn,
                format!(
                "`{input}`: column {} (counting from 1) has no name and holds the row numbers 0, 1, 2, … (pandas writes its index so), \
                 so it was left out of the features; to use it as a feature, load every column ({})",
                c.col + 1,
                crate::words::pick("all-columns", Some(input))
            ),
            )),
            _ if c.left_out() => warnings.push(Note::new(
                NoteKind::LabelColumn,
                format!(
                "`{input}`: {} holds {} and is named like a label or ID column, so it was left out of the \
                 features; to use it as a feature, load every column ({})",
                file(c),
                if c.text.is_some() { "text" } else { "whole numbers" },
                crate::words::pick("all-columns", Some(input))
            ),
            )),
            Named::Unnamed => {
                if let Some((line, text)) = &c.text {
                    return Err(DataError::Parse {
                        input: input.to_string(),
                        text: text.clone(),
                        line: *line,
                        column: c.col + 1,
                        hint: hint(c.col, &l),
                    });
                }
            }
            _ => warnings.push(Note::new(
                NoteKind::Reader,
                format!(
                "`{input}`: {} is named like a label or ID column but holds numbers that are not whole, so it was \
                 kept as a feature; to leave it out, drop the column `{}`",
                file(c),
                c.name
            ),
            )),
        }
    }
    let out_kept: Vec<bool> = (0..l.cols)
        .map(|o| !cands.iter().any(|c| c.out == o && c.left_out()))
        .collect();
    let cols = out_kept.iter().filter(|&&k| k).count();
    if cols == 0 {
        return Err(DataError::BadShape {
            input: input.to_string(),
            shape: vec![rows as u64, l.width as u64],
            expected: "every column is a label or ID column; load every column to use them as features".into(),
        });
    }
    if cols < l.cols && store {
        let mut w = 0;
        for r in 0..data.len() / l.cols {
            for (o, &k) in out_kept.iter().enumerate() {
                if k {
                    data[w] = data[r * l.cols + o];
                    w += 1;
                }
            }
        }
        data.truncate(w);
        names = names
            .into_iter()
            .zip(&out_kept)
            .filter(|&(_, &k)| k)
            .map(|(n, _)| n)
            .collect();
    }
    let header_name = |c: usize, name: &str| {
        if l.header {
            name.to_string()
        } else {
            format!("column {}", c + 1)
        }
    };
    let mut text_columns = Vec::new();
    if let Some(c) = l.label.filter(|_| store) {
        text_columns.push(TextColumn {
            name: if l.header {
                header_names(input, src, start, delim)?
                    .get(c)
                    .cloned()
                    .unwrap_or_else(|| format!("column {}", c + 1))
            } else {
                format!("column {}", c + 1)
            },
            number: c + 1,
            values: labels,
        });
    }
    // pandas' index is no row label: never `labels`.
    let index_columns: Vec<usize> = cands
        .iter()
        .filter(|c| c.kind == Named::Unnamed && c.left_out())
        .map(|c| c.col + 1)
        .collect();
    let mut left: Vec<&mut Candidate> = cands.iter_mut().filter(|c| c.left_out()).collect();
    left.sort_by_key(|c| match c.kind {
        Named::Strong(p) => p,
        _ => 9,
    });
    for c in left {
        text_columns.push(TextColumn {
            name: header_name(c.col, &c.name),
            number: c.col + 1,
            values: std::mem::take(&mut c.values),
        });
    }
    let labels = text_columns
        .iter()
        .find(|t| !index_columns.contains(&t.number))
        .filter(|_| store)
        .map(|t| t.values.clone());
    text_columns.sort_by_key(|t| t.number);
    let mut note = l.note.clone();
    let out: Vec<&Candidate> = cands.iter().filter(|c| c.left_out()).collect();
    if !out.is_empty() {
        note.push_str(&format!(
            ", label/ID column{} {} left out",
            if out.len() > 1 { "s" } else { "" },
            column_list(out.iter().map(|c| if c.kind == Named::Unnamed {
                format!("column {} (the row numbers; counting from 1)", c.col + 1)
            } else {
                c.name.clone()
            }))
        ));
    }
    if !store && let ([nan, pinf, ninf], Some((row, out))) = nonfinite {
        let col = out_kept[..out].iter().filter(|&&k| k).count();
        warnings.push(nonfinite_text(input, [nan, pinf, ninf], row, col));
    }
    Ok(Table {
        data,
        rows,
        cols,
        labels,
        text_columns: if store { text_columns } else { Vec::new() },
        columns: (store && l.header).then_some(names),
        note,
        warnings,
    })
}

/// The kept rows (ascending, distinct) of the table, in the order and with the repeats `sel` asks for.
fn select<T: Scalar>(
    input: &str,
    mut t: Table<T>,
    sel: Option<&[usize]>,
    uniq: &[usize],
) -> Result<Table<T>, DataError> {
    let Some(sel) = sel else {
        return Ok(t);
    };
    if let Some(&bad) = sel.iter().find(|&&r| r >= t.rows) {
        return Err(DataError::RowOutOfRange {
            input: input.to_string(),
            index: bad,
            rows: t.rows as u64,
        });
    }
    if sel != uniq {
        let pos = |r: &usize| uniq.binary_search(r).unwrap_or(0);
        let mut data = array::alloc::<T>(input, sel.len() * t.cols)?;
        for (i, r) in sel.iter().enumerate() {
            let k = pos(r);
            data[i * t.cols..(i + 1) * t.cols].copy_from_slice(&t.data[k * t.cols..(k + 1) * t.cols]);
        }
        t.data = data;
        let pick = |v: &[String]| sel.iter().map(|r| v.get(pos(r)).cloned().unwrap_or_default()).collect();
        t.labels = t.labels.as_deref().map(pick);
        for c in &mut t.text_columns {
            c.values = pick(&c.values);
        }
    }
    t.rows = sel.len();
    Ok(t)
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

/// Describes a text table (delimiter, header, labels, shape), streaming it once without keeping its values: every
/// cell is parsed and checked as a load would, but the memory is one chunk and two bits per cell of the first row.
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
    let opts = LoadOptions::default();
    if src.len() > opts.max_bytes {
        return Err(too_large(input, src.len(), opts.max_bytes));
    }
    let t = parse::<f64>(input, src, &opts, None, false)?;
    let warnings = t.warnings.clone();
    Ok(FileInfo {
        input: input.to_string(),
        format: Format::Csv,
        file_size: src.len(),
        arrays: vec![info(&t, src.len())],
        warnings,
    })
}

/// Loads a delimited text table as a matrix, with row labels and column names when present.
///
/// # Errors
/// [`DataError::TooLarge`] over `max_bytes`, [`DataError::Corrupt`] for non-UTF-8 text,
/// [`DataError::Empty`], [`DataError::Ragged`] (naming the line), [`DataError::Parse`] (naming line and
/// column), [`DataError::RowOutOfRange`], [`DataError::NotFound`] for a chosen column the table does not have.
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
    if src.len() > opts.max_bytes {
        return Err(too_large(input, src.len(), opts.max_bytes));
    }
    let sel = opts.rows.as_deref();
    if sel.is_some_and(<[usize]>::is_empty) {
        return Err(DataError::Empty {
            input: input.to_string(),
            detail: "the row subset is empty; pass at least one row index".into(),
        });
    }
    let uniq: Option<Vec<usize>> = sel.map(|s| {
        let mut u = s.to_vec();
        u.sort_unstable();
        u.dedup();
        u
    });
    let t = parse::<T>(input, src, opts, uniq.as_deref(), true)?;
    let t = select(input, t, sel, uniq.as_deref().unwrap_or(&[]))?;
    let info = info(&t, src.len());
    let matrix = Matrix::from_vec(t.rows, t.cols, t.data)
        .map_err(|e| DataError::internal(input, format!("assembling the matrix: {e}")))?;
    let mut warnings = t.warnings;
    warnings.extend(nonfinite_warning(input, &matrix));
    Ok(Loaded {
        format: Format::Csv,
        matrix,
        labels: t.labels,
        text_columns: t.text_columns,
        column_names: t.columns,
        info,
        warnings,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a panic is how a test reports failure
mod tests {
    use std::cell::Cell;

    use super::*;

    fn table(s: &str) -> Result<Loaded<f64>, DataError> {
        load("t.csv", &s.as_bytes(), &LoadOptions::default())
    }

    fn with(s: &str, columns: ColumnChoice) -> Result<Loaded<f64>, DataError> {
        let opts = LoadOptions {
            columns,
            ..LoadOptions::default()
        };
        load("t.csv", &s.as_bytes(), &opts)
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

    /// Issue 24 item 8: a CSV's columns are named as `#columns=` counts them, from 1, and the message says so; a
    /// line and a column of the text count from 1 too, as editors show them.
    #[test]
    fn csv_columns_say_they_count_from_1() {
        let e = table("1,2\n3,x\n").unwrap_err().to_string();
        assert!(e.contains("at line 2, column 2 (both counting from 1)"), "{e}");
        let t = table("a,1,2\nb,3,4\n").unwrap();
        assert!(
            t.warnings
                .iter()
                .any(|w| w.contains("column 1 (counting from 1) is not numeric")),
            "{:?}",
            t.warnings
        );
        // The first non-finite value of the numbers read (after the label column): the matrix's own numbering.
        let t = table("a,1,2\nb,3,nan\n").unwrap();
        assert!(
            t.warnings
                .iter()
                .any(|w| w.contains("the first at row 1, column 1, both counting from 0")),
            "{:?}",
            t.warnings
        );
    }

    #[test]
    fn ragged_and_bad_cells_name_the_line() {
        // Found by the `columns` fuzz target: a first data row longer than the header, ending in an empty cell.
        let e = table("a,b<c\n1,2,\n").unwrap_err().to_string();
        assert!(e.contains("line 2 has 3 values but the rows before it have 2"), "{e}");
        let e = table("1,2\n\n3\n").unwrap_err().to_string();
        assert!(e.contains("line 3"), "{e}");
        let e = table("# c\n1 2\n3 x\n").unwrap_err().to_string();
        assert!(
            e.contains("line 3") && e.contains("column 2") && e.contains("`x`"),
            "{e}"
        );
        // A quoted cell spanning two lines: the next record's line is still the file's.
        let e = table("a,1\n\"b\nc\",2\n,,\nd,q\n").unwrap_err().to_string();
        assert!(
            e.contains("line 5") && e.contains("column 2") && e.contains("`q`"),
            "{e}"
        );
    }

    /// One column of quoted numbers loads like one of bare numbers (two quoted columns always did).
    #[test]
    fn a_single_column_of_quoted_numbers_loads() {
        let t = table("\"-0.12\"\n\"0.5\"\n").unwrap();
        assert_eq!(t.matrix.as_slice(), &[-0.12, 0.5]);
        let t = table("\"x\"\n\"-0.12\"\n\"3\"\n").unwrap();
        assert_eq!(
            (t.matrix.as_slice(), t.column_names.unwrap()),
            (&[-0.12, 3.0][..], vec!["x".to_string()])
        );
        let t = table("\"-0.12\",\"1\"\n\"0.5\",\"2\"\n").unwrap();
        assert_eq!(t.matrix.as_slice(), &[-0.12, 1.0, 0.5, 2.0]);
    }

    /// `id,f0,f1,label` with integer labels: 2 features, not 4; the warning names the columns and how to keep them;
    /// the label column (before the ID) serves as row labels.
    #[test]
    fn label_and_id_columns_are_left_out_by_name_and_said() {
        let csv = "id,f0,f1,label\n0,0.5,1.5,1\n1,2.5,3.5,0\n2,4.5,5.5,1\n";
        let t = table(csv).unwrap();
        assert_eq!((t.matrix.rows(), t.matrix.cols()), (3, 2));
        assert_eq!(t.matrix.as_slice(), &[0.5, 1.5, 2.5, 3.5, 4.5, 5.5]);
        assert_eq!(t.column_names.as_deref().unwrap(), ["f0", "f1"]);
        assert_eq!(t.labels.as_deref().unwrap(), ["1", "0", "1"]);
        assert_eq!(
            t.text_columns
                .iter()
                .map(|c| (c.name.as_str(), c.number))
                .collect::<Vec<_>>(),
            [("id", 1), ("label", 4)]
        );
        let w = t
            .warnings
            .iter()
            .map(|w| w.message.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let w = crate::words::cli(&w);
        assert!(
            w.contains("column 1 (`id`, counting from 1)") && w.contains("column 4 (`label`, counting from 1)"),
            "{w}"
        );
        assert!(
            w.contains("left out of the features") && w.contains("t.csv#columns=all"),
            "{w}"
        );
        assert!(t.info.note.unwrap().contains("`id`, `label` left out"));
        // Keeping every column, or choosing and dropping by name or number.
        assert_eq!(with(csv, ColumnChoice::All).unwrap().matrix.cols(), 4);
        let t = with(csv, ColumnChoice::from_name("columns=f1,f0").unwrap()).unwrap();
        assert_eq!(t.matrix.as_slice()[..2], [1.5, 0.5]);
        assert_eq!(t.column_names.unwrap(), ["f1", "f0"]);
        let t = with(csv, ColumnChoice::Drop(vec!["1".into()])).unwrap();
        assert_eq!(t.column_names.unwrap(), ["f0", "f1", "label"]);
        let e = with(csv, ColumnChoice::Use(vec!["f9".into()])).unwrap_err().to_string();
        assert!(
            e.contains("no column named `f9`") && e.contains("`f0`") && e.contains("from 1 to 4"),
            "{e}"
        );
        // The array name spells the same choice (the command line's FILE#columns=…).
        let named = LoadOptions {
            name: Some("drop=id,label".into()),
            ..LoadOptions::default()
        };
        let t = load::<f64>("t.csv", &csv.as_bytes(), &named).unwrap();
        assert_eq!(t.matrix.cols(), 2);
        assert!(
            t.warnings.iter().all(|w| !w.contains("was ignored")),
            "{:?}",
            t.warnings
        );
        // inspect says the same shape, from a pass that keeps no values.
        let info = inspect("t.csv", &csv.as_bytes()).unwrap();
        assert_eq!(info.arrays[0].shape, [3, 2]);
    }

    #[test]
    fn what_is_not_a_label_column_stays_a_feature() {
        // A target that is not whole: kept, with a warning saying how to leave it out.
        let t = table("a,b,y\n1,2,0.5\n3,4,1.5\n").unwrap();
        assert_eq!(t.matrix.cols(), 3);
        assert!(
            t.warnings
                .iter()
                .any(|w| w.contains("kept as a feature") && w.contains("drop the column `y`") && !w.contains('#')),
            "{:?}",
            t.warnings
        );
        // x and y coordinates: y is no target.
        let t = table("x,y\n1,2\n3,4\n5,6\n").unwrap();
        assert_eq!(t.matrix.as_slice(), &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        // No header: nothing is named.
        assert_eq!(table("0,0.5,1\n1,0.25,0\n").unwrap().matrix.cols(), 3);
        // pandas' unnamed index (0, 1, 2, …): left out of the features, and said; it is no row label (issue 24
        // item 8: kept as a feature, it flipped an SDE verdict).
        let t = table(",p\n0,0.5\n1,0.25\n2,1.5\n").unwrap();
        assert_eq!(t.matrix.as_slice(), &[0.5, 0.25, 1.5]);
        assert!(t.labels.is_none());
        assert!(
            t.warnings
                .iter()
                .any(|w| w.contains("row numbers") && w.contains("left out")),
            "{:?}",
            t.warnings
        );
        // An unnamed first column that does not count rows is data.
        let t = table(",p\n3,0.5\n1,0.25\n2,1.5\n").unwrap();
        assert_eq!(t.matrix.cols(), 2);
        // MNIST's CSV: a label column among integer pixels.
        let t = table("label,p0,p1\n5,0,255\n0,12,0\n").unwrap();
        assert_eq!(
            (t.matrix.cols(), t.labels.unwrap()),
            (2, vec!["5".to_string(), "0".into()])
        );
    }

    /// A text split column in the middle of a table is left out (it could not be a feature), not a parse error.
    #[test]
    fn text_label_columns_anywhere_are_left_out() {
        let t = table("f0,split,f1\n1,forget,2\n3,retain,4\n").unwrap();
        assert_eq!(t.matrix.as_slice(), &[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(t.labels.unwrap(), ["forget", "retain"]);
        let t = load::<f64>(
            "t.csv",
            &&b"f0,split,f1\n1,forget,2\n3,retain,4\n"[..],
            &LoadOptions {
                rows: Some(vec![1, 1, 0]),
                ..LoadOptions::default()
            },
        )
        .unwrap();
        assert_eq!(t.labels.unwrap(), ["retain", "retain", "forget"]);
        assert_eq!(t.text_columns[0].values, ["retain", "retain", "forget"]);
        assert_eq!(t.matrix.as_slice(), &[3.0, 4.0, 3.0, 4.0, 1.0, 2.0]);
    }

    /// A source that records the largest single read.
    struct Largest<'a> {
        inner: &'a [u8],
        largest: Cell<usize>,
    }

    impl ByteSource for Largest<'_> {
        fn len(&self) -> u64 {
            ByteSource::len(self.inner)
        }
        fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
            self.largest.set(self.largest.get().max(buf.len()));
            self.inner.read_at(offset, buf)
        }
    }

    /// Headers-only means headers-only: inspect streams a one-line CSV of 3 MiB a chunk at a time and keeps no
    /// value (its memory is one chunk and two bits a cell of the first row, however long the line), where it used
    /// to read the file whole and hold every cell as a string.
    #[test]
    fn inspect_streams_a_long_line_in_chunks() {
        let line = "0.5,".repeat(3 << 18) + "1\n";
        let src = Largest {
            inner: line.as_bytes(),
            largest: Cell::new(0),
        };
        let info = inspect("wide.csv", &src).unwrap();
        assert_eq!(info.arrays[0].shape, [1, (3 << 18) + 1]);
        assert!(src.largest.get() <= CHUNK, "read {} bytes at once", src.largest.get());
        let mut c = Classes::default();
        for k in 0..9 {
            c.push([Class::Num, Class::Empty, Class::Text][k % 3]);
        }
        assert_eq!(c.bits.len(), 3, "two bits a cell");
        assert_eq!(
            (c.get(4), c.get(8), c.get(9)),
            (Some(Class::Empty), Some(Class::Text), None)
        );
    }

    #[test]
    fn inspect_reports_non_finite_values_as_load_does() {
        let csv = "a,b\n1,nan\ninf,2\n";
        let loaded = table(csv).unwrap().warnings;
        let inspected = inspect("t.csv", &csv.as_bytes()).unwrap().warnings;
        assert_eq!(loaded, inspected);
        assert!(
            inspected
                .iter()
                .any(|w| w.contains("1 NaN, 1 +inf") && w.contains("row 0, column 1")),
            "{inspected:?}"
        );
    }
}
