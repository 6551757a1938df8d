//! Tests of preprocessor diagnostics: every message with its exact location, recovery, limits,
//! include cycles, and that random input never panics.

use proptest::prelude::*;

use super::tests::Fixture;
use super::{MemoryLoader, Preprocessor};
use crate::source::SourceFiles;

/// The diagnostic headlines for one file `a.rpsl`.
fn diags(input: &str) -> Vec<String> {
    Fixture::new(&[("a.rpsl", input)]).headlines()
}

/// Checks that `input` gives exactly one diagnostic, `expected`.
fn check(input: &str, expected: &str) {
    assert_eq!(diags(input), vec![expected.to_string()], "input: {input:?}");
}

#[test]
fn comment_and_directive_errors() {
    check(
        "a /* b\nc\n",
        "a.rpsl:1:3: error: unterminated block comment",
    );
    assert_eq!(
        diags("#if 0\n/* x\n"),
        [
            "a.rpsl:2:1: error: unterminated block comment",
            "a.rpsl:1:1: error: missing `#endif` for `#if`"
        ]
    );
    check(
        "#foo bar\n",
        "a.rpsl:1:1: error: unknown preprocessor directive `#foo`",
    );
    check(
        "  #  bad\n",
        "a.rpsl:1:3: error: unknown preprocessor directive `#bad`",
    );
    check(
        "#!\n",
        "a.rpsl:1:1: error: unknown preprocessor directive `#!`",
    );
    check("#error stop  here\n", "a.rpsl:1:1: error: #error stop here");
    check("#error\n", "a.rpsl:1:1: error: #error");
    check(
        "x\n  #warning careful: \"q\"\n",
        "a.rpsl:2:3: warning: #warning careful: \"q\"",
    );
    assert_eq!(
        diags("#pragma anything (goes) here\n#pragma\n#line 10\n# 5 \"x\"\n#\n"),
        Vec::<String>::new()
    );
    assert_eq!(
        diags("#if 0\n#error no\n#foo\n#endif\n"),
        Vec::<String>::new()
    );
}

#[test]
fn define_errors() {
    check(
        "#define\n",
        "a.rpsl:1:1: error: missing macro name in `#define`",
    );
    check(
        "#define 1 x\n",
        "a.rpsl:1:9: error: macro name must be an identifier",
    );
    check(
        "#define defined 1\n",
        "a.rpsl:1:9: error: `defined` cannot be used as a macro name",
    );
    check(
        "#define F(a, 1) a\n",
        "a.rpsl:1:14: error: expected macro parameter name",
    );
    check(
        "#define F(a b) a\n",
        "a.rpsl:1:13: error: expected `,` or `)` in macro parameter list",
    );
    check(
        "#define F(a, a) a\n",
        "a.rpsl:1:14: error: duplicate macro parameter `a`",
    );
    check(
        "#define F(a\n",
        "a.rpsl:1:11: error: expected `,` or `)` in macro parameter list",
    );
    check(
        "#define F(a,\n",
        "a.rpsl:1:12: error: expected macro parameter name",
    );
    check(
        "#define F(...x) 1\n",
        "a.rpsl:1:14: error: expected `)` after `...` in macro parameter list",
    );
    check(
        "#define C(a) ## a\n",
        "a.rpsl:1:14: error: `##` cannot appear at either end of a macro body",
    );
    check(
        "#define C(a) a ##\n",
        "a.rpsl:1:16: error: `##` cannot appear at either end of a macro body",
    );
    check(
        "#define S(a) #b\n",
        "a.rpsl:1:14: error: `#` must be followed by a macro parameter",
    );
    let fixture = Fixture::new(&[("a.rpsl", "#define A 1\n#define A 2\n#define A 2\n")]);
    assert_eq!(
        fixture.headlines(),
        ["a.rpsl:2:9: warning: macro `A` redefined"]
    );
    let previous = &fixture.diags[0].secondary[0];
    assert_eq!(fixture.files.location(previous.span), "a.rpsl:1:9");
    assert_eq!(previous.message, "previous definition is here");
    // An erroneous definition defines nothing.
    let fixture = Fixture::new(&[("a.rpsl", "#define F(a, a) a\nF(1)\n")]);
    assert_eq!(fixture.expanded.text, "\nF(1)\n");
}

