//! NumPy `.npz` archives: zip files of `.npy` members, stored (`np.savez`) or deflated
//! (`np.savez_compressed`), numpy's zip64 extra fields included.
//!
//! The `zip` crate reads the central directory and inflates; Lethe reads each member's .npy header through it
//! (inflating only the first bytes of a deflated member). Stored members are plain .npy files at a known offset,
//! so their rows are read by offset like a .npy file; deflated members are streamed, never inflated past the
//! data the header declares (so a zip bomb costs at most [`LoadOptions::max_bytes`] of inflation).

use std::io::{BufReader, Read};

use zip::result::ZipError;
use zip::{CompressionMethod, ZipArchive};

use super::array::{self, Access, Located};
use super::load::{ArrayInfo, FileInfo, Format, LoadOptions, Loaded, finish, pick};
use super::npy::{self, Header};
use super::source::{ByteSource, SourceReader, SubSource};
use super::{DataError, Scalar};

type Archive<'a> = ZipArchive<BufReader<SourceReader<'a>>>;

fn zip_error(input: &str, e: ZipError) -> DataError {
    match e {
        ZipError::Io(e) => array::io_error(input, "the zip archive", &e),
        ZipError::InvalidArchive(m) => DataError::corrupt(
            input,
            format!("not a readable zip archive ({m}); an .npz file that was cut short looks like this"),
            "re-save it with np.savez or np.savez_compressed, or download it again",
        ),
        other => DataError::corrupt(
            input,
            format!("unsupported zip archive: {other}"),
            "re-save it with np.savez or np.savez_compressed",
        ),
    }
}

fn open<'a>(input: &str, src: &'a dyn ByteSource) -> Result<Archive<'a>, DataError> {
    ZipArchive::new(BufReader::with_capacity(1 << 16, SourceReader::new(src, 0))).map_err(|e| zip_error(input, e))
}

/// A .npy member as listed in the central directory.
struct Member {
    index: usize,
    /// Name in the archive (`a.npy`).
    file: String,
    /// Array name (`a`).
    name: String,
    stored: bool,
    size: u64,
    compressed_size: u64,
    /// Why the member's data cannot be read at all (compression method, encryption).
    unreadable: Option<String>,
}

fn members(input: &str, zip: &Archive<'_>, warnings: &mut Vec<String>) -> Result<Vec<Member>, DataError> {
    let mut out = Vec::new();
    for index in 0..zip.len() {
        let entry = zip.by_index_data(index).map_err(|e| zip_error(input, e))?;
        let file = entry.name().map_err(|e| zip_error(input, e))?.into_owned();
        if entry.is_dir() {
            continue;
        }
        let Some(name) = file.strip_suffix(".npy") else {
            warnings.push(format!(
                "`{input}`: member `{file}` is not a .npy array and was ignored"
            ));
            continue;
        };
        let method = entry.compression();
        let unreadable = if entry.encrypted() {
            Some("the member is encrypted".to_string())
        } else if !matches!(method, CompressionMethod::Stored | CompressionMethod::Deflated) {
            Some(format!(
                "the member is compressed with {method:?}; Lethe reads stored and deflated members \
                 (np.savez, np.savez_compressed)"
            ))
        } else {
            None
        };
        out.push(Member {
            index,
            name: name.to_string(),
            file: file.clone(),
            stored: method == CompressionMethod::Stored,
            size: entry.size(),
            compressed_size: entry.compressed_size(),
            unreadable,
        });
    }
    Ok(out)
}

/// Reads a member's .npy header from its (inflated) stream; returns it with the member's data start in the file.
type MemberReader<'z, 'b> = zip::read::ZipFile<'z, BufReader<SourceReader<'b>>>;

