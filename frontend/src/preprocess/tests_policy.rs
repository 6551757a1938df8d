//! Tests of the include policy through the in-memory loader (a virtual file system): roots, the
//! search order of include directories, every refusal with its exact diagnostic, the limits, and
//! that a refused file is never quoted.

use super::tests::Fixture;
use super::{IncludePolicy, Preprocessor, SourceLimits};
use crate::diagnostic::render_all;

/// A preprocessor under `policy`.
fn with_policy(policy: IncludePolicy) -> Preprocessor {
    let mut pp = Preprocessor::new();
    pp.set_policy(policy);
    pp
}

/// A fixture whose files are served from memory under `policy`.
fn fixture(policy: IncludePolicy, sources: &[(&str, &str)]) -> Fixture {
    Fixture::with(with_policy(policy), sources)
}

fn limits(change: impl FnOnce(&mut SourceLimits)) -> IncludePolicy {
    let mut limits = SourceLimits::default();
    change(&mut limits);
    IncludePolicy::default().with_limits(limits)
}

#[test]
fn includes_resolve_next_to_the_file_then_in_include_dirs() {
    let policy = IncludePolicy::default()
        .with_include_dir("lib")
        .with_include_dir("more");
    let f = fixture(
        policy,
        &[
            (
                "app/main.rpsl",
                "#include \"a.rpsli\"\n#include <b.rpsli>\n#include \"sub/c.rpsli\"\n",
            ),
            ("app/a.rpsli", "A_APP\n"),
            ("lib/a.rpsli", "A_LIB\n"),
            ("more/b.rpsli", "B_MORE\n"),
            ("app/sub/c.rpsli", "#include \"../a.rpsli\"\n"),
        ],
    );
    assert_eq!(f.headlines(), Vec::<String>::new());
    assert_eq!(f.expanded.text, "\nA_APP\n\nB_MORE\n\n\nA_APP\n");
    assert_eq!(f.loc("B_MORE", 0), "more/b.rpsli:1:1");
}

#[test]
fn an_include_outside_the_roots_is_refused_and_never_read() {
    let secret = ("secret.rpsli", "SECRET VALUE 42\n");
    for (line, name) in [
        ("#include \"../secret.rpsli\"\n", "../secret.rpsli"),
        ("#include \"/secret.rpsli\"\n", "/secret.rpsli"),
        (
            "#include \"sub/../../secret.rpsli\"\n",
            "sub/../../secret.rpsli",
        ),
    ] {
        let f = fixture(
            IncludePolicy::default(),
            &[("app/main.rpsl", line), secret, ("/secret.rpsli", "X")],
        );
        assert_eq!(
            render_all(&f.diags, &f.files),
            format!(
                "app/main.rpsl:1:10: error: cannot include `{name}`: it lies outside the include directories\n  \
                 ┌─ app/main.rpsl:1:10\n  │\n1 │ {}\n  │          {}\n  │\n  \
                 = includes resolve only inside `app` (after `..` and symbolic links)\n\n",
                line.trim_end(),
                "^".repeat(name.len() + 2)
            )
        );
        assert_eq!(f.files.len(), 1, "the refused file is not among the files");
    }
}

#[test]
fn a_macro_built_name_is_checked_like_a_written_one() {
    let f = fixture(
        IncludePolicy::default().with_include_dir("inc"),
        &[
            (
                "main.rpsl",
                "#define UP(x) #x\n#include UP(../secret.rpsli)\n",
            ),
            ("../secret.rpsli", "SECRET\n"),
        ],
    );
    assert_eq!(
        f.headlines(),
        ["main.rpsl:2:10: error: cannot include `../secret.rpsli`: it lies outside the include directories"]
    );
    assert_eq!(
        f.diags[0].notes,
        ["includes resolve only inside `.`, `inc` (after `..` and symbolic links)"]
    );
    assert!(!f.expanded.text.contains("SECRET"));
}

#[test]
fn a_file_over_the_size_limit_is_refused() {
    let f = fixture(
        limits(|l| l.max_file_bytes = 8),
        &[
            (
                "main.rpsl",
                "#include \"big.rpsli\"\n#include \"small.rpsli\"\n",
            ),
            ("big.rpsli", "123456789"),
            ("small.rpsli", "12345678"),
        ],
    );
    assert_eq!(
        f.headlines(),
        ["main.rpsl:1:10: error: cannot include `big.rpsli`: it is larger than 8 bytes"]
    );
    assert_eq!(f.expanded.text, "\n\n12345678\n");
}

