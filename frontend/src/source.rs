//! Source files and spans: every location a diagnostic can point at is a `Span` into one of these.

use std::fmt;
use std::path::{Path, PathBuf};

/// Identifies one source file inside a [`SourceFiles`] set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

impl fmt::Display for FileId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "file{}", self.0)
    }
}

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

    /// Adds a file and returns its id.
    ///
    /// ```
    /// use rpsl_frontend::source::SourceFiles;
    /// let mut files = SourceFiles::new();
    /// let id = files.add("a.rpsl", "node f();\nexport void main() {}\n".to_string());
    /// assert_eq!(files.get(id).line_col(10), (2, 1));
    /// ```
    pub fn add(&mut self, path: impl Into<PathBuf>, text: String) -> FileId {
        let mut line_starts = vec![0u32];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i as u32 + 1));
        let id = FileId(self.files.len() as u32);
        self.files.push(SourceFile {
            path: path.into(),
            text,
            line_starts,
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
