//! Random-access byte sources: what the readers pull file bytes from.
//!
//! Readers never assume the whole file is in memory. They ask a [`ByteSource`] for exactly the byte ranges they
//! need (a header, then the rows asked for), so a 2 GB file on disk, or a browser `File` read in slices from a
//! worker, costs only the bytes actually used.

use std::io::{self, Read, Seek, SeekFrom};

/// A random-access, read-only sequence of bytes of known length.
///
/// Implemented for in-memory bytes (`[u8]`, `Vec<u8>`) and, natively, for [`std::fs::File`]. The browser worker
/// implements it over `FileReaderSync` + `Blob.slice`.
pub trait ByteSource {
    /// Total length in bytes.
    fn len(&self) -> u64;

    /// Fills `buf` with the bytes at `offset..offset + buf.len()`.
    ///
    /// # Errors
    /// An [`io::ErrorKind::UnexpectedEof`] error when the range runs past [`ByteSource::len`]; any I/O error of
    /// the underlying storage.
    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()>;

    /// Whether the source holds no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn eof(offset: u64, want: usize, len: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!("asked for {want} bytes at offset {offset}, but the source holds {len} bytes"),
    )
}

impl ByteSource for [u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        let all = ByteSource::len(self);
        let src = usize::try_from(offset)
            .ok()
            .and_then(|start| start.checked_add(buf.len()).map(|end| (start, end)))
            .and_then(|(start, end)| self.get(start..end))
            .ok_or_else(|| eof(offset, buf.len(), all))?;
        buf.copy_from_slice(src);
        Ok(())
    }
}

impl ByteSource for Vec<u8> {
    fn len(&self) -> u64 {
        ByteSource::len(self.as_slice())
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        self.as_slice().read_at(offset, buf)
    }
}

impl<S: ByteSource + ?Sized> ByteSource for &S {
    fn len(&self) -> u64 {
        (**self).len()
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        (**self).read_at(offset, buf)
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl ByteSource for std::fs::File {
    /// The length at the time of the call (0 if the metadata cannot be read; reads then fail with a clear error).
    fn len(&self) -> u64 {
        self.metadata().map_or(0, |m| m.len())
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::FileExt;
            self.read_exact_at(buf, offset)
        }
        #[cfg(windows)]
        {
            use std::os::windows::fs::FileExt;
            let mut done = 0;
            while done < buf.len() {
                let at = offset + done as u64;
                match self.seek_read(&mut buf[done..], at) {
                    Ok(0) => return Err(eof(offset, buf.len(), ByteSource::len(self))),
                    Ok(n) => done += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => return Err(e),
                }
            }
            Ok(())
        }
        #[cfg(not(any(unix, windows)))]
        {
            // No positional reads on this platform: seek a clone of the handle, so `&self` stays shared.
            let mut f = self.try_clone()?;
            f.seek(SeekFrom::Start(offset))?;
            f.read_exact(buf)
        }
    }
}

/// Sequential [`Read`] + [`Seek`] over a [`ByteSource`], for code that wants a stream (the zip reader, streamed
/// array data). Wrap it in a [`io::BufReader`]: every `read` is one `read_at`.
pub(crate) struct SourceReader<'a> {
    src: &'a dyn ByteSource,
    pos: u64,
}

impl<'a> SourceReader<'a> {
    pub(crate) fn new(src: &'a dyn ByteSource, pos: u64) -> Self {
        Self { src, pos }
    }
}

impl Read for SourceReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.src.len().saturating_sub(self.pos);
        let n = usize::try_from(left).map_or(buf.len(), |l| l.min(buf.len()));
        if n == 0 {
            return Ok(0);
        }
        self.src.read_at(self.pos, &mut buf[..n])?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl Seek for SourceReader<'_> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.src.len().checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        match target {
            Some(p) => {
                self.pos = p;
                Ok(p)
            }
            None => Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the start of the source",
            )),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a panic is how a test reports failure
mod tests {
    use super::*;

    #[test]
    fn slices_read_exact_ranges_and_refuse_past_the_end() {
        let v: Vec<u8> = (0..10).collect();
        let mut b = [0u8; 3];
        v.read_at(7, &mut b).unwrap();
        assert_eq!(b, [7, 8, 9]);
        assert_eq!(v.read_at(8, &mut b).unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
        assert!(v.read_at(u64::MAX, &mut b).is_err());
    }

    #[test]
    fn reader_reads_and_seeks() {
        let v: Vec<u8> = (0..10).collect();
        let mut r = SourceReader::new(&v, 0);
        r.seek(SeekFrom::End(-2)).unwrap();
        let mut out = Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!(out, [8, 9]);
        assert!(r.seek(SeekFrom::Current(-20)).is_err());
    }
}
