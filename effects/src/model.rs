//! The typed form of a parsed effect: [`Effect`] and its parameters, textures, samplers, HLSL
//! blocks and passes.

use std::path::PathBuf;

use rpsl_frontend::source::Span;

use crate::format::TextureFormat;
use crate::size_expr::SizeExpr;

/// A parsed MagpieFX effect (format version 4).
#[derive(Clone, Debug)]
pub struct Effect {
    /// The effect file.
    pub path: PathBuf,
    /// `//!SORT_NAME`, if given.
    pub sort_name: Option<String>,
    /// `//!USE MulAdd`: the `MulAdd` functions are defined for its passes.
    pub uses_mul_add: bool,
    /// `//!CAPABILITY FP16`: the effect has a half-precision variant (`MP_FP16`).
    pub supports_fp16: bool,
    /// `//!PARAMETER` blocks, in file order (their order in the constant buffer).
    pub params: Vec<Parameter>,
    /// Every texture: `INPUT` first, `OUTPUT` second (declared or implied), then the others in
    /// file order.
    pub textures: Vec<Texture>,
    /// `//!SAMPLER` blocks, in file order.
    pub samplers: Vec<Sampler>,
    /// `//!COMMON` blocks, in file order (every pass sees all of them).
    pub common_hlsl: Vec<HlslBlock>,
    /// `//!PASS` blocks: `passes[i]` is pass `i + 1`.
    pub passes: Vec<Pass>,
    /// The files the effect was read from: the effect file first, then each file its
    /// `#include`s read, once each (an edit of any of them changes the effect).
    pub files: Vec<PathBuf>,
}

/// Index of `INPUT` in [`Effect::textures`].
pub const INPUT_TEXTURE: usize = 0;
/// Index of `OUTPUT` in [`Effect::textures`].
pub const OUTPUT_TEXTURE: usize = 1;

impl Effect {
    /// The texture named `name`, with its index.
    pub fn texture(&self, name: &str) -> Option<(usize, &Texture)> {
        self.textures
            .iter()
            .enumerate()
            .find(|(_, texture)| texture.name == name)
    }

    /// The parameter named `name`, with its index.
    pub fn param(&self, name: &str) -> Option<(usize, &Parameter)> {
        self.params
            .iter()
            .enumerate()
            .find(|(_, param)| param.name == name)
    }

    /// The effect's fixed output size, when `OUTPUT` has `//!WIDTH`/`//!HEIGHT`; `None` when the
    /// effect produces any size asked of it.
    pub fn output_size(&self) -> Option<&TextureSize> {
        self.textures[OUTPUT_TEXTURE].size.as_ref()
    }
}

/// The type of a parameter's declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// `float NAME;`
    Float,
    /// `int NAME;`
    Int,
}

impl ParamType {
    /// The HLSL type name.
    pub fn hlsl(self) -> &'static str {
        match self {
            ParamType::Float => "float",
            ParamType::Int => "int",
        }
    }
}

/// A `//!PARAMETER` block.
#[derive(Clone, Debug, PartialEq)]
pub struct Parameter {
    /// The variable name passes use.
    pub name: String,
    /// `float` or `int`.
    pub ty: ParamType,
    /// `//!LABEL`: the name a user interface shows (the variable name when absent).
    pub label: Option<String>,
    /// `//!DEFAULT`.
    pub default: f64,
    /// `//!MIN`.
    pub min: f64,
    /// `//!MAX`.
    pub max: f64,
    /// `//!STEP`.
    pub step: f64,
    /// The declaration's name in the effect file.
    pub span: Span,
}

/// What a texture is to the effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureRole {
    /// `INPUT`: the image the effect is applied to (`R8G8B8A8_UNORM`).
    Input,
    /// `OUTPUT`: the effect's result (`R8G8B8A8_UNORM`, or its `//!FORMAT`).
    Output,
    /// A texture passes write and read, sized by its expressions.
    Intermediate,
    /// A texture loaded from an image file (`//!SOURCE`), read-only.
    Source,
}

/// `//!WIDTH` and `//!HEIGHT`.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureSize {
    /// The width expression.
    pub width: SizeExpr,
    /// The height expression.
    pub height: SizeExpr,
}

