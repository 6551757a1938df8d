//! Preprocessing tokens: line splicing (backslash-newline) and a byte-level C tokenizer that keeps
//! whitespace, newlines and comments as trivia so unexpanded text can be copied verbatim.

/// What a raw token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RawKind {
    /// `[A-Za-z_][A-Za-z0-9_]*`.
    Ident,
    /// A pp-number such as `1`, `0x10u`, `1.0f`, `1e-3`.
    Number,
    /// A string literal (possibly unterminated at the end of the line).
    Str,
    /// A character literal (possibly unterminated at the end of the line).
    Char,
    /// An operator or punctuator.
    Punct,
    /// Any other character (non-ASCII, control characters, `@`, `$`, ...).
    Other,
    /// Spaces, tabs, carriage returns, form feeds.
    Whitespace,
    /// One `\n`.
    Newline,
    /// `// ...` up to (not including) the newline.
    LineComment,
    /// `/* ... */`.
    BlockComment,
    /// `/* ...` that runs to the end of the file.
    UnterminatedComment,
    /// The end of the text.
    Eof,
}

impl RawKind {
    /// Whether this is whitespace or a comment (but not a newline).
    pub(crate) fn is_trivia(self) -> bool {
        matches!(
            self,
            RawKind::Whitespace
                | RawKind::LineComment
                | RawKind::BlockComment
                | RawKind::UnterminatedComment
        )
    }
}

/// One raw token: a kind and a byte range of the spliced text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Raw {
    pub kind: RawKind,
    pub start: u32,
    pub end: u32,
}

/// The length of the longest punctuator starting with bytes `a b c`: `<<= >>= ...`, `-> ++ -- << >>
/// <= >= == != && || *= /= %= += -= &= ^= |= ## ::`, or a single byte.
fn punct_len(a: u8, b: u8, c: u8) -> usize {
    match (a, b) {
        (b'<', b'<') | (b'>', b'>') if c == b'=' => 3,
        (b'.', b'.') if c == b'.' => 3,
        (b'-', b'>' | b'-')
        | (b'+', b'+')
        | (b'<', b'<')
        | (b'>', b'>')
        | (b'&', b'&')
        | (b'|', b'|')
        | (b'#', b'#')
        | (b':', b':')
        | (
            b'<' | b'>' | b'=' | b'!' | b'*' | b'/' | b'%' | b'+' | b'-' | b'&' | b'^' | b'|',
            b'=',
        ) => 2,
        _ => 1,
    }
}

/// A cursor over spliced text. It is `Copy`, so lookahead is a copy that is dropped or kept.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lexer<'t> {
    text: &'t str,
    pos: usize,
    /// True at the start of the text and after a newline, until a non-trivia token is read.
    pub at_line_start: bool,
}

impl<'t> Lexer<'t> {
    /// A lexer at the start of `text`.
    pub(crate) fn new(text: &'t str) -> Lexer<'t> {
        Lexer {
            text,
            pos: 0,
            at_line_start: true,
        }
    }

    /// The byte offset of the next token.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// The text being lexed.
    pub(crate) fn text(&self) -> &'t str {
        self.text
    }

