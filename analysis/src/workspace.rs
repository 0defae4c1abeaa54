//! The inputs of the analyses: byte sources by id (the page's files, the CLI's and Python's paths), their digests,
//! and matrices loaded from them.
//!
//! Every front end loads through it — the same `LoadOptions` (tensor name, row subset, the 1 GiB limit), f64
//! matrices, the same index-file checks — so that the same file and row text give the same matrix in the page, on
//! the command line and in Python, with the readers' notes (each with its kind, so its report code) beside it.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use lethe::Matrix;
use lethe::data::{self, ByteSource, DEFAULT_MAX_BYTES, FileInfo, Format, LoadOptions};
use lethe::note::{Note, NoteKind};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::rows::{self, Rows, TextRows};

/// The most bytes one input may need ([`LoadOptions::max_bytes`]): 1 GiB, well inside wasm32's 4 GB.
pub const MAX_BYTES: u64 = DEFAULT_MAX_BYTES;

/// One file (or pasted text, or a matrix handed over by an embedding page) as the worker holds it.
pub struct Source {
    pub name: String,
    pub data: Shared,
    pub sha256: Option<String>,
}

/// What an analysis asks for one of its roles: a source, the tensor in it, the rows.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct InputRef {
    pub source: u32,
    #[serde(default)]
    pub tensor: Option<String>,
    #[serde(default)]
    pub rows: Rows,
}

/// What a report records about an input and its side files: the CLI's types.
pub use lethe::record::{FileDigest, InputRecord};

/// Row indices (`None`: all), the digest of an index/split file, the `@ROWS` text.
pub type ResolvedRows = (Option<Vec<usize>>, Option<FileDigest>, Option<String>);

/// A loaded input.
pub struct Input {
    pub matrix: Matrix<f64>,
    pub record: InputRecord,
    pub warnings: Vec<Note>,
}

/// What the page is told about a loaded input.
#[derive(Clone, Debug, Serialize)]
pub struct InputSummary {
    pub rows: usize,
    pub cols: usize,
    pub record: InputRecord,
    pub warnings: Vec<Note>,
    /// Read in place from the file while kernels are built ([`Held::InPlace`]), not loaded.
    pub in_place: bool,
}

/// SDE inputs whose rows would take more than this in memory (as f64) are read in place from their files, a panel
/// of columns at a time ([`lethe::data::ArrayFile`]), when the format allows it (.npy, .safetensors, stored .npz):
/// the worker then holds their kernels and a few MB, not the rows — and files over [`MAX_BYTES`] can be used whole.
/// The CLI's `--in-place auto` rule; the results are the same either way.
pub const IN_PLACE_BYTES: u64 = 64 << 20;

/// An input of SDE or the calibrated verdict as the worker holds it: loaded, or read in place.
#[derive(Clone)]
pub enum Held {
    Loaded(Arc<Input>),
    InPlace(Arc<InPlace>),
}

impl Held {
    pub fn record(&self) -> &InputRecord {
        match self {
            Held::Loaded(i) => &i.record,
            Held::InPlace(p) => &p.record,
        }
    }

    /// Rows used.
    pub fn rows(&self) -> usize {
        self.record().rows_used
    }

    /// The array of an input read in place, opened from its headers (`None` when loaded).
    ///
    /// # Errors
    /// The file can no longer be read in place (reported for the input's role).
    pub fn file(&self) -> Result<Option<data::ArrayFile<'_>>> {
        match self {
            Held::Loaded(_) => Ok(None),
            Held::InPlace(p) => p.file(&p.record.role).map(Some),
        }
    }

    /// The input as a source of rows: its loaded matrix, or `file` (this input's [`Held::file`]) read in place.
    ///
    /// # Errors
    /// An input read in place given without its file.
    pub fn source<'a>(&'a self, file: Option<&'a data::ArrayFile<'a>>) -> Result<data::Source<'a, f64>> {
        match (self, file) {
            (Held::Loaded(i), _) => Ok(data::Source::Memory(i.matrix.view())),
            (Held::InPlace(_), Some(f)) => Ok(data::Source::File(f)),
            (Held::InPlace(p), None) => Err(Error::at(
                &p.record.role,
                "internal error: an input read in place lost its file",
            )),
        }
    }

    /// What the page is told about it.
    pub fn summary(&self) -> InputSummary {
        match self {
            Held::Loaded(i) => InputSummary {
                rows: i.matrix.rows(),
                cols: i.matrix.cols(),
                record: i.record.clone(),
                warnings: i.warnings.clone(),
                in_place: false,
            },
            Held::InPlace(p) => InputSummary {
                rows: p.record.rows_used,
                cols: p.cols,
                record: p.record.clone(),
                warnings: Vec::new(),
                in_place: true,
            },
        }
    }
}

/// An input read in place: its source, the tensor and the rows used.
pub struct InPlace {
    src: Shared,
    name: String,
    tensor: Option<String>,
    /// Rows of the array used, in order (`None`: all of them).
    pub rows: Option<Vec<usize>>,
    pub cols: usize,
    pub record: InputRecord,
    /// Whether the array was opened once already, so a stored .npz member's CRC-32 has been checked (the lean
    /// module never reads in place).
    #[cfg_attr(not(feature = "full"), allow(dead_code))]
    checked: std::sync::atomic::AtomicBool,
}

/// A source's bytes, shared by the workspace, the inputs read in place and the threads that read them (the CLI's
/// `--threads`; a browser worker's `File` is wrapped by the wasm layer, which runs on one thread).
pub type Shared = Arc<dyn ByteSource + Send + Sync>;

