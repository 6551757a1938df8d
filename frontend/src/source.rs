//! Source files and spans: every location a diagnostic can point at is a `Span` into one of these.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The UTF-8 byte order mark that may start a file (and is not part of its text).
const BYTE_ORDER_MARK: char = '\u{feff}';

rpsl_types::define_id!(
    /// Identifies one source file inside a [`SourceFiles`] set.
    FileId,
    "file"
);

/// A byte range in one original (not preprocessed) source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    /// The file the range lies in.
    pub file: FileId,
    /// First byte of the range.
    pub start: u32,
    /// One past the last byte of the range.
    pub end: u32,
}

impl Span {
    /// A span from `start` to `end` in `file`.
    pub fn new(file: FileId, start: u32, end: u32) -> Span {
        Span {
            file,
            start,
            end: end.max(start),
        }
    }

    /// The smallest span covering both `self` and `other` when they are in the same file, else `self`.
    pub fn to(self, other: Span) -> Span {
        if self.file != other.file {
            return self;
        }
        Span::new(
            self.file,
            self.start.min(other.start),
            self.end.max(other.end),
        )
    }
}

/// One loaded source file: its display path, text and line index.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as shown in diagnostics.
    pub path: PathBuf,
    /// The full text.
    pub text: String,
    line_starts: Vec<u32>,
    /// The text as excerpts show it, made on first use; `None` when it equals `text`.
    display: OnceLock<Option<Box<DisplayText>>>,
}

/// A file's text with its control characters made visible (see [`escape_control`]), and how
/// offsets into the original text move in it.
#[derive(Clone, Debug)]
pub struct DisplayText {
    /// The escaped text: the same lines, each control character replaced by a visible one.
    pub text: String,
    /// For each escaped character: the original offset just past it, and the bytes the escapes up
    /// to and including it added.
    shifts: Vec<(u32, u32)>,
}

impl DisplayText {
    /// The offset in the escaped text of an offset in the original text.
    pub fn offset(&self, original: u32) -> u32 {
        let passed = self.shifts.partition_point(|&(end, _)| end <= original);
        match passed {
            0 => original,
            n => original + self.shifts[n - 1].1,
        }
    }
}

/// The visible stand-in for a character that must not reach a terminal as it is, if `c` is one:
/// C0 controls (but line feed and tab) become their Unicode control pictures (NUL is `␀`, ESC is
/// `␛`), DEL is `␡`, C1 controls and the bidirectional overrides and isolates (which can reorder
/// how a line reads) become `�`. A carriage return is kept only right before a line feed.
///
/// ```
/// use rpsl_frontend::source::escape_control;
/// assert_eq!(escape_control('\0', None), Some('\u{2400}'));
/// assert_eq!(escape_control('\u{1b}', None), Some('␛'));
/// assert_eq!(escape_control('\r', Some('\n')), None);
/// assert_eq!(escape_control('a', None), None);
/// ```
pub fn escape_control(c: char, next: Option<char>) -> Option<char> {
    match c {
        '\n' | '\t' => None,
        '\r' if next == Some('\n') => None,
        '\0'..='\u{1f}' => char::from_u32(0x2400 + c as u32),
        '\u{7f}' => Some('\u{2421}'),
        '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
            Some(char::REPLACEMENT_CHARACTER)
        }
        _ => None,
    }
}

/// `text` with every character [`escape_control`] replaces replaced (for messages and paths).
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    let mut chars = text.chars().peekable();
    let mut out: Option<String> = None;
    let mut at = 0;
    while let Some(c) = chars.next() {
        match escape_control(c, chars.peek().copied()) {
            Some(shown) => out
                .get_or_insert_with(|| text[..at].to_string())
                .push(shown),
            None => {
                if let Some(out) = &mut out {
                    out.push(c);
                }
            }
        }
        at += c.len_utf8();
    }
    match out {
        Some(out) => std::borrow::Cow::Owned(out),
        None => std::borrow::Cow::Borrowed(text),
    }
}

