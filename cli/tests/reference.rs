//! The docs site's CLI reference (`lethe reference`, hidden; `./build.sh docs`) is the CLI itself: it has a section
//! for every subcommand `lethe --help` lists, and each section names every option that subcommand's `--help` lists.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;

fn lethe(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_lethe"))
        .args(args)
        .output()
        .expect("run lethe");
    assert!(
        out.status.success(),
        "lethe {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// The subcommands in `lethe --help`'s "Commands:" list (the first word of each entry).
fn subcommands() -> Vec<String> {
    let help = lethe(&["--help"]);
    let list = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands: section")
        .split("\n\n")
        .next()
        .unwrap();
    list.lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect()
}

/// Every `--long` option named at the start of an entry of `lethe SUB --help`'s option list.
fn options(sub: &str) -> Vec<String> {
    lethe(&[sub, "--help"])
        .lines()
        .filter_map(|l| {
            let t = l.trim_start();
            let t = t.strip_prefix("-h, ").or_else(|| t.strip_prefix("-V, ")).unwrap_or(t);
            let t = if t.len() > 4 && t.as_bytes()[0] == b'-' && t.as_bytes()[2] == b',' {
                &t[4..]
            } else {
                t
            };
            t.strip_prefix("--")
                .map(|o| format!("--{}", o.split(|c: char| c.is_whitespace() || c == '=').next().unwrap()))
        })
        .collect()
}

#[test]
fn the_reference_has_every_subcommand_and_option() {
    let reference = lethe(&["reference"]);
    let subs = subcommands();
    assert!(subs.len() >= 20, "lethe --help lists {subs:?}");
    for sub in &subs {
        let heading = format!("\n## lethe {sub}\n");
        let start = reference
            .find(&heading)
            .unwrap_or_else(|| panic!("the reference has no section {heading:?}"));
        let rest = &reference[start + heading.len()..];
        let section = &rest[..rest.find("\n## ").unwrap_or(rest.len())];
        if sub == "help" {
            continue;
        }
        let opts = options(sub);
        assert!(opts.iter().any(|o| o == "--help"), "lethe {sub} --help: {opts:?}");
        for o in opts {
            assert!(
                section.contains(&format!("`{o}")) || section.contains(&format!(", {o}")),
                "the reference's section for lethe {sub} lacks {o}"
            );
        }
    }
    // Nothing hidden (this command itself) is in it.
    assert!(!reference.contains("## lethe reference"));
}

#[test]
fn the_reference_gives_defaults_and_possible_values() {
    let reference = lethe(&["reference"]);
    let sde = reference.split("\n## lethe sde\n").nth(1).unwrap();
    let sde = &sde[..sde.find("\n## ").unwrap()];
    assert!(sde.contains("- `--shuffles <SHUFFLES>` (default `200`)"), "{sde}");
    assert!(
        sde.contains("- `--split <SPLIT>` (default `first`; one of `first`, `random`)"),
        "{sde}"
    );
}
