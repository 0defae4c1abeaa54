//! Files named by path (natively): regular files are read in place; pipes, process substitution (`<(…)`), named
//! pipes (FIFOs) and character devices are streams, read once into memory.
//!
//! A pipe reports a length of 0 and cannot be read twice, so treating it as a file would load "an empty file" and
//! hash nothing. It is read whole when it is opened, within the size limit, and what was read is what is loaded and
//! hashed. Opening a FIFO that no program writes to blocks in `open(2)` itself: the open runs on a thread, and is
//! given up after a wait with a message saying which file and what to do.

use std::io::Read;
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use super::DataError;

/// How long opening a named pipe waits for a program to open it for writing, unless the environment variable
/// `LETHE_PIPE_WAIT` (seconds) says otherwise.
pub const PIPE_WAIT: Duration = Duration::from_secs(10);

/// A path opened for reading.
#[derive(Debug)]
pub enum PathSource {
    /// A regular file, read in place.
    File(std::fs::File),
    /// A pipe, FIFO or device, read whole when it was opened.
    Stream(Vec<u8>),
}

impl super::ByteSource for PathSource {
    fn len(&self) -> u64 {
        match self {
            Self::File(f) => super::ByteSource::len(f),
            Self::Stream(b) => super::ByteSource::len(b),
        }
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
        match self {
            Self::File(f) => f.read_at(offset, buf),
            Self::Stream(b) => b.read_at(offset, buf),
        }
    }
}

/// [`PIPE_WAIT`], or `LETHE_PIPE_WAIT` seconds when that is set to a number.
pub fn pipe_wait() -> Duration {
    std::env::var("LETHE_PIPE_WAIT")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map_or(PIPE_WAIT, Duration::from_secs_f64)
}

/// Opens `path` (named `input` in messages): a regular file as it is; anything else that can be read (a pipe, a
/// FIFO, `/dev/stdin`, a device) is read into memory now, at most `max_bytes` of it, waiting at most `wait` for a
/// FIFO's writer to appear.
///
/// # Errors
/// [`DataError::Io`] when the path does not exist, is a directory, cannot be opened or read, or is a FIFO that no
/// program opened for writing within `wait`; [`DataError::Empty`] for a stream that ended before giving any byte;
/// [`DataError::TooLarge`] for a stream longer than `max_bytes`.
pub fn open_path(input: &str, path: &Path, max_bytes: u64, wait: Duration) -> Result<PathSource, DataError> {
    let meta = std::fs::metadata(path).map_err(|e| DataError::io(input, "cannot open the file", &e))?;
    if meta.is_dir() {
        return Err(DataError::Io {
            input: input.to_string(),
            detail: "it is a directory".into(),
            fix: "give the path of a file, not of a directory".into(),
        });
    }
    if meta.is_file() {
        let f = std::fs::File::open(path).map_err(|e| DataError::io(input, "cannot open the file", &e))?;
        return Ok(PathSource::File(f));
    }
    let file = open_stream(input, path, wait)?;
    read_stream(input, path, file, max_bytes).map(PathSource::Stream)
}

/// What a stream is, for messages.
fn kind(path: &Path) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if let Ok(m) = std::fs::metadata(path) {
            let t = m.file_type();
            if t.is_fifo() {
                return "a pipe";
            }
            if t.is_char_device() || t.is_block_device() {
                return "a device";
            }
            if t.is_socket() {
                return "a socket";
            }
        }
    }
    let _ = path;
    "not a regular file"
}

/// Opens a non-regular file for reading, giving up after `wait` (a FIFO's open waits for a writer).
fn open_stream(input: &str, path: &Path, wait: Duration) -> Result<std::fs::File, DataError> {
    let (tx, rx) = mpsc::channel();
    let owned = path.to_path_buf();
    let opener = std::thread::Builder::new()
        .name("lethe-open-pipe".into())
        .spawn(move || {
            // The receiver may be gone (given up); then the file is dropped here.
            let _ = tx.send(std::fs::File::open(&owned));
        })
        .map_err(|e| DataError::io(input, "cannot start reading the pipe", &e))?;
    match rx.recv_timeout(wait) {
        Ok(Ok(f)) => Ok(f),
        Ok(Err(e)) => Err(DataError::io(input, "cannot open the file", &e)),
        Err(_) => {
            // Unblock the waiting open: opening the FIFO for writing (and closing it at once) lets it return and
            // the thread end; best effort, the thread is detached either way.
            if unblock(path) {
                let _ = opener.join();
            }
            Err(DataError::Io {
                input: input.to_string(),
                detail: format!(
                    "it is a named pipe (FIFO) and no program opened it for writing within {} s, so there is \
                     nothing to read",
                    wait.as_secs_f64()
                ),
                fix: "start the program that writes to the pipe first (or together with lethe, e.g. `producer > \
                      pipe & lethe …`), or save the data to a file and give that file; LETHE_PIPE_WAIT sets the \
                      wait in seconds"
                    .into(),
            })
        }
    }
}

