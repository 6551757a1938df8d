//! The parse of a module on several threads gives exactly the sequential parse: the same items
//! and the same diagnostics in the same order, on the prelude, the corpus, the benchmark scripts,
//! broken mutations of them and items whose extent scan is misled.

use super::ascii_view;
use super::items::{parse_items_on, Source};
use crate::preprocess::SourceMap;

/// The module and diagnostics of `text` parsed on `threads` threads, printed.
fn parsed_on(text: &str, threads: usize) -> String {
    let map = SourceMap::default();
    let parse_text = ascii_view(text);
    let source = Source {
        text,
        parse_text: &parse_text,
        map: &map,
    };
    let mut diagnostics = Vec::new();
    let module = parse_items_on(source, threads, &mut diagnostics);
    format!("{module:#?}\n{diagnostics:#?}")
}

/// Checks that 2 and 4 threads give what 1 gives.
fn assert_thread_count_irrelevant(text: &str) {
    let sequential = parsed_on(text, 1);
    for threads in [2, 4] {
        assert_eq!(
            parsed_on(text, threads),
            sequential,
            "{threads} threads differ on:\n{text}"
        );
    }
}

/// The prelude, the corpus, the benchmark scripts and the bad-input tests.
fn sources() -> Vec<String> {
    crate::test_support::corpus_bench_and_bad_texts(include_str!("../prelude.rpsl"))
}

#[test]
fn threads_agree_on_the_sources() {
    let texts = sources();
    assert!(texts.len() > 3, "the corpus is missing");
    for text in &texts {
        assert_thread_count_irrelevant(text);
    }
}

#[test]
fn threads_agree_on_broken_sources() {
    // A fixed linear congruential generator: the same mutations on every run.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |bound: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        ((state >> 33) as usize) % bound.max(1)
    };
    const INSERTIONS: &[&str] = &["{", "}", "(", ")", ";", "=", "if", "x", "@", "é", "/*"];
    for text in sources().iter().filter(|t| t.len() > 2000) {
        for _ in 0..6 {
            let mut mutated = text.clone();
            for _ in 0..1 + next(4) {
                let at = (0..=next(mutated.len()))
                    .rev()
                    .find(|&i| mutated.is_char_boundary(i))
                    .unwrap_or(0);
                if next(2) == 0 {
                    let end = (at..=(at + 1 + next(8)).min(mutated.len()))
                        .rev()
                        .find(|&i| mutated.is_char_boundary(i))
                        .unwrap_or(at);
                    mutated.replace_range(at..end, "");
                } else {
                    mutated.insert_str(at, INSERTIONS[next(INSERTIONS.len())]);
                }
            }
            assert_thread_count_irrelevant(&mutated);
        }
    }
}

#[test]
fn threads_agree_where_the_extent_scan_is_misled() {
    // A braced default value ends the extent early, though the function parses whole; a stray
    // `}` and unbalanced brackets move the following starts.
    let filler: String = (0..40)
        .map(|i| {
            format!("node n{i}(texture t, uint a);\nuint helper{i}(uint x) {{ return x + {i}; }}\n")
        })
        .collect();
    let texts = [
        format!("{filler}void f(uint a[2] = {{1, 2}}) {{ uint b = a[0]; }}\n{filler}"),
        format!("{filler}}}\n{filler};;\n{filler}"),
        format!(
            "{filler}void g() {{ uint x = (1; }}\n{filler}[attr(a;b)] void h() {{ }}\n{filler}"
        ),
        format!("{filler}struct S {{ uint a; }}\n{filler}"),
    ];
    for text in &texts {
        assert_thread_count_irrelevant(text);
    }
}
