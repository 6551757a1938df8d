//! Reading external resources back to the host (raw bytes, or RGBA8 pixels of a texture),
//! uploading data into them (through `staging.rs`), and writing RGBA8 pixels as PNG.

use crate::resources::GpuObject;
use crate::staging::{
    record_buffer_transfer, record_image_transfer, transfer_size, Direction, ImageTransfer,
    StagingBuffer, Transfer,
};
use crate::VulkanBackend;
use ash::vk;
use rpsl_runtime::{BackendError, Format};
use std::path::Path;

/// Writes `width` x `height` RGBA8 pixels as a PNG file.
pub fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<(), BackendError> {
    let io = |e: std::io::Error| BackendError::Api(format!("cannot write {}: {e}", path.display()));
    let file = std::fs::File::create(path).map_err(io)?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let encoding =
        |e: png::EncodingError| BackendError::Api(format!("cannot write {}: {e}", path.display()));
    let mut writer = encoder.write_header().map_err(encoding)?;
    writer.write_image_data(rgba).map_err(encoding)?;
    writer.finish().map_err(encoding)
}

/// Reads an 8-bit RGBA PNG (as [`write_png`] writes them) as `(width, height, pixels)`.
pub fn read_png(path: &Path) -> Result<(u32, u32, Vec<u8>), BackendError> {
    let error = |e: &dyn std::fmt::Display| {
        BackendError::Api(format!("cannot read {}: {e}", path.display()))
    };
    let file = std::fs::File::open(path).map_err(|e| error(&e))?;
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .map_err(|e| error(&e))?;
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).map_err(|e| error(&e))?;
    if info.color_type != png::ColorType::Rgba || info.bit_depth != png::BitDepth::Eight {
        return Err(error(&"not an 8-bit RGBA image"));
    }
    pixels.truncate(info.buffer_size());
    Ok((info.width, info.height, pixels))
}

/// An IEEE half float as f32.
fn half_to_f32(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = (bits >> 10) & 0x1f;
    let mantissa = (bits & 0x3ff) as f32;
    match exponent {
        0 => sign * mantissa * 2f32.powi(-24),
        31 if mantissa == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + mantissa / 1024.0) * 2f32.powi(e as i32 - 15),
    }
}

/// Converts mip 0 / layer 0 bytes of a texture of `format` to RGBA8: 8-bit RGBA/BGRA as is,
/// float and unorm channels clamped to [0, 1]; one-channel formats (depth included) as grey.
fn to_rgba8(format: Format, bytes: &[u8]) -> Result<Vec<u8>, BackendError> {
    let unorm = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let f32_at = |p: &[u8], i: usize| f32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
    let u16_at = |p: &[u8], i: usize| u16::from_le_bytes([p[i], p[i + 1]]);
    let grey = |v: u8| [v, v, v, 255];
    Ok(match format.0 {
        // R8G8B8A8 typeless, UNORM, UNORM_SRGB and UINT: the bytes are the channel values.
        27..=30 => bytes.to_vec(),
        87 | 90 | 91 => bytes
            .chunks_exact(4)
            .flat_map(|p| [p[2], p[1], p[0], p[3]])
            .collect(),
        2 => bytes
            .chunks_exact(16)
            .flat_map(|p| [0, 4, 8, 12].map(|i| unorm(f32_at(p, i))))
            .collect(),
        10 => bytes
            .chunks_exact(8)
            .flat_map(|p| [0, 2, 4, 6].map(|i| unorm(half_to_f32(u16_at(p, i)))))
            .collect(),
        24 => bytes
            .chunks_exact(4)
            .flat_map(|p| {
                let v = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
                let c = |shift: u32| unorm(((v >> shift) & 0x3ff) as f32 / 1023.0);
                [c(0), c(10), c(20), unorm((v >> 30) as f32 / 3.0)]
            })
            .collect(),
        40 | 41 => bytes
            .chunks_exact(4)
            .flat_map(|p| grey(unorm(f32_at(p, 0))))
            .collect(),
        55 | 56 => bytes
            .chunks_exact(2)
            .flat_map(|p| grey(unorm(u16_at(p, 0) as f32 / 65535.0)))
            .collect(),
        61 => bytes.iter().flat_map(|&v| grey(v)).collect(),
        49 => bytes
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[1], 0, 255])
            .collect(),
        _ => {
            return Err(BackendError::Unsupported(format!(
                "reading format {} back as RGBA8",
                format.name().unwrap_or("?")
            )))
        }
    })
}