/// Opens the FIFO at `path` for writing without waiting (it fails at once where no reader waits) and closes it,
/// so that a reader waiting in `open(2)` returns. Whether that open succeeded.
fn unblock(path: &Path) -> bool {
    // O_NONBLOCK, whose value the standard library does not export.
    #[cfg(target_os = "linux")]
    const NONBLOCK: Option<i32> = Some(0o4000);
    #[cfg(any(target_os = "macos", target_os = "ios", target_os = "freebsd"))]
    const NONBLOCK: Option<i32> = Some(0x4);
    #[cfg(not(any(target_os = "linux", target_os = "macos", target_os = "ios", target_os = "freebsd")))]
    const NONBLOCK: Option<i32> = None;
    #[cfg(unix)]
    if let Some(flag) = NONBLOCK {
        use std::os::unix::fs::OpenOptionsExt;
        return std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(flag)
            .open(path)
            .is_ok();
    }
    let _ = (path, NONBLOCK);
    false
}

/// Reads a stream to its end, refusing more than `max_bytes`.
fn read_stream(input: &str, path: &Path, file: std::fs::File, max_bytes: u64) -> Result<Vec<u8>, DataError> {
    let what = kind(path);
    let mut bytes = Vec::new();
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| DataError::io(input, "reading the pipe", &e))?;
    if bytes.len() as u64 > max_bytes {
        return Err(DataError::TooLarge {
            input: input.to_string(),
            needed: bytes.len() as u64,
            limit: max_bytes,
            hint: format!(
                " (it is {what}, so it is read into memory whole, and it had not ended at the limit); write the data \
                 to a file and give that file's path: files are read in place, only the rows asked for"
            ),
        });
    }
    if bytes.is_empty() {
        return Err(DataError::Empty {
            input: input.to_string(),
            detail: format!(
                "it is {what} and ended before giving any byte; check the command that writes to it (its error, if \
                 any, is above)"
            ),
        });
    }
    Ok(bytes)
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)] // a panic is how a test reports failure
mod tests {
    use super::*;

    fn fifo(name: &str) -> std::path::PathBuf {
        let p = std::env::temp_dir().join(format!("lethe-{name}-{}", std::process::id()));
        let _ = std::fs::remove_file(&p);
        let ok = std::process::Command::new("mkfifo").arg(&p).status().unwrap().success();
        assert!(ok, "mkfifo failed");
        p
    }

    #[test]
    fn a_fifo_with_a_writer_is_read_whole_and_one_without_is_given_up() {
        let p = fifo("fifo-written");
        let q = p.clone();
        let writer = std::thread::spawn(move || std::fs::write(&q, b"1,2\n3,4\n").unwrap());
        let got = open_path("p", &p, 1 << 20, Duration::from_secs(60)).unwrap();
        writer.join().unwrap();
        assert!(
            matches!(got, PathSource::Stream(ref b) if b == b"1,2\n3,4\n"),
            "{got:?}"
        );

        // No writer: the open is given up after the wait (here none), naming what to do.
        let e = open_path("p", &p, 1 << 20, Duration::ZERO).unwrap_err().to_string();
        assert!(
            e.contains("named pipe") && e.contains("start the program that writes"),
            "{e}"
        );
        std::fs::remove_file(&p).unwrap();
    }

    #[test]
    fn empty_and_oversized_streams_and_directories_say_what_they_are() {
        let e = open_path("n", Path::new("/dev/null"), 10, PIPE_WAIT).unwrap_err();
        assert!(matches!(e, DataError::Empty { .. }), "{e}");
        let e = open_path("z", Path::new("/dev/zero"), 10, PIPE_WAIT).unwrap_err();
        assert!(matches!(e, DataError::TooLarge { limit: 10, .. }), "{e}");
        let e = open_path("d", &std::env::temp_dir(), 10, PIPE_WAIT).unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        assert_eq!(kind(Path::new("/dev/null")), "a device");
    }
}
