//! Input specifications, loading, and the record of each input that goes into a report.
//!
//! An input is `PATH[#TENSOR][@ROWS]`: a file (.npy, .npz, .safetensors, CSV/TSV, JSON), optionally the array or
//! tensor to take from an .npz/.safetensors/JSON object, optionally a row subset: `a..b` (half-open),
//! a comma list `3,1,4`, or the path of an index file (one index per line, or comma/space separated; .npy integer
//! arrays work too).

use std::path::Path;

use lethe::Matrix;
use lethe::data::{self, LoadOptions};

use crate::CliError;
pub use lethe_analysis::spec::{InputSpec, RowSpec};

pub use lethe::record::{FileDigest, InputRecord};

/// SHA-256 of a file, streamed.
pub fn sha256_file(path: &Path) -> Result<String, CliError> {
    let f = std::fs::File::open(path).map_err(|e| CliError::io(path, &e))?;
    lethe::digest::sha256_hex(&f, |_, _| ()).map_err(|e| CliError::io(path, &e))
}

/// The indices a row spec selects from data of `rows` rows (`None`: not known yet), and the digest of the index
/// or split file they came from. A range is checked against `rows` before it is expanded, and is never expanded
/// beyond `max_len` indices (what the load could hold at most), so `@0..99999999999999` is an error, not an
/// allocation.
pub fn resolve_rows(
    role: &str,
    spec: &RowSpec,
    rows: Option<(u64, &Path)>,
    max_len: u64,
) -> Result<(Vec<usize>, Option<FileDigest>), CliError> {
    match spec {
        RowSpec::Range(a, b) => {
            if let Some((n, path)) = rows
                && *b as u64 > n
            {
                return Err(CliError::msg(format!(
                    "{role}: rows {a}..{b} are out of range for `{}`, which has {n} rows (valid indices are \
                     0..{n}); pass a range within them",
                    path.display()
                )));
            }
            if (b - a) as u64 > max_len {
                return Err(CliError::msg(format!(
                    "{role}: rows {a}..{b} are {} rows, more than one input may load (at most {max_len} here, \
                     1 GiB per input); pass a smaller row subset",
                    b - a
                )));
            }
            Ok(((*a..*b).collect(), None))
        }
        RowSpec::List(v) => Ok((v.clone(), None)),
        RowSpec::File(p) => {
            if !p.exists() {
                return Err(CliError::msg(format!(
                    "{role}: rows `{}` are neither a range a..b nor a list i,j,k, so they name an index file, and \
                     no such file exists; check the path",
                    p.display()
                )));
            }
            let loaded = data::load_path::<f64>(p, &LoadOptions::default())
                .map_err(|e| CliError::input(&format!("{role} (row index file)"), p, e.into()))?;
            let m = loaded.matrix;
            let mut out = Vec::with_capacity(m.as_slice().len());
            for (k, &v) in m.as_slice().iter().enumerate() {
                if !(v >= 0.0 && v.fract() == 0.0 && v < 9.0e15) {
                    return Err(CliError::msg(format!(
                        "{role}: row index file {}: entry {k} is {v}, not a non-negative integer row index; \
                         an index file holds row numbers 0, 1, 2, ...",
                        p.display()
                    )));
                }
                out.push(v as usize);
            }
            Ok((out, Some(digest(p)?)))
        }
        RowSpec::Split { file, value } => {
            let f = std::fs::File::open(file).map_err(|e| {
                CliError::input(
                    &format!("{role} (split column)"),
                    file,
                    data::DataError::io(&file.display().to_string(), "cannot open the file", &e).into(),
                )
            })?;
            let idx = data::split_rows(&file.display().to_string(), &f, value)
                .map_err(|e| CliError::input(&format!("{role} (split column)"), file, e.into()))?;
            if idx.is_empty() {
                return Err(CliError::msg(format!(
                    "{role}: no row of the split column `{}` equals `{value}`; check the value (entries are \
                     compared with surrounding spaces removed; numeric columns as numbers)",
                    file.display()
                )));
            }
            Ok((idx, Some(digest(file)?)))
        }
    }
}

fn digest(p: &Path) -> Result<FileDigest, CliError> {
    Ok(FileDigest {
        path: p.display().to_string(),
        sha256: sha256_file(p)?,
    })
}

/// The record of an index or split file that a command's rows came from, given on its own (`ruler --forget`,
/// `calibrate --it-pool`): as the widget records it.
pub fn row_file_record(role: &str, spec: &RowSpec, d: FileDigest, rows: usize) -> InputRecord {
    InputRecord::row_file(role, spec.to_string(), d, rows)
}

/// Rows of the array `spec` names, from the file's headers; `None` when the headers do not tell (the file cannot
/// be read, or the array is not chosen): loading then says why.
fn header_rows(spec: &InputSpec) -> Option<u64> {
    let info = data::inspect_path(&spec.path).ok()?;
    info.array(spec.tensor.as_deref()).map(|a| a.rows)
}

