//! `RPS_FORMAT` values: names for the dump, texel sizes, block compression and depth/stencil planes.
//!
//! The numbering is RPS's `RpsFormat`, which equals `DXGI_FORMAT` numerically (RPS's D3D12 backend
//! casts one to the other). Note that this includes `R10G10B10_XR_BIAS_A2_UNORM` = 89, which the
//! copy of `rpsl.h` in this project leaves out of its listing; every later value follows DXGI.
//! Use [`Format::from_name`] rather than counting lines of `rpsl.h`.

use std::fmt;

/// A resource or view format: the `RPS_FORMAT` enum's `u32` value.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Format(pub u32);

/// What a format is made of.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct FormatInfo {
    /// The name without the `RPS_FORMAT_` prefix, as the dump prints it.
    pub name: &'static str,
    /// Bits per element (per texel, or per 4x4 block for block-compressed formats).
    pub bits_per_element: u32,
    /// Width and height in texels of one element: 4 for block-compressed formats, else 1.
    pub block_size: u32,
    /// The format has (or, for a view format, selects) a depth plane.
    pub depth: bool,
    /// The format has (or, for a view format, selects) a stencil plane.
    pub stencil: bool,
    /// The format is a view of one plane of a depth/stencil resource readable as color
    /// (`R32_FLOAT_X8X24_TYPELESS`, `X24_TYPELESS_G8_UINT`, ...).
    pub plane_view: bool,
    /// Video / palette formats that textures of this runtime cannot be created with.
    pub special: bool,
}

const fn color(name: &'static str, bits: u32) -> FormatInfo {
    FormatInfo {
        name,
        bits_per_element: bits,
        block_size: 1,
        depth: false,
        stencil: false,
        plane_view: false,
        special: false,
    }
}
const fn block(name: &'static str, bits: u32) -> FormatInfo {
    FormatInfo {
        name,
        bits_per_element: bits,
        block_size: 4,
        depth: false,
        stencil: false,
        plane_view: false,
        special: false,
    }
}
const fn ds(name: &'static str, bits: u32, depth: bool, stencil: bool) -> FormatInfo {
    FormatInfo {
        name,
        bits_per_element: bits,
        block_size: 1,
        depth,
        stencil,
        plane_view: false,
        special: false,
    }
}
const fn plane(name: &'static str, bits: u32, depth: bool, stencil: bool) -> FormatInfo {
    FormatInfo {
        name,
        bits_per_element: bits,
        block_size: 1,
        depth,
        stencil,
        plane_view: true,
        special: false,
    }
}
const fn special(name: &'static str, bits: u32) -> FormatInfo {
    FormatInfo {
        name,
        bits_per_element: bits,
        block_size: 1,
        depth: false,
        stencil: false,
        plane_view: false,
        special: true,
    }
}

