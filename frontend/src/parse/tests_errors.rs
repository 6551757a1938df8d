//! Syntax error tests: exact messages and locations, recovery, nesting limits and robustness on
//! arbitrary input.

use proptest::prelude::*;

use super::tests::parse;
use crate::diagnostic::Diagnostic;
use crate::source::SourceFiles;

/// The headlines (`t.rpsl:LINE:COL: error: MESSAGE`) of the diagnostics for `text`.
fn errors(text: &str) -> Vec<String> {
    let (_, diagnostics) = parse(text);
    headlines(text, &diagnostics)
}

fn headlines(text: &str, diagnostics: &[Diagnostic]) -> Vec<String> {
    let mut files = SourceFiles::new();
    files.add("t.rpsl", text.to_string());
    diagnostics.iter().map(|d| d.headline(&files)).collect()
}

/// The only error of `text`.
fn error(text: &str) -> String {
    let errors = errors(text);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    errors[0].clone()
}

#[test]
fn missing_tokens() {
    assert_eq!(
        error("void a() { x = 1 }"),
        "t.rpsl:1:18: error: expected `;`, found `}`"
    );
    assert_eq!(
        error("void a() {\n  f(1)\n  g(2);\n}"),
        // Just after the line's last token, where the `;` is missing.
        "t.rpsl:2:7: error: expected `;`, found `g`"
    );
    assert_eq!(
        error("void b() { f(a b); }"),
        "t.rpsl:1:16: error: expected `,` or `)`, found `b`"
    );
    assert_eq!(
        error("void e() { if x }"),
        "t.rpsl:1:15: error: expected `(`, found `x`"
    );
    assert_eq!(
        error("uint x 5;"),
        "t.rpsl:1:8: error: expected `;`, found `5`"
    );
    assert_eq!(
        error("void i() { do x++; y; }"),
        "t.rpsl:1:20: error: expected `while`, found `y`"
    );
    assert_eq!(
        error("void l() { a[1; }"),
        "t.rpsl:1:15: error: expected `,` or `]`, found `;`"
    );
    assert_eq!(
        error("node N([readonly(ps) texture t);"),
        "t.rpsl:1:22: error: expected `,` or `]`, found `texture`"
    );
}

#[test]
fn missing_expressions_and_statements() {
    assert_eq!(
        error("void c() { f(a, ); }"),
        "t.rpsl:1:17: error: expected expression, found `)`"
    );
    assert_eq!(
        error("void c() { x = a + ; }"),
        "t.rpsl:1:20: error: expected expression, found `;`"
    );
    assert_eq!(
        error("void d() { ) }"),
        "t.rpsl:1:12: error: expected statement or `}`, found `)`"
    );
    assert_eq!(
        error("void r() { return }"),
        "t.rpsl:1:19: error: expected expression or `;`, found `}`"
    );
    assert_eq!(
        error("void s() { switch (x) { f(); } }"),
        "t.rpsl:1:25: error: expected `case`, `default` or `}`, found `f`"
    );
    assert_eq!(
        error("123;"),
        "t.rpsl:1:1: error: expected declaration, found `123`"
    );
    assert_eq!(
        error("void f( { }"),
        "t.rpsl:1:9: error: expected type or `)`, found `{`"
    );
    assert_eq!(
        error("void k() { uint return = 1; }"),
        "t.rpsl:1:17: error: expected identifier, found keyword `return`"
    );
}

#[test]
fn end_of_file() {
    let text = "void n() {\n  x = y";
    let (_, diagnostics) = parse(text);
    assert_eq!(
        headlines(text, &diagnostics),
        ["t.rpsl:2:8: error: unexpected end of file"]
    );
    assert_eq!(diagnostics[0].label, "expected `;`");
    assert_eq!(diagnostics[0].secondary.len(), 1);
    assert_eq!(
        (
            diagnostics[0].secondary[0].span.start,
            diagnostics[0].secondary[0].message.as_str()
        ),
        (9, "unclosed `{`")
    );
    assert_eq!(
        error("node f(uint a"),
        "t.rpsl:1:14: error: unexpected end of file"
    );
}

