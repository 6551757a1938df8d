//! Reading external resources back to the host (raw bytes, or RGBA8 pixels of a texture),
//! uploading data into them, and writing RGBA8 pixels as PNG.

use crate::context::{vk_error, Context};
use crate::encoder::CommandEncoder;
use crate::resources::{bind_or_free, map_alloc_error, GpuObject, GpuResource};
use crate::VulkanBackend;
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme, Allocator};
use gpu_allocator::MemoryLocation;
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

/// Which way a transfer between an external resource and the host goes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Direction {
    /// Host to resource.
    Upload,
    /// Resource to host.
    Readback,
}

impl Direction {
    /// The layout the image is copied in.
    fn transfer_layout(self) -> vk::ImageLayout {
        match self {
            Direction::Upload => vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            Direction::Readback => vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        }
    }
}

/// The bytes a transfer of `resource` moves: a whole buffer, or mip 0 / layer 0 of a texture
/// (tightly packed; multisampled and block-compressed textures are refused).
fn transfer_size(resource: &GpuResource) -> Result<u64, BackendError> {
    let desc = resource.desc;
    match resource.object {
        GpuObject::Buffer(_) => Ok(resource.size),
        GpuObject::Image(_) if desc.sample_count > 1 => Err(BackendError::Unsupported(
            "reading back multisampled textures".into(),
        )),
        GpuObject::Image(_) if desc.format.is_block_compressed() => Err(BackendError::Unsupported(
            "reading back block-compressed textures".into(),
        )),
        GpuObject::Image(_) => Ok(desc.width
            * desc.height as u64
            * desc.depth() as u64
            * desc.format.bytes_per_element() as u64),
    }
}

/// A host-visible buffer with its own memory, for one transfer.
struct StagingBuffer {
    buffer: vk::Buffer,
    allocation: Allocation,
}

impl StagingBuffer {
    /// Creates, allocates (host-visible for `direction`) and binds a buffer of `size` bytes;
    /// on failure nothing is left behind.
    fn new(
        context: &Context,
        allocator: &mut Allocator,
        size: u64,
        direction: Direction,
        name: &str,
    ) -> Result<StagingBuffer, BackendError> {
        let device = &context.device;
        let info = vk::BufferCreateInfo::default()
            .size(size.max(4))
            .usage(vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST);
        // SAFETY: valid create info on a live device.
        let buffer = unsafe { device.create_buffer(&info, None) }
            .map_err(|r| vk_error("vkCreateBuffer", r))?;
        context.name(buffer, &format!("staging for `{name}`"));
        // SAFETY: the buffer is live.
        let requirements = unsafe { device.get_buffer_memory_requirements(buffer) };
        let destroy_buffer = || {
            // SAFETY: called only on failure below, before any command used the buffer.
            unsafe { device.destroy_buffer(buffer, None) }
        };
        let allocation = allocator
            .allocate(&AllocationCreateDesc {
                name: "staging",
                requirements,
                location: match direction {
                    Direction::Upload => MemoryLocation::CpuToGpu,
                    Direction::Readback => MemoryLocation::GpuToCpu,
                },
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
            .map_err(|e| {
                destroy_buffer();
                map_alloc_error("staging", e)
            })?;
        let allocation = bind_or_free(
            allocation,
            |allocation| {
                // SAFETY: a fresh unbound buffer and a live allocation made for its
                // requirements.
                unsafe {
                    device.bind_buffer_memory(buffer, allocation.memory(), allocation.offset())
                }
                .map_err(|r| vk_error("vkBindBufferMemory", r))
            },
            |allocation| {
                let _ = allocator.free(allocation);
                destroy_buffer();
            },
        )?;
        Ok(StagingBuffer { buffer, allocation })
    }

    /// Copies `data` to the start of the buffer.
    fn write(&mut self, data: &[u8]) -> Result<(), BackendError> {
        let mapped = self
            .allocation
            .mapped_slice_mut()
            .ok_or_else(|| BackendError::Api("staging memory is not mapped".into()))?;
        mapped
            .get_mut(..data.len())
            .ok_or_else(|| BackendError::Api("staging memory is too small".into()))?
            .copy_from_slice(data);
        Ok(())
    }

    /// The first `size` bytes of the buffer.
    fn read(&self, size: u64) -> Result<Vec<u8>, BackendError> {
        self.allocation
            .mapped_slice()
            .and_then(|bytes| bytes.get(..size as usize))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| BackendError::Api("staging memory is not mapped".into()))
    }

    /// Destroys the buffer and frees its memory.
    ///
    /// # Safety
    ///
    /// No pending GPU work uses the buffer (the transfer's submission was waited for, or never
    /// submitted).
    unsafe fn destroy(self, context: &Context, allocator: &mut Allocator) {
        // SAFETY: the caller guarantees the GPU is done with the buffer.
        unsafe { context.device.destroy_buffer(self.buffer, None) };
        let _ = allocator.free(self.allocation);
    }
}

/// Every earlier access of any kind, as the source or destination scope of a transfer barrier.
const ANY_ACCESS: vk::AccessFlags2 = vk::AccessFlags2::from_raw(
    vk::AccessFlags2::MEMORY_READ.as_raw() | vk::AccessFlags2::MEMORY_WRITE.as_raw(),
);
/// The copy's accesses.
const COPY_ACCESS: vk::AccessFlags2 = vk::AccessFlags2::from_raw(
    vk::AccessFlags2::TRANSFER_READ.as_raw() | vk::AccessFlags2::TRANSFER_WRITE.as_raw(),
);

/// Stages and accesses `(src stage, src access, dst stage, dst access)` of a barrier between
/// the resource's frame work and the copy: into the copy when `to_copy`, else out of it.
fn copy_scopes(
    to_copy: bool,
) -> (
    vk::PipelineStageFlags2,
    vk::AccessFlags2,
    vk::PipelineStageFlags2,
    vk::AccessFlags2,
) {
    let all = vk::PipelineStageFlags2::ALL_COMMANDS;
    let copy = vk::PipelineStageFlags2::COPY;
    if to_copy {
        (all, ANY_ACCESS, copy, COPY_ACCESS)
    } else {
        (copy, COPY_ACCESS, all, ANY_ACCESS)
    }
}

/// The barrier of one plane (`aspect`) of mip 0 / layer 0 of `image` from `old` to `new`.
fn image_copy_barrier(
    image: vk::Image,
    aspect: vk::ImageAspectFlags,
    old: vk::ImageLayout,
    new: vk::ImageLayout,
    to_copy: bool,
) -> vk::ImageMemoryBarrier2<'static> {
    let (src, src_access, dst, dst_access) = copy_scopes(to_copy);
    vk::ImageMemoryBarrier2::default()
        .src_stage_mask(src)
        .src_access_mask(src_access)
        .dst_stage_mask(dst)
        .dst_access_mask(dst_access)
        .old_layout(old)
        .new_layout(new)
        .image(image)
        .subresource_range(vk::ImageSubresourceRange {
            aspect_mask: aspect,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        })
}