#[test]
fn macro_name_operand_errors() {
    check(
        "#ifdef X Y\n#endif\n",
        "a.rpsl:1:10: error: extra tokens after macro name in `#ifdef`",
    );
    check(
        "#ifndef X Y Z\n#endif\n",
        "a.rpsl:1:11: error: extra tokens after macro name in `#ifndef`",
    );
    check(
        "#ifdef\n#endif\n",
        "a.rpsl:1:1: error: missing macro name in `#ifdef`",
    );
    check(
        "#ifndef 3\n#endif\n",
        "a.rpsl:1:9: error: macro name must be an identifier",
    );
    check(
        "#undef\n",
        "a.rpsl:1:1: error: missing macro name in `#undef`",
    );
    check(
        "#undef A B\n",
        "a.rpsl:1:10: error: extra tokens after macro name in `#undef`",
    );
    assert_eq!(
        diags("#if 1\n#else x\n#endif y\n"),
        [
            "a.rpsl:2:7: warning: extra tokens after `#else`",
            "a.rpsl:3:8: warning: extra tokens after `#endif`"
        ]
    );
    assert_eq!(
        diags("#if 0\n#if 1\n#else x\n#endif y\n#endif\n"),
        Vec::<String>::new()
    );
}

#[test]
fn invocation_errors() {
    assert_eq!(
        diags("#define F(x, y) x\nF(1)\n  F(1, 2, 3)\n"),
        [
            "a.rpsl:2:1: error: macro `F` takes 2 arguments but 1 was given",
            "a.rpsl:3:3: error: macro `F` takes 2 arguments but 3 were given",
        ]
    );
    check(
        "#define G(x) x\nG(1, (2, 3))\n",
        "a.rpsl:2:1: error: macro `G` takes 1 argument but 2 were given",
    );
    check(
        "#define N() x\nN(1)\n",
        "a.rpsl:2:1: error: macro `N` takes 0 arguments but 1 was given",
    );
    check(
        "#define V(x, y, ...) x\nV(1)\n",
        "a.rpsl:2:1: error: macro `V` takes at least 2 arguments but 1 was given",
    );
    let fixture = Fixture::new(&[("a.rpsl", "#define F(x, y) x\nint a = F(1);\n")]);
    let span = fixture.diags[0].span;
    assert_eq!(
        &fixture.files.get(span.file).text[span.start as usize..span.end as usize],
        "F(1)"
    );
    check(
        "#define F(x) x\nF(1, (2)\nint y;\n",
        "a.rpsl:2:1: error: unterminated argument list invoking macro `F`",
    );
    // The argument list stops at a directive line, which still takes effect.
    let fixture = Fixture::new(&[("a.rpsl", "#define F(x) x\nF(1\n#define Z 1\nZ\n")]);
    assert_eq!(
        fixture.headlines(),
        ["a.rpsl:2:1: error: unterminated argument list invoking macro `F`"]
    );
    assert_eq!(fixture.expanded.text, "\n\n1\n");
    check(
        "#define C(a, b) a ## b\nC(+, /)\n",
        "a.rpsl:2:1: error: pasting `+` and `/` does not give a valid token",
    );
}

#[test]
fn conditional_structure_errors() {
    check("#else\n", "a.rpsl:1:1: error: `#else` without `#if`");
    check("#endif\n", "a.rpsl:1:1: error: `#endif` without `#if`");
    check("x\n #elif 1\n", "a.rpsl:2:2: error: `#elif` without `#if`");
    check(
        "#if 1\n#else\n#elif 1\n#endif\n",
        "a.rpsl:3:1: error: `#elif` after `#else`",
    );
    check(
        "#if 1\n#else\n#else\n#endif\n",
        "a.rpsl:3:1: error: `#else` after `#else`",
    );
    check(
        "#if 0\n#if 1\n#else\n#else\n#endif\n#endif\n",
        "a.rpsl:4:1: error: `#else` after `#else`",
    );
    check(
        "#if 1\nx\n",
        "a.rpsl:1:1: error: missing `#endif` for `#if`",
    );
    check(
        "  #ifdef A\n",
        "a.rpsl:1:3: error: missing `#endif` for `#ifdef`",
    );
    assert_eq!(
        diags("#ifndef A\n#if 0\n"),
        [
            "a.rpsl:1:1: error: missing `#endif` for `#ifndef`",
            "a.rpsl:2:1: error: missing `#endif` for `#if`"
        ]
    );
    let fixture = Fixture::new(&[("a.rpsl", "#if 1\n#else\n#elif 1\n#endif\n")]);
    assert_eq!(
        fixture.files.location(fixture.diags[0].secondary[0].span),
        "a.rpsl:1:1"
    );
}