    /// Reads the next token.
    pub(crate) fn next_raw(&mut self) -> Raw {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let Some(&first) = bytes.get(start) else {
            return Raw {
                kind: RawKind::Eof,
                start: start as u32,
                end: start as u32,
            };
        };
        let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
        let (kind, end) = match first {
            b' ' | b'\t' | b'\r' | 0x0b | 0x0c => {
                let mut end = start + 1;
                while matches!(at(end), b' ' | b'\t' | b'\r' | 0x0b | 0x0c) {
                    end += 1;
                }
                (RawKind::Whitespace, end)
            }
            b'\n' => (RawKind::Newline, start + 1),
            b'/' if at(start + 1) == b'/' => {
                let end = memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
                (RawKind::LineComment, end)
            }
            b'/' if at(start + 1) == b'*' => match find2(b'*', b'/', &bytes[start + 2..]) {
                Some(i) => (RawKind::BlockComment, start + 2 + i + 2),
                None => (RawKind::UnterminatedComment, bytes.len()),
            },
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => {
                let mut end = start + 1;
                while is_ident_byte(at(end)) {
                    end += 1;
                }
                (RawKind::Ident, end)
            }
            b'0'..=b'9' => (RawKind::Number, self.number_end(start)),
            b'.' if at(start + 1).is_ascii_digit() => (RawKind::Number, self.number_end(start)),
            b'"' | b'\'' => {
                let mut end = start + 1;
                loop {
                    match at(end) {
                        0 if end >= bytes.len() => break,
                        b'\n' => break,
                        b'\\' if end + 1 < bytes.len() && bytes[end + 1] != b'\n' => end += 2,
                        c if c == first => {
                            end += 1;
                            break;
                        }
                        _ => end += 1,
                    }
                }
                // A backslash may have stepped into the middle of a multi-byte character.
                while !self.text.is_char_boundary(end.min(bytes.len())) {
                    end += 1;
                }
                (
                    if first == b'"' {
                        RawKind::Str
                    } else {
                        RawKind::Char
                    },
                    end.min(bytes.len()),
                )
            }
            c if c.is_ascii_punctuation() && c != b'@' && c != b'$' && c != b'`' => (
                RawKind::Punct,
                start + punct_len(c, at(start + 1), at(start + 2)),
            ),
            c => {
                let len = if c < 0x80 {
                    1
                } else {
                    self.text[start..].chars().next().map_or(1, char::len_utf8)
                };
                (RawKind::Other, start + len)
            }
        };
        self.pos = end;
        match kind {
            RawKind::Newline => self.at_line_start = true,
            k if k.is_trivia() => {}
            _ => self.at_line_start = false,
        }
        Raw {
            kind,
            start: start as u32,
            end: end as u32,
        }
    }

    /// Like [`Lexer::next_raw`] but skips whitespace, punctuators and other characters (what
    /// active text copies without looking at): returns identifiers, numbers, literals, comments,
    /// newlines and the end.
    pub(crate) fn next_significant(&mut self) -> Raw {
        let bytes = self.text.as_bytes();
        let mut pos = self.pos;
        let mut skipped_token = false;
        while let Some(&c) = bytes.get(pos) {
            let interesting = match c {
                b'\n' | b'"' | b'\'' | b'_' => true,
                b'/' => matches!(bytes.get(pos + 1), Some(b'/' | b'*')),
                b'.' => bytes.get(pos + 1).is_some_and(u8::is_ascii_digit),
                c => c.is_ascii_alphanumeric(),
            };
            if interesting {
                break;
            }
            skipped_token |= !matches!(c, b' ' | b'\t' | b'\r' | 0x0b | 0x0c);
            pos += 1;
        }
        self.pos = pos;
        if skipped_token {
            self.at_line_start = false;
        }
        self.next_raw()
    }

    /// Reads the next token that is not whitespace or a comment (newlines are returned).
    pub(crate) fn next_non_trivia(&mut self) -> Raw {
        loop {
            let raw = self.next_raw();
            if !raw.kind.is_trivia() {
                return raw;
            }
        }
    }

    fn number_end(&self, start: usize) -> usize {
        let bytes = self.text.as_bytes();
        let mut end = start + 1;
        while let Some(&c) = bytes.get(end) {
            let exponent_sign =
                matches!(c, b'+' | b'-') && matches!(bytes[end - 1], b'e' | b'E' | b'p' | b'P');
            if exponent_sign || is_ident_byte(c) || c == b'.' {
                end += 1;
            } else {
                break;
            }
        }
        end
    }
}

/// Whether `c` can continue an identifier.
pub(crate) fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

fn find2(a: u8, b: u8, haystack: &[u8]) -> Option<usize> {
    haystack.windows(2).position(|w| w[0] == a && w[1] == b)
}

/// Text with its line continuations removed, and the offsets needed to map back.
#[derive(Debug)]
pub(crate) struct Spliced {
    /// The text without backslash-newline pairs.
    pub text: String,
    /// `(spliced offset, original offset)` at each point just after a removed continuation.
    pub points: Vec<(u32, u32)>,
}

