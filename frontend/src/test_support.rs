//! Paths and inputs shared by the frontend's unit tests: the reference material next to the
//! repository (`../shared`, the AMD SDK corpus and the benchmark shapes) and the project's own
//! scripts. Tests skip what is missing, so a checkout without `../shared` still passes.

use std::path::{Path, PathBuf};

/// `relative` inside the `shared/` folder next to the repository (`../shared`).
pub fn shared(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared")
        .join(relative)
}

/// The `.rpsl` files of `dir`, sorted by path (none when it does not exist).
pub fn rpsl_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rpsl"))
        .collect();
    paths.sort();
    paths
}

/// The texts of the corpus, the benchmark scripts and the bad-input tests, after `first`.
pub fn corpus_bench_and_bad_texts(first: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut texts = vec![first.to_string()];
    for dir in [
        shared("corpus/rps-sdk"),
        root.join("scripts/bench"),
        root.join("tests/bad"),
    ] {
        let paths = rpsl_files(&dir);
        texts.extend(paths.iter().filter_map(|p| std::fs::read_to_string(p).ok()));
    }
    texts
}
