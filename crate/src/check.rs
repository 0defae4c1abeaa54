//! Input validation shared by every procedure: one place that turns bad data into a clear [`Error`].

use crate::data::{MatrixRef, Scalar};
use crate::error::{Error, Result};

/// Fails with [`Error::Empty`] if `x` is empty.
pub fn nonempty<T>(input: &str, x: &[T]) -> Result<()> {
    if x.is_empty() {
        return Err(Error::Empty {
            input: input.to_string(),
            fix: "pass at least one value".into(),
        });
    }
    Ok(())
}

/// Fails with [`Error::NonFinite`] at the first NaN or ±inf in `x`.
pub fn finite<T: Scalar>(input: &str, x: &[T]) -> Result<()> {
    match x.iter().position(|v| !v.to_f64().is_finite()) {
        None => Ok(()),
        Some(i) => Err(Error::NonFinite {
            input: input.to_string(),
            value: x[i].to_f64(),
            location: format!("position {i}"),
        }),
    }
}

/// Non-empty and finite, the usual precondition for a 1-D sample.
pub fn sample<T: Scalar>(input: &str, x: &[T]) -> Result<()> {
    nonempty(input, x)?;
    finite(input, x)
}

/// Fails unless `x` has at least `need` values.
pub fn at_least<T>(input: &str, x: &[T], need: usize, procedure: &'static str) -> Result<()> {
    if x.len() < need {
        return Err(Error::TooSmall {
            input: input.to_string(),
            got: x.len(),
            need,
            unit: "values",
            procedure,
        });
    }
    Ok(())
}

/// A matrix input: at least `min_rows` rows, at least one column, all finite.
pub fn matrix<T: Scalar>(input: &str, m: MatrixRef<'_, T>, min_rows: usize, procedure: &'static str) -> Result<()> {
    shape(input, m.rows(), m.cols(), min_rows, procedure)?;
    if let Some(i) = m.as_slice().iter().position(|v| !v.to_f64().is_finite()) {
        return Err(Error::NonFinite {
            input: input.to_string(),
            value: m.as_slice()[i].to_f64(),
            location: format!("row {}, column {} (both counting from 0)", i / m.cols(), i % m.cols()),
        });
    }
    Ok(())
}

/// A matrix input of `rows × cols` values: at least `min_rows` rows and a column (what [`matrix`] checks but
/// finiteness, for rows that are checked as they are read: [`Columns`], subsets read in place).
pub fn shape(input: &str, rows: usize, cols: usize, min_rows: usize, procedure: &'static str) -> Result<()> {
    if rows == 0 || cols == 0 {
        return Err(Error::Empty {
            input: input.to_string(),
            fix: format!("it has shape {rows}×{cols}; pass a matrix with rows and columns"),
        });
    }
    if rows < min_rows {
        return Err(Error::TooSmall {
            input: input.to_string(),
            got: rows,
            need: min_rows,
            unit: "rows",
            procedure,
        });
    }
    Ok(())
}

/// Bytes one computation may use where addresses are 32 bits (wasm32: a browser tab's WebAssembly memory holds
/// 4 GiB at most, shared with the inputs, the module and its copies of them).
pub const WASM_MEMORY_BYTES: u64 = 2 << 30;

/// Bytes one computation may use natively when the machine's memory cannot be read (not Linux) and
/// `LETHE_MEMORY_LIMIT` is not set.
pub const FALLBACK_MEMORY_BYTES: u64 = 8 << 30;

/// Steps of work one computation may take unless `LETHE_WORK_LIMIT` says otherwise (natively): 10¹², about a
/// quarter of an hour at the billion simple steps a second one core does.
pub const WORK_STEPS: u64 = 1_000_000_000_000;

/// The share of the machine's memory one computation may use natively (the rest is for the inputs, the system
/// and other programs).
const MEMORY_SHARE: (u64, u64) = (3, 4);