/// A `//!TEXTURE` block (or the implied `INPUT`/`OUTPUT`).
#[derive(Clone, Debug, PartialEq)]
pub struct Texture {
    /// The variable name passes use.
    pub name: String,
    /// Input, output, intermediate or loaded from a file.
    pub role: TextureRole,
    /// `//!FORMAT` (`INPUT` is `R8G8B8A8_UNORM`, and so is `OUTPUT` without one: a format on
    /// `OUTPUT` is an rpsl extension; a source texture without one is read as `float4`).
    pub format: Option<TextureFormat>,
    /// `//!WIDTH`/`//!HEIGHT` (intermediates always; `OUTPUT` when its size is fixed).
    pub size: Option<TextureSize>,
    /// `//!SOURCE`: the image file, resolved inside the effect's folder.
    pub source: Option<PathBuf>,
    /// The file name of `//!SOURCE` as the effect file writes it (where an error loading the
    /// image points).
    pub source_span: Option<Span>,
    /// The declaration's name in the effect file (`None` when implied).
    pub span: Option<Span>,
}

impl Texture {
    /// The format passes see: `INPUT` is `R8G8B8A8_UNORM`, `OUTPUT` its `//!FORMAT` or
    /// `R8G8B8A8_UNORM`; `None` for a source texture without `//!FORMAT` (read as `float4`).
    pub fn effective_format(&self) -> Option<TextureFormat> {
        match self.role {
            TextureRole::Input => Some(TextureFormat::R8G8B8A8Unorm),
            TextureRole::Output => Some(self.format.unwrap_or(TextureFormat::R8G8B8A8Unorm)),
            TextureRole::Intermediate | TextureRole::Source => self.format,
        }
    }
}

/// `//!FILTER`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    /// `LINEAR`: bilinear.
    Linear,
    /// `POINT`: nearest.
    Point,
}

/// `//!ADDRESS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressMode {
    /// `CLAMP` (the default): clamp to the edge.
    Clamp,
    /// `WRAP`: repeat.
    Wrap,
}

/// A `//!SAMPLER` block.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampler {
    /// The variable name passes use.
    pub name: String,
    /// `//!FILTER`.
    pub filter: Filter,
    /// `//!ADDRESS` (`CLAMP` when absent).
    pub address: AddressMode,
    /// The declaration's name in the effect file.
    pub span: Span,
}

/// HLSL text of one block, with where it came from (for `#line` directives).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HlslBlock {
    /// The text, `#include`s expanded (each with `#line` directives); directive lines are blank.
    pub text: String,
    /// The file the block starts in.
    pub file: PathBuf,
    /// The 1-based line of the file where `text` starts.
    pub first_line: u32,
}

/// How a pass runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PassStyle {
    /// Compute-shader style: `void PassN(uint2 blockStart, uint3 threadId)` per thread group.
    Cs {
        /// `//!BLOCK_SIZE`: pixels (width, height) one group covers.
        block_size: [u32; 2],
        /// `//!NUM_THREADS`: threads of a group (x, y, z).
        num_threads: [u32; 3],
    },
    /// Pixel-shader style: `MF4 PassN(float2 pos)` per output pixel (16x16 blocks, 64 threads).
    Ps,
}

impl PassStyle {
    /// The block a group covers and its thread counts (PS style: 16x16 and 64x1x1).
    pub fn block_and_threads(self) -> ([u32; 2], [u32; 3]) {
        match self {
            PassStyle::Cs {
                block_size,
                num_threads,
            } => (block_size, num_threads),
            PassStyle::Ps => ([16, 16], [64, 1, 1]),
        }
    }
}

/// A `//!PASS` block.
#[derive(Clone, Debug, PartialEq)]
pub struct Pass {
    /// The 1-based pass number (its entry point is `Pass{number}`).
    pub number: u32,
    /// `//!DESC`, if given.
    pub desc: Option<String>,
    /// `//!STYLE` with its block and thread sizes.
    pub style: PassStyle,
    /// `//!IN`: indices into [`Effect::textures`], in order.
    pub inputs: Vec<usize>,
    /// `//!OUT`: indices into [`Effect::textures`], in order.
    pub outputs: Vec<usize>,
    /// The pass's HLSL.
    pub hlsl: HlslBlock,
    /// The `//!PASS` directive in the effect file.
    pub span: Span,
}

impl Pass {
    /// The entry point the pass defines: `Pass1`, `Pass2`, ...
    pub fn entry_name(&self) -> String {
        format!("Pass{}", self.number)
    }
}