#[test]
fn expression_errors() {
    check(
        "#if\n#endif\n",
        "a.rpsl:1:1: error: missing expression in `#if`",
    );
    check(
        "#if 0\n#elif\n#endif\n",
        "a.rpsl:2:1: error: missing expression in `#elif`",
    );
    check(
        "#if 1 +\n#endif\n",
        "a.rpsl:1:8: error: expected value in `#if` expression",
    );
    check(
        "#if (1\n#endif\n",
        "a.rpsl:1:7: error: expected `)` in `#if` expression",
    );
    check(
        "#if 1 ? 2\n#endif\n",
        "a.rpsl:1:10: error: expected `:` in `#if` expression",
    );
    check(
        "#if 1 2\n#endif\n",
        "a.rpsl:1:7: error: unexpected token `2` in `#if` expression",
    );
    check(
        "#if 1 / 0\n#endif\n",
        "a.rpsl:1:7: error: division by zero in `#if` expression",
    );
    check(
        "#if 1 % (2 - 2)\n#endif\n",
        "a.rpsl:1:7: error: remainder by zero in `#if` expression",
    );
    check(
        "#if 1.0\n#endif\n",
        "a.rpsl:1:5: error: floating-point number in `#if` expression",
    );
    check(
        "#if 09\n#endif\n",
        "a.rpsl:1:5: error: invalid integer `09` in `#if` expression",
    );
    check(
        "#if 99999999999999999999\n#endif\n",
        "a.rpsl:1:5: error: integer `99999999999999999999` is too large in `#if` expression",
    );
    check(
        "#if \"s\"\n#endif\n",
        "a.rpsl:1:5: error: expected value in `#if` expression",
    );
    check(
        "#if defined\n#endif\n",
        "a.rpsl:1:5: error: expected macro name after `defined`",
    );
    check(
        "#if defined(\n#endif\n",
        "a.rpsl:1:12: error: expected macro name after `defined`",
    );
    check(
        "#if defined(1)\n#endif\n",
        "a.rpsl:1:13: error: expected macro name after `defined`",
    );
    check(
        "#if defined(X\n#endif\n",
        "a.rpsl:1:13: error: expected `)` after macro name in `defined`",
    );
    check(
        "#if 0\n#elif 1/0\n#endif\n",
        "a.rpsl:2:8: error: division by zero in `#elif` expression",
    );
    check(
        "#define D 0\n#if 1 / D\n#endif\n",
        "a.rpsl:2:7: error: division by zero in `#if` expression",
    );
    check(
        "#define BAD 1 +\n#if BAD\n#endif\n",
        "a.rpsl:2:8: error: expected value in `#if` expression",
    );
    let deep = format!("#if {}1{}\n#endif\n", "(".repeat(300), ")".repeat(300));
    assert_eq!(diags(&deep).len(), 1);
    assert!(diags(&deep)[0].ends_with("error: `#if` expression is nested too deeply"));
    // An invalid condition counts as false.
    let fixture = Fixture::new(&[("a.rpsl", "#if 1 +\nno\n#else\nyes\n#endif\n")]);
    assert_eq!(fixture.expanded.text, "\n\n\nyes\n\n");
}

#[test]
fn include_errors() {
    check(
        "#include\n",
        "a.rpsl:1:1: error: expected \"FILE\" or <FILE> after `#include`",
    );
    check(
        "#include foo\n",
        "a.rpsl:1:10: error: expected \"FILE\" or <FILE> after `#include`",
    );
    check(
        "#include <b.rpsl\n",
        "a.rpsl:1:10: error: expected \"FILE\" or <FILE> after `#include`",
    );
    check(
        "#include \"missing.rpsl\"\n",
        "a.rpsl:1:10: error: cannot find included file `missing.rpsl`",
    );
    check(
        "#include \"\"\n",
        "a.rpsl:1:10: error: empty file name in `#include`",
    );
    let fixture = Fixture::new(&[
        ("a.rpsl", "#include \"b.rpsl\" x\n#include <b.rpsl>\n"),
        ("b.rpsl", "B\n"),
    ]);
    assert_eq!(
        fixture.headlines(),
        ["a.rpsl:1:19: warning: extra tokens after `#include` file name"]
    );
    assert_eq!(fixture.expanded.text, "\nB\n\nB\n");
    let fixture = Fixture::new(&[
        ("a.rpsl", "#define INC \"b.rpsl\"\n#include INC\n"),
        ("b.rpsl", "B"),
    ]);
    assert_eq!(fixture.headlines(), Vec::<String>::new());
    assert_eq!(fixture.expanded.text, "\n\nB\n");
    let fixture = Fixture::new(&[("a.rpsl", "#include \"b.rpsl\"\n"), ("b.rpsl", "x\n#bad\n")]);
    assert_eq!(
        fixture.headlines(),
        ["b.rpsl:2:1: error: unknown preprocessor directive `#bad`"]
    );
}

