//! rpsl-effects: MagpieFX effects (multi-pass HLSL image effects, format version 4) for rpsl.
//!
//! - [`parse_effect_file`] reads an effect into a typed [`Effect`]: parameters, textures (with
//!   their [`SizeExpr`] sizes), samplers, COMMON blocks and passes, checked against every rule of
//!   the format; errors are located diagnostics ([`EffectErrors`]) rendered like RPSL's.
//! - [`SizeExpr`] evaluates `//!WIDTH`/`//!HEIGHT`; [`resolve_sizes`] sizes every texture of an
//!   effect for one input size.
//!
//! Magpie itself is GPL-3.0; this crate is written from the format description only.

#![deny(missing_docs)]

mod error;
mod format;
mod model;
mod parse;
mod size_expr;
mod sizes;

pub use error::EffectErrors;
pub use format::{NumericKind, TextureFormat};
pub use model::{
    AddressMode, Effect, Filter, HlslBlock, ParamType, Parameter, Pass, PassStyle, Sampler,
    Texture, TextureRole, TextureSize, INPUT_TEXTURE, OUTPUT_TEXTURE,
};
pub use parse::{parse_effect_file, parse_effect_source, FORMAT_VERSION, MAX_FILE_BYTES};
pub use size_expr::{
    SizeEvalError, SizeExpr, SizeInputs, SizeSyntaxError, SizeVariable, MAX_TEXTURE_DIMENSION,
};
pub use sizes::{resolve_sizes, EffectSizes, SizeError};
