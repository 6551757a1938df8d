//! What to compile: [`ShaderRequest`] (source, stage, language, entry point, defines) and how
//! ([`CompilerOptions`]: include directories, optimisation, isolation, cache).

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::error::ShaderError;

/// The source language of a shader.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ShaderLanguage {
    /// GLSL (Vulkan flavour, `#version 450` or newer).
    Glsl,
    /// HLSL, compiled by glslang's HLSL front end.
    Hlsl,
}

/// The pipeline stage a shader is compiled for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ShaderStage {
    /// A vertex shader.
    Vertex,
    /// A fragment (pixel) shader.
    Fragment,
    /// A compute shader.
    Compute,
    /// A geometry shader.
    Geometry,
    /// A tessellation control shader (HLSL: hull shader).
    TessControl,
    /// A tessellation evaluation shader (HLSL: domain shader).
    TessEvaluation,
}

impl ShaderStage {
    /// Every stage, in pipeline order (compute last).
    pub const ALL: [ShaderStage; 6] = [
        ShaderStage::Vertex,
        ShaderStage::TessControl,
        ShaderStage::TessEvaluation,
        ShaderStage::Geometry,
        ShaderStage::Fragment,
        ShaderStage::Compute,
    ];

    /// The GLSL file-name extension of this stage (`vert`, `frag`, `comp`, `geom`, `tesc`,
    /// `tese`).
    pub fn extension(self) -> &'static str {
        match self {
            ShaderStage::Vertex => "vert",
            ShaderStage::Fragment => "frag",
            ShaderStage::Compute => "comp",
            ShaderStage::Geometry => "geom",
            ShaderStage::TessControl => "tesc",
            ShaderStage::TessEvaluation => "tese",
        }
    }

    /// The file-name extension of this stage in `language`: the GLSL one, except that HLSL
    /// names its tessellation stages after D3D (`hull`, `domain`), followed by `.hlsl`.
    ///
    /// ```
    /// use rpsl_shaders::{ShaderLanguage, ShaderStage};
    /// assert_eq!(ShaderStage::TessControl.file_extension(ShaderLanguage::Hlsl), "hull.hlsl");
    /// assert_eq!(ShaderStage::TessControl.file_extension(ShaderLanguage::Glsl), "tesc");
    /// ```
    pub fn file_extension(self, language: ShaderLanguage) -> String {
        match (language, self) {
            (ShaderLanguage::Glsl, _) => self.extension().to_string(),
            (ShaderLanguage::Hlsl, ShaderStage::TessControl) => "hull.hlsl".to_string(),
            (ShaderLanguage::Hlsl, ShaderStage::TessEvaluation) => "domain.hlsl".to_string(),
            (ShaderLanguage::Hlsl, _) => format!("{}.hlsl", self.extension()),
        }
    }
}

/// Infers stage and language from a file name: `x.comp`, `x.vert`, `x.frag`, `x.geom`,
/// `x.tesc`, `x.tese` are GLSL; `x.comp.hlsl`, `x.vert.hlsl`, `x.frag.hlsl`, `x.geom.hlsl`,
/// `x.hull.hlsl` and `x.domain.hlsl` are HLSL.
///
/// ```
/// use rpsl_shaders::{stage_and_language_of, ShaderLanguage, ShaderStage};
/// assert_eq!(
///     stage_and_language_of("Blur.comp.hlsl".as_ref()),
///     Some((ShaderStage::Compute, ShaderLanguage::Hlsl))
/// );
/// assert_eq!(stage_and_language_of("a.txt".as_ref()), None);
/// ```
pub fn stage_and_language_of(path: &Path) -> Option<(ShaderStage, ShaderLanguage)> {
    let name = path.file_name()?.to_str()?;
    let (rest, language) = match name.strip_suffix(".hlsl") {
        Some(rest) => (rest, ShaderLanguage::Hlsl),
        None => (name, ShaderLanguage::Glsl),
    };
    let extension = rest.rsplit_once('.')?.1;
    let stage = ShaderStage::ALL.into_iter().find(|stage| {
        stage.file_extension(language) == format!("{extension}{}", &name[rest.len()..])
    })?;
    Some((stage, language))
}

/// One shader to compile.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShaderRequest {
    /// The source text.
    pub source: String,
    /// The shader's path: named in diagnostics, and its directory is where `#include "x"` looks
    /// first. A bare name (no directory) resolves relative includes against the search dirs only.
    pub path: PathBuf,
    /// The source language.
    pub language: ShaderLanguage,
    /// The stage.
    pub stage: ShaderStage,
    /// The entry point (`main` for GLSL; any function name for HLSL).
    pub entry_point: String,
    /// Preprocessor definitions `(name, value)`.
    pub defines: Vec<(String, String)>,
}