/// Every format, indexed by its value.
static FORMATS: [FormatInfo; 116] = [
    special("UNKNOWN", 0),
    color("R32G32B32A32_TYPELESS", 128),
    color("R32G32B32A32_FLOAT", 128),
    color("R32G32B32A32_UINT", 128),
    color("R32G32B32A32_SINT", 128),
    color("R32G32B32_TYPELESS", 96),
    color("R32G32B32_FLOAT", 96),
    color("R32G32B32_UINT", 96),
    color("R32G32B32_SINT", 96),
    color("R16G16B16A16_TYPELESS", 64),
    color("R16G16B16A16_FLOAT", 64),
    color("R16G16B16A16_UNORM", 64),
    color("R16G16B16A16_UINT", 64),
    color("R16G16B16A16_SNORM", 64),
    color("R16G16B16A16_SINT", 64),
    color("R32G32_TYPELESS", 64),
    color("R32G32_FLOAT", 64),
    color("R32G32_UINT", 64),
    color("R32G32_SINT", 64),
    ds("R32G8X24_TYPELESS", 64, true, true),
    ds("D32_FLOAT_S8X24_UINT", 64, true, true),
    plane("R32_FLOAT_X8X24_TYPELESS", 64, true, false),
    plane("X32_TYPELESS_G8X24_UINT", 64, false, true),
    color("R10G10B10A2_TYPELESS", 32),
    color("R10G10B10A2_UNORM", 32),
    color("R10G10B10A2_UINT", 32),
    color("R11G11B10_FLOAT", 32),
    color("R8G8B8A8_TYPELESS", 32),
    color("R8G8B8A8_UNORM", 32),
    color("R8G8B8A8_UNORM_SRGB", 32),
    color("R8G8B8A8_UINT", 32),
    color("R8G8B8A8_SNORM", 32),
    color("R8G8B8A8_SINT", 32),
    color("R16G16_TYPELESS", 32),
    color("R16G16_FLOAT", 32),
    color("R16G16_UNORM", 32),
    color("R16G16_UINT", 32),
    color("R16G16_SNORM", 32),
    color("R16G16_SINT", 32),
    color("R32_TYPELESS", 32),
    ds("D32_FLOAT", 32, true, false),
    color("R32_FLOAT", 32),
    color("R32_UINT", 32),
    color("R32_SINT", 32),
    ds("R24G8_TYPELESS", 32, true, true),
    ds("D24_UNORM_S8_UINT", 32, true, true),
    plane("R24_UNORM_X8_TYPELESS", 32, true, false),
    plane("X24_TYPELESS_G8_UINT", 32, false, true),
    color("R8G8_TYPELESS", 16),
    color("R8G8_UNORM", 16),
    color("R8G8_UINT", 16),
    color("R8G8_SNORM", 16),
    color("R8G8_SINT", 16),
    color("R16_TYPELESS", 16),
    color("R16_FLOAT", 16),
    ds("D16_UNORM", 16, true, false),
    color("R16_UNORM", 16),
    color("R16_UINT", 16),
    color("R16_SNORM", 16),
    color("R16_SINT", 16),
    color("R8_TYPELESS", 8),
    color("R8_UNORM", 8),
    color("R8_UINT", 8),
    color("R8_SNORM", 8),
    color("R8_SINT", 8),
    color("A8_UNORM", 8),
    color("R1_UNORM", 1),
    color("R9G9B9E5_SHAREDEXP", 32),
    color("R8G8_B8G8_UNORM", 16),
    color("G8R8_G8B8_UNORM", 16),
    block("BC1_TYPELESS", 64),
    block("BC1_UNORM", 64),
    block("BC1_UNORM_SRGB", 64),
    block("BC2_TYPELESS", 128),
    block("BC2_UNORM", 128),
    block("BC2_UNORM_SRGB", 128),
    block("BC3_TYPELESS", 128),
    block("BC3_UNORM", 128),
    block("BC3_UNORM_SRGB", 128),
    block("BC4_TYPELESS", 64),
    block("BC4_UNORM", 64),
    block("BC4_SNORM", 64),
    block("BC5_TYPELESS", 128),
    block("BC5_UNORM", 128),
    block("BC5_SNORM", 128),
    color("B5G6R5_UNORM", 16),
    color("B5G5R5A1_UNORM", 16),
    color("B8G8R8A8_UNORM", 32),
    color("B8G8R8X8_UNORM", 32),
    color("R10G10B10_XR_BIAS_A2_UNORM", 32),
    color("B8G8R8A8_TYPELESS", 32),
    color("B8G8R8A8_UNORM_SRGB", 32),
    color("B8G8R8X8_TYPELESS", 32),
    color("B8G8R8X8_UNORM_SRGB", 32),
    block("BC6H_TYPELESS", 128),
    block("BC6H_UF16", 128),
    block("BC6H_SF16", 128),
    block("BC7_TYPELESS", 128),
    block("BC7_UNORM", 128),
    block("BC7_UNORM_SRGB", 128),
    special("AYUV", 32),
    special("Y410", 32),
    special("Y416", 64),
    special("NV12", 12),
    special("P010", 24),
    special("P016", 24),
    special("420_OPAQUE", 12),
    special("YUY2", 16),
    special("Y210", 32),
    special("Y216", 32),
    special("NV11", 12),
    special("AI44", 8),
    special("IA44", 8),
    special("P8", 8),
    special("A8P8", 16),
    color("B4G4R4A4_UNORM", 16),
];

impl Format {
    /// `RPS_FORMAT_UNKNOWN`.
    pub const UNKNOWN: Format = Format(0);
    /// `RPS_FORMAT_R16G16B16A16_FLOAT`.
    pub const R16G16B16A16_FLOAT: Format = Format(10);
    /// `RPS_FORMAT_D32_FLOAT_S8X24_UINT`.
    pub const D32_FLOAT_S8X24_UINT: Format = Format(20);
    /// `RPS_FORMAT_R32_FLOAT_X8X24_TYPELESS`.
    pub const R32_FLOAT_X8X24_TYPELESS: Format = Format(21);
    /// `RPS_FORMAT_X32_TYPELESS_G8X24_UINT`.
    pub const X32_TYPELESS_G8X24_UINT: Format = Format(22);
    /// `RPS_FORMAT_R8G8B8A8_UNORM`.
    pub const R8G8B8A8_UNORM: Format = Format(28);
    /// `RPS_FORMAT_D32_FLOAT`.
    pub const D32_FLOAT: Format = Format(40);
    /// `RPS_FORMAT_R32_FLOAT`.
    pub const R32_FLOAT: Format = Format(41);
    /// `RPS_FORMAT_D24_UNORM_S8_UINT`.
    pub const D24_UNORM_S8_UINT: Format = Format(45);
    /// `RPS_FORMAT_D16_UNORM`.
    pub const D16_UNORM: Format = Format(55);
    /// `RPS_FORMAT_BC1_UNORM`.
    pub const BC1_UNORM: Format = Format(71);
    /// `RPS_FORMAT_B8G8R8A8_UNORM`.
    pub const B8G8R8A8_UNORM: Format = Format(87);
    /// The number of defined formats; valid values are `0..COUNT`.
    pub const COUNT: u32 = FORMATS.len() as u32;

