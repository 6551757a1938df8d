//! Where `#include`d text comes from, and what a script may include: the [`IncludePolicy`] (include
//! roots and [`SourceLimits`]), the [`FileLoader`] trait an embedding implements to serve includes
//! from its own virtual file system, the disk ([`FsLoader`]) and memory ([`MemoryLoader`]) loaders.
//!
//! # The rules (SECURITY.md lists them with their defaults)
//! * An include resolves only inside its *roots*: the directory of the script being checked and
//!   the configured include directories. The preprocessor checks the lexically normalized path
//!   (`.` and `..` resolved) for every loader; [`FsLoader`] checks again after resolving symlinks.
//! * [`FsLoader`] reads regular files only: it refuses directories, FIFOs, sockets and devices by
//!   their metadata before opening (and again on the open file, which is opened non-blocking so a
//!   FIFO swapped in meanwhile cannot block), and anything under `/proc`, `/sys` or `/dev`.
//! * Every file is read up to [`SourceLimits::max_file_bytes`] plus one byte, never more, so an
//!   endless file cannot exhaust memory.
//! * A refused file is never added to the compilation's files, so no diagnostic quotes it.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// The limits on what the preprocessor reads and produces; [`SourceLimits::default`] gives the
/// documented defaults. An embedding may tighten (or loosen) each one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceLimits {
    /// Largest source file (the script and each include), in bytes. Default 4 MiB.
    pub max_file_bytes: usize,
    /// Largest preprocessed text of one script, includes and macro expansions included, in bytes.
    /// Default 16 MiB.
    pub max_preprocessed_bytes: usize,
    /// Most `#include`s carried out in one script (a file included twice counts twice; an include
    /// skipped by its include guard or `#pragma once` does not count). Default 1024.
    pub max_inclusions: usize,
    /// Deepest `#include` nesting. Default 64, which is also the most allowed.
    pub max_include_depth: usize,
}

/// The most `#include` nesting any policy allows (the preprocessor recurses per level).
pub const MAX_INCLUDE_DEPTH: usize = 64;

impl Default for SourceLimits {
    fn default() -> SourceLimits {
        SourceLimits {
            max_file_bytes: 4 << 20,
            max_preprocessed_bytes: 16 << 20,
            max_inclusions: 1024,
            max_include_depth: MAX_INCLUDE_DEPTH,
        }
    }
}

/// What a script may include: the include directories searched (after the including file's own
/// directory) and the limits. The directory of the script being checked is always a root.
///
/// ```
/// use rpsl_frontend::preprocess::{IncludePolicy, SourceLimits};
/// let policy = IncludePolicy::default()
///     .with_include_dir("shaders/include")
///     .with_limits(SourceLimits { max_inclusions: 16, ..SourceLimits::default() });
/// assert_eq!(policy.include_dirs.len(), 1);
/// assert_eq!(policy.limits.max_file_bytes, 4 << 20);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IncludePolicy {
    /// Directories searched for an include after the including file's directory, in order; each
    /// is also a root includes may resolve into.
    pub include_dirs: Vec<PathBuf>,
    /// Size and count limits.
    pub limits: SourceLimits,
}

impl IncludePolicy {
    /// Adds an include directory (builder style).
    pub fn with_include_dir(mut self, dir: impl Into<PathBuf>) -> IncludePolicy {
        self.include_dirs.push(dir.into());
        self
    }

    /// Replaces the limits (builder style).
    pub fn with_limits(mut self, limits: SourceLimits) -> IncludePolicy {
        self.limits = limits;
        self
    }
}

/// Why an included file was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// No such file.
    NotFound,
    /// The file (after resolving `..` and symlinks) lies outside every include root.
    OutsideRoots,
    /// Not a regular file: says what it is ("a directory", "a FIFO", "a file under /proc", ...).
    NotRegularFile(&'static str),
    /// Larger than the limit it was read under.
    TooLarge,
    /// Any other failure, as the operating system words it.
    Io(String),
}