/// The barrier of the whole of `buffer` into or out of the copy.
fn buffer_copy_barrier(buffer: vk::Buffer, to_copy: bool) -> vk::BufferMemoryBarrier2<'static> {
    let (src, src_access, dst, dst_access) = copy_scopes(to_copy);
    vk::BufferMemoryBarrier2::default()
        .src_stage_mask(src)
        .src_access_mask(src_access)
        .dst_stage_mask(dst)
        .dst_access_mask(dst_access)
        .buffer(buffer)
        .offset(0)
        .size(vk::WHOLE_SIZE)
}

/// The barrier between the host and the copy on the staging buffer: the host's writes before
/// an upload's copy, the copy's writes before the host reads a readback.
fn host_barrier(staging: vk::Buffer, direction: Direction) -> vk::BufferMemoryBarrier2<'static> {
    let host = vk::PipelineStageFlags2::HOST;
    let copy = vk::PipelineStageFlags2::COPY;
    let barrier = match direction {
        Direction::Upload => vk::BufferMemoryBarrier2::default()
            .src_stage_mask(host)
            .src_access_mask(vk::AccessFlags2::HOST_WRITE)
            .dst_stage_mask(copy)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ),
        Direction::Readback => vk::BufferMemoryBarrier2::default()
            .src_stage_mask(copy)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(host)
            .dst_access_mask(vk::AccessFlags2::HOST_READ),
    };
    barrier.buffer(staging).offset(0).size(vk::WHOLE_SIZE)
}