impl InPlace {
    /// The array, opened from its headers, to read panels of its rows from.
    ///
    /// # Errors
    /// The file changed so that it can no longer be read in place (reported for `role`).
    #[cfg(feature = "full")]
    pub fn file(&self, role: &str) -> Result<data::ArrayFile<'_>> {
        use std::sync::atomic::Ordering;
        // The first open checks a stored .npz member's CRC-32 (one read of the member); later ones read headers.
        let (name, src, tensor) = (&self.name, &*self.src, self.tensor.as_deref());
        let opened = if self.checked.load(Ordering::Acquire) {
            data::ArrayFile::reopen(name, src, tensor)
        } else {
            data::ArrayFile::open(name, src, tensor)
        };
        let file = opened
            .map_err(|e| Error::at(role, e.to_string()))?
            .ok_or_else(|| Error::at(role, format!("`{}` can no longer be read in place", self.name)))?;
        self.checked.store(true, Ordering::Release);
        Ok(file)
    }

    /// The lean module never reads in place ([`Workspace::open`] loads); this keeps the callers' code the same.
    ///
    /// # Errors
    /// Always.
    #[cfg(not(feature = "full"))]
    pub fn file(&self, role: &str) -> Result<data::ArrayFile<'_>> {
        let _ = (&self.src, &self.tensor);
        Err(Error::at(
            role,
            format!("`{}`: reading in place needs the full module", self.name),
        ))
    }
}

/// What the page is told about a new source: its headers, or why it cannot be used.
#[derive(Clone, Debug, Serialize)]
pub struct SourceInfo {
    pub name: String,
    pub size: u64,
    /// Headers, when they could be read.
    pub info: Option<FileInfo>,
    /// Set when loading the whole file would exceed [`MAX_BYTES`]: only row subsets within the limit can be used,
    /// and the file is not hashed (that would read all of it).
    pub over_limit: Option<String>,
    pub max_bytes: u64,
}

/// Bytes of loaded matrices kept for reuse (slot checks load what a run then uses); the oldest are dropped first.
/// A running analysis holds its own references, so dropping from the cache never pulls data from under it.
pub const CACHE_BYTES: usize = 768 << 20;

type CacheKey = (String, InputRef);

/// All sources and a cache of loaded inputs.
#[derive(Default)]
pub struct Workspace {
    sources: BTreeMap<u32, Source>,
    cache: HashMap<CacheKey, Arc<Input>>,
    /// Cache keys, oldest first.
    order: Vec<CacheKey>,
    /// The cache budget in bytes (0 means [`CACHE_BYTES`]).
    cache_bytes: usize,
    in_place: InPlacePolicy,
    /// Hash files of any size (the CLI, which reads files from disk); else files over [`MAX_BYTES`] are not hashed.
    hash_all: bool,
    /// Native file sources by path as given (the CLI's arguments), so a file named twice is one source.
    #[cfg(not(target_arch = "wasm32"))]
    paths: HashMap<std::path::PathBuf, u32>,
    /// Native file sources whose path is not valid UTF-8: their name is its lossy display form, and loading them
    /// says so ([`not_utf8_note`]).
    lossy: std::collections::HashSet<u32>,
    /// The number of entries of each split column resolved (by source), so an input selected by one is refused
    /// when the column does not have one entry per row of the data (the full module's check).
    #[cfg(feature = "full")]
    split_entries: HashMap<u32, usize>,
}

/// The start of the loader warning on a file whose name is not valid UTF-8 (its report shows it with � for the
/// bytes that are not).
const NOT_UTF8_NOTE: &str = "the file's name is not valid UTF-8";

/// The loader's note on a file whose name is not valid UTF-8, shown lossily as `name`.
pub fn not_utf8_note(name: &str) -> Note {
    Note::new(
        NoteKind::FileNameNotUtf8,
        format!(
            "{NOT_UTF8_NOTE}: this report shows it as `{name}`, with � for the bytes that are not; rename the file \
             to a UTF-8 name if the report must name it exactly"
        ),
    )
}

/// When [`Workspace::open`] reads an input in place instead of loading it. Not part of a report's parameters: the
/// result is the same, bit for bit, either way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InPlacePolicy {
    /// When the rows used take more than [`IN_PLACE_BYTES`] and the file allows it.
    #[default]
    Auto,
    /// Whenever the file allows it; an input that cannot be read in place is an error.
    Always,
    /// Never: always load.
    Never,
}

impl std::str::FromStr for InPlacePolicy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Self::Auto),
            "always" => Ok(Self::Always),
            "never" => Ok(Self::Never),
            other => Err(Error::msg(format!("in-place reading `{other}` is not one of auto, always, never")).usage()),
        }
    }
}

fn gib(bytes: u64) -> String {
    // Display only.
    #[allow(clippy::cast_precision_loss)]
    let g = bytes as f64 / f64::from(1u32 << 30);
    if g >= 0.1 {
        format!("{g:.2} GiB")
    } else {
        format!("{:.1} MiB", g * 1024.0)
    }
}