impl LoadError {
    /// Why the file was not read, as the end of a sentence (`cannot include `x`: REASON`);
    /// `max_bytes` is the size limit it was read under.
    ///
    /// ```
    /// use rpsl_frontend::preprocess::LoadError;
    /// assert_eq!(LoadError::TooLarge.reason(16), "it is larger than 16 bytes");
    /// assert_eq!(LoadError::NotRegularFile("a FIFO").reason(16), "it is a FIFO, not a regular file");
    /// ```
    pub fn reason(&self, max_bytes: usize) -> String {
        match self {
            LoadError::NotFound => "no such file".to_string(),
            LoadError::OutsideRoots => "it lies outside the include directories".to_string(),
            LoadError::NotRegularFile(kind) => format!("it is {kind}, not a regular file"),
            LoadError::TooLarge => format!("it is larger than {max_bytes} bytes"),
            LoadError::Io(error) => error.clone(),
        }
    }
}

/// One file asked for by an `#include`.
#[derive(Clone, Copy, Debug)]
pub struct LoadRequest<'a> {
    /// The candidate path: a root or the including file's directory joined with the name as
    /// written, lexically normalized. The preprocessor has already checked that it lies inside
    /// one of `roots` lexically.
    pub path: &'a Path,
    /// The directories includes may resolve into (lexically normalized; `""` is the current
    /// directory).
    pub roots: &'a [PathBuf],
    /// Refuse (with [`LoadError::TooLarge`]) a file larger than this many bytes.
    pub max_bytes: usize,
}

