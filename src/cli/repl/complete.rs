//! Tab completion for the REPL: `:` commands at the start of an input, view methods after a
//! `.`, and otherwise every word the session knows — keywords, `rpsl.h`'s built-ins (the
//! prelude), HLSL intrinsics, and the names of the loaded script and of the typed inputs (nodes,
//! functions, structs and their fields, variables).

use std::borrow::Cow;
use std::collections::BTreeSet;

use rustyline::completion::{Completer, Pair};
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use rpsl::frontend::builtins::{view_method_names, PRELUDE};
use rpsl::frontend::intrinsics::Intrinsic;

use super::COMMANDS;

/// Words of the language that complete like names.
const KEYWORDS: &[&str] = &[
    "async",
    "bool",
    "break",
    "buffer",
    "compute",
    "const",
    "continue",
    "do",
    "double",
    "else",
    "enum",
    "export",
    "false",
    "float",
    "float2",
    "float3",
    "float4",
    "float4x4",
    "for",
    "graphics",
    "if",
    "int",
    "int2",
    "int3",
    "int4",
    "node",
    "readonly",
    "readwrite",
    "return",
    "static",
    "struct",
    "switch",
    "texture",
    "true",
    "uint",
    "uint2",
    "uint3",
    "uint4",
    "void",
    "while",
    "writeonly",
];

/// What the REPL completes from; it learns the names of every script text it is shown.
#[derive(Debug)]
pub struct ReplHelper {
    /// Keywords, intrinsics and every name learned.
    words: BTreeSet<String>,
    /// Names of scripts only (fields among them), offered after a `.` with the view methods.
    names: BTreeSet<String>,
    methods: Vec<&'static str>,
}

impl ReplHelper {
    /// Knows the keywords, the prelude's names and the intrinsics.
    pub fn new() -> ReplHelper {
        let mut helper = ReplHelper {
            words: KEYWORDS.iter().map(|word| word.to_string()).collect(),
            names: BTreeSet::new(),
            methods: view_method_names().collect(),
        };
        helper.learn(PRELUDE);
        helper.words.extend(
            Intrinsic::ALL
                .iter()
                .map(|intrinsic| intrinsic.name().to_string()),
        );
        helper
    }

    /// Adds every identifier of `text` (a loaded script or a typed input); names starting with
    /// `_` stay hidden (the prelude's internals, the REPL's own entry).
    pub fn learn(&mut self, text: &str) {
        for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            let starts_like_a_name = word.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
            if starts_like_a_name && word.len() > 1 && !self.names.contains(word) {
                self.names.insert(word.to_string());
                self.words.insert(word.to_string());
            }
        }
    }

    /// The completions of the word that ends at `pos` in `line`: where the word starts and
    /// the candidates, sorted.
    pub fn candidates(&self, line: &str, pos: usize) -> (usize, Vec<String>) {
        let before = &line[..pos];
        let start = before
            .rfind(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .map_or(0, |at| at + 1);
        let prefix = &before[start..];
        // `:lo` -> `:load` (only as the first word of the input).
        if before.trim_start().starts_with(':') && !before.trim_start()[1..].contains(' ') {
            let start = before.find(':').map_or(0, |at| at + 1);
            let prefix = &before[start..];
            let mut names: Vec<String> = COMMANDS
                .iter()
                .map(|command| command.name)
                .filter(|name| name.starts_with(prefix))
                .map(str::to_string)
                .collect();
            names.sort();
            return (start, names);
        }
        if before[..start].ends_with('.') {
            // A view method or a struct field.
            let mut members: Vec<String> = self
                .methods
                .iter()
                .map(|name| name.to_string())
                .chain(starting_with(&self.names, prefix))
                .filter(|name| name.starts_with(prefix) && name != prefix)
                .collect();
            members.sort();
            members.dedup();
            return (start, members);
        }
        if prefix.is_empty() {
            return (start, Vec::new());
        }
        let words = starting_with(&self.words, prefix)
            .filter(|word| word != prefix)
            .collect();
        (start, words)
    }
}

/// The words of `set` that start with `prefix`, in order.
fn starting_with<'a>(
    set: &'a BTreeSet<String>,
    prefix: &'a str,
) -> impl Iterator<Item = String> + 'a {
    set.range(prefix.to_string()..)
        .take_while(move |word| word.starts_with(prefix))
        .cloned()
}

impl Completer for ReplHelper {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let (start, words) = self.candidates(line, pos);
        let pairs = words
            .into_iter()
            .map(|word| Pair {
                display: word.clone(),
                replacement: word,
            })
            .collect();
        Ok((start, pairs))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {
    fn highlight<'l>(&self, line: &'l str, _pos: usize) -> Cow<'l, str> {
        Cow::Borrowed(line)
    }
}

impl Validator for ReplHelper {}

impl Helper for ReplHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_methods_and_names_complete() {
        let mut helper = ReplHelper::new();
        helper.learn(
            "graphics node DrawScene(rtv color : SV_Target0);\nstruct GBuffer { texture albedo; };",
        );
        assert_eq!(helper.candidates(":lo", 3), (1, vec!["load".to_string()]));
        assert_eq!(
            helper.candidates(":s", 2),
            (1, vec!["save".to_string(), "schedule".to_string()])
        );
        assert_eq!(
            helper.candidates("Draw", 4),
            (0, vec!["DrawScene".to_string()])
        );
        // View methods and fields (rpsl.h's structs have `minZ`, `mipLevelCount`).
        assert_eq!(
            helper.candidates("t = chain.mi", 12),
            (
                10,
                vec![
                    "minZ".to_string(),
                    "mipLevelCount".to_string(),
                    "mips".to_string()
                ]
            )
        );
        assert_eq!(
            helper.candidates("create_tex", 10),
            (
                0,
                vec![
                    "create_tex1d".to_string(),
                    "create_tex2d".to_string(),
                    "create_tex3d".to_string(),
                    "create_texture".to_string(),
                    "create_texture_view".to_string()
                ]
            )
        );
        assert_eq!(
            helper.candidates("x = clam", 8),
            (4, vec!["clamp".to_string()])
        );
        assert_eq!(
            helper.candidates("g.alb", 5),
            (2, vec!["albedo".to_string()])
        );
        assert_eq!(helper.candidates("alb", 3), (0, vec!["albedo".to_string()]));
        assert_eq!(helper.candidates("Draw(", 5), (5, Vec::new()));
    }
}
