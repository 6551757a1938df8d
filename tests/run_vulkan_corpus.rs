//! Every exported entry of every corpus script runs 3 frames through `rpsl run --backend vulkan
//! --validate --allow-unbound`: exit 0 and not one validation message; again under the
//! memory-saving schedule (`--schedule memory`: other orders, so other aliasing of the
//! transients, under synchronization validation). Skips (with a note) when
//! no Vulkan device or validation layer exists, unless `RPSL_REQUIRE_VULKAN=1` (then it fails).

mod corpus_runs;
mod run_vulkan_support;

use corpus_runs::CORPUS_RUNS;
use run_vulkan_support::{rpsl, vulkan_available};
use std::path::PathBuf;

/// Entries that fail today for a known reason outside this test's reach: (script, entry, first
/// argument or "", what their stderr must contain). The test accepts exactly that failure and notes
/// when an entry passes (then remove it here).
const KNOWN_GAPS: &[(&str, &str, &str, &str)] = &[];

fn known_gap(script: &str, entry: &str, args: &[&str]) -> Option<&'static str> {
    KNOWN_GAPS
        .iter()
        .find(|(file, name, first, _)| {
            *file == script && *name == entry && (first.is_empty() || args.first() == Some(first))
        })
        .map(|(_, _, _, expected)| *expected)
}

fn corpus_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/rps-sdk");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("skipping: {} is missing", dir.display());
        None
    }
}

#[test]
fn every_corpus_entry_runs_three_validated_frames() {
    let Some(corpus) = corpus_dir() else { return };
    if !vulkan_available() {
        return;
    }
    let covered = run_every_entry(&corpus, &[]);
    // Every exported entry of every corpus script is in the table.
    for file in std::fs::read_dir(&corpus).unwrap() {
        let path = file.unwrap().path();
        if path.extension().is_some_and(|e| e == "rpsl") {
            let program = rpsl::Program::from_file(&path).expect("corpus scripts load");
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            for entry in program.entries() {
                assert!(
                    covered.contains(&(name.clone(), entry.name.clone())),
                    "{name}:{} is not in the table",
                    entry.name
                );
            }
        }
    }
}

#[test]
fn every_corpus_entry_runs_validated_under_the_memory_saving_schedule() {
    let Some(corpus) = corpus_dir() else { return };
    if !vulkan_available() {
        return;
    }
    run_every_entry(&corpus, &["--schedule", "memory"]);
}

/// Runs every corpus entry with the flags `extra`, 3 validated frames each; fails on any run
/// that is not clean (the known gaps excepted) and returns the (script, entry) pairs run.
fn run_every_entry(
    corpus: &std::path::Path,
    extra: &[&str],
) -> std::collections::BTreeSet<(String, String)> {
    let mut failures = Vec::new();
    let mut covered = std::collections::BTreeSet::new();
    for (script, entry, args) in CORPUS_RUNS {
        covered.insert((script.to_string(), entry.to_string()));
        let path = corpus.join(script);
        let mut command: Vec<String> = [
            "run",
            path.to_str().unwrap(),
            "--entry",
            entry,
            "--frames",
            "3",
            "--validate",
            "--allow-unbound",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        command.extend(extra.iter().map(|s| s.to_string()));
        for arg in *args {
            command.push("--arg".into());
            command.push(arg.to_string());
        }
        let output = rpsl(&command);
        let stderr = String::from_utf8_lossy(&output.stderr);
        let code = output.status.code();
        let clean = code == Some(0) && !stderr.contains("validation") && !stderr.contains("error");
        match known_gap(script, entry, args) {
            // Every message must be the known one (others are failures of their own).
            Some(expected)
                if !clean
                    && stderr.contains(expected)
                    && stderr
                        .lines()
                        .filter(|line| line.starts_with("  "))
                        .all(|line| line.contains(expected)) =>
            {
                eprintln!("known gap: {script}:{entry} {args:?}: {expected}");
            }
            Some(_) if clean => {
                eprintln!("{script}:{entry} {args:?} passes now: remove it from KNOWN_GAPS");
            }
            _ if clean => {}
            _ => failures.push(format!(
                "{script}:{entry} {args:?}: exit {code:?}\n{stderr}"
            )),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    covered
}
