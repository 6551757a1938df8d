//! Robustness: random bytes, randomly mutated real scripts and pathological shapes never make the
//! frontend panic; they only produce diagnostics.

mod pipeline_fuzz;

use pipeline_fuzz::{seed_scripts, TOKENS};
use proptest::prelude::*;

/// One edit of a script: delete, duplicate or replace a byte range, or insert a token.
#[derive(Debug, Clone)]
enum Mutation {
    Delete { at: usize, len: usize },
    Duplicate { at: usize, len: usize },
    Insert { at: usize, token: &'static str },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0usize..40).prop_map(|(at, len)| Mutation::Delete { at, len }),
        (any::<usize>(), 0usize..80).prop_map(|(at, len)| Mutation::Duplicate { at, len }),
        (any::<usize>(), prop::sample::select(TOKENS))
            .prop_map(|(at, token)| Mutation::Insert { at, token }),
    ]
}

fn apply(text: &str, mutation: &Mutation) -> String {
    let bytes = text.as_bytes();
    let n = bytes.len().max(1);
    let mut out = Vec::with_capacity(bytes.len() + 100);
    match *mutation {
        Mutation::Delete { at, len } => {
            let at = at % n;
            let end = (at + len).min(bytes.len());
            out.extend_from_slice(&bytes[..at.min(bytes.len())]);
            out.extend_from_slice(&bytes[end..]);
        }
        Mutation::Duplicate { at, len } => {
            let at = (at % n).min(bytes.len());
            let end = (at + len).min(bytes.len());
            out.extend_from_slice(&bytes[..end]);
            out.extend_from_slice(&bytes[at..]);
        }
        Mutation::Insert { at, token } => {
            let at = (at % n).min(bytes.len());
            out.extend_from_slice(&bytes[..at]);
            out.extend_from_slice(token.as_bytes());
            out.extend_from_slice(&bytes[at..]);
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn check_does_not_panic(text: &str) {
    let compilation = rpsl::check_source("fuzz.rpsl", text);
    // Rendering must not panic either, whatever the spans are.
    let _ = compilation.render_diagnostics();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, .. ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        check_does_not_panic(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_token_soup_never_panics(tokens in prop::collection::vec(prop::sample::select(TOKENS), 0..200)) {
        check_does_not_panic(&tokens.join(" "));
    }

    #[test]
    fn mutated_scripts_never_panic(
        seed in any::<prop::sample::Index>(),
        mutations in prop::collection::vec(mutation(), 1..6),
    ) {
        let seeds = seed_scripts();
        let mut text = seeds[seed.index(seeds.len())].clone();
        for m in &mutations {
            text = apply(&text, m);
        }
        check_does_not_panic(&text);
    }
}

#[test]
fn pathological_nesting_is_an_error_not_a_crash() {
    let deep_parens = format!(
        "export void main() {{ uint a = {}1{}; }}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let deep_blocks = format!(
        "export void main() {}{}",
        "{".repeat(50_000),
        "}".repeat(50_000)
    );
    let deep_unary = format!("export void main() {{ int a = {}1; }}", "-".repeat(100_000));
    let macro_bomb = "#define A B B B B B B B B\n#define B C C C C C C C C\n#define C D D D D D D D D\n\
                      #define D E E E E E E E E\n#define E F F F F F F F F\n#define F G G G G G G G G\n\
                      #define G H H H H H H H H\n#define H 1+1+1+1+1+1+1+1\nexport void main() { uint a = A; }\n";
    for text in [
        deep_parens.as_str(),
        deep_blocks.as_str(),
        deep_unary.as_str(),
        macro_bomb,
    ] {
        let compilation = rpsl::check_source("deep.rpsl", text);
        let rendered = compilation.render_diagnostics();
        assert!(
            compilation.has_errors(),
            "a limit must be reported: {}",
            &rendered[..rendered.len().min(300)]
        );
    }
}
