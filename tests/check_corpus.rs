//! Every script of the RPS SDK corpus (`../shared/corpus/rps-sdk`), the benchmark shapes
//! (`../shared/bench`) and the project's own `scripts/` checks with no error.

use std::fs;
use std::path::{Path, PathBuf};

fn rpsl_files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rpsl_files_under(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rpsl") {
            out.push(path);
        }
    }
}

fn assert_all_clean(files: &[PathBuf]) {
    let mut failures = Vec::new();
    for path in files {
        let compilation = rpsl::check_file(path);
        if compilation.has_errors() || compilation.module.is_none() {
            failures.push(compilation.render_diagnostics());
        }
    }
    assert!(
        failures.is_empty(),
        "{} scripts failed to check:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn shared_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    dir.is_dir().then_some(dir)
}

#[test]
fn corpus_and_bench_scripts_check_clean() {
    let Some(shared) = shared_dir() else {
        eprintln!("skipped: ../shared is not present next to the repository");
        return;
    };
    let mut files = Vec::new();
    rpsl_files_under(&shared.join("corpus/rps-sdk"), &mut files);
    rpsl_files_under(&shared.join("bench"), &mut files);
    files.sort();
    assert!(
        files.len() >= 18,
        "expected the 17 corpus scripts and the bench shapes, found {}",
        files.len()
    );
    assert_all_clean(&files);
}

#[test]
fn project_scripts_check_clean() {
    let mut files = Vec::new();
    rpsl_files_under(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts"),
        &mut files,
    );
    files.sort();
    assert!(
        files.len() >= 3,
        "expected the example and bench scripts, found {}",
        files.len()
    );
    assert_all_clean(&files);
}
