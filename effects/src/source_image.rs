//! Loading `//!SOURCE` textures: PNG, BMP, JPEG and OpenEXR files through the `image` crate (as
//! 8-bit RGBA, 16-bit RGBA for 16-bit PNGs, 32-bit float RGBA for OpenEXR), DDS files through `ddsfile` (mip 0 of layer 0, in the
//! file's own format: RGBA8, RGBA16F, RGBA32F, a few one- and two-channel formats and every BC
//! format). Anything else is refused with an error naming the file and what it holds.

use std::fmt;
use std::path::{Path, PathBuf};

use ddsfile::{D3DFormat, Dds, DxgiFormat, PixelFormatFlags};
use rpsl_frontend::diagnostic::Diagnostic;
use rpsl_frontend::source::{SourceFiles, Span};
use rpsl_runtime::Format;

use crate::error::EffectErrors;
use crate::model::Effect;
use crate::parse::read_text_file;

/// The pixels of a source texture, ready to upload: mip 0, rows tightly packed (BC formats: rows
/// of 4x4 blocks).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The texel format of `data`.
    pub format: Format,
    /// The texels.
    pub data: Vec<u8>,
}

/// Why a source texture could not be loaded; its text names the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceImageError {
    /// The image file.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for SourceImageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for SourceImageError {}

/// The formats a DDS file may hold, by DXGI format (DXGI numbers are RPS format numbers).
const DDS_FORMATS: [DxgiFormat; 27] = [
    DxgiFormat::R8G8B8A8_UNorm,
    DxgiFormat::R8G8B8A8_UNorm_sRGB,
    DxgiFormat::B8G8R8A8_UNorm,
    DxgiFormat::B8G8R8A8_UNorm_sRGB,
    DxgiFormat::R16G16B16A16_Float,
    DxgiFormat::R16G16B16A16_UNorm,
    DxgiFormat::R32G32B32A32_Float,
    DxgiFormat::R16G16_Float,
    DxgiFormat::R32G32_Float,
    DxgiFormat::R8G8_UNorm,
    DxgiFormat::R16_Float,
    DxgiFormat::R32_Float,
    DxgiFormat::R8_UNorm,
    DxgiFormat::BC1_UNorm,
    DxgiFormat::BC1_UNorm_sRGB,
    DxgiFormat::BC2_UNorm,
    DxgiFormat::BC2_UNorm_sRGB,
    DxgiFormat::BC3_UNorm,
    DxgiFormat::BC3_UNorm_sRGB,
    DxgiFormat::BC4_UNorm,
    DxgiFormat::BC4_SNorm,
    DxgiFormat::BC5_UNorm,
    DxgiFormat::BC5_SNorm,
    DxgiFormat::BC6H_UF16,
    DxgiFormat::BC6H_SF16,
    DxgiFormat::BC7_UNorm,
    DxgiFormat::BC7_UNorm_sRGB,
];

