//! Compiling an effect's passes to SPIR-V through `rpsl-shaders` (shaderc, its on-disk cache and,
//! when the compiler is configured so, its child process: a pass that crashes or hangs the
//! compiler fails this effect with an error, never the program).

use std::fmt;

use rpsl_shaders::{
    CompiledShader, ShaderCompiler, ShaderError, ShaderLanguage, ShaderRequest, ShaderStage,
};

use crate::hlsl::{generate_passes, PassSource, PassVariant};
use crate::model::Effect;

/// One compiled pass.
#[derive(Clone, Debug)]
pub struct CompiledPass {
    /// The generated source and its bindings.
    pub source: PassSource,
    /// The SPIR-V and its reflection.
    pub shader: CompiledShader,
}

/// A pass that did not compile.
#[derive(Clone, Debug)]
pub struct PassCompileError {
    /// The effect file.
    pub effect: std::path::PathBuf,
    /// The pass number (1-based).
    pub pass: u32,
    /// The pass's `//!DESC`, if any.
    pub desc: Option<String>,
    /// The compiler's error (diagnostics name the effect file and its lines).
    pub error: Box<ShaderError>,
}

impl fmt::Display for PassCompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: pass {}", self.effect.display(), self.pass)?;
        if let Some(desc) = &self.desc {
            write!(f, " ({desc})")?;
        }
        write!(f, " does not compile: {}", self.error)
    }
}

impl std::error::Error for PassCompileError {}

/// The shader request of a generated pass.
pub fn pass_request(source: &PassSource) -> ShaderRequest {
    ShaderRequest::new(
        source.source.clone(),
        source.path.clone(),
        ShaderLanguage::Hlsl,
        ShaderStage::Compute,
    )
    .with_entry_point(source.entry_point.clone())
}

/// Generates and compiles every pass of `effect`; stops at the first pass that fails.
pub fn compile_effect(
    effect: &Effect,
    variant: &PassVariant,
    compiler: &ShaderCompiler,
) -> Result<Vec<CompiledPass>, PassCompileError> {
    generate_passes(effect, variant)
        .into_iter()
        .map(|source| {
            let shader = compiler.compile(&pass_request(&source)).map_err(|error| {
                let pass = &effect.passes[source.number as usize - 1];
                PassCompileError {
                    effect: effect.path.clone(),
                    pass: source.number,
                    desc: pass.desc.clone(),
                    error: Box::new(error),
                }
            })?;
            Ok(CompiledPass { source, shader })
        })
        .collect()
}
