//! An effect's result in the format of its `OUTPUT` ([`EffectImage`]), decoded to RGBA values
//! and written as an 8- or 16-bit PNG or a 32-bit float OpenEXR file (through `image`).
//! `OUTPUT` is `R8G8B8A8_UNORM` unless the effect gives it a `//!FORMAT` (an rpsl extension),
//! so a float effect (HDR output, say) keeps its precision on disk.

use std::path::Path;

use rpsl_runtime::Format;

/// How each texel of a format is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Texels {
    /// `channels` values of `bytes` bytes each: unsigned normalised, signed normalised or float.
    Plain {
        channels: usize,
        bytes: usize,
        kind: Kind,
    },
    /// `R10G10B10A2_UNORM`.
    Packed1010102,
    /// `R11G11B10_FLOAT`.
    Packed111110,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Unorm,
    Snorm,
    Float,
}

/// The texel layout of a format an effect may write (the MagpieFX texture formats).
fn texels(format: Format) -> Option<Texels> {
    let plain = |channels, bytes, kind| Texels::Plain {
        channels,
        bytes,
        kind,
    };
    Some(match format.name()? {
        "R32G32B32A32_FLOAT" => plain(4, 4, Kind::Float),
        "R16G16B16A16_FLOAT" => plain(4, 2, Kind::Float),
        "R16G16B16A16_UNORM" => plain(4, 2, Kind::Unorm),
        "R16G16B16A16_SNORM" => plain(4, 2, Kind::Snorm),
        "R32G32_FLOAT" => plain(2, 4, Kind::Float),
        "R10G10B10A2_UNORM" => Texels::Packed1010102,
        "R11G11B10_FLOAT" => Texels::Packed111110,
        "R8G8B8A8_UNORM" => plain(4, 1, Kind::Unorm),
        "R8G8B8A8_SNORM" => plain(4, 1, Kind::Snorm),
        "R16G16_FLOAT" => plain(2, 2, Kind::Float),
        "R16G16_UNORM" => plain(2, 2, Kind::Unorm),
        "R16G16_SNORM" => plain(2, 2, Kind::Snorm),
        "R32_FLOAT" => plain(1, 4, Kind::Float),
        "R8G8_UNORM" => plain(2, 1, Kind::Unorm),
        "R8G8_SNORM" => plain(2, 1, Kind::Snorm),
        "R16_FLOAT" => plain(1, 2, Kind::Float),
        "R16_UNORM" => plain(1, 2, Kind::Unorm),
        "R16_SNORM" => plain(1, 2, Kind::Snorm),
        "R8_UNORM" => plain(1, 1, Kind::Unorm),
        "R8_SNORM" => plain(1, 1, Kind::Snorm),
        _ => return None,
    })
}

/// An effect's result: `width` x `height` texels of `format`, rows tightly packed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EffectImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The format of the effect's `OUTPUT`.
    pub format: Format,
    /// The texels.
    pub data: Vec<u8>,
}

/// A small float of `exponent_bits` + `mantissa_bits` (no sign), as in `R11G11B10_FLOAT` and
/// half floats' magnitudes.
fn small_float(bits: u32, mantissa_bits: u32) -> f32 {
    let mantissa = bits & ((1 << mantissa_bits) - 1);
    let exponent = (bits >> mantissa_bits) & 0x1f;
    let fraction = mantissa as f32 / (1u32 << mantissa_bits) as f32;
    match exponent {
        0 => fraction * 2f32.powi(-14),
        31 if mantissa == 0 => f32::INFINITY,
        31 => f32::NAN,
        _ => 2f32.powi(exponent as i32 - 15) * (1.0 + fraction),
    }
}

/// A half float.
fn half(bits: u16) -> f32 {
    let magnitude = small_float(bits as u32 & 0x7fff, 10);
    if bits & 0x8000 != 0 {
        -magnitude
    } else {
        magnitude
    }
}