    /// The description of a defined format, `None` for values out of range.
    #[inline]
    pub fn info(self) -> Option<&'static FormatInfo> {
        FORMATS.get(self.0 as usize)
    }

    /// The name without the `RPS_FORMAT_` prefix (`"R8G8B8A8_UNORM"`), `None` for unknown values.
    ///
    /// ```
    /// assert_eq!(rpsl_types::Format(28).name(), Some("R8G8B8A8_UNORM"));
    /// ```
    #[inline]
    pub fn name(self) -> Option<&'static str> {
        self.info().map(|info| info.name)
    }

    /// The format of a name, with or without the `RPS_FORMAT_` prefix.
    ///
    /// ```
    /// use rpsl_types::Format;
    /// assert_eq!(Format::from_name("RPS_FORMAT_D32_FLOAT"), Some(Format::D32_FLOAT));
    /// assert_eq!(Format::from_name("B8G8R8A8_UNORM"), Some(Format::B8G8R8A8_UNORM));
    /// ```
    pub fn from_name(name: &str) -> Option<Format> {
        let name = name.strip_prefix("RPS_FORMAT_").unwrap_or(name);
        FORMATS
            .iter()
            .position(|info| info.name == name)
            .map(|index| Format(index as u32))
    }

    /// Bits per element (texel or compressed block); 0 for `UNKNOWN` and undefined values.
    #[inline]
    pub fn bits_per_element(self) -> u32 {
        self.info().map_or(0, |info| info.bits_per_element)
    }

    /// Whole bytes per texel, rounded up (block-compressed formats: bytes per 4x4 block).
    #[inline]
    pub fn bytes_per_element(self) -> u32 {
        self.bits_per_element().div_ceil(8)
    }

    /// Texel footprint of one element: 4 for block-compressed formats, else 1.
    #[inline]
    pub fn block_size(self) -> u32 {
        self.info().map_or(1, |info| info.block_size)
    }

    /// Block-compressed (BCn) format.
    #[inline]
    pub fn is_block_compressed(self) -> bool {
        self.block_size() > 1
    }

    /// The format has a depth plane (includes depth-plane view formats).
    #[inline]
    pub fn has_depth(self) -> bool {
        self.info().is_some_and(|info| info.depth)
    }

    /// The format has a stencil plane (includes stencil-plane view formats).
    #[inline]
    pub fn has_stencil(self) -> bool {
        self.info().is_some_and(|info| info.stencil)
    }

    /// A depth and/or stencil resource format (not a color-readable plane view of one).
    #[inline]
    pub fn is_depth_stencil(self) -> bool {
        self.info()
            .is_some_and(|info| (info.depth || info.stencil) && !info.plane_view)
    }

    /// The planes a view of this format selects, as a [`crate::PlaneMask`]-style bit set:
    /// bit 0 = color/depth, bit 1 = stencil.
    #[inline]
    pub fn plane_bits(self) -> u8 {
        match self.info() {
            Some(info) if info.depth || info.stencil => {
                (info.depth as u8) | ((info.stencil as u8) << 1)
            }
            _ => 1,
        }
    }

    /// The number of planes of a resource of this format (2 for depth + stencil formats).
    #[inline]
    pub fn plane_count(self) -> u32 {
        if self.has_depth() && self.has_stencil() {
            2
        } else {
            1
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => f.write_str(name),
            None => write!(f, "FORMAT_{}", self.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_follows_dxgi() {
        assert_eq!(Format::from_name("BC6H_TYPELESS"), Some(Format(94)));
        assert_eq!(Format::from_name("B4G4R4A4_UNORM"), Some(Format(115)));
        assert_eq!(Format::from_name("R32G8X24_TYPELESS"), Some(Format(19)));
        assert_eq!(Format(45).name(), Some("D24_UNORM_S8_UINT"));
        assert_eq!(Format::from_name("NOPE"), None);
    }

    #[test]
    fn planes_and_sizes() {
        for name in [
            "D32_FLOAT_S8X24_UINT",
            "R32G8X24_TYPELESS",
            "D24_UNORM_S8_UINT",
        ] {
            let format = Format::from_name(name).unwrap();
            assert_eq!(format.plane_count(), 2, "{name}");
            assert!(format.is_depth_stencil());
        }
        assert_eq!(Format::R32_FLOAT_X8X24_TYPELESS.plane_bits(), 1);
        assert_eq!(Format::X32_TYPELESS_G8X24_UINT.plane_bits(), 2);
        assert_eq!(Format::D32_FLOAT.plane_count(), 1);
        assert_eq!(Format::R16G16B16A16_FLOAT.bytes_per_element(), 8);
        assert_eq!(Format::BC1_UNORM.bytes_per_element(), 8);
        assert!(Format::BC1_UNORM.is_block_compressed());
        assert_eq!(Format(999).name(), None);
    }
}
