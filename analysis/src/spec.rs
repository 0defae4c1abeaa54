//! Parsing of the command line's input arguments, `PATH[#TENSOR][@ROWS]`, and row arguments (`--forget`,
//! `--it-pool`, ...). Pure functions of the text and of one question — "is this a file?" — so they can be fuzzed
//! (`fuzz/fuzz_targets/cli_spec.rs`) and tested without a filesystem. The rules are documented in docs/cli.md
//! ("Inputs").
//!
//! Paths may contain `#`, `@` and `==`: where a prefix of the argument names an existing file, that prefix is the
//! path (the whole argument first, then the longest prefix ending before a `#` or `@`). Only when no prefix names
//! a file is the argument split at its first `#` or `@`, and loading then reports the missing file.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// A row subset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RowSpec {
    /// `a..b`: rows a to b − 1.
    Range(usize, usize),
    /// `3,1,4`: these rows, in this order (repeats allowed).
    List(Vec<usize>),
    /// An index file: one index per line, or comma/space separated; an integer .npy too.
    File(PathBuf),
    /// `FILE==VALUE`: the rows whose entry in the split column `file` equals `value` (`lethe::data::split_rows`).
    Split { file: PathBuf, value: String },
}

/// `PATH[#TENSOR][@ROWS]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputSpec {
    pub path: PathBuf,
    pub tensor: Option<String>,
    pub rows: Option<RowSpec>,
}

const ROW_FORMS: &str = "write a..b (rows a to b−1), a comma list such as 3,1,4, an index file, or FILE==VALUE";

fn digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit())
}

/// A row index as typed; one that does not fit in `usize` is reported in the user's own digits.
fn index(text: &str, arg: &str) -> Result<usize, String> {
    text.parse().map_err(|_| {
        format!("row index {text} in `{arg}` is out of range: it is larger than any file's number of rows")
    })
}

/// Parses a row argument. `is_file` says whether a path names an existing file (for `FILE==VALUE` whose file
/// name contains `==`).
///
/// # Errors
/// An empty argument, a reversed range, an index too large for any file, or `==VALUE` with no file before it.
pub fn parse_rows(s: &str, is_file: &dyn Fn(&str) -> bool) -> Result<RowSpec, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err(format!("no rows given: {ROW_FORMS}"));
    }
    if let Some((a, b)) = t.split_once("..") {
        let (a, b) = (a.trim(), b.trim());
        if digits(a) && digits(b) {
            let (lo, hi) = (index(a, s)?, index(b, s)?);
            if lo > hi {
                return Err(format!("empty row range {t}: write a..b with a ≤ b (b excluded)"));
            }
            return Ok(RowSpec::Range(lo, hi));
        }
    }
    let parts: Vec<&str> = t.split(',').map(str::trim).collect();
    if parts.iter().all(|p| digits(p)) {
        return parts
            .iter()
            .map(|p| index(p, s))
            .collect::<Result<_, _>>()
            .map(RowSpec::List);
    }
    if is_file(s) {
        return Ok(RowSpec::File(PathBuf::from(s)));
    }
    let cuts: Vec<usize> = s.match_indices("==").map(|(i, _)| i).collect();
    let cut = cuts
        .iter()
        .rev()
        .copied()
        .find(|&i| i > 0 && is_file(&s[..i]))
        .or_else(|| cuts.first().copied());
    match cut {
        Some(0) => Err(format!("no split file before == in `{s}`: write FILE==VALUE")),
        Some(i) => Ok(RowSpec::Split {
            file: PathBuf::from(&s[..i]),
            value: s[i + 2..].to_string(),
        }),
        None => Ok(RowSpec::File(PathBuf::from(s))),
    }
}