/// The barriers moving each plane of `image` (`aspect`: its whole aspect) from its resting
/// layouts `rest` (per plane) to `layout`: one barrier, or depth and stencil separately.
fn image_to_copy_barriers(
    image: vk::Image,
    aspect: vk::ImageAspectFlags,
    rest: [vk::ImageLayout; 2],
    layout: vk::ImageLayout,
) -> Vec<vk::ImageMemoryBarrier2<'static>> {
    if aspect.contains(vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL) {
        vec![
            image_copy_barrier(image, vk::ImageAspectFlags::DEPTH, rest[0], layout, true),
            image_copy_barrier(image, vk::ImageAspectFlags::STENCIL, rest[1], layout, true),
        ]
    } else {
        vec![image_copy_barrier(image, aspect, rest[0], layout, true)]
    }
}

/// What one transfer between an external texture and a staging buffer works with.
struct ImageTransfer {
    image: vk::Image,
    /// The image's whole aspect.
    aspect: vk::ImageAspectFlags,
    /// Its resting layouts per plane between frames.
    rest: [vk::ImageLayout; 2],
    extent: vk::Extent3D,
    staging: vk::Buffer,
    direction: Direction,
}

/// The copy of one transfer: of a texture, or of a whole buffer.
enum Transfer {
    Image(ImageTransfer),
    Buffer(vk::Buffer),
}

/// Records a copy between mip 0 / layer 0 of a texture (its depth plane, for depth/stencil
/// formats) and the staging buffer, with the layout transitions there and back.
///
/// # Safety
///
/// `encoder` records a one-shot command buffer outside any render pass, submitted to the
/// graphics queue and waited for while `transfer.image` and `transfer.staging` live; the image
/// rests in `transfer.rest` (no frame is in flight).
unsafe fn record_image_transfer(encoder: &CommandEncoder<'_>, transfer: &ImageTransfer) {
    let layout = transfer.direction.transfer_layout();
    let before = image_to_copy_barriers(transfer.image, transfer.aspect, transfer.rest, layout);
    let after: Vec<_> = before
        .iter()
        .map(|barrier| {
            let aspect = barrier.subresource_range.aspect_mask;
            image_copy_barrier(transfer.image, aspect, layout, barrier.old_layout, false)
        })
        .collect();
    let host = [host_barrier(transfer.staging, transfer.direction)];
    let no_host: [vk::BufferMemoryBarrier2; 0] = [];
    let (host_before, host_after) = match transfer.direction {
        Direction::Upload => (&host[..], &no_host[..]),
        Direction::Readback => (&no_host[..], &host[..]),
    };
    let region = vk::BufferImageCopy {
        buffer_offset: 0,
        buffer_row_length: 0,
        buffer_image_height: 0,
        image_subresource: vk::ImageSubresourceLayers {
            aspect_mask: if transfer.aspect.contains(vk::ImageAspectFlags::DEPTH) {
                vk::ImageAspectFlags::DEPTH
            } else {
                transfer.aspect
            },
            mip_level: 0,
            base_array_layer: 0,
            layer_count: 1,
        },
        image_offset: vk::Offset3D::default(),
        image_extent: transfer.extent,
    };
    // SAFETY: the caller's contract: outside a render pass, live handles; the barriers move
    // the image from its resting layouts to `layout` for the copy and back; the region is
    // mip 0 / layer 0, within the image, and the staging buffer holds its bytes.
    unsafe {
        encoder.pipeline_barrier(
            &vk::DependencyInfo::default()
                .image_memory_barriers(&before)
                .buffer_memory_barriers(host_before),
        );
        match transfer.direction {
            Direction::Upload => {
                encoder.copy_buffer_to_image(transfer.staging, transfer.image, layout, &[region])
            }
            Direction::Readback => {
                encoder.copy_image_to_buffer(transfer.image, layout, transfer.staging, &[region])
            }
        }
        encoder.pipeline_barrier(
            &vk::DependencyInfo::default()
                .image_memory_barriers(&after)
                .buffer_memory_barriers(host_after),
        );
    }
}