#[test]
fn include_cycles() {
    let fixture = Fixture::new(&[
        ("a.rpsl", "#include \"b.rpsl\"\n"),
        ("b.rpsl", "x\n#include \"a.rpsl\"\n"),
    ]);
    assert_eq!(
        fixture.headlines(),
        ["b.rpsl:2:10: error: `#include` cycle: `a.rpsl` is already being included"]
    );
    assert_eq!(
        fixture.diags[0].notes,
        ["include chain: a.rpsl -> b.rpsl -> a.rpsl"]
    );
    let fixture = Fixture::new(&[("dir/a.rpsl", "#include \"./a.rpsl\"\n")]);
    assert_eq!(
        fixture.headlines(),
        ["dir/a.rpsl:1:10: error: `#include` cycle: `dir/a.rpsl` is already being included"]
    );
    assert_eq!(
        fixture.diags[0].notes,
        ["include chain: dir/a.rpsl -> dir/a.rpsl"]
    );
    // Depth limit with distinct files.
    let names: Vec<String> = (0..70).map(|i| format!("f{i}.rpsl")).collect();
    let texts: Vec<String> = (0..70)
        .map(|i| format!("#include \"f{}.rpsl\"\n", i + 1))
        .collect();
    let sources: Vec<(&str, &str)> = names
        .iter()
        .zip(&texts)
        .map(|(n, t)| (n.as_str(), t.as_str()))
        .collect();
    let fixture = Fixture::new(&sources);
    assert_eq!(
        fixture.headlines(),
        ["f63.rpsl:1:10: error: `#include` nested too deeply (more than 64 levels)"]
    );
}

#[test]
fn recovery_reports_several_errors() {
    assert_eq!(
        diags("#foo\n#define\nok\n#else\n#if 1/0\n#endif\n"),
        [
            "a.rpsl:1:1: error: unknown preprocessor directive `#foo`",
            "a.rpsl:2:1: error: missing macro name in `#define`",
            "a.rpsl:4:1: error: `#else` without `#if`",
            "a.rpsl:5:6: error: division by zero in `#if` expression",
        ]
    );
}

#[test]
fn expansion_limits() {
    let mut bomb = String::from("#define A0 x x\n");
    for i in 1..=30 {
        bomb.push_str(&format!("#define A{i} A{p} A{p}\n", p = i - 1));
    }
    bomb.push_str("A30\n");
    check(
        &bomb,
        "a.rpsl:32:1: error: macro expansion is too large (more than 1048576 tokens)",
    );
    let doubling = format!("#define F(x) x x\n{}1{}\n", "F(".repeat(40), ")".repeat(40));
    assert_eq!(
        diags(&doubling),
        ["a.rpsl:2:43: error: macro expansion is too large (more than 1048576 tokens)"]
    );
    let nested = format!("#define F(x) x\n{}1{}\n", "F(".repeat(200), ")".repeat(200));
    let fixture = Fixture::new(&[("a.rpsl", &nested)]);
    assert_eq!(
        fixture.headlines(),
        ["a.rpsl:2:259: error: macro arguments are nested too deeply (more than 128)"]
    );
    let deep_parens = format!(
        "#define F(x) x\nF({}1{})\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert_eq!(diags(&deep_parens), Vec::<String>::new());
}

/// Preprocesses arbitrary text (with an include of itself and of another file) and checks that
/// every mapped span lies inside its file.
fn no_panic(text: &str) {
    let mut files = SourceFiles::new();
    let root = files.add("a.rpsl", text.to_string());
    let loader = MemoryLoader::new()
        .with("a.rpsl", text)
        .with("b.rpsl", text);
    let mut pp = Preprocessor::new();
    let (expanded, diags) = pp.run(&mut files, root, &loader);
    for d in &diags {
        let _ = d.render(&files);
    }
    let len = expanded.text.len() as u32;
    for start in (0..=len).step_by(7) {
        let span = expanded.map.span(start, (start + 5).min(len));
        assert!(span.end as usize <= files.get(span.file).text.len());
        let _ = expanded.map.expansion_chain(start);
    }
}

proptest! {
    // `PROPTEST_CASES=5000` runs more cases.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(300),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        no_panic(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_directives_never_panic(parts in proptest::collection::vec(prop_oneof![
        Just("#define "), Just("#undef "), Just("#if "), Just("#ifdef "), Just("#elif "), Just("#else"),
        Just("#endif"), Just("#include \"b.rpsl\""), Just("#include \"a.rpsl\""), Just("defined"), Just("F"),
        Just("G"), Just("x"), Just("("), Just(")"), Just(","), Just("##"), Just("#"), Just("..."),
        Just("__VA_ARGS__"), Just("1"), Just("0"), Just("/"), Just("?"), Just(":"), Just("\n"), Just(" "),
        Just("\\\n"), Just("/*"), Just("*/"), Just("//"), Just("\""), Just("'"), Just("é"), Just("-"),
    ], 0..80)) {
        no_panic(&parts.concat());
    }
}