impl Workspace {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) source `id`.
    pub fn add(&mut self, id: u32, name: &str, data: Shared) {
        self.remove(id);
        self.sources.insert(
            id,
            Source {
                name: name.to_string(),
                data,
                sha256: None,
            },
        );
    }

    /// Records the SHA-256 of source `id` computed elsewhere (by the lean module, for the full module that takes
    /// its sources over), so the file is not read again for it.
    pub fn set_sha256(&mut self, id: u32, hex: &str) {
        if let Some(s) = self.sources.get_mut(&id) {
            s.sha256 = Some(hex.to_string());
        }
    }

    /// Forgets every source and everything loaded (the lean module, once the full module has taken over).
    pub fn clear(&mut self) {
        *self = Self {
            cache_bytes: self.cache_bytes,
            in_place: self.in_place,
            hash_all: self.hash_all,
            ..Self::default()
        };
    }

    /// Forgets source `id` and everything loaded from it.
    pub fn remove(&mut self, id: u32) {
        self.sources.remove(&id);
        self.cache
            .retain(|(_, r), _| r.source != id && !side_sources(&r.rows).contains(&id));
        self.order.retain(|k| self.cache.contains_key(k));
    }

    fn remember(&mut self, key: CacheKey, input: Arc<Input>) {
        self.order.push(key.clone());
        self.cache.insert(key, input);
        let bytes = |i: &Input| std::mem::size_of_val(i.matrix.as_slice());
        let budget = if self.cache_bytes == 0 {
            CACHE_BYTES
        } else {
            self.cache_bytes
        };
        let mut total: usize = self.cache.values().map(|i| bytes(i)).sum();
        while total > budget && self.order.len() > 1 {
            let oldest = self.order.remove(0);
            if let Some(i) = self.cache.remove(&oldest) {
                total -= bytes(&i);
            }
        }
    }

    pub fn source(&self, id: u32) -> Result<&Source> {
        self.sources.get(&id).ok_or_else(|| {
            Error::at(
                format!("source:{id}"),
                format!("input {id} is no longer loaded; add the file again"),
            )
        })
    }

    /// Reads the headers of source `id` (text formats are parsed whole, so a text file over the limit is refused
    /// before it is read).
    ///
    /// # Errors
    /// Unknown format, corrupt or truncated headers, a text file over [`MAX_BYTES`]; the error names the source.
    pub fn inspect(&self, id: u32) -> Result<SourceInfo> {
        let key = format!("source:{id}");
        let src = self.source(id)?;
        let size = src.data.len();
        let format = data::detect(&src.name, &*src.data).map_err(|e| Error::data(&key, "", &e))?;
        let text = matches!(format, Format::Csv | Format::Json);
        if text && size > MAX_BYTES {
            return Err(Error::at(
                &key,
                format!(
                    "`{}` is {} of text; this page reads at most {} per input (text must be parsed whole): \
                     convert it to .npy, or use the CLI",
                    src.name,
                    gib(size),
                    gib(MAX_BYTES)
                ),
            ));
        }
        let info = data::inspect(&src.name, &*src.data).map_err(|e| Error::data(&key, "", &e))?;
        let in_place = info
            .arrays
            .iter()
            .any(|a| a.data_offset.is_some() && a.problem.is_none());
        let over_limit = (size > MAX_BYTES).then(|| {
            format!(
                "`{}` is {}, over this page's limit of {} per input: it was not read or hashed; only a row subset \
                 needing at most {} can be loaded from it{}",
                src.name,
                gib(size),
                gib(MAX_BYTES),
                gib(MAX_BYTES),
                if in_place {
                    " (SDE and the calibrated verdict read it in place, a panel of columns at a time, and can use \
                     all of it)"
                } else {
                    ""
                }
            )
        });
        Ok(SourceInfo {
            name: src.name.clone(),
            size,
            info: Some(info),
            over_limit,
            max_bytes: MAX_BYTES,
        })
    }

    /// SHA-256 of source `id` (computed once), reading it in 1 MiB slices; `progress(done, total)` after each.
    ///
    /// # Errors
    /// A read error, or a file over [`MAX_BYTES`] (not hashed: that would read all of it).
    pub fn sha256(&mut self, id: u32, progress: impl FnMut(u64, u64)) -> Result<String> {
        let key = format!("source:{id}");
        let src = self
            .sources
            .get_mut(&id)
            .ok_or_else(|| Error::at(&key, "this input is no longer loaded"))?;
        if let Some(h) = &src.sha256 {
            return Ok(h.clone());
        }
        if !self.hash_all && src.data.len() > MAX_BYTES {
            return Err(Error::at(
                &key,
                format!("`{}` is over {} and is not hashed", src.name, gib(MAX_BYTES)),
            ));
        }
        let h = lethe::digest::sha256_hex(&*src.data, progress)
            .map_err(|e| Error::at(&key, format!("`{}`: reading for SHA-256 failed: {e}", src.name)))?;
        src.sha256 = Some(h.clone());
        Ok(h)
    }

    /// The digest for a report: computed if needed; a placeholder for files over the limit.
    fn digest(&mut self, id: u32) -> Result<String> {
        match self.sha256(id, |_, _| ()) {
            Ok(h) => Ok(h),
            Err(_) if !self.hash_all && self.source(id)?.data.len() > MAX_BYTES => {
                Ok(format!("not computed (file over {})", gib(MAX_BYTES)))
            }
            Err(e) => Err(e),
        }
    }

    /// Loads `input` for `role` (cached), as the CLI's `input::load(role, spec)`.
    ///
    /// # Errors
    /// Every problem is reported for `role`: unreadable rows specification or index file, the core's load errors
    /// (format, truncation, size limit, tensor name, row out of range).
    pub fn load(&mut self, role: &str, input: &InputRef) -> Result<Arc<Input>> {
        let key = (role.to_string(), input.clone());
        if let Some(hit) = self.cache.get(&key) {
            return Ok(Arc::clone(hit));
        }
        let loaded = self.load_uncached(role, input).map_err(|e| e.or_at(role))?;
        let rc = Arc::new(loaded);
        self.remember(key, Arc::clone(&rc));
        Ok(rc)
    }

    fn load_uncached(&mut self, role: &str, input: &InputRef) -> Result<Input> {
        let (matrix, record, warnings) = self.load_as::<f64>(role, input)?;
        Ok(Input {
            matrix,
            record,
            warnings,
        })
    }

    /// [`Workspace::load`] as element type `S`, not cached: the matrix, its record and the loader's warnings (SDE
    /// holds inputs whose stored values f32 holds exactly as f32: the same numbers in half the memory).
    ///
    /// # Errors
    /// As [`Workspace::load`].
    pub fn load_as<S: data::Scalar>(
        &mut self,
        role: &str,
        input: &InputRef,
    ) -> Result<(Matrix<S>, InputRecord, Vec<Note>)> {
        self.load_rows_as(role, input, None)
    }

    /// [`Workspace::load`] of only `subset`'s rows of an input that selects every row (`input.rows` is all), not
    /// cached: the memory budget counts those rows only, and the record is the whole input's (as the analysis
    /// asked for every row and uses the subset's). RULER loads just its forget and retain rows this way.
    ///
    /// # Errors
    /// As [`Workspace::load`]; a subset row past the end is the loader's out-of-range error.
    pub fn load_subset(&mut self, role: &str, input: &InputRef, subset: &[usize], total: usize) -> Result<Arc<Input>> {
        let (matrix, mut record, warnings) = self
            .load_rows_as::<f64>(role, input, Some(subset))
            .map_err(|e| e.or_at(role))?;
        record.rows_used = total;
        Ok(Arc::new(Input {
            matrix,
            record,
            warnings,
        }))
    }

    fn load_rows_as<S: data::Scalar>(
        &mut self,
        role: &str,
        input: &InputRef,
        subset: Option<&[usize]>,
    ) -> Result<(Matrix<S>, InputRecord, Vec<Note>)> {
        let src = self.source(input.source).map_err(|e| Error::at(role, e.message))?;
        let (name, data) = (src.name.clone(), Arc::clone(&src.data));
        check_range(role, &name, &*data, input)?;
        let (rows, row_file, rows_text) = self.resolve_rows(role, &input.rows)?;
        // Before the load, which would name a row past the end first (a longer column selects one). The full module
        // only: the lean one computes the built-in example's first results, whose split columns are its own.
        #[cfg(feature = "full")]
        if matches!(input.rows, Rows::Split { .. })
            && let Some(total) = data::inspect(&name, &*data)
                .ok()
                .and_then(|info| info.array(input.tensor.as_deref()).map(|a| a.rows))
        {
            self.check_split_length(role, &input.rows, &name, total)?;
        }
        let opts = LoadOptions {
            name: input.tensor.clone(),
            rows: subset.map(<[usize]>::to_vec).or(rows),
            ..LoadOptions::default()
        };
        // A tool's `#KEY` (issue 14: `attack_result_0.npz#members`, `rmia_signals.npy#model=3`) is read by its
        // reader; every other name is the ordinary loader's.
        #[cfg(feature = "full")]
        let loaded =
            lethe::tools::load_key::<S>(&name, &*data, &opts).unwrap_or_else(|| data::load::<S>(&name, &*data, &opts));
        #[cfg(not(feature = "full"))]
        let loaded = data::load::<S>(&name, &*data, &opts);
        let mut loaded = loaded.map_err(|e| Error::data(role, "", &e))?;
        if self.name_not_utf8(input.source) {
            loaded.warnings.push(not_utf8_note(&name));
        }
        let record = InputRecord {
            role: role.to_string(),
            spec: spec_text(&name, input.tensor.as_deref(), rows_text.as_deref()),
            path: name,
            sha256: self.digest(input.source)?,
            format: format!("{:?}", loaded.format).to_ascii_lowercase(),
            dtype: loaded.info.dtype.clone(),
            shape: loaded.info.shape.clone(),
            tensor: loaded.info.name.clone(),
            rows_used: loaded.matrix.rows(),
            row_file,
        };
        Ok((loaded.matrix, record, loaded.warnings))
    }

    /// Whether source `id` is a file whose path is not valid UTF-8, so that its name is a lossy display form (with
    /// � for the bytes that are not).
    pub fn name_not_utf8(&self, id: u32) -> bool {
        self.lossy.contains(&id)
    }

    /// Hash every source whatever its size (the CLI: a report records the SHA-256 of every file it read).
    pub fn set_hash_all(&mut self, all: bool) {
        self.hash_all = all;
    }

    /// The id of the source that is the file at `path` (as given: reports name it so), opened on first use.
    ///
    /// A regular file is read in place. A pipe (`<(…)` process substitution, `/dev/stdin`), a named pipe (FIFO) or
    /// a device is read whole now, at most [`MAX_BYTES`], and what was read is what is loaded and hashed (a pipe
    /// cannot be read twice: a path named twice is one source). A FIFO that no program opens for writing within
    /// [`data::pipe_wait`] (`LETHE_PIPE_WAIT` seconds, default 10) is given up with a message saying so.
    ///
    /// # Errors
    /// The file cannot be opened or read, is a directory, an empty or over-long stream, a FIFO without a writer;
    /// reported for `role`, naming the path.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn add_path(&mut self, role: &str, path: &std::path::Path) -> Result<u32> {
        if let Some(&id) = self.paths.get(path) {
            return Ok(id);
        }
        let shown = path.display().to_string();
        let file = data::open_path(&shown, path, MAX_BYTES, data::pipe_wait()).map_err(|e| match e {
            data::DataError::Io { detail, .. } if !path.exists() && detail.starts_with("cannot open") => {
                Error::at(role, format!("`{shown}`: no such file: check the path"))
            }
            e => Error::data(role, "", &e),
        })?;
        let id = u32::try_from(self.paths.len()).map_err(|_| Error::msg("too many files"))? + (1 << 30);
        self.add(id, &shown, Arc::new(file));
        self.paths.insert(path.to_path_buf(), id);
        if path.to_str().is_none() {
            self.lossy.insert(id);
        }
        Ok(id)
    }

    /// The files opened by path ([`Workspace::add_path`]): (source id, path as given), in no particular order.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn paths(&self) -> impl Iterator<Item = (u32, &std::path::Path)> + '_ {
        self.paths.iter().map(|(p, &id)| (id, p.as_path()))
    }

    /// An input argument `PATH[#TENSOR][@ROWS]` (the CLI's grammar, [`crate::spec`]) as a request's input: the
    /// file, and any index or split file its rows name, become sources.
    ///
    /// # Errors
    /// A malformed argument (a usage error); a file that cannot be opened; reported for `role`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn input_arg(&mut self, role: &str, arg: &str) -> Result<InputRef> {
        let spec = crate::spec::parse_input(arg, &crate::spec::is_file)
            .map_err(|e| Error::at(role, format!("bad input `{arg}`: {e}")).usage())?;
        let source = self.add_path(role, &spec.path)?;
        let rows = match &spec.rows {
            None => Rows::All,
            Some(r) => self.rows_spec(role, r)?,
        };
        Ok(InputRef {
            source,
            tensor: spec.tensor,
            rows,
        })
    }

    /// [`Workspace::input_arg`] for an argument as the operating system gave it, so that a file whose name is not
    /// valid UTF-8 can be named: the whole argument when it names a file, else (on Unix) the longest prefix that
    /// names a file, followed by a UTF-8 `#TENSOR` and/or `@ROWS`.
    ///
    /// # Errors
    /// As [`Workspace::input_arg`]; a name that is not UTF-8 and names no file says so, with the fix.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn input_arg_os(&mut self, role: &str, arg: &std::ffi::OsStr) -> Result<InputRef> {
        if let Some(s) = arg.to_str() {
            return self.input_arg(role, s);
        }
        let path = std::path::Path::new(arg);
        if path.is_file() {
            return Ok(InputRef {
                source: self.add_path(role, path)?,
                tensor: None,
                rows: Rows::All,
            });
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let bytes = arg.as_bytes();
            let marks = bytes.iter().enumerate().filter(|&(_, &b)| b == b'#' || b == b'@');
            for (i, _) in marks.collect::<Vec<_>>().into_iter().rev() {
                let head = std::path::Path::new(std::ffi::OsStr::from_bytes(&bytes[..i]));
                let Ok(rest) = std::str::from_utf8(&bytes[i..]) else {
                    continue;
                };
                if i == 0 || !head.is_file() {
                    continue;
                }
                // The rest in the one grammar, behind a stand-in path that names no real file.
                const HEAD: &str = "\u{0}";
                let spec =
                    crate::spec::parse_input(&format!("{HEAD}{rest}"), &|p| p == HEAD || crate::spec::is_file(p))
                        .map_err(|e| Error::at(role, format!("bad input `{}`: {e}", path.display())).usage())?;
                let source = self.add_path(role, head)?;
                let rows = match &spec.rows {
                    None => Rows::All,
                    Some(r) => self.rows_spec(role, r)?,
                };
                return Ok(InputRef {
                    source,
                    tensor: spec.tensor,
                    rows,
                });
            }
        }
        Err(Error::at(
            role,
            format!(
                "`{}`: no such file (its name is not valid UTF-8, shown here with � for the bytes that are not); \
                 check the path, or rename the file",
                path.display()
            ),
        ))
    }

    /// [`Workspace::rows_arg`] for an argument as the operating system gave it, so that an index file or a split
    /// file `FILE==VALUE` whose name is not valid UTF-8 can be named (the `==VALUE` must be UTF-8).
    ///
    /// # Errors
    /// As [`Workspace::rows_arg`]; a name that is not UTF-8 and names no file says so, with the fix.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn rows_arg_os(&mut self, role: &str, arg: &std::ffi::OsStr) -> Result<Rows> {
        if let Some(s) = arg.to_str() {
            return self.rows_arg(role, s);
        }
        let path = std::path::Path::new(arg);
        if path.is_file() {
            return Ok(Rows::File {
                source: self.add_path(role, path)?,
            });
        }
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let bytes = arg.as_bytes();
            if let Some(i) = bytes.windows(2).rposition(|w| w == b"==")
                && let Ok(value) = std::str::from_utf8(&bytes[i + 2..])
                && std::path::Path::new(std::ffi::OsStr::from_bytes(&bytes[..i])).is_file()
            {
                let file = std::path::Path::new(std::ffi::OsStr::from_bytes(&bytes[..i]));
                return Ok(Rows::Split {
                    source: self.add_path(role, file)?,
                    value: value.to_string(),
                });
            }
        }
        Err(Error::at(
            role,
            format!(
                "rows `{}` name no file (the name is not valid UTF-8, shown here with � for the bytes that are not); \
                 check the path, or rename the file",
                path.display()
            ),
        ))
    }

    /// A row argument given on its own (`--forget`, `--it-pool`, ...) as a request's rows.
    ///
    /// # Errors
    /// A malformed argument (a usage error); a file that cannot be opened; reported for `role`.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn rows_arg(&mut self, role: &str, arg: &str) -> Result<Rows> {
        let spec = crate::spec::parse_rows(arg, &crate::spec::is_file)
            .map_err(|e| Error::at(role, format!("bad rows `{arg}`: {e}")).usage())?;
        self.rows_spec(role, &spec)
    }

    #[cfg(not(target_arch = "wasm32"))]
    fn rows_spec(&mut self, role: &str, spec: &crate::spec::RowSpec) -> Result<Rows> {
        use crate::spec::RowSpec;
        Ok(match spec {
            RowSpec::Range(..) | RowSpec::List(_) => Rows::Text { text: spec.to_string() },
            RowSpec::File(p) => {
                if !crate::spec::is_file(&p.to_string_lossy()) {
                    return Err(Error::at(
                        role,
                        format!(
                            "rows `{}` are neither a range a..b nor a list i,j,k, so they name an index file, and no \
                             such file exists; check the path",
                            p.display()
                        ),
                    ));
                }
                Rows::File {
                    source: self.add_path(role, p)?,
                }
            }
            RowSpec::Split { file, value } => Rows::Split {
                source: self.add_path(role, file)?,
                value: value.clone(),
            },
        })
    }

    /// How [`Workspace::open`] holds large inputs (the CLI's `--in-place`; the page uses `auto`).
    pub fn set_in_place(&mut self, policy: InPlacePolicy) {
        self.in_place = policy;
    }

    /// How [`Workspace::open`] holds large inputs now.
    pub fn in_place_policy(&self) -> InPlacePolicy {
        self.in_place
    }

    /// Opens `input` for `role` of SDE or the calibrated verdict, as the workspace's [`InPlacePolicy`] says: with
    /// `auto`, read in place when its rows would take more than [`IN_PLACE_BYTES`] as f64 and its file stores the
    /// array uncompressed (then nothing but headers and side files is read, and the 1 GiB limit does not apply),
    /// else loaded as [`Workspace::load`]. The lean module (the built-in example only) always loads.
    ///
    /// # Errors
    /// As [`Workspace::load`], reported for `role`; under `always`, an input that cannot be read in place.
    pub fn open(&mut self, role: &str, input: &InputRef) -> Result<Held> {
        if let Some(h) = self.open_in_place(role, input)? {
            return Ok(h);
        }
        Ok(Held::Loaded(self.load(role, input)?))
    }

    /// [`Workspace::open`] when it reads `input` in place; `None` when it would load it (the caller may then load
    /// it as another element type: [`Workspace::load_as`]).
    ///
    /// # Errors
    /// As [`Workspace::open`].
    pub fn open_in_place(&mut self, role: &str, input: &InputRef) -> Result<Option<Held>> {
        if cfg!(feature = "full") && self.in_place != InPlacePolicy::Never {
            if let Some(p) = self.in_place(role, input).map_err(|e| e.or_at(role))? {
                return Ok(Some(Held::InPlace(Arc::new(p))));
            }
            if self.in_place == InPlacePolicy::Always {
                // Let the load say what is wrong with the file, if anything; else say why it cannot be read in place.
                self.load(role, input)?;
                let name = self.source(input.source)?.name.clone();
                return Err(Error::at(
                    role,
                    format!(
                        "`{name}` cannot be read in place (only .npy, .safetensors and stored .npz arrays can; \
                         CSV/TSV, JSON and deflated .npz members must be loaded): use in-place reading `auto`"
                    ),
                )
                .usage());
            }
        }
        Ok(None)
    }

    /// `input` read in place, if it should be (see [`Workspace::open`]).
    fn in_place(&mut self, role: &str, input: &InputRef) -> Result<Option<InPlace>> {
        let src = self.source(input.source).map_err(|e| Error::at(role, e.message))?;
        let (name, data) = (src.name.clone(), Arc::clone(&src.data));
        let Ok(info) = data::inspect(&name, &*data) else {
            return Ok(None); // the load says what is wrong
        };
        let Some(array) = info
            .array(input.tensor.as_deref())
            .filter(|a| a.data_offset.is_some() && a.problem.is_none() && a.rows > 0)
        else {
            return Ok(None);
        };
        // Index files and split columns are small: resolved here to count the rows, and kept when read in place.
        let (rows, row_file, rows_text) = self.resolve_rows(role, &input.rows)?;
        let used = rows.as_ref().map_or(array.rows, |r| r.len() as u64);
        if self.in_place == InPlacePolicy::Auto && used.saturating_mul(array.cols).saturating_mul(8) <= IN_PLACE_BYTES {
            return Ok(None);
        }
        #[cfg(feature = "full")]
        self.check_split_length(role, &input.rows, &name, array.rows)?;
        if let Some(&bad) = rows.iter().flatten().find(|&&r| r as u64 >= array.rows) {
            return Err(Error::data(
                role,
                "",
                &data::DataError::RowOutOfRange {
                    input: name,
                    index: bad,
                    rows: array.rows,
                },
            ));
        }
        let record = InputRecord {
            role: role.to_string(),
            spec: spec_text(&name, input.tensor.as_deref(), rows_text.as_deref()),
            path: name.clone(),
            sha256: self.digest(input.source)?,
            format: format!("{:?}", info.format).to_ascii_lowercase(),
            dtype: array.dtype.clone(),
            shape: array.shape.clone(),
            tensor: array.name.clone(),
            rows_used: used as usize,
            row_file,
        };
        Ok(Some(InPlace {
            src: data,
            name,
            tensor: input.tensor.clone(),
            rows,
            cols: array.cols as usize,
            record,
            checked: std::sync::atomic::AtomicBool::new(false),
        }))
    }

    /// Row indices of a rows specification (`None`: every row), the digest of its side file, and its `@ROWS` text
    /// for the spec.
    ///
    /// # Errors
    /// Unreadable row text, index file or split column; reported for `role`.
    pub fn resolve_rows(&mut self, role: &str, spec: &Rows) -> Result<ResolvedRows> {
        match spec {
            Rows::All => Ok((None, None, None)),
            Rows::Text { text } => Ok(match rows::parse_text(role, text)? {
                TextRows::All => (None, None, None),
                TextRows::Range(a, b) => {
                    // Never expanded past what one input could hold (1-column f64 rows within the load limit), so
                    // `0..99999999999999` is an error, not an allocation.
                    let most = MAX_BYTES / 8;
                    if (b - a) as u64 > most {
                        return Err(Error::at(
                            role,
                            format!(
                                "rows {a}..{b} are {} rows, more than one input may hold (at most {most}); pass a \
                                 smaller row subset",
                                b - a
                            ),
                        ));
                    }
                    (Some((a..b).collect()), None, Some(format!("{a}..{b}")))
                }
                TextRows::List(v) => {
                    let s = v.iter().map(ToString::to_string).collect::<Vec<_>>().join(",");
                    (Some(v), None, Some(s))
                }
            }),
            Rows::File { source } => {
                let (name, data) = self.side(role, *source)?;
                let m = data::load::<f64>(&name, &*data, &LoadOptions::default())
                    .map_err(|e| Error::data(role, "row index file: ", &e))?
                    .matrix;
                let idx = rows::indices_from_values(role, &name, m.as_slice())?;
                let digest = FileDigest {
                    path: name.clone(),
                    sha256: self.digest(*source)?,
                };
                Ok((Some(idx), Some(digest), Some(name)))
            }
            Rows::Split { source, value } => {
                let (name, data) = self.side(role, *source)?;
                // The core's rule, as the CLI's `FILE==VALUE` (a `NotBuilt` error hands the work to the full module).
                let split = data::split_column(&name, &*data, value).map_err(|e| {
                    let prefix = if matches!(e, data::DataError::NotBuilt { .. }) {
                        "split column: "
                    } else {
                        ""
                    };
                    Error::data(role, prefix, &e)
                })?;
                #[cfg(feature = "full")]
                self.split_entries.insert(*source, split.entries);
                let idx = split.rows;
                if idx.is_empty() {
                    return Err(Error::at(
                        role,
                        format!("no row of the split column `{name}` equals `{value}`"),
                    ));
                }
                let digest = FileDigest {
                    path: name.clone(),
                    sha256: self.digest(*source)?,
                };
                Ok((Some(idx), Some(digest), Some(format!("{name}=={value}"))))
            }
        }
    }

    /// Refuses rows chosen by a split column (`FILE==VALUE`, resolved before) that does not have one entry per row
    /// of the data `name` (`rows` rows): each entry labels the row at its position, so a column of another length
    /// would shift every selected row.
    ///
    /// # Errors
    /// The column's length differs from the data's row count; reported for `role`, naming both files.
    #[cfg(feature = "full")]
    pub fn check_split_length(&self, role: &str, spec: &Rows, name: &str, rows: u64) -> Result<()> {
        let Rows::Split { source, .. } = spec else {
            return Ok(());
        };
        let Some(&entries) = self.split_entries.get(source) else {
            return Ok(());
        };
        if entries as u64 == rows {
            return Ok(());
        }
        let split = self
            .source(*source)
            .map_or_else(|_| "the split column".to_string(), |s| format!("`{}`", s.name));
        Err(Error::at(
            role,
            format!(
                "the split column {split} has {entries} entries but `{name}` has {rows} rows: each entry labels the \
                 row at the same position, so the rows it selects would not be the rows meant; give a split column \
                 with exactly one entry per row of `{name}`, in the same order"
            ),
        ))
    }

    fn side(&self, role: &str, id: u32) -> Result<(String, Shared)> {
        let src = self.source(id).map_err(|e| Error::at(role, e.message))?;
        Ok((src.name.clone(), Arc::clone(&src.data)))
    }
}