/// Loads the image file of a `//!SOURCE` texture: `.dds` through `ddsfile`, anything else
/// (PNG, BMP, JPEG, told apart by their contents) through `image`.
///
/// ```
/// # let folder = tempfile::tempdir().unwrap();
/// # let path = folder.path().join("missing.png");
/// let error = rpsl_effects::load_source_image(&path).unwrap_err();
/// assert!(error.to_string().starts_with(&path.display().to_string()));
/// ```
pub fn load_source_image(path: &Path) -> Result<SourceImage, SourceImageError> {
    let fail = |message: String| SourceImageError {
        path: path.to_path_buf(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|error| fail(format!("cannot read: {error}")))?;
    let is_dds = path
        .extension()
        .is_some_and(|ext| ext.eq_ignore_ascii_case("dds"));
    if is_dds {
        load_dds(&bytes).map_err(fail)
    } else {
        load_picture(&bytes).map_err(fail)
    }
}

/// Loads every `//!SOURCE` image of `effect`, as `(texture index, image)` in texture order. An
/// image that cannot be loaded is an error located at the file name of its `//!SOURCE`
/// directive (``Lut.hlsl:7:11: error: cannot load `lut.png`: not an image file this program
/// reads (...)``), one per failing image.
///
/// ```
/// # let folder = tempfile::tempdir().unwrap();
/// # let path = folder.path().join("Lut.hlsl");
/// std::fs::write(folder.path().join("lut.png"), b"not a picture").unwrap();
/// std::fs::write(&path, "//!MAGPIE EFFECT\n//!VERSION 4\n//!TEXTURE\n//!SOURCE lut.png\n\
///     Texture2D lut;\n//!PASS 1\n//!STYLE PS\n//!IN INPUT, lut\n//!OUT OUTPUT\n\
///     float4 Pass1(float2 pos) { return 1; }\n").unwrap();
/// let effect = rpsl_effects::parse_effect_file(&path).unwrap();
/// let errors = rpsl_effects::load_effect_sources(&effect).unwrap_err();
/// assert!(errors.headlines()[0].ends_with(
///     "Lut.hlsl:4:11: error: cannot load `lut.png`: not an image file this program reads \
///      (PNG, BMP, JPEG, OpenEXR or DDS)"
/// ));
/// ```
pub fn load_effect_sources(effect: &Effect) -> Result<Vec<(usize, SourceImage)>, EffectErrors> {
    let mut images = Vec::new();
    let mut failures = Vec::new();
    for (index, texture) in effect.textures.iter().enumerate() {
        let Some(path) = &texture.source else {
            continue;
        };
        match load_source_image(path) {
            Ok(image) => images.push((index, image)),
            Err(error) => failures.push((texture.source_span, path, error.message)),
        }
    }
    if failures.is_empty() {
        return Ok(images);
    }
    // The effect's spans point into its own text, the first file its parser read: read again
    // for the excerpts (empty, and the errors unlocated, when it cannot be).
    let mut files = SourceFiles::new();
    let text = read_text_file(&effect.path).unwrap_or_default();
    let file = files.add(&effect.path, text);
    let length = files.get(file).text.len() as u32;
    let diagnostics = failures
        .into_iter()
        .map(|(span, path, message)| {
            let span = span
                .filter(|span| span.start <= span.end && span.end <= length)
                .map_or(Span::new(file, 0, 0), |span| {
                    Span::new(file, span.start, span.end)
                });
            let written = files
                .get(file)
                .text
                .get(span.start as usize..span.end as usize)
                .filter(|written| !written.is_empty())
                .map_or_else(
                    || {
                        path.file_name()
                            .map(|name| name.to_string_lossy().into_owned())
                            .unwrap_or_default()
                    },
                    str::to_string,
                );
            Diagnostic::error(span, format!("cannot load `{written}`: {message}"))
        })
        .collect();
    Err(EffectErrors { files, diagnostics })
}

/// Bytes of mip 0 of a `width` x `height` texture of `format`.
fn mip0_bytes(format: Format, width: u32, height: u32) -> usize {
    if format.is_block_compressed() {
        let blocks = width.div_ceil(4) as usize * height.div_ceil(4) as usize;
        blocks * (format.bits_per_element() as usize / 8)
    } else {
        width as usize * height as usize * format.bytes_per_element() as usize
    }
}

/// The DXGI format of a DDS file without a DX10 header.
fn legacy_dds_format(format: D3DFormat) -> Option<DxgiFormat> {
    Some(match format {
        D3DFormat::A8B8G8R8 | D3DFormat::X8B8G8R8 => DxgiFormat::R8G8B8A8_UNorm,
        D3DFormat::A8R8G8B8 | D3DFormat::X8R8G8B8 => DxgiFormat::B8G8R8A8_UNorm,
        D3DFormat::A16B16G16R16F => DxgiFormat::R16G16B16A16_Float,
        D3DFormat::A16B16G16R16 => DxgiFormat::R16G16B16A16_UNorm,
        D3DFormat::A32B32G32R32F => DxgiFormat::R32G32B32A32_Float,
        D3DFormat::G16R16F => DxgiFormat::R16G16_Float,
        D3DFormat::G32R32F => DxgiFormat::R32G32_Float,
        D3DFormat::R16F => DxgiFormat::R16_Float,
        D3DFormat::R32F => DxgiFormat::R32_Float,
        D3DFormat::L8 | D3DFormat::A8 => DxgiFormat::R8_UNorm,
        D3DFormat::DXT1 => DxgiFormat::BC1_UNorm,
        D3DFormat::DXT2 | D3DFormat::DXT3 => DxgiFormat::BC2_UNorm,
        D3DFormat::DXT4 | D3DFormat::DXT5 => DxgiFormat::BC3_UNorm,
        _ => return None,
    })
}

/// An 8-bit luminance DDS (L8, such as SMAA's search texture): `ddsfile` keeps no red mask for
/// luminance formats, so it never recognises L8 itself.
fn is_luminance8(dds: &Dds) -> bool {
    let format = &dds.header.spf;
    format.flags.contains(PixelFormatFlags::LUMINANCE)
        && !format.flags.contains(PixelFormatFlags::RGB)
        && format.rgb_bit_count == Some(8)
        && matches!(format.r_bit_mask, None | Some(0xff))
}

fn load_dds(bytes: &[u8]) -> Result<SourceImage, String> {
    let dds = Dds::read(bytes).map_err(|error| format!("not a readable DDS file: {error}"))?;
    let (dxgi, name) = match (dds.get_dxgi_format(), dds.get_d3d_format()) {
        (Some(dxgi), _) => (Some(dxgi), format!("{dxgi:?}")),
        (None, Some(d3d)) => (legacy_dds_format(d3d), format!("{d3d:?}")),
        (None, None) if is_luminance8(&dds) => (Some(DxgiFormat::R8_UNorm), "L8".to_string()),
        (None, None) => (None, "an unknown format".to_string()),
    };
    let Some(dxgi) = dxgi.filter(|format| DDS_FORMATS.contains(format)) else {
        return Err(format!(
            "DDS textures of {name} are not supported (supported: RGBA8, BGRA8, RGBA16F, \
             RGBA16, RGBA32F, RG16F, RG32F, RG8, R16F, R32F, R8 and BC1 to BC7)"
        ));
    };
    if dds.get_depth() > 1 {
        return Err("volume DDS textures are not supported".to_string());
    }
    let format = Format(dxgi as u32);
    let (width, height) = (dds.get_width(), dds.get_height());
    if width == 0 || height == 0 {
        return Err("the DDS texture is empty".to_string());
    }
    // Layer 0's mip 0 comes first in the file's data.
    let data = &dds.data;
    let size = mip0_bytes(format, width, height);
    if data.len() < size {
        return Err(format!(
            "the DDS file holds {} bytes of texels where a {width}x{height} texture needs {size}",
            data.len()
        ));
    }
    Ok(SourceImage {
        width,
        height,
        format,
        data: data[..size].to_vec(),
    })
}

fn load_picture(bytes: &[u8]) -> Result<SourceImage, String> {
    let format = image::guess_format(bytes).map_err(|_| {
        "not an image file this program reads (PNG, BMP, JPEG, OpenEXR or DDS)".to_string()
    })?;
    let picture = image::load_from_memory_with_format(bytes, format)
        .map_err(|error| format!("cannot decode the {format:?} image: {error}"))?;
    let (width, height) = (picture.width(), picture.height());
    let sixteen_bits = matches!(
        picture.color(),
        image::ColorType::L16
            | image::ColorType::La16
            | image::ColorType::Rgb16
            | image::ColorType::Rgba16
    );
    let float = matches!(
        picture.color(),
        image::ColorType::Rgb32F | image::ColorType::Rgba32F
    );
    if float {
        let data = picture
            .into_rgba32f()
            .into_raw()
            .into_iter()
            .flat_map(f32::to_le_bytes)
            .collect();
        return Ok(SourceImage {
            width,
            height,
            format: Format::from_name("R32G32B32A32_FLOAT").unwrap_or(Format::R8G8B8A8_UNORM),
            data,
        });
    }
    if sixteen_bits {
        let data = picture
            .into_rgba16()
            .into_raw()
            .into_iter()
            .flat_map(u16::to_le_bytes)
            .collect();
        return Ok(SourceImage {
            width,
            height,
            format: Format::from_name("R16G16B16A16_UNORM").unwrap_or(Format::R8G8B8A8_UNORM),
            data,
        });
    }
    Ok(SourceImage {
        width,
        height,
        format: Format::R8G8B8A8_UNORM,
        data: picture.into_rgba8().into_raw(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bc_mip_sizes_round_up_to_blocks() {
        let bc1 = Format::from_name("BC1_UNORM").unwrap();
        let bc7 = Format::from_name("BC7_UNORM").unwrap();
        assert_eq!(mip0_bytes(bc1, 5, 3), 2 * 8);
        assert_eq!(mip0_bytes(bc7, 8, 8), 4 * 16);
        assert_eq!(mip0_bytes(Format::R8G8B8A8_UNORM, 3, 2), 24);
    }
}
