//! Unit tests of the tools' readers over files built in memory; the real sample files (made by running the
//! writers' code) are read in `crate/tests/tools.rs`.

use super::*;

fn npy_f64(shape: &[usize], data: &[f64]) -> Vec<u8> {
    npy_raw(
        "<f8",
        shape,
        &data.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>(),
    )
}

fn npy_bool(shape: &[usize], data: &[bool]) -> Vec<u8> {
    npy_raw("|b1", shape, &data.iter().map(|&b| u8::from(b)).collect::<Vec<u8>>())
}

fn npy_raw(descr: &str, shape: &[usize], body: &[u8]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(ToString::to_string).collect();
    let shape = match dims.len() {
        1 => format!("({},)", dims[0]),
        _ => format!("({})", dims.join(", ")),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&u16::try_from(header.len()).unwrap().to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(body);
    out
}

fn npz(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    use std::io::Write;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, bytes) in members {
        w.start_file(format!("{name}.npy"), opts).unwrap();
        w.write_all(bytes).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn attack_result(memberships: Vec<u8>) -> Vec<u8> {
    npz(&[
        ("fpr", npy_f64(&[3], &[0.0, 0.5, 1.0])),
        ("tpr", npy_f64(&[3], &[0.0, 1.0, 1.0])),
        ("auc", npy_f64(&[], &[0.75])),
        ("one_tenth_fpr", npy_f64(&[], &[0.0])),
        ("zero_fpr", npy_f64(&[], &[0.0])),
        ("scores", npy_f64(&[4], &[0.9, 0.2, 0.7, 0.4])),
        ("memberships", memberships),
    ])
}

#[test]
fn privacy_meter_attack_result_is_detected_and_split() {
    let bytes = attack_result(npy_bool(&[4], &[true, false, true, false]));
    let s = detect("a.npz", &bytes.as_slice()).unwrap().unwrap();
    assert_eq!(
        (s.tool, s.kind.as_str(), s.samples),
        (Tool::PrivacyMeter, "attack_result", Some(4))
    );
    assert_eq!(s.offers[0].analysis, "mia");
    assert_eq!(
        s.offers[0].cli,
        "lethe mia --scores a.npz#scores --labels a.npz#memberships"
    );
    let opts = LoadOptions {
        name: Some("members".into()),
        ..LoadOptions::default()
    };
    let m = load_key::<f64>("a.npz", &bytes.as_slice(), &opts).unwrap().unwrap();
    assert_eq!(m.matrix.as_slice(), &[0.9, 0.7]);
    let opts = LoadOptions {
        name: Some("non_members".into()),
        rows: Some(vec![1]),
        ..LoadOptions::default()
    };
    let m = load_key::<f64>("a.npz", &bytes.as_slice(), &opts).unwrap().unwrap();
    assert_eq!(m.matrix.as_slice(), &[0.4]);
    // Plain array names are the ordinary loader's.
    let opts = LoadOptions {
        name: Some("scores".into()),
        ..LoadOptions::default()
    };
    assert!(load_key::<f64>("a.npz", &bytes.as_slice(), &opts).is_none());
}

#[test]
fn privacy_meter_almost_files_say_what_is_wrong() {
    let no_memberships = npz(&[
        ("fpr", npy_f64(&[3], &[0.0, 0.5, 1.0])),
        ("tpr", npy_f64(&[3], &[0.0, 1.0, 1.0])),
        ("auc", npy_f64(&[], &[0.75])),
        ("scores", npy_f64(&[4], &[0.9, 0.2, 0.7, 0.4])),
    ]);
    let e = detect("r.npz", &no_memberships.as_slice()).unwrap().unwrap_err();
    assert_eq!(e.tool, Tool::PrivacyMeter);
    assert!(e.to_string().contains("`memberships`"), "{e}");
    assert!(e.to_string().contains("October 2024"), "{e}");
    let bad_labels = attack_result(npy_f64(&[4], &[1.0, 0.0, 2.0, 0.0]));
    let e = detect("r.npz", &bad_labels.as_slice()).unwrap().unwrap_err();
    assert!(e.message.contains("2 at position 2"), "{e}");
    let short = attack_result(npy_bool(&[3], &[true, false, true]));
    let e = detect("r.npz", &short.as_slice()).unwrap().unwrap_err();
    assert!(e.message.contains("[4]") && e.message.contains("[3]"), "{e}");
}

#[test]
fn privacy_meter_signals_and_memberships_as_a_set() {
    // 3 samples × 2 models; memberships 2 models × 3 samples.
    let signals = npy_f64(&[3, 2], &[0.9, 0.1, 0.2, 0.8, 0.7, 0.3]);
    let memberships = npy_bool(&[2, 3], &[true, false, true, false, true, false]);
    let files: Vec<(&str, &dyn ByteSource)> = vec![
        ("memberships.npy", &memberships as &dyn ByteSource),
        ("signals/rmia_signals.npy", &signals as &dyn ByteSource),
    ];
    let s = detect_set(&files).unwrap().unwrap();
    assert_eq!((s.kind.as_str(), s.models.len(), s.samples), ("signals", 2, Some(3)));
    assert_eq!(
        s.offers[1].cli,
        "lethe mia --scores signals/rmia_signals.npy#model=1 --labels memberships.npy#model=1"
    );
    let key = |k: &str| LoadOptions {
        name: Some(k.into()),
        ..LoadOptions::default()
    };
    let col = load_key::<f64>("s.npy", &signals.as_slice(), &key("model=1"))
        .unwrap()
        .unwrap();
    assert_eq!(col.matrix.as_slice(), &[0.1, 0.8, 0.3]);
    let row = load_key::<f64>("m.npy", &memberships.as_slice(), &key("model=1"))
        .unwrap()
        .unwrap();
    assert_eq!(row.matrix.as_slice(), &[0.0, 1.0, 0.0]);
    let e = load_key::<f64>("m.npy", &memberships.as_slice(), &key("model=2"))
        .unwrap()
        .unwrap_err();
    assert!(e.to_string().contains("past the last"), "{e}");
    // Signals of another run (other sizes): said, not guessed.
    let other = npy_f64(&[4, 2], &[0.0; 8]);
    let files: Vec<(&str, &dyn ByteSource)> = vec![
        ("memberships.npy", &memberships as &dyn ByteSource),
        ("s.npy", &other as &dyn ByteSource),
    ];
    let e = detect_set(&files).unwrap().unwrap_err();
    assert!(e.message.contains("one run"), "{e}");
    // A lone 2-D array is no tool's file.
    assert!(detect("s.npy", &signals.as_slice()).is_none());
}

const LEAKPRO: &str = r#"{"result_name": "rmia", "result_type": "MIAResult", "id": "rmia-abc", "tpr": [0.0, 0.5, 1.0],
 "fpr": [0.0, 0.0, 1.0], "roc_auc": 0.75, "accuracy": [0.5, 0.75, 0.5], "config": {"attack": "rmia"},
 "fixed_fpr": {"TPR@0%FPR": 0.5}, "signal_values": [0.9, 0.1, 0.8, 0.3], "true_labels": [1, 0, 1, 0],
 "tp": [1, 2], "fp": [0, 0], "tn": [2, 2], "fn": [1, 0]}"#;

#[test]
fn leakpro_result_is_detected_and_read() {
    let s = detect("x.json", &LEAKPRO.as_bytes()).unwrap().unwrap();
    assert_eq!((s.tool, s.samples), (Tool::LeakPro, Some(4)));
    assert!(s.description.contains("rmia"));
    let opts = LoadOptions {
        name: Some("non_members".into()),
        ..LoadOptions::default()
    };
    let m = load_key::<f64>("x.json", &LEAKPRO.as_bytes(), &opts).unwrap().unwrap();
    assert_eq!(m.matrix.as_slice(), &[0.1, 0.3]);
}

#[test]
fn leakpro_almost_files_say_what_is_wrong() {
    let counts_only = LEAKPRO.replace("[0.9, 0.1, 0.8, 0.3]", "null");
    let e = detect("x.json", &counts_only.as_bytes()).unwrap().unwrap_err();
    assert!(e.message.contains("from_full_scores"), "{e}");
    let short = LEAKPRO.replace("[1, 0, 1, 0]", "[1, 0, 1]");
    let e = detect("x.json", &short.as_bytes()).unwrap().unwrap_err();
    assert!(e.message.contains("4 signal values but 3 true labels"), "{e}");
    let minv =
        r#"{"result_type": "MinvResult", "result_name": "plgmi", "id": "p", "signal_values": null, "true_labels": []}"#;
    let e = detect("x.json", &minv.as_bytes()).unwrap().unwrap_err();
    assert!(e.message.contains("MinvResult"), "{e}");
    // The earlier layout is read, and said.
    let old = r#"{"resulttype": "MIAResult", "resultname": "lira", "tpr": [0, 1], "fpr": [0, 1], "roc_auc": 1.0,
      "signal_values": [2.0, 1.0], "true_labels": [1, 0], "audit_indices": [0, 1], "threshold": null, "id": "lira"}"#;
    let s = detect("data.json", &old.as_bytes()).unwrap().unwrap();
    assert!(s.follows.contains("earlier layout"));
    // Ordinary JSON is no tool's.
    assert!(detect("y.json", &br#"{"a": [1, 2]}"#.as_slice()).is_none());
    assert!(detect("y.json", &b"[[1, 2]]".as_slice()).is_none());
}

fn competition_file(l: [&str; 4], confs: &[f64], models: usize, accs: [&[f64]; 3]) -> Vec<u8> {
    let examples = confs.len() / models;
    npz(&[
        (l[0], npy_f64(&[models, examples], confs)),
        (l[1], npy_f64(&[accs[0].len()], accs[0])),
        (l[2], npy_f64(&[accs[1].len()], accs[1])),
        (l[3], npy_f64(&[accs[2].len()], accs[2])),
    ])
}

const RETRAIN: [&str; 4] = [
    "retrained_confs",
    "retrain_retain_accs",
    "retrain_test_accs",
    "retrain_forget_accs",
];
const UNLEARN: [&str; 4] = [
    "unlearned_confs",
    "unlearned_retain_accs",
    "unlearned_test_accs",
    "unlearned_forget_accs",
];

#[test]
fn competition_files_and_their_accuracies() {
    let r = competition_file(
        RETRAIN,
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        2,
        [&[0.9, 0.8], &[0.7, 0.6], &[0.5, 0.4]],
    );
    let u = competition_file(
        UNLEARN,
        &[1.5, 2.5, 3.5, 4.5, 5.5, 6.5],
        2,
        [&[0.95, 0.85], &[0.75, 0.65], &[0.3, 0.2]],
    );
    let s = detect("retrain_confs.npz", &r.as_slice()).unwrap().unwrap();
    assert_eq!(
        (s.tool, s.kind.as_str(), s.samples, s.models.len()),
        (Tool::Competition, "retrain_confs", Some(3), 2)
    );
    assert_eq!(
        s.offers[0].cli,
        "lethe epsilon --retrained retrain_confs.npz#retrained_confs --unlearned unlearned_confs.npz#unlearned_confs"
    );
    let s = detect("u.npz", &u.as_slice()).unwrap().unwrap();
    assert_eq!(s.kind, "unlearned_confs");
    let a = accuracies(("r", &r.as_slice()), ("u", &u.as_slice())).unwrap();
    assert_eq!(
        a,
        [
            (0.95 + 0.85) / 2.0,
            (0.9 + 0.8) / 2.0,
            (0.75 + 0.65) / 2.0,
            (0.7 + 0.6) / 2.0
        ]
    );
    // Swapped files give nothing.
    assert!(accuracies(("u", &u.as_slice()), ("r", &r.as_slice())).is_none());
    // Almost: an accuracy list of another run, a missing key.
    let bad = competition_file(
        RETRAIN,
        &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        2,
        [&[0.9], &[0.7, 0.6], &[0.5, 0.4]],
    );
    let e = detect("r.npz", &bad.as_slice()).unwrap().unwrap_err();
    assert!(
        e.message.contains("`retrain_retain_accs` hold 1 values") && e.message.contains("2 models"),
        "{e}"
    );
    let partial = npz(&[("retrained_confs", npy_f64(&[1, 2], &[1.0, 2.0]))]);
    let e = detect("r.npz", &partial.as_slice()).unwrap().unwrap_err();
    assert!(
        e.message.contains("`retrain_retain_accs`") && e.message.contains("run main.py again"),
        "{e}"
    );
}
