//! NumPy `.npz` archives: zip files of `.npy` members, stored (`np.savez`) or deflated
//! (`np.savez_compressed`), numpy's zip64 extra fields included.
//!
//! The `zip` crate reads the central directory and inflates; Lethe reads each member's .npy header through it
//! (inflating only the first bytes of a deflated member). Loading streams the member through the zip reader to
//! its end, so its CRC-32 is checked every time its data gives numbers (as numpy's `np.load` does): a flipped byte
//! is an error naming the member, never a number. Deflated members are never inflated past
//! [`LoadOptions::max_bytes`] (so a zip bomb costs at most that much inflation); stored members read in place
//! ([`crate::data::ArrayFile`]) are checked once when opened.

use std::io::{BufReader, Read};

use zip::result::ZipError;
use zip::{CompressionMethod, ZipArchive};

use super::array::{self, Access, Located};
use super::load::{ArrayInfo, FileInfo, Format, LoadOptions, Loaded, finish, pick};
use super::npy::{self, Header};
use super::source::{ByteSource, SourceReader};
use super::{DataError, Scalar};
use crate::note::{Note, NoteKind};

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

fn members(input: &str, zip: &Archive<'_>, warnings: &mut Vec<Note>) -> Result<Vec<Member>, DataError> {
    let mut out = Vec::new();
    for index in 0..zip.len() {
        let entry = zip.by_index_data(index).map_err(|e| zip_error(input, e))?;
        let file = entry.name().map_err(|e| zip_error(input, e))?.into_owned();
        if entry.is_dir() {
            continue;
        }
        let Some(name) = file.strip_suffix(".npy") else {
            warnings.push(Note::new(
                NoteKind::Reader,
                format!("`{input}`: member `{file}` is not a .npy array and was ignored"),
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

fn info_for(label: &str, zip: &mut Archive<'_>, m: &Member) -> Result<(ArrayInfo, Option<Note>), DataError> {
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
) -> Result<(Member, String, ArrayInfo, Vec<Note>), DataError> {
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
    let (m, label, info, warnings) = chosen(input, &mut zip, opts.name.as_deref())?;
    let (h, _, mut reader) = member_header(&label, &mut zip, &m)?;
    let layout = h.layout().ok_or_else(|| npy::unsupported(&label, &info.dtype))?;
    let rows = opts.rows.as_deref();
    // A stored member's bytes are in the file: reading through all of it costs I/O, not memory, so only the result
    // counts against the limit. A deflated member is inflated whole (below), so its size counts too.
    let access = if m.stored { Access::Random } else { Access::Stream };
    let plan = array::plan::<T>(&label, &layout, rows, opts.max_bytes, access)?;
    if !m.stored && m.size > opts.max_bytes {
        return Err(DataError::TooLarge {
            input: label,
            needed: m.size,
            limit: opts.max_bytes,
            hint: " (a compressed member is decompressed whole to check its CRC-32, even for a few rows); save \
                   the array uncompressed (np.savez, or np.save as .npy) to load row subsets of it"
                .into(),
        });
    }
    // Streamed through the zip reader, which checks the member's CRC-32 when its end is reached: a corrupt
    // member gives no number.
    let data = array::read_stream::<T>(&label, &mut reader, &plan)?;
    verify_to_end(&label, &mut reader)?;
    finish(Format::Npz, &label, &plan, data, info, warnings)
}

/// The value of the 0-d (scalar) member `name` of an .npz archive, as float64 (numpy's `float(arr)`): what
/// `np.savez(f, auc=0.62)` stores (ML Privacy Meter's `auc`, `one_tenth_fpr`, `zero_fpr`), which [`load`] refuses
/// (a scalar is no data matrix). `None` when the archive has no member `name`, or it is not 0-d, or its dtype is
/// not one Lethe reads. The member's CRC-32 is checked, as for [`load`].
///
/// # Errors
/// As [`inspect`], and a member whose data fails its CRC-32 check or is cut short.
pub fn scalar(input: &str, src: &dyn ByteSource, name: &str) -> Result<Option<f64>, DataError> {
    let mut zip = open(input, src)?;
    let list = members(input, &zip, &mut Vec::new())?;
    let Some(m) = list.into_iter().find(|m| m.name == name && m.unreadable.is_none()) else {
        return Ok(None);
    };
    let label = label(input, &m);
    let (h, _, mut reader) = member_header(&label, &mut zip, &m)?;
    let Some(layout) = h.layout().filter(|l| l.shape.is_empty()) else {
        return Ok(None);
    };
    let mut bytes = vec![0u8; layout.dtype.size];
    reader.read_exact(&mut bytes).map_err(|e| member_error(&label, &e))?;
    verify_to_end(&label, &mut reader)?;
    let mut out = [0f64];
    super::dtype::decode(layout.dtype, &bytes, &mut out);
    Ok(Some(out[0]))
}

/// Reads the rest of a member, so that the zip reader compares its CRC-32 with the archive's.
fn verify_to_end(label: &str, reader: &mut dyn Read) -> Result<(), DataError> {
    match std::io::copy(reader, &mut std::io::sink()) {
        Ok(_) => Ok(()),
        Err(e) => Err(member_error(label, &e)),
    }
}

/// The error for a failed read of a member's data: a CRC-32 mismatch says so.
fn member_error(label: &str, e: &std::io::Error) -> DataError {
    if e.kind() == std::io::ErrorKind::InvalidData && e.to_string().contains("checksum") {
        DataError::corrupt(
            label,
            "its data fails the archive's CRC-32 check: the bytes are not the ones that were saved (the file was \
             damaged in storage or in transfer)",
            "copy or download the file again, or re-save the array with np.savez",
        )
    } else {
        array::io_error(label, "the member", e)
    }
}

/// Checks the CRC-32 of member `name` (as for [`load`]) by reading all of it once: what
/// [`crate::data::ArrayFile::open`] does before reading a stored member in place. Costs one sequential read of the
/// member (about 1 s per GB from disk; crc32fast's SIMD CRC-32 runs at several GB/s).
pub(crate) fn verify(input: &str, src: &dyn ByteSource, name: Option<&str>) -> Result<(), DataError> {
    let mut zip = open(input, src)?;
    let (m, label, _, _) = chosen(input, &mut zip, name)?;
    let mut f = zip.by_index(m.index).map_err(|e| zip_error(&label, e))?;
    verify_to_end(&label, &mut f)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a panic is how a test reports failure
mod tests {
    use std::io::Write;

    use super::*;
    use crate::data::ArrayFile;

    /// A .npy of a 64 × 4 float64 array 0, 1, 2, … .
    fn npy() -> Vec<u8> {
        let mut header = "{'descr': '<f8', 'fortran_order': False, 'shape': (64, 4), }".to_string();
        header.push_str(&" ".repeat(63 - (10 + header.len()) % 64));
        header.push('\n');
        let mut f = b"\x93NUMPY\x01\x00".to_vec();
        f.extend_from_slice(&(header.len() as u16).to_le_bytes());
        f.extend_from_slice(header.as_bytes());
        for v in 0..256 {
            f.extend_from_slice(&f64::from(v).to_le_bytes());
        }
        f
    }

    fn npz(method: CompressionMethod) -> Vec<u8> {
        let mut zw = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default().compression_method(method);
        zw.start_file("a.npy", opts).unwrap();
        zw.write_all(&npy()).unwrap();
        zw.finish().unwrap().into_inner()
    }

    fn load_rows(bytes: &[u8], rows: Option<Vec<usize>>) -> Result<Loaded<f64>, DataError> {
        let opts = LoadOptions {
            rows,
            ..LoadOptions::default()
        };
        load::<f64>("x.npz", &bytes, &opts)
    }

    fn assert_crc_error(e: &DataError) {
        let msg = e.to_string();
        assert!(matches!(e, DataError::Corrupt { .. }), "{msg}");
        assert!(
            msg.contains("`x.npz:a.npy`") && msg.contains("CRC-32") && msg.contains("download the file again"),
            "{msg}"
        );
    }

    /// ML Privacy Meter's attack result (tests/fixtures/tools/privacy_meter, written by its `audit.py`
    /// `get_audit_results`): the 0-d `auc`, `one_tenth_fpr` and `zero_fpr` read as numpy's `float(z[name])` gives
    /// them (`auc` as in stored_auc.json, the others read back with numpy: 0.23333333333333334); an array, or a member
    /// the archive lacks, is no scalar.
    #[test]
    fn privacy_meters_stored_scalars_read_as_numpy_reads_them() {
        let f = include_bytes!("../../../tests/fixtures/tools/privacy_meter/log/report/exp/attack_result_0.npz");
        let b: &[u8] = f;
        assert_eq!(scalar("a.npz", &b, "auc").unwrap(), Some(0.756_388_888_888_888_8));
        assert_eq!(
            scalar("a.npz", &b, "one_tenth_fpr").unwrap(),
            Some(0.233_333_333_333_333_34)
        );
        assert_eq!(scalar("a.npz", &b, "zero_fpr").unwrap(), Some(0.233_333_333_333_333_34));
        assert_eq!(scalar("a.npz", &b, "scores").unwrap(), None);
        assert_eq!(scalar("a.npz", &b, "eps").unwrap(), None);
    }

    /// One flipped data byte of a stored member: numpy refuses the file, and so does every way Lethe reads it —
    /// a whole load, a row subset far from the flip, and reading in place.
    #[test]
    fn a_flipped_byte_in_a_stored_member_is_refused_however_it_is_read() {
        let good = npz(CompressionMethod::Stored);
        assert_eq!(load_rows(&good, None).unwrap().matrix.as_slice()[255], 255.0);
        assert!(ArrayFile::open("x.npz", &good, None).unwrap().is_some());
        let info = inspect("x.npz", &good).unwrap();
        let at = (info.arrays[0].data_offset.unwrap() + 8 * 200 + 3) as usize; // row 50
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        assert_crc_error(&load_rows(&bad, None).unwrap_err());
        assert_crc_error(&load_rows(&bad, Some(vec![1, 0])).unwrap_err());
        assert_crc_error(&load_rows(&bad, Some(vec![63])).unwrap_err());
        match ArrayFile::open("x.npz", &bad, None) {
            Err(crate::Error::Data(e)) => assert_crc_error(&e),
            other => panic!("in-place open of a corrupt member: {other:?}"),
        }
        // Headers only: inspect lists it, reopen (after a successful open) reads headers alone.
        assert!(inspect("x.npz", &bad).is_ok());
        assert!(ArrayFile::reopen("x.npz", &bad, None).unwrap().is_some());
    }

    /// A deflated member whose data does not match its CRC-32 (the checksum altered in both headers): refused for
    /// a whole load and for a row subset near the start, which used to stop inflating before the check.
    #[test]
    fn a_crc_mismatch_in_a_deflated_member_is_refused_for_row_subsets_too() {
        let good = npz(CompressionMethod::Deflated);
        assert_eq!(
            load_rows(&good, Some(vec![0])).unwrap().matrix.as_slice(),
            &[0.0, 1.0, 2.0, 3.0]
        );
        let mut bad = good.clone();
        for (sig, crc_at) in [(&b"PK\x03\x04"[..], 14), (&b"PK\x01\x02"[..], 16)] {
            let start = bad.windows(4).position(|w| w == sig).unwrap();
            bad[start + crc_at] ^= 0x01;
        }
        assert_crc_error(&load_rows(&bad, None).unwrap_err());
        assert_crc_error(&load_rows(&bad, Some(vec![0])).unwrap_err());
        // Deflated members are never read in place.
        assert!(ArrayFile::open("x.npz", &bad, None).unwrap().is_none());
    }
}
