//! Pipes, process substitution and named pipes (FIFOs) as inputs, the way pipelines call a CLI (issue 12 item 3):
//! read as streams, hashed as read, and a FIFO that nobody writes to is given up with a message instead of
//! blocking forever. Every run is under a timeout, so a hang fails the test instead of stalling the suite.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

/// How long any one run may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(60);

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lethe-pipes-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn sha256(bytes: &[u8]) -> String {
    lethe::digest::sha256_hex(&bytes.to_vec(), |_, _| ()).unwrap()
}

/// Runs `cmd` to its end, or kills it and fails after [`HANG`].
fn run(mut cmd: Command) -> Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start");
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(HANG) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            panic!("the command hung for {HANG:?}: {cmd:?}");
        }
    }
}

/// `lethe ARGS` run by bash, so that `<(…)` process substitution is bash's.
fn bash(script: &str, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg("-c").arg(script).env("LETHE", env!("CARGO_BIN_EXE_lethe"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    run(cmd)
}

fn lethe(args: &[&Path], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lethe"));
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    run(cmd)
}

fn report(out: &Output) -> Value {
    assert!(out.status.success(), "failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

fn input<'a>(r: &'a Value, role: &str) -> &'a Value {
    r["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["role"] == role)
        .unwrap_or_else(|| panic!("no input {role} in {r}"))
}

const X: &str = "0.1\n0.4\n0.35\n0.8\n0.9\n";
const Y: &str = "0.2\n0.5\n0.65\n0.7\n0.95\n";

/// `lethe mwu <(cat x.csv) y.csv` gives the numbers of `lethe mwu x.csv y.csv`, and its report records the SHA-256
/// of what came through the pipe (it used to say "the file is empty (0 bytes)").
#[test]
fn process_substitution_reads_the_stream_and_hashes_what_was_read() {
    let d = dir("subst");
    std::fs::write(d.join("x.csv"), X).unwrap();
    std::fs::write(d.join("y.csv"), Y).unwrap();
    let files = report(&lethe(
        &[
            Path::new("mwu"),
            &d.join("x.csv"),
            &d.join("y.csv"),
            Path::new("--json"),
        ],
        &[],
    ));
    let piped = report(&bash(
        &format!("\"$LETHE\" mwu <(cat '{0}/x.csv') '{0}/y.csv' --json", d.display()),
        &[],
    ));
    assert_eq!(piped["result"], files["result"]);
    let x = input(&piped, "x");
    assert_eq!(x["sha256"], sha256(X.as_bytes()), "{x}");
    assert_eq!(input(&files, "x")["sha256"], x["sha256"]);
    assert!(x["path"].as_str().unwrap().starts_with("/dev/fd/"), "{x}");

    // Row subsets from a piped index file.
    let sub = report(&bash(
        &format!(
            "\"$LETHE\" mwu '{0}/x.csv@'<(printf '0\\n2\\n4\\n') '{0}/y.csv' --json",
            d.display()
        ),
        &[],
    ));
    assert_eq!(input(&sub, "x")["rows_used"], 3, "{sub}");

    // A pipe that gives nothing says so, naming it.
    let out = bash(&format!("\"$LETHE\" mwu <(true) '{}/y.csv'", d.display()), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("/dev/fd/") && err.contains("ended before giving any byte"),
        "{err}"
    );
    assert!(!err.contains("0 bytes"), "{err}");
}

/// `rouge --predictions <(…)` scores the piped lines and records their SHA-256, not that of empty content.
#[test]
fn rouge_predictions_from_a_pipe_are_hashed_as_read() {
    let preds = "the cat sat on the mat\na dog\n";
    let out = bash(
        "\"$LETHE\" rouge --predictions <(printf 'the cat sat on the mat\\na dog\\n') --reference-text 'the cat is on \
         the mat' --json",
        &[],
    );
    let r = report(&out);
    let p = input(&r, "predictions");
    assert_eq!(p["sha256"], sha256(preds.as_bytes()), "{p}");
    assert_ne!(p["sha256"], sha256(b""));
    assert_eq!(r["result"]["scores"]["fmeasure"].as_array().unwrap().len(), 2, "{r}");
}

fn mkfifo(d: &Path) -> PathBuf {
    let p = d.join("fifo");
    assert!(Command::new("mkfifo").arg(&p).status().unwrap().success(), "mkfifo");
    p
}

/// A FIFO whose writer comes: read whole and hashed as read.
#[test]
fn a_fifo_with_a_writer_is_read() {
    let d = dir("fifo-writer");
    let fifo = mkfifo(&d);
    std::fs::write(d.join("y.csv"), Y).unwrap();
    let w = fifo.clone();
    let writer = std::thread::spawn(move || std::fs::write(w, X).unwrap());
    let r = report(&lethe(
        &[Path::new("mwu"), &fifo, &d.join("y.csv"), Path::new("--json")],
        &[("LETHE_PIPE_WAIT", "50")],
    ));
    writer.join().unwrap();
    assert_eq!(input(&r, "x")["sha256"], sha256(X.as_bytes()));
}

/// A FIFO that no program writes to: an error naming it and what to do after the wait, not a hang.
#[test]
fn a_fifo_without_a_writer_is_given_up_with_a_message() {
    let d = dir("fifo-alone");
    let fifo = mkfifo(&d);
    std::fs::write(d.join("y.csv"), Y).unwrap();
    let out = lethe(
        &[Path::new("mwu"), &fifo, &d.join("y.csv")],
        &[("LETHE_PIPE_WAIT", "1")],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&fifo.display().to_string()) && err.contains("named pipe") && err.contains("start the program"),
        "{err}"
    );
}