/// How much memory and work one computation may take: every entry point adds up what its request needs
/// ([`Budget`]) and refuses a request over these limits before it allocates or computes anything.
///
/// * Memory: 3/4 of the machine's physical memory (Linux: `MemTotal` of `/proc/meminfo`, or where lower the
///   process's cgroup memory limit, its own or an ancestor's, or the address space left under `ulimit -v`); [`FALLBACK_MEMORY_BYTES`] where it cannot be read; the environment
///   variable `LETHE_MEMORY_LIMIT` (bytes, or with a K/M/G/T suffix, binary units) replaces it. Where addresses
///   are 32 bits (the browser's wasm32), [`WASM_MEMORY_BYTES`].
/// * Work: [`WORK_STEPS`] steps (inner-loop iterations, each about a nanosecond on one core); natively the
///   environment variable `LETHE_WORK_LIMIT` (a number of steps, `1e13` allowed) replaces it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes one computation may use.
    pub memory: u64,
    /// Where `memory` comes from, in words (for messages).
    pub memory_source: String,
    /// Steps of work one computation may take.
    pub work: u64,
    /// Where `work` comes from, in words.
    pub work_source: String,
}

/// This process's limits, read once (see [`Limits`]).
pub fn limits() -> &'static Limits {
    static LIMITS: std::sync::OnceLock<Limits> = std::sync::OnceLock::new();
    LIMITS.get_or_init(Limits::detect)
}

impl Limits {
    fn detect() -> Self {
        if cfg!(target_pointer_width = "32") {
            return Self {
                memory: WASM_MEMORY_BYTES,
                memory_source: format!(
                    "{} of the 4 GiB a 32-bit WebAssembly memory can hold",
                    size(WASM_MEMORY_BYTES)
                ),
                work: WORK_STEPS,
                work_source: "this build's limit".into(),
            };
        }
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let (memory, memory_source) = match var("LETHE_MEMORY_LIMIT").map(|v| (parse_bytes(&v), v)) {
            Some((Some(b), _)) => (b, "set by LETHE_MEMORY_LIMIT".to_string()),
            other => {
                let ignored = match other {
                    Some((None, v)) => format!("; LETHE_MEMORY_LIMIT={v:?} is not a size and was ignored"),
                    _ => String::new(),
                };
                match physical_memory() {
                    Some((total, what)) => (
                        total / MEMORY_SHARE.1 * MEMORY_SHARE.0,
                        format!("3/4 of {what} of {}{ignored}", size(total)),
                    ),
                    None => (
                        FALLBACK_MEMORY_BYTES,
                        format!("assumed where this machine's memory cannot be read; set LETHE_MEMORY_LIMIT{ignored}"),
                    ),
                }
            }
        };
        let (work, work_source) = match var("LETHE_WORK_LIMIT").map(|v| (parse_steps(&v), v)) {
            Some((Some(w), _)) => (w, "set by LETHE_WORK_LIMIT".to_string()),
            Some((None, v)) => (
                WORK_STEPS,
                format!("LETHE_WORK_LIMIT={v:?} is not a number of steps and was ignored"),
            ),
            None => (WORK_STEPS, "set LETHE_WORK_LIMIT to allow longer runs".into()),
        };
        Self {
            memory,
            memory_source,
            work,
            work_source,
        }
    }
}

/// The memory this process may use in bytes and what bounds it ("this machine's memory"): the machine's physical
/// memory, or where lower the memory limit of the process's cgroup (its own or an ancestor's, v2 or v1), or the
/// address space left under its address-space limit (`ulimit -v`: the limit less what the process already maps);
/// `None` where the machine's memory cannot be read.
fn physical_memory() -> Option<(u64, &'static str)> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let meminfo = read("/proc/meminfo")?;
    let kib = kib_field(&meminfo, "MemTotal:")?;
    let mut best = (kib.saturating_mul(1024), "this machine's memory");
    let mut lower = |bytes: Option<u64>, what: &'static str| {
        if let Some(b) = bytes.filter(|&b| b > 0 && b < best.0) {
            best = (b, what);
        }
    };
    for file in cgroup_limit_files(&read("/proc/self/cgroup").unwrap_or_default()) {
        // "max" (v2) or a huge number (v1) when unlimited: neither parses below the machine's memory.
        lower(
            read(&file).and_then(|s| s.trim().parse::<u64>().ok()),
            "this process's memory limit (cgroup)",
        );
    }
    let mapped = read("/proc/self/status").and_then(|s| kib_field(&s, "VmSize:"));
    lower(
        read("/proc/self/limits")
            .and_then(|s| address_space_limit(&s))
            .map(|limit| limit.saturating_sub(mapped.unwrap_or(0).saturating_mul(1024))),
        "the address space left under this process's limit (ulimit -v)",
    );
    Some(best)
}