impl ShaderRequest {
    /// A request for `source`, named `path`, with entry point `main` and no defines.
    pub fn new(
        source: impl Into<String>,
        path: impl Into<PathBuf>,
        language: ShaderLanguage,
        stage: ShaderStage,
    ) -> Self {
        ShaderRequest {
            source: source.into(),
            path: path.into(),
            language,
            stage,
            entry_point: "main".to_string(),
            defines: Vec::new(),
        }
    }

    /// Reads `path` and infers stage and language from its name (see [`stage_and_language_of`]).
    pub fn from_file(path: impl Into<PathBuf>) -> Result<Self, ShaderError> {
        let path = path.into();
        let (stage, language) = stage_and_language_of(&path)
            .ok_or_else(|| ShaderError::UnknownShaderKind { path: path.clone() })?;
        let source = std::fs::read_to_string(&path).map_err(|error| ShaderError::Io {
            path: path.clone(),
            message: error.to_string(),
        })?;
        Ok(ShaderRequest::new(source, path, language, stage))
    }

    /// Sets the entry point.
    pub fn with_entry_point(mut self, entry_point: impl Into<String>) -> Self {
        self.entry_point = entry_point.into();
        self
    }

    /// Adds a preprocessor definition.
    pub fn with_define(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.defines.push((name.into(), value.into()));
        self
    }

    /// The path as diagnostics print it.
    pub fn display_path(&self) -> String {
        self.path.display().to_string()
    }
}

/// Binding numbers added per HLSL register kind (`t`, `s`, `u`, `b`); glslang puts all four
/// kinds at binding = register number, so `t0` and `u0` collide unless shifted.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct HlslBindingShifts {
    /// Added to `t` registers (textures, read-only buffers).
    pub texture: u32,
    /// Added to `s` registers (samplers).
    pub sampler: u32,
    /// Added to `u` registers (unordered-access views).
    pub unordered_access: u32,
    /// Added to `b` registers (constant buffers).
    pub constant_buffer: u32,
}

/// Where compilation runs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Isolation {
    /// In this process (trusted sources; fastest).
    InProcess,
    /// In a child process, killed after `timeout`: a compiler crash or hang on an untrusted source
    /// becomes an error instead of taking the program down. See [`crate::child`].
    Child(ChildConfig),
}

/// How the compile child process is started.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ChildConfig {
    /// The program; it must call [`crate::child::serve_if_requested`] first thing in `main`.
    pub program: PathBuf,
    /// Arguments placed before the hidden child argument (normally none).
    pub args: Vec<String>,
    /// The time limit of one compile.
    pub timeout: Duration,
}

impl ChildConfig {
    /// Runs the current executable as the child, with `timeout`.
    pub fn current_exe(timeout: Duration) -> Result<Self, ShaderError> {
        let program = std::env::current_exe().map_err(|error| ShaderError::ChildSpawn {
            program: PathBuf::from("<current executable>"),
            message: error.to_string(),
        })?;
        Ok(ChildConfig {
            program,
            args: Vec::new(),
            timeout,
        })
    }
}

/// How a [`crate::ShaderCompiler`] compiles.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CompilerOptions {
    /// Directories searched by `#include`, after the including file's own directory.
    pub include_dirs: Vec<PathBuf>,
    /// Run SPIR-V optimisation passes (`Performance`); off gives faster compiles.
    pub optimize: bool,
    /// Binding shifts of HLSL register kinds.
    pub hlsl_shifts: HlslBindingShifts,
    /// Keep names (and line info) in the SPIR-V, so that reflection and error messages can name
    /// variables; the optimiser strips them otherwise.
    pub debug_info: bool,
    /// In-process or in a child process.
    pub isolation: Isolation,
    /// The SPIR-V cache directory; `None` disables the cache.
    pub cache_dir: Option<PathBuf>,
}

impl Default for CompilerOptions {
    /// In-process, optimised with names kept, no include dirs, no cache.
    fn default() -> Self {
        CompilerOptions {
            include_dirs: Vec::new(),
            optimize: true,
            hlsl_shifts: HlslBindingShifts::default(),
            debug_info: true,
            isolation: Isolation::InProcess,
            cache_dir: None,
        }
    }
}

/// The default cache directory: `$XDG_CACHE_HOME/rpsl/spirv`, else `$HOME/.cache/rpsl/spirv`.
pub fn default_cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|dir| !dir.is_empty()) {
        return Some(PathBuf::from(dir).join("rpsl").join("spirv"));
    }
    let home = std::env::var_os("HOME").filter(|dir| !dir.is_empty())?;
    Some(
        PathBuf::from(home)
            .join(".cache")
            .join("rpsl")
            .join("spirv"),
    )
}