/// Parses `PATH[#TENSOR][@ROWS]`. `is_file` says whether a path names an existing file.
///
/// # Errors
/// No path, an empty tensor name after `#`, no rows after `@`, or a bad row part ([`parse_rows`]).
pub fn parse_input(s: &str, is_file: &dyn Fn(&str) -> bool) -> Result<InputSpec, String> {
    if s.is_empty() {
        return Err("no file path given: write PATH[#TENSOR][@ROWS]".into());
    }
    if is_file(s) {
        return Ok(InputSpec {
            path: PathBuf::from(s),
            tensor: None,
            rows: None,
        });
    }
    let marks: Vec<usize> = s.match_indices(['#', '@']).map(|(i, _)| i).collect();
    let end = marks
        .iter()
        .rev()
        .copied()
        .find(|&i| i > 0 && is_file(&s[..i]))
        .or_else(|| marks.first().copied());
    let Some(end) = end else {
        return Ok(InputSpec {
            path: PathBuf::from(s),
            tensor: None,
            rows: None,
        });
    };
    if end == 0 {
        return Err(format!(
            "no file path before `{}` in `{s}`: write PATH[#TENSOR][@ROWS]",
            &s[..1]
        ));
    }
    let (path, rest) = s.split_at(end);
    let (tensor, rows) = match rest.strip_prefix('#') {
        Some(r) => match r.split_once('@') {
            Some((t, rows)) => (Some(t), Some(rows)),
            None => (Some(r), None),
        },
        None => (None, rest.strip_prefix('@')),
    };
    if tensor == Some("") {
        return Err(format!(
            "empty tensor name after # in `{s}`: write PATH#TENSOR, or leave out the #"
        ));
    }
    let rows = match rows {
        Some("") => return Err(format!("no rows after @ in `{s}`: {ROW_FORMS}, or leave out the @")),
        Some(r) => Some(parse_rows(r, is_file)?),
        None => None,
    };
    Ok(InputSpec {
        path: PathBuf::from(path),
        tensor: tensor.map(str::to_string),
        rows,
    })
}

/// Whether `path` names an existing file (not a directory) on this machine: a regular file, or a pipe (`<(…)`), a
/// named pipe or a device, which are read as streams.
pub fn is_file(path: &str) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_dir())
}

impl FromStr for RowSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        parse_rows(s, &is_file)
    }
}

impl FromStr for InputSpec {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        parse_input(s, &is_file)
    }
}

impl fmt::Display for RowSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Range(a, b) => write!(f, "{a}..{b}"),
            Self::List(v) => {
                let s: Vec<String> = v.iter().map(ToString::to_string).collect();
                f.write_str(&s.join(","))
            }
            Self::File(p) => write!(f, "{}", p.display()),
            Self::Split { file, value } => write!(f, "{}=={value}", file.display()),
        }
    }
}

