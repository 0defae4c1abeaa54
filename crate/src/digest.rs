//! SHA-256 of an input, streamed in slices (a browser `File` of several GB is never read whole).

use sha2::{Digest, Sha256};

use crate::data::ByteSource;

/// Bytes read per slice.
const CHUNK: usize = 1 << 20;

/// Lowercase hex SHA-256 of every byte of `src`, read in 1 MiB slices; `on_progress(done, total)` after each.
///
/// # Errors
/// I/O errors of the source.
///
/// # Examples
/// ```
/// let h = lethe::digest::sha256_hex(&&b"abc"[..], |_, _| ()).unwrap();
/// assert_eq!(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
/// ```
pub fn sha256_hex(src: &dyn ByteSource, mut on_progress: impl FnMut(u64, u64)) -> std::io::Result<String> {
    let total = src.len();
    let mut h = Sha256::new();
    let mut buf = vec![0u8; CHUNK];
    let mut offset = 0u64;
    while offset < total {
        let n = usize::try_from(total - offset).map_or(CHUNK, |r| r.min(CHUNK));
        src.read_at(offset, &mut buf[..n])?;
        h.update(&buf[..n]);
        offset += n as u64;
        on_progress(offset, total);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}