impl EffectImage {
    /// Whether every channel of the format holds at most 8 bits (so an 8-bit PNG loses
    /// nothing).
    pub fn is_eight_bit(&self) -> bool {
        matches!(texels(self.format), Some(Texels::Plain { bytes: 1, .. }))
    }

    /// The texels as RGBA floats (`width * height * 4` values): normalised formats in their
    /// ranges, floats as they are; channels the format lacks are 0, alpha 1.
    ///
    /// ```
    /// use rpsl_runtime::Format;
    /// let image = rpsl_effects::EffectImage {
    ///     width: 1,
    ///     height: 1,
    ///     format: Format::from_name("R16G16_FLOAT").unwrap(),
    ///     data: vec![0x00, 0x3c, 0x00, 0xc4], // 1.0, -4.0
    /// };
    /// assert_eq!(image.to_rgba_f32().unwrap(), [1.0, -4.0, 0.0, 1.0]);
    /// ```
    pub fn to_rgba_f32(&self) -> Result<Vec<f32>, String> {
        let name = self.format.name().unwrap_or("UNKNOWN");
        let layout = texels(self.format)
            .ok_or_else(|| format!("{name} is not a format an effect writes"))?;
        let texel_bytes = match layout {
            Texels::Plain {
                channels, bytes, ..
            } => channels * bytes,
            Texels::Packed1010102 | Texels::Packed111110 => 4,
        };
        let pixels = self.width as usize * self.height as usize;
        if self.data.len() != pixels * texel_bytes {
            return Err(format!(
                "a {}x{} {name} image needs {} bytes, not {}",
                self.width,
                self.height,
                pixels * texel_bytes,
                self.data.len()
            ));
        }
        let mut out = Vec::with_capacity(pixels * 4);
        for texel in self.data.chunks_exact(texel_bytes) {
            let mut rgba = [0.0, 0.0, 0.0, 1.0];
            match layout {
                Texels::Plain {
                    channels,
                    bytes,
                    kind,
                } => {
                    for (channel, value) in texel.chunks_exact(bytes).take(channels).enumerate() {
                        rgba[channel] = match (kind, bytes) {
                            (Kind::Unorm, 1) => value[0] as f32 / 255.0,
                            (Kind::Snorm, 1) => (value[0] as i8 as f32 / 127.0).max(-1.0),
                            (Kind::Unorm, 2) => {
                                u16::from_le_bytes([value[0], value[1]]) as f32 / 65535.0
                            }
                            (Kind::Snorm, 2) => (i16::from_le_bytes([value[0], value[1]]) as f32
                                / 32767.0)
                                .max(-1.0),
                            (Kind::Float, 2) => half(u16::from_le_bytes([value[0], value[1]])),
                            (_, _) => f32::from_le_bytes([value[0], value[1], value[2], value[3]]),
                        };
                    }
                }
                Texels::Packed1010102 => {
                    let word = u32::from_le_bytes([texel[0], texel[1], texel[2], texel[3]]);
                    for (channel, value) in rgba.iter_mut().enumerate().take(3) {
                        *value = ((word >> (10 * channel)) & 0x3ff) as f32 / 1023.0;
                    }
                    rgba[3] = (word >> 30) as f32 / 3.0;
                }
                Texels::Packed111110 => {
                    let word = u32::from_le_bytes([texel[0], texel[1], texel[2], texel[3]]);
                    rgba[0] = small_float(word & 0x7ff, 6);
                    rgba[1] = small_float((word >> 11) & 0x7ff, 6);
                    rgba[2] = small_float(word >> 22, 5);
                }
            }
            out.extend_from_slice(&rgba);
        }
        Ok(out)
    }