fn member_header<'z, 'b>(
    label: &str,
    zip: &'z mut Archive<'b>,
    m: &Member,
) -> Result<(Header, Option<u64>, MemberReader<'z, 'b>), DataError> {
    let mut f = zip.by_index(m.index).map_err(|e| zip_error(label, e))?;
    let data_start = f.data_start();
    let mut head = [0u8; 12];
    let n = usize::try_from(m.size).map_or(12, |s| s.min(12));
    f.read_exact(&mut head[..n])
        .map_err(|e| array::io_error(label, "the member", &e))?;
    let (start, hlen, utf8) = npy::preamble(label, &head[..n])?;
    if start + hlen > m.size {
        return Err(DataError::Truncated {
            input: label.to_string(),
            detail: format!(
                "its .npy header needs {} bytes, the member holds {}",
                start + hlen,
                m.size
            ),
        });
    }
    // The preamble is 10 or 12 bytes: a 1.0 header's first two text bytes are already in `head`.
    let mut text = Vec::with_capacity(hlen as usize);
    text.extend_from_slice(head.get(start as usize..n).unwrap_or(&[]));
    let rest = hlen as usize - text.len().min(hlen as usize);
    text.truncate(hlen as usize);
    let mut more = vec![0u8; rest];
    f.read_exact(&mut more)
        .map_err(|e| array::io_error(label, "the member's .npy header", &e))?;
    text.extend_from_slice(&more);
    let h = npy::parse_header(label, &text, utf8, start + hlen)?;
    Ok((h, data_start, f))
}

fn info_for(label: &str, zip: &mut Archive<'_>, m: &Member) -> Result<(ArrayInfo, Option<String>), DataError> {
    if let Some(why) = &m.unreadable {
        let info = ArrayInfo {
            name: Some(m.name.clone()),
            dtype: "unknown".into(),
            stored_dtype: "unknown".into(),
            shape: Vec::new(),
            fortran_order: false,
            byte_size: m.size,
            data_offset: None,
            compressed_size: Some(m.compressed_size),
            rows: 0,
            cols: 0,
            note: None,
            problem: Some(why.clone()),
        };
        return Ok((info, None));
    }
    let (h, data_start, _) = member_header(label, zip, m)?;
    let extra = npy::check_size(label, &h, m.size)?;
    let mut info = h.info(Some(m.name.clone()), if m.stored { data_start } else { None });
    if !m.stored {
        info.compressed_size = Some(m.compressed_size);
    }
    Ok((info, extra))
}

/// The member to load (`name`, with or without `.npy`; implied when there is one), its label for messages, its
/// info and the warnings about it.
fn chosen(
    input: &str,
    zip: &mut Archive<'_>,
    name: Option<&str>,
) -> Result<(Member, String, ArrayInfo, Vec<String>), DataError> {
    // Warnings about other members do not concern this load.
    let list = members(input, zip, &mut Vec::new())?;
    let names: Vec<String> = list.iter().map(|m| m.name.clone()).collect();
    let chosen = pick(input, "array", &names, name, |w| {
        w.strip_suffix(".npy").map(str::to_string)
    })?
    .to_string();
    let Some(m) = list.into_iter().find(|m| m.name == chosen) else {
        return Err(DataError::internal(input, "chosen member vanished"));
    };
    let label = label(input, &m);
    let (info, extra) = info_for(&label, zip, &m)?;
    if let (Some(why), Some(_)) = (&info.problem, &m.unreadable) {
        return Err(DataError::corrupt(
            &label,
            why.clone(),
            "re-save the archive with np.savez or np.savez_compressed, or download it again",
        ));
    }
    Ok((m, label, info, extra.into_iter().collect()))
}

