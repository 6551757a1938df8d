//! Helpers shared by the effect integration tests (`effect_cli`, `effect_frame`,
//! `effect_sources`): fresh folders of fixtures and test effects, running the `rpsl` binary,
//! and whether a Vulkan run can be judged here.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The test effects' folder (`effects/tests/effects`).
pub fn effects() -> PathBuf {
    repo().join("effects/tests/effects")
}

/// A fresh, empty folder for test `test` of suite `suite` in the temporary directory.
pub fn scratch(suite: &str, test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rpsl-{suite}-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A fresh folder for test `test` holding every file of the repository folder `fixtures` and
/// the files `effect_files` of the test effects' folder.
pub fn fixture_folder(fixtures: &str, test: &str, effect_files: &[&str]) -> PathBuf {
    let suite = fixtures
        .rsplit('/')
        .next()
        .unwrap_or(fixtures)
        .replace('_', "-");
    let dir = scratch(&suite, test);
    for entry in std::fs::read_dir(repo().join(fixtures)).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
    }
    for file in effect_files {
        std::fs::copy(effects().join(file), dir.join(file)).unwrap();
    }
    dir
}

/// Runs `rpsl ARGS` in `dir`.
pub fn rpsl_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rpsl"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("runs")
}

/// The run's standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Whether the Vulkan run can be judged (else a note, or a failure with RPSL_REQUIRE_VULKAN=1).
pub fn vulkan_ran(output: &Output) -> bool {
    let required = std::env::var("RPSL_REQUIRE_VULKAN").is_ok_and(|v| v == "1");
    if output.status.code() == Some(3) && stderr(output).contains("no usable device") && !required {
        eprintln!("skipping: no Vulkan device ({})", stderr(output));
        return false;
    }
    true
}