/// Reads the files that `#include` names: implement it to serve includes from a virtual file
/// system (a pak file, an asset database) instead of the disk.
pub trait FileLoader {
    /// The text of the file `request.path`.
    fn load(&self, request: &LoadRequest<'_>) -> Result<String, LoadError>;
}

/// Loads files from the file system under the include rules of this module; invalid UTF-8 is
/// replaced (lossily).
#[derive(Clone, Copy, Debug, Default)]
pub struct FsLoader;

impl FileLoader for FsLoader {
    fn load(&self, request: &LoadRequest<'_>) -> Result<String, LoadError> {
        let real = std::fs::canonicalize(request.path).map_err(io_error)?;
        let inside = request.roots.iter().any(|root| {
            let root = if root.as_os_str().is_empty() {
                Path::new(".")
            } else {
                root.as_path()
            };
            std::fs::canonicalize(root).is_ok_and(|root| real.starts_with(root))
        });
        if !inside {
            return Err(LoadError::OutsideRoots);
        }
        read_source_file(&real, request.max_bytes)
    }
}

/// Reads a source file from disk: a regular file only (never under `/proc`, `/sys` or `/dev`),
/// opened without blocking, at most `max_bytes` (plus one byte to see that it is larger).
///
/// ```
/// use rpsl_frontend::preprocess::{read_source_file, LoadError};
/// let dir = std::env::temp_dir();
/// assert_eq!(read_source_file(&dir, 1024), Err(LoadError::NotRegularFile("a directory")));
/// assert_eq!(
///     read_source_file("/dev/zero".as_ref(), 1024),
///     Err(LoadError::NotRegularFile("a character device"))
/// );
/// ```
pub fn read_source_file(path: &Path, max_bytes: usize) -> Result<String, LoadError> {
    use std::io::Read;
    let real = std::fs::canonicalize(path).map_err(io_error)?;
    let before = std::fs::metadata(&real).map_err(io_error)?;
    check_regular(&before)?;
    for special in ["/proc", "/sys", "/dev"] {
        if real.starts_with(special) {
            return Err(LoadError::NotRegularFile(match special {
                "/proc" => "a file under /proc",
                "/sys" => "a file under /sys",
                _ => "a file under /dev",
            }));
        }
    }
    if before.len() > max_bytes as u64 {
        return Err(LoadError::TooLarge);
    }
    let file = open_nonblocking(&real).map_err(io_error)?;
    let opened = file.metadata().map_err(io_error)?;
    check_regular(&opened)?;
    let mut bytes = Vec::new();
    file.take(max_bytes as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(io_error)?;
    if bytes.len() > max_bytes {
        return Err(LoadError::TooLarge);
    }
    Ok(match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
    })
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// Refuses anything but a regular file, naming what it is.
fn check_regular(meta: &std::fs::Metadata) -> Result<(), LoadError> {
    let kind = meta.file_type();
    if kind.is_file() {
        return Ok(());
    }
    if kind.is_dir() {
        return Err(LoadError::NotRegularFile("a directory"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return Err(LoadError::NotRegularFile("a FIFO"));
        }
        if kind.is_char_device() {
            return Err(LoadError::NotRegularFile("a character device"));
        }
        if kind.is_block_device() {
            return Err(LoadError::NotRegularFile("a block device"));
        }
        if kind.is_socket() {
            return Err(LoadError::NotRegularFile("a socket"));
        }
    }
    Err(LoadError::NotRegularFile("not a regular file"))
}

fn io_error(err: std::io::Error) -> LoadError {
    match err.kind() {
        std::io::ErrorKind::NotFound => LoadError::NotFound,
        _ => LoadError::Io(err.to_string()),
    }
}

/// Files held in memory: a virtual file system for tests and embedders (a pak file's scripts).
/// Paths are compared after lexical normalization; the roots are checked by the preprocessor.
///
/// ```
/// use rpsl_frontend::preprocess::{FileLoader, LoadError, LoadRequest, MemoryLoader};
/// let loader = MemoryLoader::new().with("dir/common.rpsli", "#define N 1\n");
/// let request = |path: &'static str| LoadRequest { path: path.as_ref(), roots: &[], max_bytes: 64 };
/// assert_eq!(loader.load(&request("dir/./common.rpsli")).unwrap(), "#define N 1\n");
/// assert_eq!(loader.load(&request("dir/other.rpsli")), Err(LoadError::NotFound));
/// ```
#[derive(Clone, Debug, Default)]
pub struct MemoryLoader {
    files: HashMap<PathBuf, String>,
}

impl MemoryLoader {
    /// An empty set of files.
    pub fn new() -> MemoryLoader {
        MemoryLoader::default()
    }

    /// Adds (or replaces) a file.
    pub fn insert(&mut self, path: impl AsRef<Path>, text: impl Into<String>) {
        self.files.insert(normalize(path.as_ref()), text.into());
    }

    /// Adds a file and returns the loader (builder style).
    pub fn with(mut self, path: impl AsRef<Path>, text: impl Into<String>) -> MemoryLoader {
        self.insert(path, text);
        self
    }
}

impl FileLoader for MemoryLoader {
    fn load(&self, request: &LoadRequest<'_>) -> Result<String, LoadError> {
        let text = self
            .files
            .get(&normalize(request.path))
            .ok_or(LoadError::NotFound)?;
        if text.len() > request.max_bytes {
            return Err(LoadError::TooLarge);
        }
        Ok(text.clone())
    }
}

/// Removes `.` components and resolves `..` against preceding names, without touching the disk
/// (a `..` with nothing before it to remove is kept).
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    let mut names = 0usize;
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir if names > 0 => {
                out.pop();
                names -= 1;
            }
            Component::Normal(part) => {
                out.push(part);
                names += 1;
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Whether the normalized `path` lies inside the normalized directory `root`, lexically: both
/// absolute or both relative, the same leading `..`s, and `root` a prefix of `path`.
pub(crate) fn lexically_inside(path: &Path, root: &Path) -> bool {
    let leading_parents = |p: &Path| {
        p.components()
            .take_while(|c| *c == Component::ParentDir)
            .count()
    };
    path.is_absolute() == root.is_absolute()
        && leading_parents(path) == leading_parents(root)
        && path.starts_with(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_roots() {
        let inside =
            |p: &str, r: &str| lexically_inside(&normalize(p.as_ref()), &normalize(r.as_ref()));
        assert!(inside("a.rpsl", ""));
        assert!(inside("dir/x/../a.rpsl", "dir"));
        assert!(!inside("dir/../a.rpsl", "dir"));
        assert!(!inside("../a.rpsl", ""));
        assert!(!inside("/etc/passwd", ""));
        assert!(inside("/inc/a.rpsl", "/inc"));
        assert!(!inside("/include/a.rpsl", "/inc"));
        assert!(inside("../up/a.rpsl", "../up"));
        assert!(!inside("../../a.rpsl", ".."));
    }

    #[test]
    fn memory_loader_applies_the_size_limit() {
        let loader = MemoryLoader::new().with("a.rpsli", "12345");
        let request = |max_bytes| LoadRequest {
            path: Path::new("a.rpsli"),
            roots: &[],
            max_bytes,
        };
        assert_eq!(loader.load(&request(5)).unwrap(), "12345");
        assert_eq!(loader.load(&request(4)), Err(LoadError::TooLarge));
    }
}
