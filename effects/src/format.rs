//! The texture formats an effect may give its textures (`//!FORMAT`), and what each one means for
//! the HLSL of a pass: the element type of its `Texture2D`/`RWTexture2D` and its storage format.

/// A texture format of `//!FORMAT` (the DXGI names without `DXGI_FORMAT_`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // the variants are the format names themselves
pub enum TextureFormat {
    R32G32B32A32Float,
    R16G16B16A16Float,
    R16G16B16A16Unorm,
    R16G16B16A16Snorm,
    R32G32Float,
    R10G10B10A2Unorm,
    R11G11B10Float,
    R8G8B8A8Unorm,
    R8G8B8A8Snorm,
    R16G16Float,
    R16G16Unorm,
    R16G16Snorm,
    R32Float,
    R8G8Unorm,
    R8G8Snorm,
    R16Float,
    R16Unorm,
    R16Snorm,
    R8Unorm,
    R8Snorm,
}

/// How the values of a format are stored: the HLSL qualifier of a writable texture's element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NumericKind {
    /// Floating point (no qualifier).
    Float,
    /// Unsigned normalized (`unorm float4`).
    Unorm,
    /// Signed normalized (`snorm float4`).
    Snorm,
}

impl TextureFormat {
    /// Every format, in the order the format description lists them.
    pub const ALL: [TextureFormat; 20] = [
        TextureFormat::R32G32B32A32Float,
        TextureFormat::R16G16B16A16Float,
        TextureFormat::R16G16B16A16Unorm,
        TextureFormat::R16G16B16A16Snorm,
        TextureFormat::R32G32Float,
        TextureFormat::R10G10B10A2Unorm,
        TextureFormat::R11G11B10Float,
        TextureFormat::R8G8B8A8Unorm,
        TextureFormat::R8G8B8A8Snorm,
        TextureFormat::R16G16Float,
        TextureFormat::R16G16Unorm,
        TextureFormat::R16G16Snorm,
        TextureFormat::R32Float,
        TextureFormat::R8G8Unorm,
        TextureFormat::R8G8Snorm,
        TextureFormat::R16Float,
        TextureFormat::R16Unorm,
        TextureFormat::R16Snorm,
        TextureFormat::R8Unorm,
        TextureFormat::R8Snorm,
    ];

    /// The name as effects write it.
    ///
    /// ```
    /// use rpsl_effects::TextureFormat;
    /// assert_eq!(TextureFormat::R16G16Float.name(), "R16G16_FLOAT");
    /// assert_eq!(TextureFormat::from_name("R8_UNORM"), Some(TextureFormat::R8Unorm));
    /// ```
    pub fn name(self) -> &'static str {
        self.info().0
    }

    /// The format named `name` (exact, upper case), if any.
    pub fn from_name(name: &str) -> Option<TextureFormat> {
        Self::ALL.into_iter().find(|format| format.name() == name)
    }

    /// Components a texel has (1 to 4): the `N` of `floatN` in HLSL.
    pub fn components(self) -> u32 {
        self.info().1
    }

    /// Float, unorm or snorm.
    pub fn numeric_kind(self) -> NumericKind {
        self.info().2
    }

    /// Bytes per texel.
    pub fn texel_bytes(self) -> u32 {
        self.info().3
    }

    /// The glslang storage-format attribute of a writable texture (`[[spv::format_rgba8]]`).
    pub fn spirv_format_attribute(self) -> &'static str {
        self.info().4
    }

    fn info(self) -> (&'static str, u32, NumericKind, u32, &'static str) {
        use NumericKind::{Float, Snorm, Unorm};
        use TextureFormat as F;
        match self {
            F::R32G32B32A32Float => ("R32G32B32A32_FLOAT", 4, Float, 16, "rgba32f"),
            F::R16G16B16A16Float => ("R16G16B16A16_FLOAT", 4, Float, 8, "rgba16f"),
            F::R16G16B16A16Unorm => ("R16G16B16A16_UNORM", 4, Unorm, 8, "rgba16"),
            F::R16G16B16A16Snorm => ("R16G16B16A16_SNORM", 4, Snorm, 8, "rgba16snorm"),
            F::R32G32Float => ("R32G32_FLOAT", 2, Float, 8, "rg32f"),
            F::R10G10B10A2Unorm => ("R10G10B10A2_UNORM", 4, Unorm, 4, "rgb10a2"),
            F::R11G11B10Float => ("R11G11B10_FLOAT", 3, Float, 4, "r11fg11fb10f"),
            F::R8G8B8A8Unorm => ("R8G8B8A8_UNORM", 4, Unorm, 4, "rgba8"),
            F::R8G8B8A8Snorm => ("R8G8B8A8_SNORM", 4, Snorm, 4, "rgba8snorm"),
            F::R16G16Float => ("R16G16_FLOAT", 2, Float, 4, "rg16f"),
            F::R16G16Unorm => ("R16G16_UNORM", 2, Unorm, 4, "rg16"),
            F::R16G16Snorm => ("R16G16_SNORM", 2, Snorm, 4, "rg16snorm"),
            F::R32Float => ("R32_FLOAT", 1, Float, 4, "r32f"),
            F::R8G8Unorm => ("R8G8_UNORM", 2, Unorm, 2, "rg8"),
            F::R8G8Snorm => ("R8G8_SNORM", 2, Snorm, 2, "rg8snorm"),
            F::R16Float => ("R16_FLOAT", 1, Float, 2, "r16f"),
            F::R16Unorm => ("R16_UNORM", 1, Unorm, 2, "r16"),
            F::R16Snorm => ("R16_SNORM", 1, Snorm, 2, "r16snorm"),
            F::R8Unorm => ("R8_UNORM", 1, Unorm, 1, "r8"),
            F::R8Snorm => ("R8_SNORM", 1, Snorm, 1, "r8snorm"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_round_trips_and_is_unique() {
        for format in TextureFormat::ALL {
            assert_eq!(TextureFormat::from_name(format.name()), Some(format));
        }
        let mut names: Vec<_> = TextureFormat::ALL.iter().map(|f| f.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), 20);
        assert_eq!(TextureFormat::from_name("r8_unorm"), None);
    }

    #[test]
    fn element_shapes() {
        assert_eq!(TextureFormat::R11G11B10Float.components(), 3);
        assert_eq!(TextureFormat::R10G10B10A2Unorm.components(), 4);
        assert_eq!(TextureFormat::R8G8Snorm.numeric_kind(), NumericKind::Snorm);
        assert_eq!(TextureFormat::R16G16B16A16Float.texel_bytes(), 8);
    }
}