impl VulkanBackend {
    /// Transfers between an external resource (mip 0, layer 0 of a texture; a whole buffer) and
    /// a host-visible staging buffer: `upload` = host to resource.
    fn transfer_external(
        &mut self,
        name: &str,
        upload: Option<&[u8]>,
    ) -> Result<Vec<u8>, BackendError> {
        let external = self
            .externals
            .get(name)
            .ok_or_else(|| BackendError::Api(format!("no external resource named `{name}`")))?;
        let resource = &external.resource;
        let size = transfer_size(resource)?;
        let direction = match upload {
            Some(data) if data.len() as u64 != size => {
                return Err(BackendError::Api(format!(
                    "upload to `{name}` has {} bytes, the resource holds {size}",
                    data.len()
                )))
            }
            Some(_) => Direction::Upload,
            None => Direction::Readback,
        };
        let object = resource.object;
        let desc = resource.desc;
        let image_transfer = |image, staging| ImageTransfer {
            image,
            aspect: resource.aspect(),
            rest: external.rest_layout,
            extent: vk::Extent3D {
                width: desc.width as u32,
                height: desc.height,
                depth: desc.depth(),
            },
            staging,
            direction,
        };
        let allocator = self.allocator.as_mut().unwrap_or_else(|| unreachable!());
        let mut staging = StagingBuffer::new(&self.context, allocator, size, direction, name)?;
        let transfer = match object {
            GpuObject::Image(image) => Transfer::Image(image_transfer(image, staging.buffer)),
            GpuObject::Buffer(buffer) => Transfer::Buffer(buffer),
        };
        let result = (|| {
            if let Some(data) = upload {
                staging.write(data)?;
            }
            let staging_buffer = staging.buffer;
            self.one_shot(|encoder| {
                // SAFETY: a one-shot command buffer, outside any render pass, waited for before
                // `one_shot` returns; the resource lives in `externals` and rests in its
                // resting layouts (every frame's work is complete: one-shot submissions go to
                // the graphics queue after the frames that used it).
                unsafe {
                    match &transfer {
                        Transfer::Image(image) => record_image_transfer(encoder, image),
                        &Transfer::Buffer(buffer) => {
                            record_buffer_transfer(encoder, buffer, size, staging_buffer, direction)
                        }
                    }
                }
                Ok(())
            })?;
            match direction {
                Direction::Upload => Ok(Vec::new()),
                Direction::Readback => staging.read(size),
            }
        })();
        if !self.context.wedged.get() {
            let allocator = self.allocator.as_mut().unwrap_or_else(|| unreachable!());
            // SAFETY: the transfer's submission was waited for (or never made): the device is
            // not wedged.
            unsafe { staging.destroy(&self.context, allocator) };
        }
        result
    }

    /// Raw bytes of an external resource: a whole buffer, or mip 0 / layer 0 of a texture
    /// (tightly packed rows; the depth plane of a depth/stencil texture).
    pub fn read_external(&mut self, name: &str) -> Result<Vec<u8>, BackendError> {
        self.transfer_external(name, None)
    }

    /// Writes raw bytes into an external resource (the layout [`Self::read_external`] reads).
    pub fn write_external(&mut self, name: &str, data: &[u8]) -> Result<(), BackendError> {
        self.transfer_external(name, Some(data)).map(|_| ())
    }

    /// Mip 0 / layer 0 of an external texture as `(width, height, RGBA8 pixels)`
    /// (RGBA8, BGRA8 and RGBA32F formats).
    pub fn read_rgba8(&mut self, name: &str) -> Result<(u32, u32, Vec<u8>), BackendError> {
        let desc = self
            .externals
            .get(name)
            .map(|e| e.resource.desc)
            .ok_or_else(|| BackendError::Api(format!("no external resource named `{name}`")))?;
        if !desc.kind.is_texture() {
            return Err(BackendError::Api(format!("`{name}` is not a texture")));
        }
        let bytes = self.read_external(name)?;
        Ok((
            desc.width as u32,
            desc.height,
            to_rgba8(desc.format, &bytes)?,
        ))
    }
}
