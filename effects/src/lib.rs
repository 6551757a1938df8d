//! rpsl-effects: MagpieFX effects (multi-pass HLSL image effects, format version 4) for rpsl.
//!
//! - [`parse_effect_file`] reads an effect into a typed [`Effect`]: parameters, textures (with
//!   their [`SizeExpr`] sizes), samplers, COMMON blocks and passes, checked against every rule of
//!   the format; errors are located diagnostics ([`EffectErrors`]) rendered like RPSL's.
//! - [`SizeExpr`] evaluates `//!WIDTH`/`//!HEIGHT`; [`resolve_sizes`] sizes every texture of an
//!   effect for one input size.
//! - [`generate_passes`] writes each pass as one HLSL compute shader (predefined macros, constant
//!   buffer, resources, predefined functions, COMMON blocks, the pass, an entry point for its
//!   PS or CS style); [`compile_effect`] compiles them with `rpsl-shaders`.
//! - [`record_effect`] records an effect into an rpsl-runtime [`rpsl_runtime::GraphBuilder`]:
//!   one compute node per pass ([`pass_declarations`]), one transient per intermediate texture.
//! - [`EffectRunner`] runs a chain of effects ([`prepare_effect`]) on the Vulkan backend.
//! - [`load_source_image`] reads a `//!SOURCE` texture (PNG, BMP, JPEG, OpenEXR, DDS with BC
//!   formats), [`load_effect_sources`] every one of an effect (errors located at the
//!   directive); [`EffectImage`] writes a result as an 8- or 16-bit PNG or an OpenEXR file.
//! - [`EffectNode`] binds a script's node declaration to an effect: its calls record the
//!   effect's passes into the script's frame, source textures as persistent textures uploaded
//!   once.
//!
//! Magpie itself is GPL-3.0; this crate is written from the format description only.

#![deny(missing_docs)]

mod compile;
mod constants;
mod error;
mod format;
mod graph;
mod hlsl;
mod model;
mod node_effect;
mod output_image;
mod parse;
mod size_expr;
mod sizes;
mod source_image;
mod statics;
mod vulkan;

pub use compile::{compile_effect, pass_request, CompiledPass, PassCompileError};
pub use constants::{ConstantField, ConstantLayout, ConstantType, ConstantValue};
pub use error::EffectErrors;
pub use format::{NumericKind, TextureFormat};
pub use graph::{
    pass_declarations, record_effect, EffectBindings, EffectGraphError, RecordedEffect,
    CONSTANTS_PARAM,
};
pub use hlsl::{generate_passes, PassBindings, PassSource, PassVariant, ENTRY_POINT};
pub use model::{
    AddressMode, Effect, Filter, HlslBlock, ParamType, Parameter, Pass, PassStyle, Sampler,
    Texture, TextureRole, TextureSize, INPUT_TEXTURE, OUTPUT_TEXTURE,
};
pub use node_effect::{
    constants_node_name, pass_node_name, source_resource_name, source_upload_name,
    DeclarationMismatch, EffectNode,
};
pub use output_image::EffectImage;
pub use parse::{parse_effect_file, parse_effect_source, FORMAT_VERSION, MAX_FILE_BYTES};
pub use size_expr::{
    SizeEvalError, SizeExpr, SizeInputs, SizeSyntaxError, SizeVariable, MAX_TEXTURE_DIMENSION,
};
pub use sizes::{resolve_sizes, EffectSizes, SizeError};
pub use source_image::{load_effect_sources, load_source_image, SourceImage, SourceImageError};
pub use vulkan::{
    bind_effect_node, chain_frame, chain_frame_at, prepare_effect, EffectLink, EffectRunError,
    EffectRunner, RgbaImage,
};