#[test]
fn unclosed_brackets_are_labelled() {
    let text = "void m() { x = (a + b; }";
    let (_, diagnostics) = parse(text);
    assert_eq!(
        headlines(text, &diagnostics),
        ["t.rpsl:1:22: error: expected `,` or `)`, found `;`"]
    );
    assert_eq!(diagnostics[0].secondary[0].message, "unclosed `(`");
    assert_eq!(diagnostics[0].secondary[0].span.start, 15);
    // The primary span is the offending token.
    assert_eq!(
        (diagnostics[0].span.start, diagnostics[0].span.end),
        (21, 22)
    );
}

#[test]
fn bad_numeric_literals() {
    assert_eq!(
        error("void f() { x = 0x; }"),
        "t.rpsl:1:16: error: hexadecimal literal has no digits"
    );
    assert_eq!(
        error("void f() { x = 1e; }"),
        "t.rpsl:1:16: error: exponent has no digits"
    );
    assert_eq!(
        error("void f() { x = 1e+; }"),
        "t.rpsl:1:16: error: exponent has no digits"
    );
    assert_eq!(
        error("void f() { x = 18446744073709551616; }"),
        "t.rpsl:1:16: error: integer literal is too large"
    );
    assert_eq!(
        error("void f() { x = 0x10000000000000000; }"),
        "t.rpsl:1:16: error: integer literal is too large"
    );
    assert_eq!(
        error("void f() { x = 09; }"),
        "t.rpsl:1:16: error: invalid digit `9` in octal literal"
    );
    assert_eq!(
        error("void f() { x = 1.5q; }"),
        "t.rpsl:1:16: error: invalid suffix `q` on floating-point literal"
    );
    assert_eq!(
        error("void f() { x = 12abc; }"),
        "t.rpsl:1:16: error: invalid suffix `abc` on integer literal"
    );
    // The item is kept: a bad literal is not a syntax error.
    let (module, _) = parse("void f() { x = 0x; }");
    assert_eq!(module.items.len(), 1);
}

#[test]
fn recovery_reports_one_error_per_broken_item() {
    let text = "void a() { x = 1 }\n\
                node ok1(texture t);\n\
                uint g( { }\n\
                struct S { uint a };\n\
                node N([readonly(ps) texture t);\n\
                export void ok2() { ok1(null); }\n\
                void m() { x = (a + b; }\n";
    let (module, diagnostics) = parse(text);
    assert_eq!(
        headlines(text, &diagnostics),
        [
            "t.rpsl:1:18: error: expected `;`, found `}`",
            "t.rpsl:3:9: error: expected type or `)`, found `{`",
            "t.rpsl:4:19: error: expected `;`, found `}`",
            "t.rpsl:5:22: error: expected `,` or `]`, found `texture`",
            "t.rpsl:7:22: error: expected `,` or `)`, found `;`",
        ]
    );
    assert_eq!(
        module.to_string(),
        "node ok1(texture t);\nexport void ok2() { ok1(null); }\n"
    );
}

