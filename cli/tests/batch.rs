//! `lethe batch` and `lethe merge`: the merged table is the same for every sharding and order of the outputs, a
//! cell is the report `lethe COMMAND … --json` prints, a failed cell is written with its error (exit 1), and a
//! malformed --shard is a usage error (exit 2). The Python package's tests run the same cells on Dask.

use std::path::Path;
use std::process::{Command, Output};

fn demo(file: &str) -> String {
    format!("{}/../examples/data/digits/{file}", env!("CARGO_MANIFEST_DIR"))
}

fn lethe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lethe"))
        .args(args)
        .output()
        .expect("run lethe")
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn shards(manifest: &Path, n: usize, dir: &Path) -> Vec<String> {
    (0..n)
        .map(|i| {
            let out = dir.join(format!("s{n}_{i}.jsonl")).display().to_string();
            let o = lethe(&[
                "batch",
                manifest.to_str().expect("a UTF-8 temporary path"),
                "--shard",
                &format!("{i}/{n}"),
                "-o",
                &out,
            ]);
            assert!(
                matches!(o.status.code(), Some(0 | 1)),
                "{}",
                String::from_utf8_lossy(&o.stderr)
            );
            out
        })
        .collect()
}

#[test]
fn merged_table_is_the_same_for_every_sharding() {
    let dir = tempfile::tempdir().unwrap();
    let scores = demo("mia_scores.npz");
    let lines = [
        format!(
            r#"{{"command":"mwu","id":"loss","inputs":{{"x":"{scores}#loss_unlearned@0..144","y":"{scores}#loss_unlearned@144..503"}},"options":{{"alternative":"less"}}}}"#
        ),
        format!(
            r#"{{"command":"wasserstein","inputs":{{"x":"{a}@0..50","y":"{a}@50..100"}}}}"#,
            a = demo("act_unlearned.npy")
        ),
        r#"{"command":"jsd","id":"missing","inputs":{"x":"/no/such.npy","y":"/no/such.npy"}}"#.to_string(),
        format!(
            r#"{{"command":"mia","inputs":{{"members":"{scores}#lira_unlearned@0..144","non_members":"{scores}#lira_unlearned@144..503"}}}}"#
        ),
    ];
    let manifest = dir.path().join("m.jsonl");
    std::fs::write(&manifest, format!("# comment\n{}\n", lines.join("\n"))).unwrap();
    let merge = |files: &[String], format: &str| {
        let mut args = vec!["merge", "--format", format];
        args.extend(files.iter().map(String::as_str));
        let o = lethe(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        text(&o)
    };
    let one = shards(&manifest, 1, dir.path());
    let mut three = shards(&manifest, 3, dir.path());
    three.reverse();
    let table = merge(&one, "csv");
    assert_eq!(table, merge(&three, "csv"));
    assert_eq!(merge(&one, "json"), merge(&three, "json"));
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 5, "{table}");
    assert!(rows[0].starts_with("cell,id,command,call,headline,reason,warnings,error,"));
    assert!(
        rows[3].starts_with("3,missing,jsd,,,,,x: `/no/such.npy`: no such file"),
        "{}",
        rows[3]
    );
    // A cell is the command's own report.
    let cell: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&one[0]).unwrap().lines().next().unwrap()).unwrap();
    let want: serde_json::Value = serde_json::from_str(&text(&lethe(&[
        "mwu",
        &format!("{scores}#loss_unlearned@0..144"),
        &format!("{scores}#loss_unlearned@144..503"),
        "--alternative",
        "less",
        "--json",
    ])))
    .unwrap();
    assert_eq!(cell["report"], want);
    // The failed cell makes its shard exit with 1, after writing every cell.
    let o = lethe(&["batch", manifest.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(text(&o).lines().count(), 4);
}

#[test]
fn a_malformed_shard_is_a_usage_error() {
    for shard in ["3/3", "1", "a/b", "0/0"] {
        let o = lethe(&["batch", "/no/such.jsonl", "--shard", shard]);
        assert_eq!(o.status.code(), Some(2), "{shard}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("is not I/N"));
    }
}