/// Records a copy of `size` bytes between a buffer and the staging buffer, with the barriers
/// into and out of the copy.
///
/// # Safety
///
/// As [`record_image_transfer`], for `buffer` (at least `size` bytes) and `staging`.
unsafe fn record_buffer_transfer(
    encoder: &CommandEncoder<'_>,
    buffer: vk::Buffer,
    size: u64,
    staging: vk::Buffer,
    direction: Direction,
) {
    let host = host_barrier(staging, direction);
    let mut before = vec![buffer_copy_barrier(buffer, true)];
    let mut after = vec![buffer_copy_barrier(buffer, false)];
    match direction {
        Direction::Upload => before.push(host),
        Direction::Readback => after.push(host),
    }
    let copy = vk::BufferCopy {
        src_offset: 0,
        dst_offset: 0,
        size,
    };
    // SAFETY: the caller's contract: outside a render pass, live handles; both buffers hold
    // `size` bytes.
    unsafe {
        encoder.pipeline_barrier(&vk::DependencyInfo::default().buffer_memory_barriers(&before));
        match direction {
            Direction::Upload => encoder.copy_buffer(staging, buffer, &[copy]),
            Direction::Readback => encoder.copy_buffer(buffer, staging, &[copy]),
        }
        encoder.pipeline_barrier(&vk::DependencyInfo::default().buffer_memory_barriers(&after));
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use ash::vk::Handle;

    #[test]
    fn depth_stencil_planes_move_from_their_own_resting_layouts() {
        let image = vk::Image::from_raw(0x10);
        let barriers = image_to_copy_barriers(
            image,
            vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL,
            [
                vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL,
                vk::ImageLayout::STENCIL_READ_ONLY_OPTIMAL,
            ],
            Direction::Readback.transfer_layout(),
        );
        let planes: Vec<_> = barriers
            .iter()
            .map(|b| {
                (
                    b.subresource_range.aspect_mask,
                    b.old_layout,
                    b.new_layout,
                    b.src_stage_mask,
                    b.dst_access_mask,
                )
            })
            .collect();
        let to_copy = |aspect, old| {
            (
                aspect,
                old,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                vk::PipelineStageFlags2::ALL_COMMANDS,
                vk::AccessFlags2::TRANSFER_READ | vk::AccessFlags2::TRANSFER_WRITE,
            )
        };
        assert_eq!(
            planes,
            vec![
                to_copy(
                    vk::ImageAspectFlags::DEPTH,
                    vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL
                ),
                to_copy(
                    vk::ImageAspectFlags::STENCIL,
                    vk::ImageLayout::STENCIL_READ_ONLY_OPTIMAL
                ),
            ]
        );
        assert!(barriers.iter().all(|b| b.image == image
            && b.subresource_range.level_count == 1
            && b.subresource_range.layer_count == 1));
    }

    #[test]
    fn a_colour_image_moves_in_one_barrier() {
        let barriers = image_to_copy_barriers(
            vk::Image::from_raw(0x20),
            vk::ImageAspectFlags::COLOR,
            [vk::ImageLayout::GENERAL, vk::ImageLayout::UNDEFINED],
            Direction::Upload.transfer_layout(),
        );
        assert_eq!(barriers.len(), 1);
        assert_eq!(
            (
                barriers[0].subresource_range.aspect_mask,
                barriers[0].old_layout,
                barriers[0].new_layout
            ),
            (
                vk::ImageAspectFlags::COLOR,
                vk::ImageLayout::GENERAL,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL
            )
        );
    }

    #[test]
    fn the_host_barrier_faces_the_host_access_of_each_direction() {
        let staging = vk::Buffer::from_raw(0x30);
        let scopes = |b: vk::BufferMemoryBarrier2| {
            (
                b.src_stage_mask,
                b.src_access_mask,
                b.dst_stage_mask,
                b.dst_access_mask,
                b.buffer,
                b.size,
            )
        };
        assert_eq!(
            scopes(host_barrier(staging, Direction::Upload)),
            (
                vk::PipelineStageFlags2::HOST,
                vk::AccessFlags2::HOST_WRITE,
                vk::PipelineStageFlags2::COPY,
                vk::AccessFlags2::TRANSFER_READ,
                staging,
                vk::WHOLE_SIZE
            )
        );
        assert_eq!(
            scopes(host_barrier(staging, Direction::Readback)),
            (
                vk::PipelineStageFlags2::COPY,
                vk::AccessFlags2::TRANSFER_WRITE,
                vk::PipelineStageFlags2::HOST,
                vk::AccessFlags2::HOST_READ,
                staging,
                vk::WHOLE_SIZE
            )
        );
    }

    #[test]
    fn copies_hand_back_to_every_later_access() {
        let buffer = vk::Buffer::from_raw(0x40);
        let out = buffer_copy_barrier(buffer, false);
        assert_eq!(
            (
                out.src_stage_mask,
                out.src_access_mask,
                out.dst_stage_mask,
                out.dst_access_mask
            ),
            (
                vk::PipelineStageFlags2::COPY,
                vk::AccessFlags2::TRANSFER_READ | vk::AccessFlags2::TRANSFER_WRITE,
                vk::PipelineStageFlags2::ALL_COMMANDS,
                vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE
            )
        );
    }
}