    /// The image as 8-bit RGBA: `R8G8B8A8_UNORM` as it is, other formats clamped to 0..1 and
    /// rounded.
    pub fn to_rgba8(&self) -> Result<Vec<u8>, String> {
        if self.format == Format::R8G8B8A8_UNORM {
            return Ok(self.data.clone());
        }
        Ok(self
            .to_rgba_f32()?
            .into_iter()
            .map(|value| (value.clamp(0.0, 1.0) * 255.0).round() as u8)
            .collect())
    }

    /// The image as 16-bit RGBA: values clamped to 0..1 and scaled to 0..65535, rounded
    /// (`R8G8B8A8_UNORM`'s 8-bit values are exact: `v * 257`).
    pub fn to_rgba16(&self) -> Result<Vec<u16>, String> {
        Ok(self
            .to_rgba_f32()?
            .into_iter()
            .map(|value| (value.clamp(0.0, 1.0) * 65535.0).round() as u16)
            .collect())
    }

    /// Writes the image as a PNG of `bit_depth` 8 or 16 bits per channel (RGBA).
    pub fn write_png(&self, path: &Path, bit_depth: u8) -> Result<(), String> {
        let written = match bit_depth {
            8 => image::RgbaImage::from_raw(self.width, self.height, self.to_rgba8()?)
                .map(|image| image.save_with_format(path, image::ImageFormat::Png)),
            16 => image::ImageBuffer::<image::Rgba<u16>, Vec<u16>>::from_raw(
                self.width,
                self.height,
                self.to_rgba16()?,
            )
            .map(|image| image.save_with_format(path, image::ImageFormat::Png)),
            other => return Err(format!("a PNG has 8 or 16 bits per channel, not {other}")),
        };
        written
            .ok_or_else(|| "the image has fewer texels than its size".to_string())?
            .map_err(|error| format!("cannot write {}: {error}", path.display()))
    }

    /// Writes the image as an OpenEXR file of 32-bit float RGBA (values as they are).
    pub fn write_exr(&self, path: &Path) -> Result<(), String> {
        let image = image::Rgba32FImage::from_raw(self.width, self.height, self.to_rgba_f32()?)
            .ok_or_else(|| "the image has fewer texels than its size".to_string())?;
        image
            .save_with_format(path, image::ImageFormat::OpenExr)
            .map_err(|error| format!("cannot write {}: {error}", path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(format: &str, data: Vec<u8>) -> EffectImage {
        EffectImage {
            width: 1,
            height: 1,
            format: Format::from_name(format).unwrap(),
            data,
        }
    }

    #[test]
    fn packed_and_normalised_formats_decode_exactly() {
        let word = 1023u32 | (512 << 10) | (3 << 30);
        assert_eq!(
            image("R10G10B10A2_UNORM", word.to_le_bytes().to_vec())
                .to_rgba_f32()
                .unwrap(),
            [1.0, 512.0 / 1023.0, 0.0, 1.0]
        );
        // 1.0 in 11 bits is exponent 15, mantissa 0; 0.5 in 10 bits is exponent 14.
        let word = (15u32 << 6) | ((15 << 6) << 11) | ((14 << 5) << 22);
        assert_eq!(
            image("R11G11B10_FLOAT", word.to_le_bytes().to_vec())
                .to_rgba_f32()
                .unwrap(),
            [1.0, 1.0, 0.5, 1.0]
        );
        assert_eq!(
            image("R8G8_SNORM", vec![0x81, 0x7f]).to_rgba_f32().unwrap(),
            [-1.0, 1.0, 0.0, 1.0]
        );
        assert_eq!(
            image(
                "R16G16B16A16_FLOAT",
                vec![0, 0x3c, 0x00, 0x44, 0x55, 0x35, 0, 0xbc]
            )
            .to_rgba16()
            .unwrap(),
            [65535, 65535, 21840, 0]
        );
    }

    #[test]
    fn a_short_buffer_is_an_error() {
        assert_eq!(
            image("R32_FLOAT", vec![0, 0]).to_rgba_f32().unwrap_err(),
            "a 1x1 R32_FLOAT image needs 4 bytes, not 2"
        );
    }
}