impl Spliced {
    /// Removes every backslash (optionally followed by spaces or tabs) that ends a line.
    pub(crate) fn new(original: &str) -> Spliced {
        let bytes = original.as_bytes();
        if !bytes.contains(&b'\\') {
            return Spliced {
                text: original.to_string(),
                points: Vec::new(),
            };
        }
        let mut text = String::with_capacity(original.len());
        let mut points = Vec::new();
        let mut copied = 0;
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'\\' {
                let mut j = i + 1;
                while matches!(bytes.get(j), Some(b' ' | b'\t')) {
                    j += 1;
                }
                if bytes.get(j) == Some(&b'\r') {
                    j += 1;
                }
                if bytes.get(j) == Some(&b'\n') {
                    text.push_str(&original[copied..i]);
                    copied = j + 1;
                    points.push((text.len() as u32, copied as u32));
                    i = j + 1;
                    continue;
                }
            }
            i += 1;
        }
        text.push_str(&original[copied..]);
        Spliced { text, points }
    }

    /// The original offset of a spliced offset.
    pub(crate) fn original(&self, offset: u32) -> u32 {
        let idx = self.points.partition_point(|&(s, _)| s <= offset);
        if idx == 0 {
            offset
        } else {
            let (s, o) = self.points[idx - 1];
            o + (offset - s)
        }
    }

    /// The original range of a spliced range (the end maps to just after the last byte).
    pub(crate) fn original_range(&self, start: u32, end: u32) -> (u32, u32) {
        let first = self.original(start);
        if end > start {
            (first, self.original(end - 1) + 1)
        } else {
            (first, first)
        }
    }

    /// Splits `start..end` into pieces that are contiguous in the original text:
    /// `(spliced start, spliced end, original start)`.
    pub(crate) fn pieces(&self, start: u32, end: u32, mut f: impl FnMut(u32, u32, u32)) {
        let mut idx = self.points.partition_point(|&(s, _)| s <= start);
        let mut at = start;
        while at < end {
            let piece_end = match self.points.get(idx) {
                Some(&(s, _)) if s < end => s,
                _ => end,
            };
            if piece_end > at {
                f(at, piece_end, self.original(at));
            }
            at = piece_end;
            idx += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(RawKind, &str)> {
        let mut lexer = Lexer::new(text);
        let mut out = Vec::new();
        loop {
            let raw = lexer.next_raw();
            if raw.kind == RawKind::Eof {
                return out;
            }
            out.push((raw.kind, &text[raw.start as usize..raw.end as usize]));
        }
    }

    #[test]
    fn lexes_c_tokens() {
        use RawKind::*;
        assert_eq!(
            kinds("a1 1.0f 0x1Fu 1e-3 'c' \"s\\\"\" >>= ## ->/*x*/ //y\n@é"),
            vec![
                (Ident, "a1"),
                (Whitespace, " "),
                (Number, "1.0f"),
                (Whitespace, " "),
                (Number, "0x1Fu"),
                (Whitespace, " "),
                (Number, "1e-3"),
                (Whitespace, " "),
                (Char, "'c'"),
                (Whitespace, " "),
                (Str, "\"s\\\"\""),
                (Whitespace, " "),
                (Punct, ">>="),
                (Whitespace, " "),
                (Punct, "##"),
                (Whitespace, " "),
                (Punct, "->"),
                (BlockComment, "/*x*/"),
                (Whitespace, " "),
                (LineComment, "//y"),
                (Newline, "\n"),
                (Other, "@"),
                (Other, "é"),
            ]
        );
    }

    #[test]
    fn unterminated_literals_stop_at_newline() {
        use RawKind::*;
        assert_eq!(
            kinds("\"ab\nc"),
            vec![(Str, "\"ab"), (Newline, "\n"), (Ident, "c")]
        );
        assert_eq!(kinds("/* x"), vec![(UnterminatedComment, "/* x")]);
    }

    #[test]
    fn splices_map_back() {
        let spliced = Spliced::new("ab\\\ncd\\  \r\ne");
        assert_eq!(spliced.text, "abcde");
        assert_eq!(spliced.original(1), 1);
        assert_eq!(spliced.original(2), 4);
        assert_eq!(spliced.original(4), 11);
        let mut pieces = Vec::new();
        spliced.pieces(0, 5, |a, b, o| pieces.push((a, b, o)));
        assert_eq!(pieces, vec![(0, 2, 0), (2, 4, 4), (4, 5, 11)]);
        assert_eq!(spliced.original_range(1, 3), (1, 5));
    }
}
