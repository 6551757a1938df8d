//! Snapshots (insta) of what a user reads: the whole rendered diagnostics of every bad input in
//! `tests/bad/`, and the HIR and bytecode disassembly of the example scripts. A change to any of
//! them shows as a diff of the `.snap` files in `tests/snapshots/`; review it, then accept it with
//! `INSTA_UPDATE=always cargo test --test snapshots` (or `cargo insta review`).

use std::fs;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn scripts_in(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rpsl"))
        .collect();
    paths.sort();
    paths
}

/// Text with the clone's location removed, so snapshots do not depend on where it lives.
fn portable(text: &str) -> String {
    text.replace(&format!("{}/", root().display()), "")
}

fn stem(path: &Path) -> String {
    path.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn whole_diagnostics_of_every_bad_input() {
    let bad = scripts_in(&root().join("tests/bad"));
    assert!(bad.len() >= 40, "only {} bad inputs", bad.len());
    for path in bad {
        let rendered = rpsl::check_file(&path).render_diagnostics();
        insta::assert_snapshot!(format!("diagnostics_{}", stem(&path)), portable(&rendered));
    }
}

fn example_scripts() -> Vec<PathBuf> {
    let mut scripts = Vec::new();
    for entry in fs::read_dir(root().join("scripts/examples")).unwrap() {
        let dir = entry.unwrap().path();
        if dir.is_dir() {
            scripts.extend(scripts_in(&dir));
        }
    }
    scripts.sort();
    assert_eq!(scripts.len(), 5, "{scripts:?}");
    scripts
}

#[test]
fn hir_of_the_examples() {
    for path in example_scripts() {
        let compilation = rpsl::check_file(&path);
        let module = compilation.module.as_ref().expect("the example checks");
        insta::assert_snapshot!(
            format!("hir_{}", stem(&path)),
            portable(&module.to_string())
        );
    }
}

#[test]
fn bytecode_of_the_examples() {
    for path in example_scripts() {
        let program = rpsl::Program::from_file(&path).expect("the example compiles");
        insta::assert_snapshot!(
            format!("bytecode_{}", stem(&path)),
            portable(&program.disassembly())
        );
    }
}