/// A `NAME:   123 kB` field of `/proc/meminfo` or `/proc/self/status`, in KiB.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// The files that may hold this process's cgroup memory limit, from `/proc/self/cgroup`'s text: for cgroup v2
/// (`0::/a/b`) `memory.max` of its cgroup and of every ancestor up to the root, for v1 (`N:memory:/a/b`)
/// `memory.limit_in_bytes` likewise. Inside a container the paths are relative to its own root, which the same
/// walk reaches.
fn cgroup_limit_files(proc_cgroup: &str) -> Vec<String> {
    let mut files = Vec::new();
    for line in proc_cgroup.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let (root, file) = match controllers {
            "" => ("/sys/fs/cgroup", "memory.max"),
            c if c.split(',').any(|c| c == "memory") => ("/sys/fs/cgroup/memory", "memory.limit_in_bytes"),
            _ => continue,
        };
        let mut dir = path.trim_end_matches('/').to_string();
        loop {
            files.push(format!("{root}{dir}/{file}"));
            match dir.rfind('/') {
                Some(i) => dir.truncate(i),
                None => break,
            }
        }
    }
    files
}

/// The soft address-space limit of `/proc/self/limits`'s text (`Max address space  1073741824  …  bytes`), `None`
/// when unlimited.
fn address_space_limit(limits: &str) -> Option<u64> {
    limits
        .lines()
        .find_map(|l| l.strip_prefix("Max address space"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// `"16G"`, `"512 MiB"`, `"17179869184"`: bytes, with an optional K/M/G/T suffix in binary units.
fn parse_bytes(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let num: f64 = num.parse().ok()?;
    let shift = match unit
        .trim()
        .to_ascii_lowercase()
        .trim_end_matches("ib")
        .trim_end_matches('b')
    {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return None,
    };
    let b = num * 2f64.powi(shift);
    (b.is_finite() && b >= 1.0 && b < 2f64.powi(64)).then_some(b as u64)
}

/// `"1e13"`, `"5000000000000"`: a positive number of steps.
fn parse_steps(s: &str) -> Option<u64> {
    let v: f64 = s.trim().parse().ok()?;
    (v.is_finite() && v >= 1.0 && v < 2f64.powi(64)).then_some(v as u64)
}

/// `b` bytes in words: "3.2 GiB", "12.0 MiB", "512 bytes".
pub fn size(b: u64) -> String {
    let f = b as f64;
    if b >= 1 << 30 {
        format!("{:.1} GiB", f / f64::from(1u32 << 30))
    } else if b >= 1 << 20 {
        format!("{:.1} MiB", f / f64::from(1u32 << 20))
    } else if b >= 1 << 10 {
        format!("{:.1} KiB", f / 1024.0)
    } else {
        format!("{b} bytes")
    }
}

/// How long `steps` steps take at a billion a second, in words.
fn duration(steps: u64) -> String {
    let s = steps as f64 / 1e9;
    if s < 120.0 {
        format!("{s:.0} s")
    } else if s < 7200.0 {
        format!("{:.0} minutes", s / 60.0)
    } else if s < 172_800.0 {
        format!("{:.1} hours", s / 3600.0)
    } else {
        format!("{:.0} days", s / 86400.0)
    }
}

/// What a refusal is blamed on: an input (too many rows) or a parameter (too many shuffles).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The input of this name ([`Error::TooLarge`]).
    Input(String),
    /// The parameter of this name and value ([`Error::ParameterTooLarge`]).
    Parameter(&'static str, u64),
}

impl Cause {
    /// [`Cause::Input`] of `name`.
    pub fn input(name: &str) -> Self {
        Self::Input(name.to_string())
    }

    /// [`Cause::Parameter`] `name` = `value`.
    pub fn param(name: &'static str, value: usize) -> Self {
        Self::Parameter(name, value as u64)
    }
}

/// One part of a computation's needs.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Need {
    cause: Cause,
    what: String,
    bytes: u64,
    steps: u64,
    fix: String,
}

/// What one computation needs before it starts: the memory its allocations take at their peak and the steps of
/// its loops, part by part, each part with what it is blamed on and what would make it smaller. [`Budget::check`]
/// refuses the whole if it exceeds [`limits`], naming the largest part.
///
/// # Examples
/// ```
/// use lethe::check::{Budget, Cause, Limits};
/// let mut b = Budget::default();
/// b.add(Cause::param("shuffles", 1_000_000_000), "a null distribution of 1000000000 shuffles", 8_000_000_000, 0, "use fewer shuffles");
/// let small = Limits { memory: 1 << 30, memory_source: "a test".into(), work: 1 << 40, work_source: "a test".into() };
/// let e = b.check_within(&small).unwrap_err().to_string();
/// assert!(e.starts_with("parameter `shuffles` = 1000000000 is too large: a null distribution of 1000000000 shuffles needs"), "{e}");
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    needs: Vec<Need>,
}

impl Budget {
    /// Adds a part: `what` (in words, a singular subject of "needs": "a split half of 500 rows") takes `bytes` of
    /// memory at the computation's peak and `steps` of work; `fix` says how to make it smaller.
    pub fn add(
        &mut self,
        cause: Cause,
        what: impl Into<String>,
        bytes: u64,
        steps: u64,
        fix: impl Into<String>,
    ) -> &mut Self {
        self.needs.push(Need {
            cause,
            what: what.into(),
            bytes,
            steps,
            fix: fix.into(),
        });
        self
    }

    /// Bytes of all parts together (saturating).
    pub fn bytes(&self) -> u64 {
        self.needs.iter().fold(0u64, |a, n| a.saturating_add(n.bytes))
    }

    /// Steps of all parts together (saturating).
    pub fn steps(&self) -> u64 {
        self.needs.iter().fold(0u64, |a, n| a.saturating_add(n.steps))
    }

    /// Fails with [`Error::TooLarge`] or [`Error::ParameterTooLarge`] (blaming the part that needs most) when the
    /// parts together need more memory or work than [`limits`] allow.
    ///
    /// # Errors
    /// As said.
    pub fn check(&self) -> Result<()> {
        self.check_within(limits())
    }

    /// [`Budget::check`] against the given limits.
    ///
    /// # Errors
    /// As [`Budget::check`].
    pub fn check_within(&self, limits: &Limits) -> Result<()> {
        let (bytes, steps) = (self.bytes(), self.steps());
        if bytes > limits.memory
            && let Some(n) = self.needs.iter().max_by_key(|n| n.bytes)
        {
            // The whole, where it reads differently from the part.
            let rest = if size(bytes) != size(n.bytes) {
                format!(" ({} with the rest of the computation)", size(bytes))
            } else {
                String::new()
            };
            let detail = format!(
                "{} needs about {} of memory{rest}, more than the {} one computation may use here ({})",
                n.what,
                size(n.bytes),
                size(limits.memory),
                limits.memory_source
            );
            return Err(n.cause.refuse(detail, n.fix.clone()));
        }
        if steps > limits.work
            && let Some(n) = self.needs.iter().max_by_key(|n| n.steps)
        {
            let rest = if format!("{:.1e}", steps as f64) != format!("{:.1e}", n.steps as f64) {
                format!(", {:.1e} with the rest of the computation", steps as f64)
            } else {
                String::new()
            };
            let detail = format!(
                "{} needs about {:.1e} steps of work (about {} at a billion steps a second{rest}), more than the \
                 {:.1e} one computation may take ({})",
                n.what,
                n.steps as f64,
                duration(n.steps),
                limits.work as f64,
                limits.work_source
            );
            return Err(n.cause.refuse(detail, n.fix.clone()));
        }
        Ok(())
    }
}

impl Cause {
    fn refuse(&self, detail: String, fix: String) -> Error {
        match self {
            Cause::Input(input) => Error::TooLarge {
                input: input.clone(),
                detail,
                fix,
            },
            Cause::Parameter(name, value) => Error::ParameterTooLarge {
                name,
                value: *value,
                detail,
                fix,
            },
        }
    }
}

/// `a · b` of counts as `u64`, saturating (sizes of requests that can be absurd).
pub fn mul(a: usize, b: usize) -> u64 {
    (a as u64).saturating_mul(b as u64)
}

/// Fails with [`Error::TooLarge`] when `matrices` kernel matrices of `n × n` values of `elem` bytes exceed the
/// memory one computation may use ([`limits`]).
///
/// # Errors
/// As said.
pub fn kernel_memory(input: &str, n: usize, matrices: u64, elem: u64, procedure: &'static str) -> Result<()> {
    let bytes = mul(n, n).saturating_mul(matrices).saturating_mul(elem);
    let mut b = Budget::default();
    b.add(
        Cause::input(input),
        format!("{procedure} of {n} rows"),
        bytes,
        0,
        "use subsets of fewer rows (kernels grow as rows²)",
    );
    b.check()
}

/// A probability-like parameter strictly inside (0, 1).
pub fn unit_open(name: &'static str, v: f64) -> Result<()> {
    if v > 0.0 && v < 1.0 {
        Ok(())
    } else {
        Err(Error::param(name, v, "a number strictly between 0 and 1"))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is a failed test
pub(crate) mod tests {
    use super::*;

    /// Issue 24 item 8: a matrix's non-finite value is named by row and column, and the message says both count
    /// from 0.
    #[test]
    fn non_finite_matrix_values_say_they_count_from_0() {
        let mut v = vec![0.5_f64; 6];
        v[2 * 2 + 1] = f64::NAN;
        let m = MatrixRef::new(3, 2, &v).unwrap();
        let e = matrix("x", m, 1, "a test").unwrap_err().to_string();
        assert!(e.contains("row 2, column 1 (both counting from 0)"), "{e}");
    }

    /// Limits of `memory` bytes and `work` steps, for checking the arithmetic at the boundary.
    pub(crate) fn at(memory: u64, work: u64) -> Limits {
        Limits {
            memory,
            memory_source: "a test limit".into(),
            work,
            work_source: "a test limit".into(),
        }
    }

    /// The cgroup files are the process's cgroup and each ancestor's, v2 and v1 (memory controller only).
    #[test]
    fn cgroup_limits_are_read_up_the_tree() {
        assert_eq!(
            cgroup_limit_files("0::/user.slice/session-2.scope\n"),
            [
                "/sys/fs/cgroup/user.slice/session-2.scope/memory.max",
                "/sys/fs/cgroup/user.slice/memory.max",
                "/sys/fs/cgroup/memory.max"
            ]
        );
        assert_eq!(cgroup_limit_files("0::/\n"), ["/sys/fs/cgroup/memory.max"]);
        assert_eq!(
            cgroup_limit_files("12:cpu,cpuacct:/x\n4:memory:/docker/ab\n"),
            [
                "/sys/fs/cgroup/memory/docker/ab/memory.limit_in_bytes",
                "/sys/fs/cgroup/memory/docker/memory.limit_in_bytes",
                "/sys/fs/cgroup/memory/memory.limit_in_bytes"
            ]
        );
        assert!(cgroup_limit_files("garbage").is_empty());
    }

    /// `ulimit -v` as /proc/self/limits shows it; unlimited is no limit.
    #[test]
    fn address_space_limit_is_read() {
        let limited = "Limit                     Soft Limit           Hard Limit           Units\n\
                       Max stack size            8388608              unlimited            bytes\n\
                       Max address space         1073741824           unlimited            bytes\n";
        assert_eq!(address_space_limit(limited), Some(1 << 30));
        let unlimited = "Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(address_space_limit(unlimited), None);
        assert_eq!(
            kib_field("MemTotal:       24567000 kB\n", "MemTotal:"),
            Some(24_567_000)
        );
    }

    /// A budget is accepted exactly up to each limit and refused one byte or step past it.
    pub(crate) fn boundary(b: &Budget) {
        let (bytes, steps) = (b.bytes(), b.steps());
        assert!(bytes < u64::MAX && steps < u64::MAX, "{b:?}");
        b.check_within(&at(bytes, steps)).unwrap();
        if bytes > 0 {
            assert!(b.check_within(&at(bytes - 1, u64::MAX)).is_err());
        }
        if steps > 0 {
            assert!(b.check_within(&at(u64::MAX, steps - 1)).is_err());
        }
    }

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(parse_bytes("17179869184"), Some(16 << 30));
        assert_eq!(parse_bytes("16G"), Some(16 << 30));
        assert_eq!(parse_bytes("16 GiB"), Some(16 << 30));
        assert_eq!(parse_bytes("1.5g"), Some(3 << 29));
        assert_eq!(parse_bytes("512MB"), Some(512 << 20));
        assert_eq!(parse_bytes("2t"), Some(2 << 40));
        assert_eq!(parse_bytes("64k"), Some(64 << 10));
        for bad in ["", "G", "-1G", "0", "ten", "1e99", "5 parsecs"] {
            assert_eq!(parse_bytes(bad), None, "{bad}");
        }
        assert_eq!(parse_steps("1e13"), Some(10_000_000_000_000));
        assert_eq!(parse_steps("2000"), Some(2000));
        assert_eq!(parse_steps("-5"), None);
        assert_eq!(parse_steps("inf"), None);
        assert_eq!(size(512), "512 bytes");
        assert_eq!(size(3 << 29), "1.5 GiB");
        assert_eq!(size(12 << 20), "12.0 MiB");
    }

    #[test]
    fn this_process_has_limits() {
        let l = limits();
        assert!(l.memory >= 1 << 20 && l.work >= 1, "{l:?}");
        if cfg!(target_pointer_width = "32") {
            assert_eq!(l.memory, WASM_MEMORY_BYTES);
        } else if std::env::var_os("LETHE_MEMORY_LIMIT").is_none()
            && let Some((total, _)) = physical_memory()
        {
            assert_eq!(l.memory, total / 4 * 3, "{l:?}");
        }
    }

    #[test]
    fn a_budget_refuses_past_its_limits_and_blames_its_largest_part() {
        let mut b = Budget::default();
        b.add(
            Cause::input("x"),
            "the kernel matrix of 10 rows",
            800,
            100,
            "use fewer rows",
        )
        .add(
            Cause::param("shuffles", 1000),
            "1000 shuffles",
            8000,
            50_000,
            "use fewer shuffles",
        );
        assert_eq!((b.bytes(), b.steps()), (8800, 50_100));
        boundary(&b);
        match b.check_within(&at(8799, u64::MAX)).unwrap_err() {
            Error::ParameterTooLarge {
                name,
                value,
                detail,
                fix,
            } => {
                assert_eq!((name, value), ("shuffles", 1000));
                assert!(
                    detail.starts_with("1000 shuffles needs about 7.8 KiB of memory (8.6 KiB with the rest")
                        && detail.contains("more than the 8.6 KiB one computation may use here (a test limit)"),
                    "{detail}"
                );
                assert_eq!(fix, "use fewer shuffles");
            }
            e => panic!("{e}"),
        }
        // Work: the part with the most steps is blamed, and the message says how long it would take.
        let mut b = Budget::default();
        b.add(
            Cause::input("x"),
            "the assignment problem of 30000 rows",
            0,
            27_000_000_000_000,
            "use fewer rows",
        );
        let e = b.check_within(&at(u64::MAX, WORK_STEPS)).unwrap_err().to_string();
        let e = crate::words::cli(&e);
        assert!(
            e.starts_with("input `x` is too large: the assignment problem of 30000 rows needs about 2.7e13 steps")
                && e.contains("(about 7.5 hours")
                && e.contains("more than the 1.0e12")
                && e.ends_with("; use fewer rows"),
            "{e}"
        );
        // Sizes saturate rather than wrap.
        let mut b = Budget::default();
        b.add(Cause::input("x"), "a", u64::MAX, 0, "f")
            .add(Cause::input("y"), "b", 5, 0, "f");
        assert_eq!(b.bytes(), u64::MAX);
        assert!(b.check().is_err());
        assert_eq!(mul(usize::MAX, usize::MAX), u64::MAX);
    }

    #[test]
    fn kernel_memory_names_the_input_and_its_rows() {
        let e = kernel_memory("t", 1 << 20, 3, 8, "a split half")
            .unwrap_err()
            .to_string();
        let e = crate::words::cli(&e);
        assert!(
            e.starts_with("input `t` is too large: a split half of 1048576 rows needs about 24576.0 GiB"),
            "{e}"
        );
        kernel_memory("t", 100, 3, 8, "a split half").unwrap();
    }

    /// The largest `n` in `1..=hi` whose budget fits `limits` (budgets grow with `n`); 0 if none does.
    fn largest(limits: &Limits, hi: usize, budget: impl Fn(usize) -> Budget) -> usize {
        let fits = |n: usize| budget(n).check_within(limits).is_ok();
        let (mut lo, mut hi) = (0, hi);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if fits(mid) { lo = mid } else { hi = mid - 1 }
        }
        lo
    }

    /// The table of docs/cli.md "Limits": the largest request each analysis accepts under this machine's limits
    /// and under wasm32's, from the same arithmetic the entry points check. Run with
    /// `cargo test -p lethe --lib limits_table -- --ignored --nocapture`.
    #[test]
    #[ignore = "prints the limits table for the docs"]
    fn limits_table() {
        use crate::backend::Precision;
        use crate::hsic::{HsicTestParams, stat_budget, test_budget};
        use crate::kernel::Bandwidth;
        use crate::sde::calibrated::{CalibratedParams, DataShape, TargetRows, size_budget};
        use crate::sde::{RowSubset, SdeParams, add_size};
        let native = limits().clone();
        let wasm = at(WASM_MEMORY_BYTES, WORK_STEPS);
        let d = 512;
        let cols = crate::Matrix::from_vec(1, d, vec![0.0; d]).unwrap();
        let sqrt = (Bandwidth::SqrtDim, Bandwidth::SqrtDim);
        let hsic_test = |precision, permutations| {
            move |n| {
                test_budget(
                    n,
                    (d, d),
                    4,
                    &HsicTestParams {
                        permutations,
                        precision,
                        ..Default::default()
                    },
                    2,
                )
            }
        };
        let sde = |precision, shuffles, baselines, targets: usize, rows: Option<usize>| {
            let cols = &cols;
            move |n: usize| {
                let (size, count) = match rows {
                    Some(r) => (r, n),
                    None => (n, targets),
                };
                let idx = vec![0; size];
                let one = RowSubset {
                    name: "s",
                    source: crate::data::Source::Memory(cols.view()),
                    rows: Some(&idx[..]),
                    label: None,
                };
                let all = vec![&one; 2 + count];
                let mut b = Budget::default();
                let p = SdeParams {
                    shuffles,
                    precision,
                    baselines,
                    ..Default::default()
                };
                add_size(&mut b, &all, &p, 2);
                b
            }
        };
        let calibrate = |refs: Option<usize>, paper_shuffles| {
            move |n: usize| {
                let shape = DataShape {
                    rows: 100_000,
                    cols: d,
                    in_bytes: 4,
                };
                let (size, r, t) = match refs {
                    None => (100, 20, n),
                    Some(_) => (100, n, 100),
                };
                let targets = vec![TargetRows {
                    name: "t".into(),
                    rows: vec![0; t],
                    label: None,
                }];
                let p = CalibratedParams {
                    subset_size: size,
                    references: r,
                    paper_shuffles,
                    ..Default::default()
                };
                size_budget(shape, 10_000, &targets, &p, 2)
            }
        };
        let one = |what: &'static str, bytes: fn(usize) -> u64, steps: fn(usize) -> u64| {
            move |n: usize| {
                let mut b = Budget::default();
                b.add(Cause::input("x"), what, bytes(n), steps(n), "");
                b
            }
        };
        type Largest<'a> = Box<dyn Fn(&Limits) -> usize + 'a>;
        let rows: Vec<(&str, Largest<'_>)> = vec![
            (
                "hsic: rows, 512 columns, --permutations 1000, f64",
                Box::new(move |l: &Limits| largest(l, 1 << 24, hsic_test(Precision::F64, 1000))),
            ),
            (
                "hsic: rows, 512 columns, --permutations 1000, f32",
                Box::new(move |l: &Limits| largest(l, 1 << 24, hsic_test(Precision::F32, 1000))),
            ),
            (
                "hsic: --permutations, 100 rows",
                Box::new(move |l: &Limits| {
                    largest(l, usize::MAX / 2, |p| {
                        test_budget(
                            100,
                            (d, d),
                            4,
                            &HsicTestParams {
                                permutations: p,
                                ..Default::default()
                            },
                            2,
                        )
                    })
                }),
            ),
            (
                "HSIC statistic alone (lethe::hsic::hsic): rows",
                Box::new(move |l: &Limits| largest(l, 1 << 24, |n| stat_budget(n, (d, d), 4, sqrt))),
            ),
            (
                "mmd: rows of each input (equal sizes), sqrt_dim",
                Box::new(move |l: &Limits| {
                    largest(l, 1 << 24, |n| {
                        one(
                            "m",
                            |n| crate::mmd::mmd_bytes(n, n, 512, Bandwidth::SqrtDim),
                            |n| crate::kernel::rbf_steps(2 * n, 512),
                        )(n)
                    })
                }),
            ),
            (
                "mmd: rows of each input, median",
                Box::new(move |l: &Limits| {
                    largest(l, 1 << 24, |n| {
                        one(
                            "m",
                            |n| crate::mmd::mmd_bytes(n, n, 512, Bandwidth::Median),
                            |n| crate::kernel::rbf_steps(2 * n, 512),
                        )(n)
                    })
                }),
            ),
            (
                "wasserstein: rows (d > 1)",
                Box::new(move |l: &Limits| {
                    largest(
                        l,
                        1 << 24,
                        one("w", crate::wasserstein::assignment_bytes, |n| {
                            crate::wasserstein::assignment_steps(n, 512)
                        }),
                    )
                }),
            ),
            (
                "sde: subset rows (2 references + 100 targets), f64",
                Box::new(move |l: &Limits| largest(l, 1 << 24, sde(Precision::F64, 200, false, 100, None))),
            ),
            (
                "sde: subset rows (2 references + 100 targets), f32",
                Box::new(move |l: &Limits| largest(l, 1 << 24, sde(Precision::F32, 200, false, 100, None))),
            ),
            (
                "sde --baselines: subset rows (2 + 100), f32",
                Box::new(move |l: &Limits| largest(l, 1 << 24, sde(Precision::F32, 200, true, 100, None))),
            ),
            (
                "fdr --method hommel: p-values",
                Box::new(move |l: &Limits| largest(l, 1 << 40, crate::multiple_testing::hommel_budget)),
            ),
            (
                "sde: targets (--draw) of 100 rows",
                Box::new(move |l: &Limits| largest(l, 1 << 30, sde(Precision::F64, 200, false, 0, Some(100)))),
            ),
            (
                "sde: --shuffles, 3 subsets of 100 rows",
                Box::new(move |l: &Limits| largest(l, usize::MAX / 2, |t| sde(Precision::F64, t, false, 1, None)(100))),
            ),
            (
                "sde: drawing --draw subsets of 100 rows from 10000",
                Box::new(move |l: &Limits| {
                    largest(l, usize::MAX / 2, |n| {
                        one("d", |_| 0, |_| 0)(n).also(|b| {
                            b.add(
                                Cause::input("x"),
                                "d",
                                crate::sde::draw_bytes(10_000, n, 100),
                                crate::sde::draw_steps(10_000, n, 100),
                                "",
                            );
                        })
                    })
                }),
            ),
            (
                "calibrate: target rows (--refs 20 of 100 rows, --paper-shuffles 200)",
                Box::new(move |l: &Limits| largest(l, 1 << 24, calibrate(None, 200))),
            ),
            (
                "calibrate: --refs (subsets of 100 rows)",
                Box::new(move |l: &Limits| largest(l, usize::MAX / 4, calibrate(Some(0), 200))),
            ),
            (
                "bounds: --stepsize (10^4 scores; conbo/perbin)",
                Box::new(move |l: &Limits| {
                    largest(l, usize::MAX / 2, |s| {
                        one("g", |_| 0, |_| 0)(s).also(|b| {
                            b.add(
                                Cause::input("x"),
                                "g",
                                crate::leakage::grid_bytes(s),
                                crate::leakage::grid_steps(s, 10_000, false),
                                "",
                            );
                        })
                    })
                }),
            ),
            (
                "bounds --sd-method lp: --stepsize (10^4 scores)",
                Box::new(move |l: &Limits| {
                    largest(l, usize::MAX / 2, |s| {
                        one("g", |_| 0, |_| 0)(s).also(|b| {
                            b.add(
                                Cause::input("x"),
                                "g",
                                crate::leakage::grid_bytes(s),
                                crate::leakage::grid_steps(s, 10_000, true),
                                "",
                            );
                        })
                    })
                }),
            ),
            (
                "ruler m4: retain rows (100 forget rows, 512 columns)",
                Box::new(move |l: &Limits| {
                    largest(l, 1 << 30, |n| {
                        one("r", |_| 0, |_| 0)(n).also(|b| {
                            b.add(Cause::input("x"), "r", 0, crate::ruler::nearest_steps(100, n, 512), "");
                        })
                    })
                }),
            ),
        ];
        println!(
            "native: {} ({}); work {:.1e} steps",
            size(native.memory),
            native.memory_source,
            native.work as f64
        );
        println!("| request | native | wasm32 |\n|---|---:|---:|");
        for (what, f) in &rows {
            println!("| {what} | {} | {} |", f(&native), f(&wasm));
        }
    }

    trait Also: Sized {
        fn also(mut self, f: impl FnOnce(&mut Self)) -> Self {
            f(&mut self);
            self
        }
    }
    impl Also for Budget {}
}