impl fmt::Display for InputSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(t) = &self.tensor {
            write!(f, "#{t}")?;
        }
        if let Some(r) = &self.rows {
            write!(f, "@{r}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn none(_: &str) -> bool {
        false
    }

    fn input(s: &str, files: &[&str]) -> Result<InputSpec, String> {
        parse_input(s, &|p| files.contains(&p))
    }

    #[test]
    fn specs_parse() {
        let s: InputSpec = parse_input("a/b.npz#act@0..10", &none).unwrap();
        assert_eq!(s.path, PathBuf::from("a/b.npz"));
        assert_eq!(s.tensor.as_deref(), Some("act"));
        assert_eq!(s.rows, Some(RowSpec::Range(0, 10)));
        let s = parse_input("x.npy@3, 1,4", &none).unwrap();
        assert_eq!(s.rows, Some(RowSpec::List(vec![3, 1, 4])));
        assert_eq!(s.to_string(), "x.npy@3,1,4");
        let s = parse_input("x.npy@forget.txt", &none).unwrap();
        assert_eq!(s.rows, Some(RowSpec::File("forget.txt".into())));
        assert_eq!(s.to_string(), "x.npy@forget.txt");
        let s = parse_input("plain.csv", &none).unwrap();
        assert_eq!((s.tensor, s.rows), (None, None));
        assert!(parse_rows("5..2", &none).unwrap_err().contains("empty row range"));
        assert_eq!(parse_rows(" 7 .. 9 ", &none).unwrap(), RowSpec::Range(7, 9));
        assert_eq!(
            parse_rows("../idx.txt", &none).unwrap(),
            RowSpec::File("../idx.txt".into())
        );
    }

    #[test]
    fn split_columns_parse() {
        let s = parse_input("x.npy@split.txt==forget", &none).unwrap();
        let want = RowSpec::Split {
            file: "split.txt".into(),
            value: "forget".into(),
        };
        assert_eq!(s.rows, Some(want.clone()));
        assert_eq!(s.to_string(), "x.npy@split.txt==forget");
        assert_eq!(parse_rows("split.txt==forget", &none).unwrap(), want);
        // A file name with `==` in it: the longest existing prefix is the file; the value keeps its own `==`.
        let files = |p: &str| p == "a==b.txt";
        assert_eq!(
            parse_rows("a==b.txt==x==y", &files).unwrap(),
            RowSpec::Split {
                file: "a==b.txt".into(),
                value: "x==y".into()
            }
        );
        // An existing file whose whole name holds `==` is an index file.
        assert_eq!(
            parse_rows("a==b.txt", &files).unwrap(),
            RowSpec::File("a==b.txt".into())
        );
        // An empty value is allowed (rows whose entry is blank); no file is not.
        assert_eq!(
            parse_rows("s.txt==", &none).unwrap(),
            RowSpec::Split {
                file: "s.txt".into(),
                value: String::new()
            }
        );
        assert!(parse_rows("==forget", &none).unwrap_err().contains("no split file"));
    }

    #[test]
    fn paths_with_at_and_hash_are_read_as_paths_when_they_exist() {
        let files = ["data@v2.npy", "runs#3/act.npz", "x.npy", "idx@1.txt", "x.npy@0..3"];
        let s = input("data@v2.npy", &files).unwrap();
        assert_eq!((s.path, s.tensor, s.rows), ("data@v2.npy".into(), None, None));
        let s = input("data@v2.npy@0..5", &files).unwrap();
        assert_eq!((s.path, s.rows), ("data@v2.npy".into(), Some(RowSpec::Range(0, 5))));
        let s = input("runs#3/act.npz#layer4@idx@1.txt", &files).unwrap();
        assert_eq!(s.path, PathBuf::from("runs#3/act.npz"));
        assert_eq!(s.tensor.as_deref(), Some("layer4"));
        assert_eq!(s.rows, Some(RowSpec::File("idx@1.txt".into())));
        // The whole argument names a file: it is that file, even though it reads like rows of x.npy.
        let s = input("x.npy@0..3", &files).unwrap();
        assert_eq!((s.path, s.rows), ("x.npy@0..3".into(), None));
        // Without files the argument splits at its first # or @ (and loading then says the file is missing).
        let s = input("missing@v2.npy@0..5", &[]).unwrap();
        assert_eq!(s.path, PathBuf::from("missing"));
        assert_eq!(s.rows, Some(RowSpec::File("v2.npy@0..5".into())));
    }

    #[test]
    fn malformed_specs_are_errors_naming_what_was_typed() {
        assert!(input("", &[]).is_err());
        assert!(input("@0..3", &[]).unwrap_err().contains("no file path"));
        assert!(input("x.npz#@0..3", &[]).unwrap_err().contains("empty tensor name"));
        assert!(input("x.npy@", &[]).unwrap_err().contains("no rows after @"));
        let e = input("x.npy@0..99999999999999999999999", &[]).unwrap_err();
        assert!(e.contains("99999999999999999999999"), "{e}");
        let e = parse_rows("1,2,184467440737095516160", &none).unwrap_err();
        assert!(
            e.contains("184467440737095516160") && !e.contains(&usize::MAX.to_string()),
            "{e}"
        );
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "a.npz#t@1..4",
            "a.npy@5,2,2",
            "a.csv@idx.txt",
            "a.csv@s.txt==test",
            "a.json#k",
        ] {
            let p = parse_input(s, &none).unwrap();
            assert_eq!(p.to_string(), s);
            assert_eq!(parse_input(&p.to_string(), &none).unwrap(), p);
        }
    }
}