/// Where one member's array is (`name` as for [`load`]): for [`crate::data::ArrayFile`]. Deflated members have no
/// offset (they can only be streamed).
pub(crate) fn locate(input: &str, src: &dyn ByteSource, name: Option<&str>) -> Result<Located, DataError> {
    let mut zip = open(input, src)?;
    let (m, label, info, _) = chosen(input, &mut zip, name)?;
    let (h, data_start, _) = member_header(&label, &mut zip, &m)?;
    let layout = h.layout().ok_or_else(|| npy::unsupported(&label, &info.dtype))?;
    let offset = match (m.stored, data_start) {
        // `info_for` has checked that the member holds the data its header declares.
        (true, Some(start)) => Some(start + h.data_offset),
        _ => None,
    };
    Ok(Located {
        label,
        info,
        layout,
        offset,
    })
}

fn label(input: &str, m: &Member) -> String {
    format!("{input}:{}", m.file)
}

/// Lists the arrays of an .npz archive: the central directory plus each member's .npy header (for deflated
/// members, only the header is inflated).
///
/// # Errors
/// [`DataError::Corrupt`] for a damaged archive (a truncated one has no central directory) or a malformed
/// member header; [`DataError::Truncated`] when a member is shorter than its header declares.
///
/// # Examples
/// ```
/// // An empty zip archive: just the end-of-central-directory record.
/// let empty: &[u8] = b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
/// assert!(lethe::data::npz::inspect("e.npz", &empty).unwrap().arrays.is_empty());
/// ```
pub fn inspect(input: &str, src: &dyn ByteSource) -> Result<FileInfo, DataError> {
    let mut zip = open(input, src)?;
    let mut warnings = Vec::new();
    let list = members(input, &zip, &mut warnings)?;
    let mut arrays = Vec::with_capacity(list.len());
    for m in &list {
        let (info, extra) = info_for(&label(input, m), &mut zip, m)?;
        arrays.push(info);
        warnings.extend(extra);
    }
    Ok(FileInfo {
        input: input.to_string(),
        format: Format::Npz,
        file_size: src.len(),
        arrays,
        warnings,
    })
}

/// Loads one member of an .npz archive (`opts.name`, with or without `.npy`; implied when there is one).
///
/// # Errors
/// As [`inspect`], plus [`DataError::NotFound`]/[`DataError::Ambiguous`] for the member name and everything
/// [`crate::data::npy::load`] can return.
///
/// # Examples
/// ```
/// let empty: &[u8] = b"PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0";
/// let err = lethe::data::npz::load::<f64>("e.npz", &empty, &Default::default()).unwrap_err();
/// assert!(err.to_string().contains("no data"));
/// ```
pub fn load<T: Scalar>(input: &str, src: &dyn ByteSource, opts: &LoadOptions) -> Result<Loaded<T>, DataError> {
    let mut zip = open(input, src)?;
    let (m, label, info, mut warnings) = chosen(input, &mut zip, opts.name.as_deref())?;
    let (h, data_start, mut reader) = member_header(&label, &mut zip, &m)?;
    let layout = h.layout().ok_or_else(|| npy::unsupported(&label, &info.dtype))?;
    let rows = opts.rows.as_deref();
    match (m.stored, data_start) {
        (true, Some(start)) => {
            drop(reader);
            let plan = array::plan::<T>(&label, &layout, rows, opts.max_bytes, Access::Random)?;
            let sub = SubSource::new(src, start, m.size);
            let data = array::read_random::<T>(&label, &sub, h.data_offset, &plan)?;
            finish(Format::Npz, &label, &plan, data, info, warnings)
        }
        _ => {
            let plan = array::plan::<T>(&label, &layout, rows, opts.max_bytes, Access::Stream)?;
            let data = array::read_stream::<T>(&label, &mut reader, &plan)?;
            if rows.is_none() || layout.fortran {
                // The whole member was inflated: one more read lets the zip reader verify the CRC.
                let mut probe = [0u8; 1];
                match reader.read(&mut probe) {
                    Ok(0) => {}
                    Ok(_) => warnings.push(format!("`{label}`: bytes after the array data were ignored")),
                    Err(e) => return Err(array::io_error(&label, "the member", &e)),
                }
            }
            finish(Format::Npz, &label, &plan, data, info, warnings)
        }
    }
}