#[test]
fn an_include_bomb_stops_at_the_inclusion_limit() {
    // Each file includes the next twice, 31 deep: 2^31 inclusions without the limit.
    let names: Vec<String> = (0..32).map(|i| format!("f{i}.rpsli")).collect();
    let texts: Vec<String> = (0..32)
        .map(|i| {
            if i == 31 {
                "x\n".to_string()
            } else {
                format!(
                    "#include \"f{n}.rpsli\"\n#include \"f{n}.rpsli\"\n",
                    n = i + 1
                )
            }
        })
        .collect();
    let sources: Vec<(&str, &str)> = names
        .iter()
        .map(String::as_str)
        .zip(texts.iter().map(String::as_str))
        .collect();
    let f = fixture(IncludePolicy::default(), &sources);
    assert_eq!(
        f.headlines(),
        ["f30.rpsli:1:10: error: too many `#include`s (more than 1024 in one script)"]
    );
    let f = fixture(limits(|l| l.max_inclusions = 3), &sources);
    assert_eq!(
        f.headlines(),
        ["f3.rpsli:1:10: error: too many `#include`s (more than 3 in one script)"]
    );
    assert_eq!(f.expanded.text.matches('x').count(), 0);
}

#[test]
fn guarded_includes_do_not_count() {
    let f = fixture(
        limits(|l| l.max_inclusions = 1),
        &[
            (
                "main.rpsl",
                "#include \"g.rpsli\"\n#include \"g.rpsli\"\n#include \"g.rpsli\"\n",
            ),
            ("g.rpsli", "#pragma once\nG\n"),
        ],
    );
    assert_eq!(f.headlines(), Vec::<String>::new());
    assert_eq!(f.expanded.text.matches('G').count(), 1);
}

#[test]
fn the_preprocessed_size_is_bounded_for_text_and_macro_output() {
    let f = fixture(
        limits(|l| l.max_preprocessed_bytes = 40),
        &[
            ("main.rpsl", "#include \"part.rpsli\"\n#include \"part.rpsli\"\n#include \"part.rpsli\"\nlater\n"),
            ("part.rpsli", "0123456789012345\n"),
        ],
    );
    assert_eq!(
        f.headlines(),
        ["part.rpsli:1:1: error: preprocessed text is too large (more than 40 bytes)"]
    );
    assert!(f.expanded.truncated);
    assert!(f.expanded.text.len() <= 40);
    assert!(!f.expanded.text.contains("later"));
    // Macros multiply text: each level doubles it.
    let mut text = String::from("#define A0 0123456789\n");
    for level in 1..40 {
        text.push_str(&format!("#define A{level} A{p} A{p}\n", p = level - 1));
    }
    text.push_str("A39\n");
    let f = fixture(
        limits(|l| l.max_preprocessed_bytes = 1000),
        &[("main.rpsl", &text)],
    );
    assert_eq!(
        f.headlines(),
        ["main.rpsl:41:1: error: preprocessed text is too large (more than 1000 bytes)"]
    );
    assert!(f.expanded.text.len() <= 1000);
}

#[test]
fn the_include_depth_can_be_tightened() {
    let f = fixture(
        limits(|l| l.max_include_depth = 2),
        &[
            ("a.rpsl", "#include \"b.rpsli\"\n"),
            ("b.rpsli", "#include \"c.rpsli\"\n"),
            ("c.rpsli", "C\n"),
        ],
    );
    assert_eq!(
        f.headlines(),
        ["b.rpsli:1:10: error: `#include` nested too deeply (more than 2 levels)"]
    );
}

#[test]
fn a_byte_order_mark_is_skipped_in_includes_too() {
    let f = fixture(
        IncludePolicy::default(),
        &[
            ("main.rpsl", "\u{feff}#include \"b.rpsli\"\nM\n"),
            ("b.rpsli", "\u{feff}B #bad\n#oops\n"),
        ],
    );
    assert_eq!(f.expanded.text, "\nB #bad\n\nM\n");
    assert_eq!(
        f.headlines(),
        ["b.rpsli:2:1: error: unknown preprocessor directive `#oops`"]
    );
    assert_eq!(f.loc("M", 0), "main.rpsl:2:1");
    assert_eq!(f.loc("B", 0), "b.rpsli:1:1");
}