#[test]
fn deep_bracket_nesting_is_an_error_not_a_crash() {
    let text = format!(
        "void f() {{ x = {}1{}; }}",
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    assert_eq!(
        error(&text),
        "t.rpsl:1:79: error: brackets are nested too deeply"
    );
    let text = format!("void f() {}{}", "{".repeat(10_000), "}".repeat(10_000));
    assert_eq!(
        error(&text),
        "t.rpsl:1:74: error: brackets are nested too deeply"
    );
    let text = "(".repeat(100_000);
    assert_eq!(
        error(&text),
        "t.rpsl:1:65: error: brackets are nested too deeply"
    );
    // Just under the limit parses.
    let depth = super::MAX_BRACKET_DEPTH - 2;
    let text = format!(
        "void f() {{ x = {}1{}; }}",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    assert_eq!(errors(&text), Vec::<String>::new());
}

#[test]
fn long_operator_chains_are_capped() {
    let text = format!("void f() {{ x = 1{}; }}", " + 1".repeat(10_000));
    assert_eq!(
        error(&text),
        "t.rpsl:1:16: error: expression is too deeply nested"
    );
    let text = format!("void f() {{ x = {}y; }}", "-".repeat(1_000));
    // The error points at the first node over the limit (`--` prefixes, built from the inside).
    assert_eq!(
        error(&text),
        "t.rpsl:1:504: error: expression is too deeply nested"
    );
    let text = format!("void f() {{ x{}; }}", ".y".repeat(1_000));
    assert_eq!(
        error(&text),
        "t.rpsl:1:12: error: expression is too deeply nested"
    );
    let text = format!("void f() {{ x = 1{}; }}", " + 1".repeat(200));
    assert_eq!(errors(&text), Vec::<String>::new());
}

#[test]
fn long_else_if_chains_are_capped() {
    let text = format!(
        "void f() {{ if (a) b(); {} }}",
        "else if (a) b(); ".repeat(1_000)
    );
    let errors = errors(&text);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].ends_with("error: statements are nested too deeply")
            || errors[0].ends_with("error: the program is nested too deeply to parse"),
        "{errors:#?}"
    );
    let text = format!(
        "void f() {{ if (a) b(); {} }}",
        "else if (a) b(); ".repeat(100)
    );
    assert_eq!(self::errors(&text), Vec::<String>::new());
}

/// Tokens of RPSL, to build random but token-shaped programs.
const VOCABULARY: &[&str] = &[
    "node", "void", "export", "graphics", "(", ")", "{", "}", "[", "]", ";", ",", "=", "+", "-",
    "*", "?", ":", "x", "texture", "1", "0x", "1e", "2.5f", "if", "else", "for", "while", "do",
    "switch", "case", "default", "return", "struct", "enum", "typedef", "<", ">", ".", "readonly",
    "async", "sizeof", "\"", "#", "/*", "//", "\n", "é",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let (_, diagnostics) = parse(&text);
        for diagnostic in &diagnostics {
            prop_assert!(diagnostic.span.start <= diagnostic.span.end);
            prop_assert!(diagnostic.span.end as usize <= text.len());
        }
    }

    #[test]
    fn random_token_soup_never_panics(tokens in proptest::collection::vec(0..VOCABULARY.len(), 0..200)) {
        let text: Vec<&str> = tokens.iter().map(|&i| VOCABULARY[i]).collect();
        let text = text.join(" ");
        let (_, diagnostics) = parse(&text);
        let _ = headlines(&text, &diagnostics);
    }
}

#[test]
fn keyword_table_and_match_agree() {
    for keyword in super::KEYWORDS {
        assert!(super::is_keyword(keyword), "{keyword}");
    }
    assert!(!super::is_keyword("node"));
    assert!(!super::is_keyword("inputs"));
}

#[test]
fn unbracketed_nesting_is_an_error_not_a_crash() {
    let text = format!("void f() {{ {}b(); }}", "if (a) ".repeat(100_000));
    assert_eq!(
        error(&text),
        "t.rpsl:1:3596: error: the program is nested too deeply to parse"
    );
    let text = format!("void f() {{ x = {}1; }}", "a ? ".repeat(100_000));
    assert_eq!(
        error(&text),
        "t.rpsl:1:2066: error: the program is nested too deeply to parse"
    );
    let text = format!(
        "void f() {{ if (a) b(); {} }}",
        "else if (a) b(); ".repeat(100_000)
    );
    let errors = errors(&text);
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(errors[0].ends_with("error: the program is nested too deeply to parse"));
    // Just under the limit, the parser copes and the lowering reports the depth.
    let text = format!("void f() {{ {}b(); }}", "if (a) ".repeat(500));
    assert!(error(&text).ends_with("error: statements are nested too deeply"));
    let text = format!(
        "void f() {{ x = {}1{}; }}",
        "a ? ".repeat(500),
        " : 1".repeat(500)
    );
    assert!(error(&text).ends_with("error: expression is too deeply nested"));
    // Many statements one after the other are not nested.
    let text = format!(
        "void f() {{ {} }}",
        "if (a) b(); else c(); for (;;) {} while (a ? b : c) d(); ".repeat(2_000)
    );
    assert_eq!(self::errors(&text), Vec::<String>::new());
}
