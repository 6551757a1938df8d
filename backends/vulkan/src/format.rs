//! `RPS_FORMAT` (DXGI numbering) to `VkFormat`, and image aspects of formats and planes.

use ash::vk;
use rpsl_runtime::Format;

/// The Vulkan format of an `RPS_FORMAT`, for the formats this backend supports so far.
// TODO: video and the remaining packed formats.
pub fn vk_format(format: Format) -> Option<vk::Format> {
    use vk::Format as F;
    Some(match format.0 {
        2 => F::R32G32B32A32_SFLOAT,
        3 => F::R32G32B32A32_UINT,
        4 => F::R32G32B32A32_SINT,
        10 => F::R16G16B16A16_SFLOAT,
        11 => F::R16G16B16A16_UNORM,
        12 => F::R16G16B16A16_UINT,
        16 => F::R32G32_SFLOAT,
        17 => F::R32G32_UINT,
        // Typeless depth-stencil formats: Vulkan has one format per depth-stencil layout.
        19 | 20 => F::D32_SFLOAT_S8_UINT,
        24 => F::A2B10G10R10_UNORM_PACK32,
        26 => F::B10G11R11_UFLOAT_PACK32,
        27 | 28 => F::R8G8B8A8_UNORM,
        29 => F::R8G8B8A8_SRGB,
        30 => F::R8G8B8A8_UINT,
        31 => F::R8G8B8A8_SNORM,
        32 => F::R8G8B8A8_SINT,
        34 => F::R16G16_SFLOAT,
        35 => F::R16G16_UNORM,
        36 => F::R16G16_UINT,
        40 => F::D32_SFLOAT,
        41 => F::R32_SFLOAT,
        42 => F::R32_UINT,
        43 => F::R32_SINT,
        44 | 45 => F::D24_UNORM_S8_UINT,
        49 => F::R8G8_UNORM,
        50 => F::R8G8_UINT,
        54 => F::R16_SFLOAT,
        55 => F::D16_UNORM,
        56 => F::R16_UNORM,
        57 => F::R16_UINT,
        61 => F::R8_UNORM,
        62 => F::R8_UINT,
        70 | 71 => F::BC1_RGBA_UNORM_BLOCK,
        72 => F::BC1_RGBA_SRGB_BLOCK,
        73 | 74 => F::BC2_UNORM_BLOCK,
        75 => F::BC2_SRGB_BLOCK,
        76 | 77 => F::BC3_UNORM_BLOCK,
        78 => F::BC3_SRGB_BLOCK,
        79 | 80 => F::BC4_UNORM_BLOCK,
        81 => F::BC4_SNORM_BLOCK,
        82 | 83 => F::BC5_UNORM_BLOCK,
        84 => F::BC5_SNORM_BLOCK,
        94 | 95 => F::BC6H_UFLOAT_BLOCK,
        96 => F::BC6H_SFLOAT_BLOCK,
        97 | 98 => F::BC7_UNORM_BLOCK,
        99 => F::BC7_SRGB_BLOCK,
        87 | 90 => F::B8G8R8A8_UNORM,
        91 => F::B8G8R8A8_SRGB,
        _ => return None,
    })
}

/// The aspects of a whole image of `format`.
pub fn full_aspect(format: Format) -> vk::ImageAspectFlags {
    let mut aspect = vk::ImageAspectFlags::empty();
    if format.has_depth() {
        aspect |= vk::ImageAspectFlags::DEPTH;
    }
    if format.has_stencil() {
        aspect |= vk::ImageAspectFlags::STENCIL;
    }
    if aspect.is_empty() {
        vk::ImageAspectFlags::COLOR
    } else {
        aspect
    }
}

/// The aspects of planes `lo..hi` (0 color/depth, 1 stencil) of an image of `format`.
pub fn plane_aspect(format: Format, lo: u64, hi: u64) -> vk::ImageAspectFlags {
    if !format.is_depth_stencil() {
        return vk::ImageAspectFlags::COLOR;
    }
    let mut aspect = vk::ImageAspectFlags::empty();
    for plane in lo..hi {
        aspect |= match plane {
            0 if format.has_depth() => vk::ImageAspectFlags::DEPTH,
            _ => vk::ImageAspectFlags::STENCIL,
        };
    }
    aspect & full_aspect(format)
}
