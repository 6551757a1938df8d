//! The pre-scan that finds where a top-level item ends and rejects items nested too deeply for
//! the recursive-descent parser, before pest runs on them.
//!
//! Two kinds of nesting make pest recurse: brackets (`(`, `[`, `{`), and statements or conditional
//! expressions that nest without brackets (`if (a) if (b) ..`, `else if` chains, `do do ..`,
//! `a ? b ? ..`). Both are bounded here, so that the parser never runs out of stack.

use super::{skip_comment, skip_trivia, MAX_BRACKET_DEPTH};

/// The most statements and conditional expressions that may nest without brackets, summed over
/// all open braces of an item (an over-estimate of the real nesting: it is counted by keywords).
pub const MAX_UNBRACKETED_NESTING: u32 = 512;

/// Where an item that starts at some offset ends, by bracket counting.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ItemExtent {
    /// One past the `;` (outside brackets) or `}` (closing the outermost brace) that ends the
    /// item, or the end of the text.
    pub(crate) end: usize,
    /// The offset of the first bracket opened beyond [`MAX_BRACKET_DEPTH`], if any.
    pub(crate) too_deep_at: Option<usize>,
    /// The offset of the first keyword or `?` that nests beyond [`MAX_UNBRACKETED_NESTING`], if
    /// any (only looked for when the brackets are not too deep).
    pub(crate) too_nested_at: Option<usize>,
}

/// Counts of statements that nest without brackets, per open brace.
struct ChainCounter {
    /// The count for each open brace level (index = brace depth, capped).
    per_level: [u32; MAX_BRACKET_DEPTH + 2],
    /// The sum of `per_level`.
    total: u32,
}

impl ChainCounter {
    fn level(brace_depth: usize) -> usize {
        brace_depth.min(MAX_BRACKET_DEPTH + 1)
    }

    /// One more nested statement or conditional at `brace_depth`; whether the limit is passed.
    fn push(&mut self, brace_depth: usize) -> bool {
        self.per_level[Self::level(brace_depth)] += 1;
        self.total += 1;
        self.total > MAX_UNBRACKETED_NESTING
    }

    /// The statements at `brace_depth` are complete.
    fn clear(&mut self, brace_depth: usize) {
        let level = Self::level(brace_depth);
        self.total -= self.per_level[level];
        self.per_level[level] = 0;
    }
}

/// Whether a word makes the statement or expression after it nest (`else` continues a chain).
fn is_nesting_keyword(word: &[u8]) -> bool {
    matches!(
        word,
        b"if" | b"else" | b"for" | b"while" | b"do" | b"switch"
    )
}

/// Whether the next token from `pos` is the keyword `else`.
fn else_follows(text: &str, pos: usize) -> bool {
    let bytes = text.as_bytes();
    let next = skip_trivia(text, pos);
    bytes[next..].starts_with(b"else")
        && !bytes
            .get(next + 4)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A byte the scan passes over (blanks, most punctuation, non-ASCII bytes).
const INERT: u8 = 0;
/// A byte of a word (`[A-Za-z0-9_]`).
const WORD: u8 = 1;
/// A byte the scan looks at: brackets, `;`, `?`, `/`.
const MARK: u8 = 2;

/// The class of every byte value, so that the common bytes take one table look-up.
static BYTE_CLASS: [u8; 256] = byte_classes();

const fn byte_classes() -> [u8; 256] {
    let mut classes = [INERT; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        if byte.is_ascii_alphanumeric() || byte == b'_' {
            classes[b] = WORD;
        } else if matches!(
            byte,
            b'/' | b'?' | b'(' | b'[' | b'{' | b')' | b']' | b'}' | b';'
        ) {
            classes[b] = MARK;
        }
        b += 1;
    }
    classes
}

/// Finds the end of the item starting at `start`: the first `;` outside braces, or the `}` that
/// closes the first brace (followed by an optional `;`). Parentheses and square brackets do not
/// hide a `;` (an unclosed `(` in a declaration must not swallow the rest of the file). Skips
/// comments; unbalanced closing brackets are ignored.
pub(crate) fn scan_item_extent(text: &str, start: usize) -> ItemExtent {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut brace_depth = 0usize;
    let mut paren_depth = 0usize;
    let mut too_deep_at = None;
    let mut too_nested_at = None;
    let mut chains = ChainCounter {
        per_level: [0; MAX_BRACKET_DEPTH + 2],
        total: 0,
    };
    let mut i = start;
    while i < bytes.len() {
        match BYTE_CLASS[bytes[i] as usize] {
            INERT => {
                i += 1;
                continue;
            }
            WORD => {
                let word_start = i;
                while i < bytes.len() && BYTE_CLASS[bytes[i] as usize] == WORD {
                    i += 1;
                }
                if is_nesting_keyword(&bytes[word_start..i])
                    && chains.push(brace_depth)
                    && too_nested_at.is_none()
                {
                    too_nested_at = Some(word_start);
                }
                continue;
            }
            _ => {}
        }
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') || bytes.get(i + 1) == Some(&b'*') => {
                i = skip_comment(text, i);
                continue;
            }
            b'?' => {
                let over_limit = chains.push(brace_depth);
                if over_limit && too_nested_at.is_none() {
                    too_nested_at = Some(i);
                }
            }
            open @ (b'(' | b'[' | b'{') => {
                depth += 1;
                if open == b'{' {
                    brace_depth += 1;
                } else {
                    paren_depth += 1;
                }
                if depth > MAX_BRACKET_DEPTH && too_deep_at.is_none() {
                    too_deep_at = Some(i);
                }
            }
            b')' | b']' => {
                depth = depth.saturating_sub(1);
                paren_depth = paren_depth.saturating_sub(1);
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                chains.clear(brace_depth);
                brace_depth = brace_depth.saturating_sub(1);
                if brace_depth == 0 {
                    let mut end = skip_trivia(text, i + 1);
                    if bytes.get(end) == Some(&b';') {
                        end += 1;
                    } else {
                        end = i + 1;
                    }
                    return ItemExtent {
                        end,
                        too_deep_at,
                        too_nested_at,
                    };
                }
                // The braced statement is complete, and so is its chain unless `else` follows.
                if paren_depth == 0 && !else_follows(text, i + 1) {
                    chains.clear(brace_depth);
                }
            }
            b';' if brace_depth == 0 => {
                return ItemExtent {
                    end: i + 1,
                    too_deep_at,
                    too_nested_at,
                }
            }
            b';' if paren_depth == 0 && !else_follows(text, i + 1) => chains.clear(brace_depth),
            _ => {}
        }
        i += 1;
    }
    ItemExtent {
        end: bytes.len(),
        too_deep_at,
        too_nested_at,
    }
}