impl SourceFile {
    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, offset: u32) -> (u32, u32) {
        let offset = offset.min(self.text.len() as u32);
        let line = match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next - 1,
        };
        let line_start = self.line_starts[line] as usize;
        let mut end = offset as usize;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let col = self.text[line_start..end].chars().count() as u32 + 1;
        (line as u32 + 1, col)
    }

    /// Byte offsets where each line starts.
    pub fn line_starts(&self) -> &[u32] {
        &self.line_starts
    }

    /// The text with control characters made visible, for excerpts; `None` when there are none
    /// (the text shows as it is). Lines stay the same lines.
    ///
    /// ```
    /// use rpsl_frontend::source::SourceFiles;
    /// let mut files = SourceFiles::new();
    /// let id = files.add("a.rpsl", "a\0b\nc\n".to_string());
    /// let shown = files.get(id).display_text().unwrap();
    /// assert_eq!(shown.text, "a\u{2400}b\nc\n");
    /// assert_eq!((shown.offset(1), shown.offset(2), shown.offset(4)), (1, 4, 6));
    /// ```
    pub fn display_text(&self) -> Option<&DisplayText> {
        self.display
            .get_or_init(|| {
                let needs_escape = self.text.bytes().any(|b| {
                    b < 0x20 && b != b'\n' && b != b'\t' || b == 0x7f || b == 0xc2 || b == 0xe2
                });
                if !needs_escape {
                    return None;
                }
                let mut text = String::with_capacity(self.text.len());
                let mut shifts = Vec::new();
                let mut added = 0u32;
                let mut chars = self.text.char_indices().peekable();
                while let Some((at, c)) = chars.next() {
                    match escape_control(c, chars.peek().map(|&(_, next)| next)) {
                        Some(shown) => {
                            text.push(shown);
                            added += (shown.len_utf8() - c.len_utf8()) as u32;
                            shifts.push(((at + c.len_utf8()) as u32, added));
                        }
                        None => text.push(c),
                    }
                }
                (!shifts.is_empty()).then(|| Box::new(DisplayText { text, shifts }))
            })
            .as_deref()
    }
}

/// The set of source files of one compilation (scripts, includes, the prelude).
#[derive(Clone, Debug, Default)]
pub struct SourceFiles {
    files: Vec<SourceFile>,
}

impl SourceFiles {
    /// An empty set.
    pub fn new() -> SourceFiles {
        SourceFiles::default()
    }

    /// Adds a file and returns its id. A leading UTF-8 byte order mark is dropped (as HLSL
    /// compilers skip it), so offsets and columns count from the first character after it.
    ///
    /// ```
    /// use rpsl_frontend::source::SourceFiles;
    /// let mut files = SourceFiles::new();
    /// let id = files.add("a.rpsl", "node f();\nexport void main() {}\n".to_string());
    /// assert_eq!(files.get(id).line_col(10), (2, 1));
    /// let id = files.add("bom.rpsl", "\u{feff}node f();\n".to_string());
    /// assert_eq!(files.get(id).text, "node f();\n");
    /// ```
    pub fn add(&mut self, path: impl Into<PathBuf>, mut text: String) -> FileId {
        if text.starts_with(BYTE_ORDER_MARK) {
            text.drain(..BYTE_ORDER_MARK.len_utf8());
        }
        let mut line_starts = vec![0u32];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i as u32 + 1));
        let id = FileId(self.files.len() as u32);
        self.files.push(SourceFile {
            path: path.into(),
            text,
            line_starts,
            display: OnceLock::new(),
        });
        id
    }

    /// The file with this id.
    ///
    /// # Panics
    /// When `id` did not come from this set.
    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    /// The id of an already loaded file with this path, if any.
    pub fn find(&self, path: &Path) -> Option<FileId> {
        self.files
            .iter()
            .position(|f| f.path == path)
            .map(|i| FileId(i as u32))
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file was added.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// `PATH:LINE:COL` of the start of a span.
    pub fn location(&self, span: Span) -> String {
        let file = self.get(span.file);
        let (line, col) = file.line_col(span.start);
        format!("{}:{}:{}", file.path.display(), line, col)
    }
}
