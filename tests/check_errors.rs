//! Bad-input tests: every `tests/bad/*.rpsl` must fail `check` with exactly the first error recorded
//! in its `.expected` file (`LINE:COL: MESSAGE`, and the file the error is in when it is not the
//! script itself). Run with `BLESS=1` to rewrite the `.expected` files after reviewing a change.

use std::fs;
use std::path::{Path, PathBuf};

fn bad_inputs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad");
    let mut paths: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("tests/bad exists")
        .map(|entry| entry.expect("readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "rpsl"))
        .collect();
    paths.sort();
    paths
}

/// `LINE:COL: MESSAGE` of the first error, prefixed with the file name when it lies elsewhere.
fn first_error(path: &Path) -> Option<String> {
    let compilation = rpsl::check_file(path);
    let first = compilation.diagnostics.iter().find(|d| d.is_error())?;
    let file = compilation.files.get(first.span.file);
    let (line, col) = file.line_col(first.span.start);
    let origin = if file.path == path {
        String::new()
    } else {
        format!(
            "{}:",
            file.path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        )
    };
    // Messages may name other files by path: make them independent of where the clone lives.
    let root = format!("{}/", env!("CARGO_MANIFEST_DIR"));
    Some(format!(
        "{origin}{line}:{col}: {}",
        first.message.replace(&root, "")
    ))
}

#[test]
fn every_bad_input_reports_its_expected_first_error() {
    let bless = std::env::var_os("BLESS").is_some();
    let mut failures = Vec::new();
    let inputs = bad_inputs();
    assert!(
        inputs.len() >= 40,
        "expected at least 40 bad inputs, found {}",
        inputs.len()
    );
    for path in inputs {
        let expected_path = path.with_extension("expected");
        let actual = first_error(&path).unwrap_or_else(|| "<no error>".to_string());
        if bless {
            fs::write(&expected_path, format!("{actual}\n")).expect("write .expected");
            continue;
        }
        let expected = fs::read_to_string(&expected_path).unwrap_or_default();
        if expected.trim_end() != actual {
            failures.push(format!(
                "{}\n  expected: {}\n  actual:   {}",
                path.display(),
                expected.trim_end(),
                actual
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn rendered_diagnostics_start_with_path_line_col() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad/unknown_variable.rpsl");
    let compilation = rpsl::check_file(&path);
    let rendered = compilation.render_diagnostics();
    let first_line = rendered.lines().next().expect("a diagnostic");
    assert_eq!(
        first_line,
        format!("{}:4:14: error: unknown name `cuont`", path.display())
    );
    assert!(rendered.contains("did you mean `count`?"), "{rendered}");
    assert!(rendered.contains('^'), "excerpt with a caret: {rendered}");
}

#[test]
fn errors_inside_macro_expansions_name_the_macro() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad/macro_error_through_expansion.rpsl");
    let compilation = rpsl::check_file(&path);
    let first = compilation.first_error().expect("an error");
    assert_eq!(
        first.notes,
        vec![format!(
            "in expansion of macro `ADD_MISSING` defined at {}:1:9",
            path.display()
        )]
    );
}
