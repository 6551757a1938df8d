//! The constant buffer every pass of an effect shares (binding 0): the predefined sizes, the
//! output size and pixel size of each PS-style pass that does not write OUTPUT, then the
//! parameters. [`ConstantLayout`] gives each field's byte offset under HLSL's packing rules
//! (16-byte registers, nothing straddles one), and [`ConstantLayout::fill`] writes the values.

use crate::model::{Effect, ParamType, PassStyle, TextureRole};
use crate::sizes::EffectSizes;

/// The type of one constant-buffer field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConstantType {
    /// `uint2`.
    Uint2,
    /// `float2`.
    Float2,
    /// `float`.
    Float,
    /// `int`.
    Int,
}

impl ConstantType {
    /// The HLSL type name.
    pub fn hlsl(self) -> &'static str {
        match self {
            ConstantType::Uint2 => "uint2",
            ConstantType::Float2 => "float2",
            ConstantType::Float => "float",
            ConstantType::Int => "int",
        }
    }

    fn size(self) -> u32 {
        match self {
            ConstantType::Uint2 | ConstantType::Float2 => 8,
            ConstantType::Float | ConstantType::Int => 4,
        }
    }
}

/// What a field holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstantValue {
    /// The input image's size.
    InputSize,
    /// The output image's size.
    OutputSize,
    /// `1 / input size`.
    InputPt,
    /// `1 / output size`.
    OutputPt,
    /// `output size / input size`.
    Scale,
    /// The size of the first output of pass `n` (1-based).
    PassOutputSize(u32),
    /// `1 /` the size of the first output of pass `n`.
    PassOutputPt(u32),
    /// Parameter `i` of [`Effect::params`].
    Param(usize),
}

/// One field of the constant buffer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConstantField {
    /// The HLSL name (predefined fields start with `__`; parameters keep their names).
    pub name: String,
    /// Its type.
    pub ty: ConstantType,
    /// Byte offset in the buffer.
    pub offset: u32,
    /// What it holds.
    pub value: ConstantValue,
}

/// The layout of an effect's constant buffer.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConstantLayout {
    /// Fields in declaration order.
    pub fields: Vec<ConstantField>,
    /// The buffer's size in bytes (a multiple of 16).
    pub size: u32,
}

impl ConstantLayout {
    /// The layout for `effect`.
    ///
    /// ```
    /// # let folder = tempfile::tempdir().unwrap();
    /// # let path = folder.path().join("E.hlsl");
    /// # std::fs::write(&path, "//!MAGPIE EFFECT\n//!VERSION 4\n//!PARAMETER\n//!DEFAULT 1\n\
    /// #     //!MIN 0\n//!MAX 2\n//!STEP 1\nfloat gain;\n//!PASS 1\n//!STYLE PS\n//!IN INPUT\n\
    /// #     //!OUT OUTPUT\nfloat4 Pass1(float2 pos) { return gain; }\n").unwrap();
    /// # let effect = rpsl_effects::parse_effect_file(&path).unwrap();
    /// let layout = rpsl_effects::ConstantLayout::of(&effect);
    /// let gain = layout.fields.iter().find(|field| field.name == "gain").unwrap();
    /// assert_eq!((gain.offset, layout.size), (40, 48));
    /// ```
    pub fn of(effect: &Effect) -> ConstantLayout {
        let mut fields = Vec::new();
        let mut offset = 0u32;
        let mut push = |name: String, ty: ConstantType, value: ConstantValue| {
            let size = ty.size();
            offset = offset.next_multiple_of(size);
            if offset / 16 != (offset + size - 1) / 16 {
                offset = offset.next_multiple_of(16);
            }
            fields.push(ConstantField {
                name,
                ty,
                offset,
                value,
            });
            offset += size;
        };
        for (name, ty, value) in [
            ("__inputSize", ConstantType::Uint2, ConstantValue::InputSize),
            (
                "__outputSize",
                ConstantType::Uint2,
                ConstantValue::OutputSize,
            ),
            ("__inputPt", ConstantType::Float2, ConstantValue::InputPt),
            ("__outputPt", ConstantType::Float2, ConstantValue::OutputPt),
            ("__scale", ConstantType::Float2, ConstantValue::Scale),
        ] {
            push(name.to_string(), ty, value);
        }
        for pass in &effect.passes {
            if pass.style == PassStyle::Ps && !writes_output(effect, pass.outputs.as_slice()) {
                push(
                    pass_output_size_name(pass.number),
                    ConstantType::Uint2,
                    ConstantValue::PassOutputSize(pass.number),
                );
                push(
                    pass_output_pt_name(pass.number),
                    ConstantType::Float2,
                    ConstantValue::PassOutputPt(pass.number),
                );
            }
        }
        for (index, param) in effect.params.iter().enumerate() {
            let ty = match param.ty {
                ParamType::Float => ConstantType::Float,
                ParamType::Int => ConstantType::Int,
            };
            push(param.name.clone(), ty, ConstantValue::Param(index));
        }
        ConstantLayout {
            fields,
            size: offset.next_multiple_of(16).max(16),
        }
    }

