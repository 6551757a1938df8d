//! The typed errors of shader compilation, caching, the child process and reflection.

use std::fmt;
use std::path::PathBuf;

/// One compiler diagnostic, located in a source file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// The file the diagnostic is in (the shader or one of its includes), as the compiler named it.
    pub file: String,
    /// The 1-based line, when the compiler gave one.
    pub line: Option<u32>,
    /// The message, without the file, line and `error:` prefix.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file, line, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// Why a shader did not compile, or could not be reflected or cached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShaderError {
    /// The compiler rejected the source; at least one diagnostic.
    Compile {
        /// The shader's path (or name) as given in the request.
        path: String,
        /// The errors, each `file:line: message`.
        diagnostics: Vec<Diagnostic>,
    },
    /// A shader file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's message.
        message: String,
    },
    /// A file name whose extension names no known stage or language.
    UnknownShaderKind {
        /// The file.
        path: PathBuf,
    },
    /// The source contains a NUL byte, which the compiler cannot take.
    NulInSource {
        /// The shader's path (or name).
        path: String,
    },
    /// The compiler library could not be initialised.
    CompilerInit {
        /// Its message.
        message: String,
    },
    /// The compile child process could not be started.
    ChildSpawn {
        /// The program that was started.
        program: PathBuf,
        /// The operating system's message.
        message: String,
    },
    /// The compile child process ran past its time limit and was killed.
    ChildTimedOut {
        /// The shader's path (or name).
        path: String,
        /// The limit in milliseconds.
        limit_ms: u64,
    },
    /// The compile child process died or exited without an answer (a compiler crash).
    ChildCrashed {
        /// The shader's path (or name).
        path: String,
        /// How it ended, e.g. `exit status: 1` or `signal: 11 (SIGSEGV)`.
        status: String,
    },
    /// The compile child process answered something that is not a valid reply.
    ChildProtocol {
        /// What was wrong.
        message: String,
    },
    /// The SPIR-V module is malformed.
    Reflect(ReflectError),
    /// An HLSL source multiplies two square matrices with `*` (element-wise in HLSL, but glslang
    /// compiles it to a matrix product).
    SquareMatrixMultiply {
        /// The file.
        file: String,
        /// The 1-based line.
        line: u32,
        /// The two operand names.
        operands: (String, String),
    },
}

impl fmt::Display for ShaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShaderError::Compile { diagnostics, path } => {
                if diagnostics.is_empty() {
                    return write!(f, "{path}: compile failed");
                }
                for (index, diagnostic) in diagnostics.iter().enumerate() {
                    if index > 0 {
                        writeln!(f)?;
                    }
                    write!(f, "{diagnostic}")?;
                }
                Ok(())
            }
            ShaderError::Io { path, message } => write!(f, "{}: {}", path.display(), message),
            ShaderError::UnknownShaderKind { path } => write!(
                f,
                "{}: unknown shader kind (expected .comp, .vert or .frag, optionally followed by .hlsl)",
                path.display()
            ),
            ShaderError::NulInSource { path } => write!(f, "{path}: source contains a NUL byte"),
            ShaderError::CompilerInit { message } => {
                write!(f, "cannot initialise the shader compiler: {message}")
            }
            ShaderError::ChildSpawn { program, message } => write!(
                f,
                "cannot start the shader compile process {}: {}",
                program.display(),
                message
            ),
            ShaderError::ChildTimedOut { path, limit_ms } => {
                write!(f, "{path}: compile took longer than {limit_ms} ms and was stopped")
            }
            ShaderError::ChildCrashed { path, status } => {
                write!(f, "{path}: the shader compiler crashed ({status})")
            }
            ShaderError::ChildProtocol { message } => {
                write!(f, "bad reply from the shader compile process: {message}")
            }
            ShaderError::Reflect(error) => write!(f, "{error}"),
            ShaderError::SquareMatrixMultiply { file, line, operands } => write!(
                f,
                "{}:{}: '{} * {}' multiplies two square matrices: HLSL '*' is element-wise but glslang compiles it to a matrix product; write mul({}, {}) for a product, or multiply the rows explicitly",
                file, line, operands.0, operands.1, operands.0, operands.1
            ),
        }
    }
}

impl std::error::Error for ShaderError {}

impl From<ReflectError> for ShaderError {
    fn from(error: ReflectError) -> Self {
        ShaderError::Reflect(error)
    }
}

/// Why a SPIR-V word stream could not be reflected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReflectError {
    /// Shorter than the 5-word header.
    TooShort,
    /// The first word is not the SPIR-V magic number.
    BadMagic(u32),
    /// An instruction's word count is 0 or runs past the end.
    BadInstruction {
        /// Word offset of the instruction.
        offset: usize,
    },
    /// A type or constant that an instruction refers to is missing or of the wrong kind.
    BadReference {
        /// The id.
        id: u32,
        /// What was expected.
        expected: &'static str,
    },
    /// Types nest deeper than reflection follows (a cycle or an absurd module).
    TooDeep,
}

impl fmt::Display for ReflectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReflectError::TooShort => write!(f, "SPIR-V module shorter than its header"),
            ReflectError::BadMagic(word) => {
                write!(f, "not a SPIR-V module (first word {word:#010x})")
            }
            ReflectError::BadInstruction { offset } => {
                write!(f, "malformed SPIR-V instruction at word {offset}")
            }
            ReflectError::BadReference { id, expected } => {
                write!(f, "SPIR-V id %{id} is not {expected}")
            }
            ReflectError::TooDeep => write!(f, "SPIR-V types nest too deeply"),
        }
    }
}

impl std::error::Error for ReflectError {}
