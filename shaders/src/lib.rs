//! rpsl-shaders: GLSL and HLSL to SPIR-V for rpsl's shader-bound nodes.
//!
//! - [`ShaderCompiler`] compiles a [`ShaderRequest`] (vertex, tessellation, geometry, fragment
//!   or compute; GLSL or HLSL) to SPIR-V 1.6 for Vulkan 1.3 with shaderc, resolving `#include "x"` next to the including
//!   file and then in the search dirs, and returns a [`CompiledShader`] with its [`Reflection`].
//! - Errors are typed ([`ShaderError`]); compile errors carry `file:line: message` diagnostics.
//! - Untrusted sources can be compiled in a child process with a time limit ([`child`]).
//! - Results can be cached on disk ([`SpirvCache`]), keyed by a hash of the source, every
//!   resolved include and the options.
//! - [`reflect`] reads entry points, local size, descriptors, push constants, fragment outputs
//!   and stage interfaces straight from the SPIR-V words.
//! - [`link_by_semantic`] links adjacent HLSL stages by semantic, as D3D does, rewriting the
//!   downstream stage's input locations.
//!
//! ```
//! use rpsl_shaders::{CompilerOptions, ShaderCompiler, ShaderLanguage, ShaderRequest, ShaderStage};
//!
//! let compiler = ShaderCompiler::new(CompilerOptions::default());
//! let request = ShaderRequest::new(
//!     "[[vk::binding(0)]] [[spv::format_rgba8]] RWTexture2D<float4> dst;\n\
//!      [numthreads(8, 8, 1)] void main(uint3 id : SV_DispatchThreadID) { dst[id.xy] = 1.0; }",
//!     "fill.comp.hlsl",
//!     ShaderLanguage::Hlsl,
//!     ShaderStage::Compute,
//! );
//! let shader = compiler.compile(&request).unwrap();
//! assert_eq!(shader.reflection.entry_points[0].local_size, Some([8, 8, 1]));
//! ```

#![deny(missing_docs)]

mod cache;
pub mod child;
mod compile;
mod error;
mod hlsl_lint;
mod include;
mod link;
mod reflect;
mod request;
mod strip;

use std::path::PathBuf;

pub use cache::{cache_key, CacheKey, SpirvCache};
pub use error::{Diagnostic, ReflectError, ShaderError};
pub use link::{hlsl_type_name, link_by_semantic, LinkError, Semantic};
pub use reflect::{
    reflect, BlockMember, DescriptorBinding, DescriptorKind, EntryPoint, ExecutionModel,
    FragmentOutput, ImageInfo, InterfaceVariable, LocationSlot, PushConstantBlock, Reflection,
    ScalarType, StageInterface,
};
pub use request::{
    default_cache_dir, stage_and_language_of, ChildConfig, CompilerOptions, HlslBindingShifts,
    Isolation, ShaderLanguage, ShaderRequest, ShaderStage,
};

use compile::{compile_in_process, CompileSettings, CompiledWords};

/// A compiled shader: its SPIR-V and what reflection found in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompiledShader {
    /// The SPIR-V words, ready for any Vulkan device: HLSL is compiled with
    /// `SPV_GOOGLE_hlsl_functionality1` so that reflection sees its semantics, and the extension
    /// is removed afterwards (the cache keeps it, so that a cached module reflects the same).
    pub spirv: Vec<u32>,
    /// Entry points, descriptors, push constants, outputs.
    pub reflection: Reflection,
    /// The include files the compile used (for watching them for changes).
    pub includes: Vec<PathBuf>,
    /// Whether the module came from the on-disk cache.
    pub from_cache: bool,
}

/// Compiles shaders with fixed [`CompilerOptions`]; cheap to create, `Send + Sync`.
#[derive(Clone, Debug)]
pub struct ShaderCompiler {
    options: CompilerOptions,
    cache: Option<SpirvCache>,
}

impl ShaderCompiler {
    /// A compiler with `options` (the cache directory is created on the first store).
    pub fn new(options: CompilerOptions) -> Self {
        let cache = options.cache_dir.clone().map(SpirvCache::new);
        ShaderCompiler { options, cache }
    }

    /// The options.
    pub fn options(&self) -> &CompilerOptions {
        &self.options
    }

    fn settings(&self) -> CompileSettings {
        CompileSettings {
            include_dirs: self.options.include_dirs.clone(),
            optimize: self.options.optimize,
            hlsl_shifts: self.options.hlsl_shifts,
            debug_info: self.options.debug_info,
        }
    }

    /// The cache key `request` would be stored under.
    pub fn cache_key(&self, request: &ShaderRequest) -> CacheKey {
        cache_key(request, &self.settings())
    }

    /// Compiles `request` (or loads it from the cache) and reflects the result.
    pub fn compile(&self, request: &ShaderRequest) -> Result<CompiledShader, ShaderError> {
        let settings = self.settings();
        let key = self.cache.as_ref().map(|_| cache_key(request, &settings));
        if let (Some(cache), Some(key)) = (&self.cache, key) {
            if let Some((spirv, includes)) = cache.load(key) {
                if let Ok(reflection) = reflect(&spirv) {
                    return Ok(CompiledShader {
                        spirv: strip::strip_hlsl_functionality1(spirv),
                        reflection,
                        includes,
                        from_cache: true,
                    });
                }
            }
        }
        if request.language == ShaderLanguage::Hlsl {
            hlsl_lint::check_square_matrix_multiply(request, &settings)?;
        }
        let CompiledWords { spirv, includes } = match &self.options.isolation {
            Isolation::InProcess => compile_in_process(request, &settings)?,
            Isolation::Child(config) => child::compile_in_child(request, &settings, config)?,
        };
        let reflection = reflect(&spirv)?;
        if let (Some(cache), Some(key)) = (&self.cache, key) {
            cache.store(key, &spirv, &includes);
        }
        Ok(CompiledShader {
            spirv: strip::strip_hlsl_functionality1(spirv),
            reflection,
            includes,
            from_cache: false,
        })
    }
}

/// The files `source` (at `path`) includes, transitively, as `#include` resolution finds them
/// (a lexical scan: includes in inactive `#if` blocks are listed too; missing ones are skipped).
/// Useful for watching a shader whose compile failed.
pub fn scan_include_files(
    source: &str,
    path: &std::path::Path,
    include_dirs: &[PathBuf],
) -> Vec<PathBuf> {
    include::collect_includes(source, &path.display().to_string(), include_dirs)
        .into_iter()
        .flatten()
        .map(|file| file.path)
        .collect()
}

/// Compiles a GLSL compute shader in this process (no cache, includes relative to `name`'s
/// directory): the simple entry point for built-in shaders of the Vulkan backend. Stable API.
///
/// ```
/// let spirv = rpsl_shaders::compile_glsl_compute(
///     "#version 450\nlayout(local_size_x = 64) in;\nvoid main() {}",
///     "noop.comp",
/// )
/// .unwrap();
/// assert_eq!(spirv[0], 0x0723_0203);
/// ```
pub fn compile_glsl_compute(source: &str, name: &str) -> Result<Vec<u32>, ShaderError> {
    let request = ShaderRequest::new(source, name, ShaderLanguage::Glsl, ShaderStage::Compute);
    let settings = CompileSettings {
        include_dirs: Vec::new(),
        optimize: true,
        hlsl_shifts: HlslBindingShifts::default(),
        debug_info: false,
    };
    Ok(compile_in_process(&request, &settings)?.spirv)
}