/// A loaded matrix input with its record.
pub struct Input<T: lethe::data::Scalar = f64> {
    pub matrix: Matrix<T>,
    pub record: InputRecord,
}

/// Whether every value of the spec's array converts to f32 and back exactly (float32/float16/bfloat16 and small
/// integer dtypes), read from the header only; `false` when that cannot be told (text formats parse as float64).
pub fn exact_in_f32(spec: &InputSpec) -> bool {
    const EXACT: [&str; 8] = [
        "float32", "float16", "bfloat16", "int8", "uint8", "int16", "uint16", "bool",
    ];
    let Ok(info) = data::inspect_path(&spec.path) else {
        return false;
    };
    info.array(spec.tensor.as_deref())
        .is_some_and(|a| EXACT.contains(&a.dtype.as_str()))
}

/// Loads an input for `role`: the file (with its tensor and row subset) as f64.
pub fn load(role: &str, spec: &InputSpec) -> Result<Input, CliError> {
    load_as(role, spec)
}

/// [`load`] into element type `T` (f32 only for inputs that [`exact_in_f32`] accepts: the values are then the same).
pub fn load_as<T: lethe::data::Scalar>(role: &str, spec: &InputSpec) -> Result<Input<T>, CliError> {
    let (rows, row_file) = match &spec.rows {
        Some(r) => {
            let n = match r {
                RowSpec::Range(..) => header_rows(spec),
                _ => None,
            };
            if matches!(r, RowSpec::Range(..)) && n.is_none() {
                // The headers do not say how many rows there are: let the load say what is wrong with the file
                // (or which array to choose) before anything is expanded.
                data::load_path::<T>(
                    &spec.path,
                    &LoadOptions {
                        name: spec.tensor.clone(),
                        rows: Some(vec![0]),
                        ..LoadOptions::default()
                    },
                )
                .map_err(|e| CliError::input(role, &spec.path, e.into()))?;
            }
            let max_len = LoadOptions::default().max_bytes / std::mem::size_of::<T>() as u64;
            let (v, d) = resolve_rows(role, r, n.map(|n| (n, spec.path.as_path())), max_len)?;
            (Some(v), d)
        }
        None => (None, None),
    };
    load_rows_as(role, spec, rows, row_file)
}

/// [`load_as`] with the spec's rows already resolved (`rows`, and the index or split file they came from).
fn load_rows_as<T: lethe::data::Scalar>(
    role: &str,
    spec: &InputSpec,
    rows: Option<Vec<usize>>,
    row_file: Option<FileDigest>,
) -> Result<Input<T>, CliError> {
    let opts = LoadOptions {
        name: spec.tensor.clone(),
        rows,
        ..LoadOptions::default()
    };
    let loaded = data::load_path::<T>(&spec.path, &opts).map_err(|e| CliError::input(role, &spec.path, e.into()))?;
    let record = InputRecord {
        role: role.to_string(),
        spec: spec.to_string(),
        path: spec.path.display().to_string(),
        sha256: sha256_file(&spec.path)?,
        format: format!("{:?}", loaded.format).to_lowercase(),
        dtype: loaded.info.dtype.clone(),
        shape: loaded.info.shape.clone(),
        tensor: loaded.info.name.clone(),
        rows_used: loaded.matrix.rows(),
        row_file,
    };
    Ok(Input {
        matrix: loaded.matrix,
        record,
    })
}

/// How `sde` and `calibrate` hold a matrix input (`--in-place`): loaded into memory, or read in place from its
/// file, a panel of columns at a time, while each subset's kernels are built. The results are the same, bit for
/// bit; in place, memory stays at the kernels and one panel (a few MB) whatever the number of columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum InPlace {
    /// In place when the rows used would take more than [`IN_PLACE_BYTES`] in memory and the file allows it.
    Auto,
    /// In place, or an error naming why the file cannot be read so (text, JSON, a deflated .npz member).
    Always,
    /// Always loaded.
    Never,
}

/// Under `--in-place auto`, inputs whose rows take more than this in memory are read in place.
pub const IN_PLACE_BYTES: u64 = 64 << 20;

/// A matrix input of `sde`/`calibrate` as held: loaded, or its file open for reading in place.
pub enum Held<T: lethe::data::Scalar> {
    Loaded(Matrix<T>),
    InPlace {
        file: std::fs::File,
        /// The file's name for messages, and the tensor to read.
        label: String,
        tensor: Option<String>,
        /// Rows of the array used, in order (`None`: all of them).
        rows: Option<Vec<usize>>,
    },
}

/// An opened matrix input with its record.
pub struct Opened<T: lethe::data::Scalar> {
    pub held: Held<T>,
    pub record: InputRecord,
}

