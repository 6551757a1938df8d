//! Shader-bound nodes: nodes that run a compute shader or draw with a fragment shader (and
//! optional vertex, tessellation and geometry shaders, HLSL stages linked by semantic) found by
//! name in a shader directory, with no Rust code. The convention (see
//! `docs/shaders.md`): views bind to set 0 in parameter order, plain parameters become push
//! constants (std430, declaration order), attachments come from the node's semantics, compute
//! dispatches cover the first written view (or `group_count` / `thread_count`), graphics nodes
//! draw a full-screen triangle unless a vertex shader is given. Pipelines and descriptor sets
//! are cached across frames; an edited shader (or include) is recompiled on the next frame.
//!
//! ```no_run
//! use rpsl_vulkan::{VulkanBackend, VulkanOptions};
//! use rpsl_vulkan::shader_node::{bind_shader_nodes, ShaderNodeOptions};
//! let mut backend = VulkanBackend::new(VulkanOptions::default()).unwrap();
//! let bound = bind_shader_nodes(
//!     &mut backend,
//!     ShaderNodeOptions::new("shaders"),
//!     ["Blur".to_string(), "Tonemap".to_string()],
//! );
//! ```

pub(crate) mod descriptor_cache;
pub(crate) mod descriptors;
mod files;
mod link;
mod plan;
mod program;
mod push;
mod record;
#[cfg(test)]
mod tests;

use std::fmt;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use ash::vk;
use rpsl_shaders::{CompilerOptions, ShaderError};

use crate::VulkanBackend;
use record::ShaderNodeState;

/// The shader compiler crate, re-exported for binaries that depend on this crate only (for
/// `shaders::child::serve_if_requested()` at the top of `main`).
pub use rpsl_shaders as shaders;

/// Where shader-bound nodes find their shaders and how they compile them.
#[derive(Clone, Debug)]
pub struct ShaderNodeOptions {
    /// The shader directory (`Foo.comp`, `Foo.frag`, ... for node `Foo`).
    pub shader_dir: PathBuf,
    /// Compile options (include dirs, cache, child-process isolation). The shader directory is
    /// searched by `#include <x>` after these include dirs.
    pub compiler: CompilerOptions,
}

impl ShaderNodeOptions {
    /// Shaders in `shader_dir`, compiled in-process, cached in [`rpsl_shaders::default_cache_dir`].
    pub fn new(shader_dir: impl Into<PathBuf>) -> ShaderNodeOptions {
        let compiler = CompilerOptions {
            cache_dir: rpsl_shaders::default_cache_dir(),
            ..CompilerOptions::default()
        };
        ShaderNodeOptions {
            shader_dir: shader_dir.into(),
            compiler,
        }
    }

    /// Compiles in a child process (the current executable, which must call
    /// [`shaders::child::serve_if_requested`] first in `main`), killed after `timeout`.
    pub fn in_child_process(
        mut self,
        timeout: std::time::Duration,
    ) -> Result<ShaderNodeOptions, ShaderError> {
        let config = rpsl_shaders::ChildConfig::current_exe(timeout)?;
        self.compiler.isolation = rpsl_shaders::Isolation::Child(config);
        Ok(self)
    }
}

/// Why a shader-bound node could not run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShaderNodeErrorKind {
    /// Its shader files are missing or ambiguous.
    Files(String),
    /// A shader did not compile (diagnostics carry file and line).
    Compile(ShaderError),
    /// The shaders do not fit the node's declaration or render pass.
    Mismatch {
        /// The shader file.
        file: String,
        /// The line of the offending declaration, when found.
        line: Option<u32>,
        /// What does not fit.
        message: String,
    },
    /// The argument block or views are not what the declaration says.
    Arguments(String),
    /// A Vulkan call failed.
    Vulkan {
        /// The call.
        call: &'static str,
        /// Its result.
        result: vk::Result,
    },
}

/// An error of one shader-bound node; its text starts with ``node `Name`: ``.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShaderNodeError {
    /// The node's name.
    pub node: String,
    /// What went wrong.
    pub kind: ShaderNodeErrorKind,
}

impl fmt::Display for ShaderNodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "node `{}`: {}", self.node, self.kind)
    }
}

/// The error without the node's name: `file:line: message` where a shader file applies (the
/// backend's [`rpsl_runtime::BackendError::Node`] names the node already).
impl fmt::Display for ShaderNodeErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShaderNodeErrorKind::Files(message) | ShaderNodeErrorKind::Arguments(message) => {
                write!(f, "{message}")
            }
            ShaderNodeErrorKind::Compile(error) => write!(f, "{error}"),
            ShaderNodeErrorKind::Mismatch {
                file,
                line: Some(line),
                message,
            } => write!(f, "{file}:{line}: {message}"),
            ShaderNodeErrorKind::Mismatch {
                file,
                line: None,
                message,
            } => write!(f, "{file}: {message}"),
            ShaderNodeErrorKind::Vulkan { call, result } => write!(f, "{call} failed: {result:?}"),
        }
    }
}

impl std::error::Error for ShaderNodeError {}

/// Whether `dir` holds a shader for node `name` (`name.comp`, `name.frag`, ... or `.hlsl`).
pub fn has_shader(dir: &std::path::Path, name: &str) -> bool {
    files::has_node_shaders(dir, name)
}

/// Binds every name in `names` that has a shader in `options.shader_dir` as a shader-bound
/// node of `backend`, replacing earlier bindings of those names; returns the names bound.
/// Names without shaders are left as they are (Rust callbacks, or unbound). A node's error
/// fails the frame with [`rpsl_runtime::BackendError::Node`], whose text reads
/// ``node 3 (`Blur`): shaders/Blur.comp:12: ...``.
///
/// The nodes share one cache of compiled shaders, pipelines and descriptor sets (kept across
/// frames), released when the backend drops its callbacks (after waiting for the device).
pub fn bind_shader_nodes(
    backend: &mut VulkanBackend,
    options: ShaderNodeOptions,
    names: impl IntoIterator<Item = String>,
) -> Vec<String> {
    let bound: Vec<String> = names
        .into_iter()
        .filter(|name| has_shader(&options.shader_dir, name))
        .collect();
    let state = Arc::new(Mutex::new(ShaderNodeState::new(options)));
    for name in &bound {
        let state = Arc::clone(&state);
        let node_name = name.clone();
        backend.bind_node(name, move |context| {
            state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .run(&node_name, context)
                .map_err(|error| error.kind.to_string())
        });
    }
    bound
}
