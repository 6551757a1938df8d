//! The fast grammar (`grammar.pest`) and the reference grammar (`grammar_reference.pest`, run to
//! describe syntax errors) must accept the same language with the same pairs: both are run on
//! every item of the prelude, the corpus and the benchmark script, on mutations of them
//! (deleted, duplicated and inserted tokens, non-ASCII characters) and on random token soup, and
//! must agree on success and on the pairs (rule names and spans).

use pest::iterators::Pairs;
use pest::Parser as _;
use proptest::prelude::*;

use super::reference::{ReferenceParser, Rule as ReferenceRule};
use super::{ascii_view, skip_trivia, RpslParser, Rule};

/// The prelude's text.
const PRELUDE: &str = include_str!("../prelude.rpsl");

/// A parse's outcome in grammar-neutral form: every pair as `rule start end`, or the failure.
fn outcome<R: pest::RuleType>(result: Result<Pairs<'_, R>, pest::error::Error<R>>) -> String {
    match result {
        Ok(pairs) => pairs
            .flatten()
            .map(|pair| {
                let span = pair.as_span();
                format!("{:?} {} {}\n", pair.as_rule(), span.start(), span.end())
            })
            .collect(),
        // Where pest reports a failure depends on the rule structure; only the reference
        // grammar's report is used (to describe the error).
        Err(_) => "error".to_string(),
    }
}

/// Checks that both grammars agree on every item start of `text` (a `;`, `}` or blank is where a
/// new item may start; every such place is tried, which also covers many broken items).
fn assert_grammars_agree(text: &str) {
    let masked = ascii_view(text);
    let bytes = masked.as_bytes();
    let mut pos = skip_trivia(&masked, 0);
    let mut tried = 0;
    while pos < bytes.len() && tried < 400 {
        let slice = &masked[pos..];
        let fast = outcome(RpslParser::parse(Rule::item, slice));
        let reference = outcome(ReferenceParser::parse(ReferenceRule::item, slice));
        assert_eq!(
            fast, reference,
            "grammars disagree at byte {pos} of:\n{text}"
        );
        tried += 1;
        // Next candidate: after the next `;` or `}`.
        match slice.find([';', '}']) {
            Some(end) => pos = skip_trivia(&masked, pos + end + 1),
            None => break,
        }
    }
}

/// The prelude, the corpus and the benchmark scripts.
fn sources() -> Vec<String> {
    crate::test_support::corpus_bench_and_bad_texts(PRELUDE)
}

#[test]
fn grammars_agree_on_the_sources() {
    for text in sources() {
        assert_grammars_agree(&text);
    }
}

#[test]
fn grammars_agree_on_prefix_and_cast_corner_cases() {
    let items = [
        "void f() { x = (float); }",
        "void f() { x = (float) + 1; y = (uint)-1; z = (S)(a); w = (x) - y; }",
        "void f() { x = -; }",
        "void f() { x = - - y; z = !~a[1].b++; }",
        "void f() { x = (S) ; }",
        "void f() { x = ((float)y); z = (const float)w; }",
        "void f() { x = a + +b - -c; y = a++ + ++b; }",
        "void f() { x = a.b.c(1)[2]--; }",
        "void f() { x = a\u{e}+ b; }",
        "void f() { x = a\u{1f}; }",
    ];
    // Control characters between the blanks are masked like non-ASCII text (`ascii_view`).
    for item in items {
        assert_grammars_agree(item);
    }
}

/// Text to insert into a source: tokens, keywords and characters that no rule matches.
const INSERTIONS: &[&str] = &[
    "é", "\u{a0}", "\u{2028}", "@", "$", "#", "\"", "{", "}", "(", ")", "[", "]", ";", ",", "=",
    "<", ">", "?", ":", ".", "!", "~", "-", "+", "*", "/", "&", "|", "^", "%", "0", "1.5f", "0x",
    "x", "if", "else", "for", "return", "struct", "const", "static", "vector<", "true", "null",
    "sizeof", "async", "void", "unsigned", "int", "float4", "[a]", "inout", "graphics", "export",
    "typedef", "enum", "do", "while", "switch", "case", "default:", "break", "continue",
];

#[test]
fn grammars_agree_on_mutations_of_the_sources() {
    // A fixed linear congruential generator: the same mutations on every run.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |bound: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        ((state >> 33) as usize) % bound.max(1)
    };
    for text in sources() {
        for _ in 0..24 {
            let mut mutated = text.clone();
            for _ in 0..1 + next(3) {
                let boundaries: Vec<usize> = (0..=mutated.len())
                    .filter(|&i| mutated.is_char_boundary(i))
                    .collect();
                let a = boundaries[next(boundaries.len())];
                let b = boundaries[next(boundaries.len())];
                let (a, b) = (a.min(b), a.max(b).min(a.min(b) + 12));
                let b = (a..=b)
                    .rev()
                    .find(|&i| mutated.is_char_boundary(i))
                    .unwrap_or(a);
                match next(3) {
                    0 => mutated.replace_range(a..b, ""),
                    1 => mutated.insert_str(a, INSERTIONS[next(INSERTIONS.len())]),
                    _ => {
                        let copy = mutated[a..b].to_string();
                        mutated.insert_str(a, &copy);
                    }
                }
            }
            assert_grammars_agree(&mutated);
        }
    }
}

/// Tokens of RPSL, to build random but token-shaped programs.
const VOCABULARY: &[&str] = &[
    "node", "void", "export", "graphics", "(", ")", "{", "}", "[", "]", ";", ",", "=", "+=", "-",
    "*", "?", ":", "x", "y", "texture", "uint", "float4", "1", "0x", "2.5f", "if", "else", "for",
    "while", "do", "switch", "case", "default", "return", "break", "struct", "enum", "typedef",
    "<", ">", ".", "readonly", "async", "sizeof", "true", "null", "vector", "unsigned", "const",
    "static", "in", "out", "@", "é",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn grammars_agree_on_token_soup(tokens in proptest::collection::vec(0..VOCABULARY.len(), 0..120)) {
        let words: Vec<&str> = tokens.iter().map(|&i| VOCABULARY[i]).collect();
        assert_grammars_agree(&words.join(" "));
    }
}