    /// The buffer's bytes for one run: `sizes` from [`crate::resolve_sizes`], `params[i]` the
    /// value of parameter `i` (clamped to its bounds; an int parameter is rounded).
    pub fn fill(&self, effect: &Effect, sizes: &EffectSizes, params: &[f64]) -> Vec<u8> {
        let mut bytes = vec![0u8; self.size as usize];
        let pt = |size: [u32; 2]| [1.0 / size[0] as f32, 1.0 / size[1] as f32];
        for field in &self.fields {
            let at = field.offset as usize;
            let mut put = |words: &[[u8; 4]]| {
                for (i, word) in words.iter().enumerate() {
                    bytes[at + 4 * i..at + 4 * i + 4].copy_from_slice(word);
                }
            };
            let uints = |v: [u32; 2]| [v[0].to_le_bytes(), v[1].to_le_bytes()];
            let floats = |v: [f32; 2]| [v[0].to_le_bytes(), v[1].to_le_bytes()];
            let pass_size = |number: u32| {
                effect
                    .passes
                    .get(number as usize - 1)
                    .and_then(|pass| pass.outputs.first())
                    .and_then(|&texture| sizes.textures.get(texture).copied().flatten())
                    .unwrap_or(sizes.output)
            };
            match &field.value {
                ConstantValue::InputSize => put(&uints(sizes.input)),
                ConstantValue::OutputSize => put(&uints(sizes.output)),
                ConstantValue::InputPt => put(&floats(pt(sizes.input))),
                ConstantValue::OutputPt => put(&floats(pt(sizes.output))),
                ConstantValue::Scale => put(&floats([
                    sizes.output[0] as f32 / sizes.input[0] as f32,
                    sizes.output[1] as f32 / sizes.input[1] as f32,
                ])),
                ConstantValue::PassOutputSize(number) => put(&uints(pass_size(*number))),
                ConstantValue::PassOutputPt(number) => put(&floats(pt(pass_size(*number)))),
                ConstantValue::Param(index) => {
                    let param = &effect.params[*index];
                    let value = params
                        .get(*index)
                        .copied()
                        .unwrap_or(param.default)
                        .max(param.min)
                        .min(param.max);
                    match param.ty {
                        ParamType::Float => put(&[(value as f32).to_le_bytes()]),
                        ParamType::Int => put(&[(value.round() as i32).to_le_bytes()]),
                    }
                }
            }
        }
        bytes
    }
}

/// Whether a pass with these outputs writes the effect's OUTPUT.
pub(crate) fn writes_output(effect: &Effect, outputs: &[usize]) -> bool {
    outputs
        .iter()
        .any(|&index| effect.textures[index].role == TextureRole::Output)
}

/// The field holding pass `number`'s output size.
pub(crate) fn pass_output_size_name(number: u32) -> String {
    format!("__pass{number}OutputSize")
}

/// The field holding pass `number`'s output pixel size.
pub(crate) fn pass_output_pt_name(number: u32) -> String {
    format!("__pass{number}OutputPt")
}
