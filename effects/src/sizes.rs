//! Sizes every texture of an effect for one input image: the output size first (fixed by
//! `OUTPUT`'s expressions, or asked for when the effect takes any), then the intermediates, whose
//! expressions may use both.

use std::fmt;

use crate::model::{Effect, TextureRole, OUTPUT_TEXTURE};
use crate::size_expr::{SizeEvalError, SizeInputs};

/// The sizes of one run of an effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EffectSizes {
    /// The input image's size.
    pub input: [u32; 2],
    /// The output image's size.
    pub output: [u32; 2],
    /// Per texture of [`Effect::textures`]: its size; `None` for `//!SOURCE` textures (sized by
    /// their files).
    pub textures: Vec<Option<[u32; 2]>>,
}

/// Why an effect cannot be sized.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeError {
    /// The effect produces any output size and none was asked for.
    OutputSizeNeeded,
    /// An intermediate texture has no size expressions (only a hand-built [`Effect`] can).
    Unsized {
        /// The texture.
        name: String,
    },
    /// A texture's expression has no valid value.
    Texture {
        /// The texture.
        name: String,
        /// Why.
        error: SizeEvalError,
    },
}

impl fmt::Display for SizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizeError::OutputSizeNeeded => f.write_str(
                "the effect's output size is not fixed (OUTPUT has no //!WIDTH and //!HEIGHT): \
                 give one",
            ),
            SizeError::Unsized { name } => write!(f, "texture `{name}` has no size"),
            SizeError::Texture { name, error } => write!(f, "texture `{name}`: {error}"),
        }
    }
}

impl std::error::Error for SizeError {}

/// Sizes `effect`'s textures for an input of `input` (width, height). `requested_output` is the
/// output size to use when the effect does not fix one; an effect that fixes it ignores it.
///
/// ```
/// # let folder = tempfile::tempdir().unwrap();
/// # let path = folder.path().join("Double.hlsl");
/// # std::fs::write(&path, "//!MAGPIE EFFECT\n//!VERSION 4\n//!TEXTURE\n\
/// #     //!WIDTH INPUT_WIDTH * 2\n//!HEIGHT INPUT_HEIGHT * 2\nTexture2D OUTPUT;\n\
/// #     //!PASS 1\n//!STYLE PS\n//!IN INPUT\n//!OUT OUTPUT\n\
/// #     float4 Pass1(float2 pos) { return 0; }\n").unwrap();
/// let effect = rpsl_effects::parse_effect_file(&path).unwrap();
/// let sizes = rpsl_effects::resolve_sizes(&effect, [640, 360], None).unwrap();
/// assert_eq!(sizes.output, [1280, 720]);
/// ```
pub fn resolve_sizes(
    effect: &Effect,
    input: [u32; 2],
    requested_output: Option<[u32; 2]>,
) -> Result<EffectSizes, SizeError> {
    let texture_error = |index: usize, error| SizeError::Texture {
        name: effect.textures[index].name.clone(),
        error,
    };
    let output = match effect.output_size() {
        Some(size) => {
            let inputs = SizeInputs {
                input,
                output: None,
            };
            [
                size.width
                    .evaluate(&inputs)
                    .map_err(|error| texture_error(OUTPUT_TEXTURE, error))?,
                size.height
                    .evaluate(&inputs)
                    .map_err(|error| texture_error(OUTPUT_TEXTURE, error))?,
            ]
        }
        None => requested_output.ok_or(SizeError::OutputSizeNeeded)?,
    };
    let inputs = SizeInputs {
        input,
        output: Some(output),
    };
    let mut textures = Vec::with_capacity(effect.textures.len());
    for (index, texture) in effect.textures.iter().enumerate() {
        textures.push(match texture.role {
            TextureRole::Input => Some(input),
            TextureRole::Output => Some(output),
            TextureRole::Source => None,
            TextureRole::Intermediate => {
                let Some(size) = texture.size.as_ref() else {
                    return Err(SizeError::Unsized {
                        name: texture.name.clone(),
                    });
                };
                Some([
                    size.width
                        .evaluate(&inputs)
                        .map_err(|error| texture_error(index, error))?,
                    size.height
                        .evaluate(&inputs)
                        .map_err(|error| texture_error(index, error))?,
                ])
            }
        });
    }
    Ok(EffectSizes {
        input,
        output,
        textures,
    })
}
