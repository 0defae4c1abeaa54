#![no_main]
//! The command line's `PATH[#TENSOR][@ROWS]` and row-argument parser (cli/src/spec.rs) over arbitrary text: it
//! returns (no panic on any byte offset or number), what it returns partitions the text it was given, and with
//! no existing files the printed spec parses back to the same spec. The first byte decides which prefixes "are
//! files", so the filesystem-aware branches run too.

use lethe_analysis::spec::{InputSpec, RowSpec, parse_input, parse_rows};
use libfuzzer_sys::fuzz_target;

fn check_rows(s: &str, r: &RowSpec) {
    match r {
        RowSpec::Range(a, b) => assert!(a <= b, "{s}: reversed range"),
        RowSpec::List(v) => assert!(!v.is_empty(), "{s}: empty list"),
        RowSpec::File(p) => assert_eq!(p.to_str(), Some(s), "an index file is the whole text"),
        RowSpec::Split { file, value } => {
            let f = file.to_str().unwrap_or_default();
            assert!(!f.is_empty(), "{s}: empty split file");
            assert_eq!(format!("{f}=={value}"), s, "a split is the text cut at one `==`");
        }
    }
}

fn check_input(s: &str, spec: &InputSpec) {
    let path = spec.path.to_str().unwrap_or_default();
    assert!(!path.is_empty(), "{s}: empty path");
    let rest = s
        .strip_prefix(path)
        .unwrap_or_else(|| panic!("{s}: the path is not a prefix"));
    let rest = match &spec.tensor {
        Some(t) => {
            assert!(!t.is_empty() && !t.contains('@'), "{s}: tensor `{t}`");
            rest.strip_prefix('#')
                .and_then(|r| r.strip_prefix(t.as_str()))
                .expect("#TENSOR follows the path")
        }
        None => rest,
    };
    match &spec.rows {
        Some(r) => {
            let text = rest.strip_prefix('@').expect("@ROWS follows");
            assert!(!text.is_empty());
            check_rows(text, r);
        }
        None => assert!(rest.is_empty(), "{s}: `{rest}` left over"),
    }
}

fuzz_target!(|bytes: &[u8]| {
    let Some((&mask, rest)) = bytes.split_first() else {
        return;
    };
    let Ok(s) = std::str::from_utf8(rest) else {
        return;
    };
    // A prefix "is a file" according to its length and the mask.
    let some = |p: &str| !p.is_empty() && (mask >> (p.len() % 8)) & 1 == 1;
    let none = |_: &str| false;
    if let Ok(spec) = parse_input(s, &some) {
        check_input(s, &spec);
    }
    if let Ok(r) = parse_rows(s, &some) {
        check_rows(s, &r);
    }
    if let Ok(spec) = parse_input(s, &none) {
        check_input(s, &spec);
        let again = parse_input(&spec.to_string(), &none).expect("a printed spec parses");
        assert_eq!(again, spec, "`{s}` printed as `{spec}`");
    }
    if let Ok(r) = parse_rows(s, &none) {
        assert_eq!(
            parse_rows(&r.to_string(), &none).as_ref(),
            Ok(&r),
            "`{s}` printed as `{r}`"
        );
    }
});