impl<T: lethe::data::Scalar> Opened<T> {
    /// Rows used.
    pub fn rows(&self) -> usize {
        self.record.rows_used
    }

    /// The array read in place, when this input is (`None` when loaded).
    pub fn array_file(&self) -> Result<Option<data::ArrayFile<'_>>, CliError> {
        let Held::InPlace {
            file, label, tensor, ..
        } = &self.held
        else {
            return Ok(None);
        };
        let path = Path::new(&self.record.path);
        let opened = data::ArrayFile::open(label, file, tensor.as_deref())
            .map_err(|e| CliError::input(&self.record.role, path, e))?;
        opened.map(Some).ok_or_else(|| {
            CliError::input(
                &self.record.role,
                path,
                lethe::Error::param("in-place", label, "a file whose data can be read in place"),
            )
        })
    }

    /// The rows of this input as a subset of a source: its loaded matrix, or `array` (this input's
    /// [`Opened::array_file`]) read in place.
    pub fn source<'a>(
        &'a self,
        array: Option<&'a data::ArrayFile<'a>>,
    ) -> Result<(data::Source<'a, T>, Option<&'a [usize]>), CliError> {
        match (&self.held, array) {
            (Held::Loaded(m), _) => Ok((data::Source::Memory(m.view()), None)),
            (Held::InPlace { rows, .. }, Some(f)) => Ok((data::Source::File(f), rows.as_deref())),
            (Held::InPlace { .. }, None) => Err(CliError::input(
                &self.record.role,
                Path::new(&self.record.path),
                lethe::Error::Backend("internal error: an input read in place lost its file; please report it".into()),
            )),
        }
    }
}

/// Opens a matrix input of `sde`/`calibrate` as `mode` says: loaded (as [`load_as`]), or, for a file that stores
/// its array uncompressed (.npy, .safetensors, stored .npz members), kept open to be read in place.
pub fn open_as<T: lethe::data::Scalar>(role: &str, spec: &InputSpec, mode: InPlace) -> Result<Opened<T>, CliError> {
    let in_place_possible = || -> Option<(data::ArrayInfo, data::Format)> {
        let info = data::inspect_path(&spec.path).ok()?;
        let array = info.array(spec.tensor.as_deref())?;
        let readable = array.data_offset.is_some() && array.problem.is_none() && array.rows > 0;
        readable.then(|| (array.clone(), info.format))
    };
    let candidate = match mode {
        InPlace::Never => None,
        InPlace::Auto | InPlace::Always => in_place_possible(),
    };
    let Some((info, format)) = candidate else {
        if mode == InPlace::Always {
            // Let the load say what is wrong with the file, if anything; else say why it cannot be read in place.
            load_as::<T>(role, spec)?;
            return Err(CliError::usage(format!(
                "--in-place always: `{}` cannot be read in place (only .npy, .safetensors and stored .npz arrays can; \
                 CSV/TSV, JSON and deflated .npz members must be loaded): use --in-place auto",
                spec.path.display()
            )));
        }
        let input = load_as::<T>(role, spec)?;
        return Ok(Opened {
            held: Held::Loaded(input.matrix),
            record: input.record,
        });
    };
    let (rows, row_file) = match &spec.rows {
        Some(r) => {
            let (v, d) = resolve_rows(role, r, Some((info.rows, spec.path.as_path())), info.rows)?;
            (Some(v), d)
        }
        None => (None, None),
    };
    let used = rows.as_ref().map_or(info.rows, |r| r.len() as u64);
    let bytes = used
        .saturating_mul(info.cols)
        .saturating_mul(std::mem::size_of::<T>() as u64);
    if mode == InPlace::Auto && bytes <= IN_PLACE_BYTES {
        // Loaded after all: with the rows resolved here (no second read of an index file).
        let input = load_rows_as::<T>(role, spec, rows, row_file)?;
        return Ok(Opened {
            held: Held::Loaded(input.matrix),
            record: input.record,
        });
    }
    let file = std::fs::File::open(&spec.path).map_err(|e| CliError::io(&spec.path, &e))?;
    let record = InputRecord {
        role: role.to_string(),
        spec: spec.to_string(),
        path: spec.path.display().to_string(),
        sha256: sha256_file(&spec.path)?,
        format: format!("{format:?}").to_lowercase(),
        dtype: info.dtype.clone(),
        shape: info.shape.clone(),
        tensor: info.name.clone(),
        rows_used: used as usize,
        row_file,
    };
    Ok(Opened {
        held: Held::InPlace {
            file,
            label: spec
                .path
                .file_name()
                .map_or_else(|| spec.path.display().to_string(), |f| f.to_string_lossy().into_owned()),
            tensor: spec.tensor.clone(),
            rows,
        },
        record,
    })
}
