//! Every command BENCHMARKS.md gives to reproduce a figure still works: each `rpsl` command
//! naming a script runs through the debug binary with the same subcommand, entry, arguments and
//! flags, made small (numeric arguments at most 64, 2 frames, 1 compile) and on the null backend
//! (the GPU-only flags `--timings`, `--validate` dropped); every `cargo` command names a bench,
//! example or test target that exists, and every other script it names exists.
//!
//! Commands are the inline code spans of the file (table cells of the reproduce/command
//! columns and the "Reproduce:" sentences, which may wrap lines). The notation BENCHMARKS.md
//! uses is expanded: `chain|lanes` runs each alternative, `[--no-async]` runs with the flag,
//! and the placeholders `...` and `F` take small values.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

/// The largest numeric argument value a reproduction runs with.
const MAX_ARG: u64 = 64;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The inline code spans of a Markdown text, whitespace (line breaks included) collapsed.
fn code_spans(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(|span| span.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// The words of a command after its program (`rpsl`, `target/release/rpsl`), wrappers such as
/// `taskset -c 5` or `valgrind --tool=callgrind` skipped; `None` for other programs.
fn rpsl_words(span: &str) -> Option<Vec<&str>> {
    let words: Vec<&str> = span.split(' ').collect();
    let program = words
        .iter()
        .position(|word| *word == "rpsl" || word.ends_with("/rpsl"))?;
    Some(words[program + 1..].to_vec())
}

/// The command lines one BENCHMARKS.md command stands for: alternatives `a|b` expanded one
/// after the other, `[--flag]` taken with the flag.
fn expand(words: &[&str]) -> Vec<Vec<String>> {
    let mut lines: Vec<Vec<String>> = vec![Vec::new()];
    for word in words {
        let word = word.trim_start_matches('[').trim_end_matches(']');
        let (prefix, values) = match word.split_once('=') {
            Some((name, values)) => (format!("{name}="), values),
            None => (String::new(), word),
        };
        let alternatives: Vec<String> = values
            .split('|')
            .map(|value| format!("{prefix}{value}"))
            .collect();
        let mut expanded = Vec::new();
        for line in &lines {
            for alternative in &alternatives {
                let mut line = line.clone();
                line.push(alternative.clone());
                expanded.push(line);
            }
        }
        lines = expanded;
    }
    lines
}

/// A BENCHMARKS.md command line made small and GPU-free: the arguments for the debug binary.
fn small(line: &[String]) -> Vec<String> {
    let subcommand = line[0].as_str();
    let mut out = vec![line[0].clone()];
    let mut words = line[1..].iter();
    let mut has_backend = false;
    while let Some(word) = words.next() {
        match word.as_str() {
            // GPU-only flags; a `--window` run measures headless then (`--measure-reload`).
            "--timings" | "--validate" | "--window" => {}
            "--frames" | "--compiles" => {
                let value = words.next().expect("a value");
                let cap = if word == "--frames" { 2 } else { 1 };
                let value: u64 = value.parse().unwrap_or(cap);
                out.push(word.clone());
                out.push(value.min(cap).to_string());
            }
            "--backend" => {
                words.next();
                has_backend = true;
                out.extend(["--backend".to_string(), "null".to_string()]);
            }
            "--arg" => {
                let arg = words.next().expect("NAME=VALUE");
                let (name, value) = arg.split_once('=').expect("NAME=VALUE");
                let value = match value.parse::<u64>() {
                    Ok(number) => number.min(MAX_ARG).to_string(),
                    Err(_) if value == "..." => MAX_ARG.to_string(),
                    Err(_) => value.to_string(),
                };
                out.extend(["--arg".to_string(), format!("{name}={value}")]);
            }
            _ => out.push(word.clone()),
        }
    }
    if subcommand == "run" && !has_backend {
        out.extend(["--backend".to_string(), "null".to_string()]);
    }
    if subcommand == "bench" && !out.iter().any(|word| word == "--compiles") {
        out.extend(["--compiles".to_string(), "1".to_string()]);
    }
    if subcommand == "bench" && !out.iter().any(|word| word == "--frames") {
        out.extend(["--frames".to_string(), "2".to_string()]);
    }
    out
}

/// The directory of a workspace package.
fn package_dir(package: &str) -> PathBuf {
    for dir in [
        ".",
        "frontend",
        "vm",
        "runtime",
        "shaders",
        "backends/vulkan",
    ] {
        let manifest =
            std::fs::read_to_string(root().join(dir).join("Cargo.toml")).unwrap_or_default();
        if manifest.contains(&format!("name = \"{package}\"")) {
            return root().join(dir);
        }
    }
    panic!("BENCHMARKS.md names package `{package}`, which the workspace does not have");
}

/// Checks that the target a cargo command names exists: `--bench`, `--example`, `--test`.
fn check_cargo_target(span: &str) {
    let words: Vec<&str> = span.split(' ').collect();
    let package = words
        .iter()
        .position(|word| *word == "-p")
        .map_or("rpsl", |at| words[at + 1]);
    let dir = package_dir(package);
    for (flag, folder) in [
        ("--bench", "benches"),
        ("--example", "examples"),
        ("--test", "tests"),
    ] {
        if let Some(at) = words.iter().position(|word| *word == flag) {
            let name = words[at + 1];
            let candidates = [
                dir.join(folder).join(format!("{name}.rs")),
                dir.join(folder).join(name).join("main.rs"),
            ];
            assert!(
                candidates.iter().any(|path| path.is_file()),
                "`{span}`: no {flag} target `{name}` in {}",
                dir.display()
            );
        }
    }
}

#[test]
fn every_reproduce_command_of_benchmarks_md_runs() {
    let text = std::fs::read_to_string(root().join("BENCHMARKS.md")).unwrap();
    let mut runs: BTreeSet<Vec<String>> = BTreeSet::new();
    let mut scripts_run: BTreeSet<String> = BTreeSet::new();
    for span in code_spans(&text) {
        if span.contains("cargo ") {
            check_cargo_target(&span);
        }
        let named_files: Vec<&str> = span
            .split(' ')
            .filter(|word| word.starts_with("scripts/"))
            .collect();
        for file in &named_files {
            assert!(
                root().join(file).is_file(),
                "`{span}` names {file}, which does not exist"
            );
        }
        let Some(words) = rpsl_words(&span) else {
            continue;
        };
        let Some(script) = named_files.iter().find(|file| file.ends_with(".rpsl")) else {
            continue;
        };
        for line in expand(&words) {
            runs.insert(small(&line));
        }
        scripts_run.insert(script.to_string());
    }
    // The scripts behind the P1, P5, P6 and P7 figures, at least.
    for script in [
        "scripts/bench/frontend_1000_lines.rpsl",
        "scripts/bench/rps_shapes.rpsl",
        "scripts/bench/stress_shapes.rpsl",
        "scripts/bench/gpu_frame.rpsl",
        "scripts/bench/async_overlap.rpsl",
    ] {
        assert!(scripts_run.contains(script), "no command runs {script}");
    }
    for args in &runs {
        let out = Command::new(env!("CARGO_BIN_EXE_rpsl"))
            .args(args)
            .current_dir(root())
            .output()
            .expect("runs");
        assert_eq!(
            out.status.code(),
            Some(0),
            "rpsl {}\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn commands_are_made_small_and_expanded() {
    let span = "taskset -c 7 rpsl bench scripts/bench/rps_shapes.rpsl --entry chain|lanes \
                --arg N=1000|10000 --frames 100 --json";
    let lines: Vec<String> = expand(&rpsl_words(span).unwrap())
        .iter()
        .map(|line| small(line).join(" "))
        .collect();
    let expected = |entry: &str| {
        format!(
            "bench scripts/bench/rps_shapes.rpsl --entry {entry} --arg N=64 --frames 2 --json \
             --compiles 1"
        )
    };
    assert_eq!(
        lines,
        [
            expected("chain"),
            expected("chain"),
            expected("lanes"),
            expected("lanes")
        ]
    );
    let gpu = "rpsl run scripts/bench/async_overlap.rpsl --arg backbuffer=3840x2160 --frames \
               10 --timings [--no-async]";
    let lines: Vec<String> = expand(&rpsl_words(gpu).unwrap())
        .iter()
        .map(|line| small(line).join(" "))
        .collect();
    assert_eq!(
        lines,
        [
            "run scripts/bench/async_overlap.rpsl --arg backbuffer=3840x2160 --frames 2 \
          --no-async --backend null"
        ]
    );
    assert_eq!(
        code_spans("a `rpsl run x.rpsl --arg\nN=3` b `y`"),
        ["rpsl run x.rpsl --arg N=3", "y"]
    );
}