/// A typed range `a..b` of `input` checked against the rows its file's headers declare, before any index is made:
/// a range past the end names the range and the row count. Where the headers do not tell (the file cannot be
/// read, or the array is not chosen), the file's own problem is reported first, from a load of one row.
///
/// # Errors
/// A range past the end of the array, or what is wrong with the file; reported for `role`.
fn check_range(role: &str, name: &str, data: &dyn ByteSource, input: &InputRef) -> Result<()> {
    let Rows::Text { text } = &input.rows else {
        return Ok(());
    };
    let Ok(TextRows::Range(a, b)) = rows::parse_text(role, text) else {
        return Ok(()); // lists are checked by the load; bad text by `resolve_rows`
    };
    let declared = data::inspect(name, data)
        .ok()
        .and_then(|info| info.array(input.tensor.as_deref()).map(|a| a.rows));
    // A tool's `#KEY` (`attack_result_0.npz#members`) is no array of the file: its reader says how many rows it has.
    #[cfg(feature = "full")]
    let declared = match declared {
        Some(n) => Some(n),
        None => {
            let whole = LoadOptions {
                name: input.tensor.clone(),
                ..LoadOptions::default()
            };
            match lethe::tools::load_key::<f64>(name, data, &whole) {
                Some(loaded) => Some(loaded.map_err(|e| Error::data(role, "", &e))?.matrix.rows() as u64),
                None => None,
            }
        }
    };
    match declared {
        Some(n) if b as u64 > n => Err(Error::at(
            role,
            format!(
                "rows {a}..{b} are out of range for `{name}`, which has {n} rows ({}); pass a range within \
                 them",
                lethe::error::index_span(n)
            ),
        )),
        Some(_) => Ok(()),
        None => {
            let one = LoadOptions {
                name: input.tensor.clone(),
                rows: Some(vec![0]),
                ..LoadOptions::default()
            };
            data::load::<f64>(name, data, &one).map_err(|e| Error::data(role, "", &e))?;
            Ok(())
        }
    }
}

