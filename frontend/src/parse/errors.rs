//! Human syntax error messages built from pest's parse attempts.
//!
//! Messages have the forms `expected `;`, found `}``, `expected expression, found `)``,
//! `expected statement or `}`, found `else``, and `unexpected end of file` (with what was expected
//! in the label). The primary span is the offending token; an unclosed bracket that the parser
//! wanted closed is shown as a secondary label `unclosed `(``.

use std::sync::Mutex;

use pest::error::{Error, ErrorVariant, InputLocation};
use pest::Parser as _;

use super::reference::{ReferenceParser, Rule};
use crate::diagnostic::Diagnostic;
use crate::preprocess::SourceMap;

/// What a failed rule tells about what the parser wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// The start of a top-level item.
    Declaration,
    /// The start of a statement.
    Statement,
    /// The start of an expression.
    Expression,
    /// The start of a type.
    Type,
    /// A name.
    Identifier,
    /// A specific keyword.
    Keyword(&'static str),
    /// `case` or `default`.
    SwitchLabel,
    /// A specific punctuation token.
    Token(&'static str),
    /// An optional continuation (an operator, `[`, `.`): never named on its own.
    Continuation,
    /// Says nothing useful.
    Hidden,
}

/// The user-facing meaning of each rule (exhaustive on purpose: a new rule must be named here).
fn rule_expectation(rule: Rule) -> Expect {
    match rule {
        Rule::WHITESPACE | Rule::ident_char | Rule::keyword => Expect::Hidden,
        // Silent rules never appear in errors but are still variants of `Rule`.
        Rule::type_core | Rule::initializer | Rule::stmt_kind | Rule::cast_follow => Expect::Hidden,
        Rule::infix | Rule::postfix => Expect::Continuation,
        Rule::prefix | Rule::primary => Expect::Expression,
        Rule::word | Rule::ident => Expect::Identifier,
        Rule::typedef_kw
        | Rule::item
        | Rule::struct_def
        | Rule::enum_def
        | Rule::typedef_decl
        | Rule::function => Expect::Declaration,
        Rule::global_var => Expect::Declaration,
        Rule::struct_kw => Expect::Keyword("struct"),
        Rule::enum_kw => Expect::Keyword("enum"),
        Rule::static_kw
        | Rule::const_kw
        | Rule::export_kw
        | Rule::queue_kw
        | Rule::direction_kw => Expect::Hidden,
        Rule::if_kw
        | Rule::for_kw
        | Rule::do_kw
        | Rule::switch_kw
        | Rule::break_kw
        | Rule::continue_kw
        | Rule::return_kw
        | Rule::stmt
        | Rule::if_stmt
        | Rule::for_stmt
        | Rule::while_stmt
        | Rule::do_stmt
        | Rule::switch_stmt
        | Rule::break_stmt
        | Rule::continue_stmt
        | Rule::return_stmt
        | Rule::empty_stmt
        | Rule::decl_stmt
        | Rule::expr_stmt => Expect::Statement,
        Rule::while_kw => Expect::Keyword("while"),
        Rule::else_kw => Expect::Continuation,
        Rule::case_kw
        | Rule::case_label
        | Rule::default_kw
        | Rule::default_label
        | Rule::switch_case => Expect::SwitchLabel,
        Rule::struct_body | Rule::enum_body | Rule::block => Expect::Token("{"),
        Rule::struct_field
        | Rule::param_list
        | Rule::param
        | Rule::typedef_struct
        | Rule::typedef_enum => Expect::Type,
        Rule::typedef_alias
        | Rule::type_ref
        | Rule::vector_type
        | Rule::matrix_type
        | Rule::unsigned_type => Expect::Type,
        Rule::type_name | Rule::builtin_type_name | Rule::sizeof_type | Rule::var_decl => {
            Expect::Type
        }
        Rule::field_declarator | Rule::enum_variant | Rule::declarator | Rule::attribute => {
            Expect::Identifier
        }
        Rule::void_params => Expect::Hidden,
        Rule::semantic
        | Rule::array_dim
        | Rule::attribute_list
        | Rule::infix_op
        | Rule::ternary_op
        | Rule::init_assign_op
        | Rule::member
        | Rule::index
        | Rule::postfix_op
        | Rule::call_args => Expect::Continuation,
        Rule::attribute_arg
        | Rule::init_list
        | Rule::template_arg
        | Rule::for_init
        | Rule::for_cond
        | Rule::for_step
        | Rule::expr
        | Rule::assign_expr
        | Rule::operand
        | Rule::prefix_op
        | Rule::builtin_cast
        | Rule::user_cast
        | Rule::number
        | Rule::bool_lit
        | Rule::null_lit
        | Rule::sizeof_kw
        | Rule::sizeof_expr
        | Rule::async_kw
        | Rule::async_call
        | Rule::construct
        | Rule::name_or_call
        | Rule::paren_expr => Expect::Expression,
    }
}

/// Operators: the tokens that may continue an expression, never worth naming in an error.
const OPERATOR_TOKENS: &[&str] = &[
    "<<=", ">>=", "||", "&&", "==", "!=", "<=", ">=", "<<", ">>", "+=", "-=", "*=", "/=", "%=",
    "&=", "|=", "^=", "|", "&", "^", "<", ">", "+", "-", "*", "/", "%", "=", "++", "--", "!", "~",
    "?", ".",
];

/// Tokens that start an expression (not named when `expression` already is).
const EXPRESSION_START_TOKENS: &[&str] = &["(", "{"];

/// Punctuation in the order it is listed in messages.
const PUNCTUATION_ORDER: &[&str] = &[";", ",", ")", "]", "}", ":", "{", "(", "[", ">"];

/// Serializes the re-parses that collect token details (pest's switch for it is process-wide).
static DETAIL_LOCK: Mutex<()> = Mutex::new(());

/// Builds the diagnostic for a failed parse of the item starting at `base` in `text`; `parse_text`
/// is the text the parser ran on (`text` with non-ASCII characters masked, see
/// [`super::ascii_view`]). The message comes from a re-run of the parse with pest's details on,
/// with the reference grammar (`grammar_reference.pest`), whose rule structure the messages are
/// designed for; `error` is the fast parser's failure.
pub(crate) fn syntax_error(
    text: &str,
    parse_text: &str,
    base: usize,
    map: &SourceMap,
    error: &Error<super::Rule>,
) -> Diagnostic {
    let slice = &parse_text[base..];
    if let ErrorVariant::CustomError { .. } = &error.variant {
        // pest's stack guard or call limit.
        let pos = base + location_start(&error.location);
        return Diagnostic::error(
            map.span(pos as u32, pos as u32),
            "the program is nested too deeply to parse",
        );
    }
    let (detailed, tokens, token_pos) = {
        let _guard = DETAIL_LOCK
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        pest::set_error_detail(true);
        let result = ReferenceParser::parse(Rule::item, slice);
        pest::set_error_detail(false);
        match result {
            Err(detailed) => {
                let attempts = detailed.parse_attempts();
                let token_pos = attempts.as_ref().map(|attempts| attempts.max_position);
                let tokens: Vec<String> = attempts
                    .map(|attempts| {
                        attempts
                            .expected_tokens()
                            .into_iter()
                            .map(|token| token.to_string())
                            .filter(|token| is_punctuation_token(token))
                            .collect()
                    })
                    .unwrap_or_default();
                (Ok(detailed), tokens, token_pos)
            }
            // The grammars disagree (a bug): point where the fast parser failed.
            Ok(_) => (Err(location_start(&error.location)), Vec::new(), None),
        }
    };
    let (mut rules, rule_pos) = match detailed {
        Ok(detailed) => {
            let rules = match &detailed.variant {
                ErrorVariant::ParsingError { positives, .. } => positives.clone(),
                ErrorVariant::CustomError { .. } => Vec::new(),
            };
            (rules, location_start(&detailed.location))
        }
        Err(pos) => (Vec::new(), pos),
    };
    // pest places rule failures where the failed rule started; a literal token that failed further
    // on (`(` after `if`) is a better place to point at, with only the tokens expected there.
    let (mut pos, tokens) = match token_pos {
        Some(token_pos) if token_pos > rule_pos && !tokens.is_empty() => {
            rules.clear();
            (base + token_pos, tokens)
        }
        Some(token_pos) if token_pos == rule_pos => (base + rule_pos, tokens),
        _ => (base + rule_pos, Vec::new()),
    };
    // Never point into the middle of a word.
    let bytes = text.as_bytes();
    while pos > base
        && pos < bytes.len()
        && is_word_byte(bytes[pos])
        && is_word_byte(bytes[pos - 1])
    {
        pos -= 1;
    }
    let expected: Vec<Expect> = rules.into_iter().map(rule_expectation).collect();
    let (mut description, closers) = describe(&expected, &tokens);
    // Right after `if`, `while`, `for` or `switch` only `(` makes sense (the grammar also tried the
    // keyword as a name, which would suggest `;`).
    let previous_word = text[base..pos]
        .trim_end()
        .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next();
    if matches!(previous_word, Some("if" | "while" | "for" | "switch"))
        && tokens.iter().any(|t| t == "(")
    {
        description = "`(`".to_string();
    }
    let found = token_at(text, pos);
    let mut diagnostic = match found {
        None => Diagnostic::error(map.span(pos as u32, pos as u32), "unexpected end of file")
            .with_label(if description.is_empty() {
                String::new()
            } else {
                format!("expected {description}")
            }),
        Some(end) => {
            let token = printable_token(&text[pos..end]);
            let message = if description.is_empty() {
                format!("unexpected `{token}`")
            } else {
                format!("expected {description}, found `{token}`")
            };
            match end_of_previous_line(text, base, pos) {
                // A token missing at the end of a line (`uint a = 1` then `uint b` below): point
                // just after the line's last token, where it belongs, as rustc does.
                Some(after) if description.starts_with('`') => {
                    let label = if description == "`;`" {
                        "add `;` here".to_string()
                    } else {
                        format!("expected {description} here")
                    };
                    Diagnostic::error(map.span(after as u32, after as u32), message)
                        .with_label(label)
                        .with_secondary(map.span(pos as u32, end as u32), "unexpected token")
                }
                _ => Diagnostic::error(map.span(pos as u32, end as u32), message),
            }
        }
    };
    let closers = if found.is_none() {
        vec![')', ']', '}']
    } else {
        closers
    };
    if let Some(open) = unclosed_bracket(text, base, pos, &closers) {
        let opener = &text[open..open + 1];
        diagnostic = diagnostic.with_secondary(
            map.span(open as u32, open as u32 + 1),
            format!("unclosed `{opener}`"),
        );
    }
    diagnostic
}

/// When the token at `pos` is the first of its line and an earlier line of the item (starting at
/// `base`) holds code, the offset just after that code's last character. Comments are blank in
/// the preprocessed text, so skipping whitespace finds the last token.
fn end_of_previous_line(text: &str, base: usize, pos: usize) -> Option<usize> {
    let before = &text[base..pos];
    let last_code = before.trim_end_matches(|c: char| c.is_whitespace());
    let gap = &before[last_code.len()..];
    (!last_code.is_empty() && gap.contains('\n')).then_some(base + last_code.len())
}

/// The start offset of a pest error location.
fn location_start(location: &InputLocation) -> usize {
    match location {
        InputLocation::Pos(pos) => *pos,
        InputLocation::Span((start, _)) => *start,
    }
}

/// Whether an expected token is worth naming: literal punctuation, not a character range (pest
/// displays those as `a..z`), a piece of a word or a blank.
fn is_punctuation_token(token: &str) -> bool {
    let chars: Vec<char> = token.chars().collect();
    let is_range = chars.len() == 4 && chars[1] == '.' && chars[2] == '.';
    let is_word_or_blank = token
        .bytes()
        .all(|b| is_word_byte(b) || b.is_ascii_whitespace() || b == 0x0B);
    !is_range && !is_word_or_blank
}

fn is_word_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// Describes what was expected (`"`;`"`, `"expression or `;`"`, `"statement or `}`"`) and lists
/// the closing brackets among the expectations.
fn describe(expected: &[Expect], tokens: &[String]) -> (String, Vec<char>) {
    let has = |e: Expect| expected.contains(&e);
    let mut punctuation: Vec<&str> = tokens
        .iter()
        .map(String::as_str)
        .chain(expected.iter().filter_map(|e| match e {
            Expect::Token(token) => Some(*token),
            _ => None,
        }))
        .filter(|t| {
            !t.is_empty()
                && !t
                    .bytes()
                    .all(|b| is_word_byte(b) || b.is_ascii_whitespace() || b == 0x0B)
                && !OPERATOR_TOKENS.contains(t)
                && !t.starts_with("//")
                && !t.starts_with("/*")
        })
        .collect();
    punctuation.sort_by_key(|t| {
        PUNCTUATION_ORDER
            .iter()
            .position(|p| p == t)
            .unwrap_or(PUNCTUATION_ORDER.len())
    });
    punctuation.dedup();
    let closers: Vec<char> = punctuation
        .iter()
        .filter_map(|t| t.chars().next())
        .filter(|c| matches!(c, ')' | ']' | '}'))
        .collect();
    let quoted = |t: &str| format!("`{t}`");
    let mut parts: Vec<String> = Vec::new();
    if has(Expect::Declaration) {
        parts.push("declaration".to_string());
    } else if has(Expect::Statement) {
        parts.push("statement".to_string());
        if punctuation.contains(&"}") {
            parts.push(quoted("}"));
        }
    } else {
        let mut keywords: Vec<&str> = expected
            .iter()
            .flat_map(|e| match e {
                Expect::Keyword(keyword) => vec![*keyword],
                Expect::SwitchLabel => vec!["case", "default"],
                _ => Vec::new(),
            })
            .collect();
        keywords.sort_unstable();
        keywords.dedup();
        if has(Expect::Expression) {
            parts.push("expression".to_string());
            punctuation.retain(|t| !EXPRESSION_START_TOKENS.contains(t));
        } else if has(Expect::Type) {
            parts.push("type".to_string());
            // `[` would start an attribute list: not worth naming next to `type`.
            punctuation.retain(|t| *t != "[");
        } else if has(Expect::Identifier) {
            parts.push("identifier".to_string());
        } else {
            parts.extend(keywords.iter().map(|k| quoted(k)));
        }
        if punctuation.contains(&";") {
            parts.push(quoted(";"));
        } else {
            // Separators and closers say more than tokens that would start something optional.
            if punctuation
                .iter()
                .any(|t| matches!(*t, "," | ")" | "]" | "}"))
            {
                punctuation.retain(|t| matches!(*t, "," | ")" | "]" | "}"));
            }
            parts.extend(punctuation.iter().take(4).map(|t| quoted(t)));
        }
    }
    (join_alternatives(&parts), closers)
}

/// `a`, `a or b`, `a, b or c`.
fn join_alternatives(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [only] => only.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// The end of the token starting at `pos`, or `None` at the end of the text.
/// A token as shown in a message: control characters and other invisible characters escaped
/// (`\u{0}`), so a message about binary garbage stays readable.
fn printable_token(token: &str) -> String {
    token
        .chars()
        .map(|c| {
            if c.is_control() || c == '\u{fffd}' {
                c.escape_unicode().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn token_at(text: &str, pos: usize) -> Option<usize> {
    let rest = text.get(pos..)?;
    let first = rest.chars().next()?;
    if first.is_ascii_alphanumeric() || first == '_' {
        let len = rest
            .bytes()
            .take_while(|b| is_word_byte(*b) || *b == b'.')
            .count();
        let word_len = rest.bytes().take_while(|b| is_word_byte(*b)).count();
        // Numbers keep their fraction (`1.5f`); words stop before `.`.
        return Some(
            pos + if first.is_ascii_digit() {
                len
            } else {
                word_len
            },
        );
    }
    for op in OPERATOR_TOKENS.iter().chain(PUNCTUATION_ORDER) {
        if rest.starts_with(op) && op.len() > 1 {
            return Some(pos + op.len());
        }
    }
    Some(pos + first.len_utf8())
}

/// The innermost bracket opened between `start` and `pos` and not closed before `pos`, when its
/// closing bracket is among `closers`.
fn unclosed_bracket(text: &str, start: usize, pos: usize, closers: &[char]) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut open: Vec<usize> = Vec::new();
    let mut i = start;
    while i < pos.min(bytes.len()) {
        match bytes[i] {
            b'/' if matches!(bytes.get(i + 1), Some(b'/') | Some(b'*')) => {
                i = super::skip_comment(text, i);
                continue;
            }
            b'(' | b'[' | b'{' => open.push(i),
            b')' | b']' | b'}' => {
                open.pop();
            }
            _ => {}
        }
        i += 1;
    }
    let innermost = *open.last()?;
    let closer = match bytes[innermost] {
        b'(' => ')',
        b'[' => ']',
        _ => '}',
    };
    closers.contains(&closer).then_some(innermost)
}