/// `NAME[#TENSOR][@ROWS]`, as the CLI's input spec writes an input.
fn spec_text(name: &str, tensor: Option<&str>, rows: Option<&str>) -> String {
    let mut spec = name.to_string();
    if let Some(t) = tensor {
        spec.push('#');
        spec.push_str(t);
    }
    if let Some(r) = rows {
        spec.push('@');
        spec.push_str(r);
    }
    spec
}

fn side_sources(rows: &Rows) -> Vec<u32> {
    match rows {
        Rows::File { source } | Rows::Split { source, .. } => vec![*source],
        _ => Vec::new(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A workspace of in-memory sources `(id, name, bytes)` (the analyses' tests use it too).
    pub(crate) fn ws_with(files: &[(u32, &str, &[u8])]) -> Workspace {
        let mut ws = Workspace::new();
        for (id, name, bytes) in files {
            ws.add(*id, name, Arc::new(bytes.to_vec()));
        }
        ws
    }

    #[test]
    fn loads_rows_like_the_cli() {
        let mut ws = ws_with(&[(1, "x.csv", b"1,2\n3,4\n5,6\n7,8\n"), (2, "idx.txt", b"3\n0\n")]);
        let r = InputRef {
            source: 1,
            tensor: None,
            rows: Rows::Text { text: "1..3".into() },
        };
        let a = ws.load("it", &r).unwrap();
        assert_eq!(a.matrix.as_slice(), &[3.0, 4.0, 5.0, 6.0]);
        assert_eq!(a.record.spec, "x.csv@1..3");
        assert_eq!(a.record.sha256.len(), 64);
        let f = ws
            .load(
                "it",
                &InputRef {
                    source: 1,
                    tensor: None,
                    rows: Rows::File { source: 2 },
                },
            )
            .unwrap();
        assert_eq!(f.matrix.as_slice(), &[7.0, 8.0, 1.0, 2.0]);
        assert_eq!(f.record.row_file.as_ref().unwrap().path, "idx.txt");
        let e = ws
            .load(
                "target",
                &InputRef {
                    source: 1,
                    tensor: None,
                    rows: Rows::Text { text: "2,9".into() },
                },
            )
            .err()
            .unwrap();
        assert_eq!(e.input.as_deref(), Some("target"));
        assert!(e.message.contains("row index 9 is out of range"), "{}", e.message);
    }

    #[test]
    fn split_columns_select_by_label_number_or_line() {
        let ids = crate::npy::f64_bytes(&[1.0, 0.0, 1.0, 1.0], &[4]);
        let mut ws = ws_with(&[
            (3, "ids.npy", &ids),
            (1, "x.csv", b"1\n2\n3\n4\n"),
            (2, "labels.tsv", b"1\tforget\n2\tretain\n3\tforget\n4\tretain\n"),
            (4, "split.txt", b"test\nforget\nforget\ntest\n"),
            (5, "short.txt", b"test\nforget\nforget\n"),
        ]);
        let pick = |ws: &mut Workspace, source, value: &str| {
            ws.load(
                "it",
                &InputRef {
                    source: 1,
                    tensor: None,
                    rows: Rows::Split {
                        source,
                        value: value.into(),
                    },
                },
            )
            .map(|i| i.matrix.as_slice().to_vec())
        };
        assert_eq!(pick(&mut ws, 2, "forget").unwrap(), vec![1.0, 3.0]);
        assert_eq!(pick(&mut ws, 3, "0").unwrap(), vec![2.0]);
        assert_eq!(pick(&mut ws, 4, "test").unwrap(), vec![1.0, 4.0]);
        assert!(pick(&mut ws, 4, "nothing").unwrap_err().message.contains("no row"));
        // A column of another length than the data would shift every row it selects.
        let e = pick(&mut ws, 5, "test").unwrap_err();
        assert!(
            e.message.contains("`short.txt` has 3 entries but `x.csv` has 4 rows"),
            "{}",
            e.message
        );
    }

    #[test]
    fn removing_a_source_drops_what_was_loaded_from_it() {
        let mut ws = ws_with(&[(1, "x.csv", b"1\n2\n")]);
        let r = InputRef {
            source: 1,
            tensor: None,
            rows: Rows::All,
        };
        ws.load("x", &r).unwrap();
        ws.remove(1);
        let e = ws.load("x", &r).err().unwrap();
        assert_eq!(e.input.as_deref(), Some("x"));
        assert!(ws.inspect(1).unwrap_err().message.contains("no longer loaded"));
    }

    #[test]
    fn the_cache_keeps_the_newest_inputs_within_its_budget() {
        let mut ws = ws_with(&[(1, "x.csv", b"1,2\n3,4\n5,6\n")]);
        ws.cache_bytes = 5 * 16; // five 1×2 f64 inputs
        let r = InputRef {
            source: 1,
            tensor: None,
            rows: Rows::Text { text: "2".into() },
        };
        let first = ws.load("role0", &r).unwrap();
        for k in 1..8 {
            ws.load(&format!("role{k}"), &r).unwrap();
        }
        let held: usize = ws.cache.values().map(|i| i.matrix.as_slice().len() * 8).sum();
        assert_eq!(held, 5 * 16);
        assert_eq!(ws.cache.len(), ws.order.len());
        assert!(
            !ws.cache.contains_key(&("role0".to_string(), r.clone())),
            "the oldest was dropped"
        );
        assert!(ws.cache.contains_key(&("role7".to_string(), r)), "the newest is kept");
        assert_eq!(
            first.matrix.as_slice(),
            &[5.0, 6.0],
            "a dropped input stays valid for whoever holds it"
        );
    }

    /// A zip archive of one stored member (what `np.savez` writes), its CRC-32 computed here.
    pub(crate) fn stored_npz(name: &str, data: &[u8]) -> Vec<u8> {
        let crc = !data.iter().fold(u32::MAX, |mut c, &b| {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 == 1 { (c >> 1) ^ 0xEDB8_8320 } else { c >> 1 };
            }
            c
        });
        let (n, len) = (name.len() as u16, data.len() as u32);
        let mut z = Vec::new();
        let fields = |z: &mut Vec<u8>| {
            for v in [20u16, 0, 0, 0, 0] {
                z.extend_from_slice(&v.to_le_bytes()); // version, flags, stored, time, date
            }
            z.extend_from_slice(&crc.to_le_bytes());
            z.extend_from_slice(&len.to_le_bytes());
            z.extend_from_slice(&len.to_le_bytes());
            z.extend_from_slice(&n.to_le_bytes());
            z.extend_from_slice(&0u16.to_le_bytes()); // extra
        };
        z.extend_from_slice(b"PK\x03\x04");
        fields(&mut z);
        z.extend_from_slice(name.as_bytes());
        z.extend_from_slice(data);
        let cd = z.len() as u32;
        z.extend_from_slice(b"PK\x01\x02\x14\x00");
        fields(&mut z);
        z.extend_from_slice(&[0; 14]); // comment, disk, attributes, local header at 0
        z.extend_from_slice(name.as_bytes());
        let cd_len = z.len() as u32 - cd;
        z.extend_from_slice(b"PK\x05\x06\0\0\0\0\x01\x00\x01\x00");
        z.extend_from_slice(&cd_len.to_le_bytes());
        z.extend_from_slice(&cd.to_le_bytes());
        z.extend_from_slice(&0u16.to_le_bytes());
        z
    }

    /// An input read in place from a stored .npz member is checked against its CRC-32 on the first open (a flipped
    /// byte is an error naming the file and the member), and read without that check on later opens.
    #[test]
    fn an_input_read_in_place_has_its_crc_checked_once() {
        let values: Vec<f64> = (0..40).map(f64::from).collect();
        let good = stored_npz("a.npy", &crate::npy::f64_bytes(&values, &[10, 4]));
        let mut bad = good.clone();
        let at = bad.len() - 200; // inside the data
        bad[at] ^= 0x40;
        let r = InputRef {
            source: 1,
            tensor: None,
            rows: Rows::All,
        };
        let mut ws = ws_with(&[(1, "x.npz", &good)]);
        ws.set_in_place(InPlacePolicy::Always);
        let held = ws.open("data", &r).unwrap();
        assert!(held.file().unwrap().is_some());
        let mut ws = ws_with(&[(1, "x.npz", &bad)]);
        ws.set_in_place(InPlacePolicy::Always);
        let held = ws.open("data", &r).unwrap();
        let e = held.file().err().unwrap();
        assert_eq!(e.input.as_deref(), Some("data"));
        assert!(
            e.message.contains("x.npz:a.npy") && e.message.contains("CRC-32"),
            "{}",
            e.message
        );
        // Loading it is refused the same way.
        ws.set_in_place(InPlacePolicy::Never);
        let e = ws.open("data", &r).err().unwrap();
        assert!(e.message.contains("CRC-32"), "{}", e.message);
    }

    #[test]
    fn bad_files_are_reported_for_their_source() {
        let ws = ws_with(&[(5, "bad.npy", b"\x93NUMPY\x01\x00\xff\xff{'descr'")]);
        let e = ws.inspect(5).unwrap_err();
        assert_eq!(e.input.as_deref(), Some("source:5"));
        assert!(e.message.contains("bad.npy"), "{}", e.message);
    }
}
