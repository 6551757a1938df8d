//! Host transfers of external resources: a host-visible [`StagingBuffer`] per transfer, the
//! barriers around its copy (safe builders), and the recording of the copy between the
//! staging buffer and a texture's mip 0 / layer 0 or a whole buffer (small `unsafe fn`s over
//! [`CommandEncoder`]). `readback.rs` runs them through the backend's one-shot submissions.

use crate::context::{vk_error, Context};
use crate::encoder::CommandEncoder;
use crate::resources::{bind_or_free, map_alloc_error, GpuObject, GpuResource};
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme, Allocator};
use gpu_allocator::MemoryLocation;
use rpsl_runtime::BackendError;

/// Which way a transfer between an external resource and the host goes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Direction {
    /// Host to resource.
    Upload,
    /// Resource to host.
    Readback,
}

impl Direction {
    /// The layout the image is copied in.
    pub(crate) fn transfer_layout(self) -> vk::ImageLayout {
        match self {
            Direction::Upload => vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            Direction::Readback => vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
        }
    }
}

/// The bytes a transfer of `resource` moves: a whole buffer, or mip 0 / layer 0 of a texture
/// (tightly packed; block-compressed textures as rows of 4x4 blocks; multisampled textures are
/// refused).
pub(crate) fn transfer_size(resource: &GpuResource) -> Result<u64, BackendError> {
    let desc = resource.desc;
    match resource.object {
        GpuObject::Buffer(_) => Ok(resource.size),
        GpuObject::Image(_) if desc.sample_count > 1 => Err(BackendError::Unsupported(
            "reading back multisampled textures".into(),
        )),
        GpuObject::Image(_) if desc.format.is_block_compressed() => Ok(desc.width.div_ceil(4)
            * desc.height.div_ceil(4) as u64
            * desc.depth() as u64
            * (desc.format.bits_per_element() / 8) as u64),
        GpuObject::Image(_) => Ok(desc.width
            * desc.height as u64
            * desc.depth() as u64
            * desc.format.bytes_per_element() as u64),
    }
}

/// A host-visible buffer with its own memory, for one transfer.
pub(crate) struct StagingBuffer {
    /// The buffer.
    pub buffer: vk::Buffer,
    allocation: Allocation,
}

impl StagingBuffer {
    /// Creates, allocates (host-visible for `direction`) and binds a buffer of `size` bytes;
    /// on failure nothing is left behind.
    pub(crate) fn new(
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
    pub(crate) fn write(&mut self, data: &[u8]) -> Result<(), BackendError> {
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
    pub(crate) fn read(&self, size: u64) -> Result<Vec<u8>, BackendError> {
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
    pub(crate) unsafe fn destroy(self, context: &Context, allocator: &mut Allocator) {
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
pub(crate) struct ImageTransfer {
    /// The image.
    pub image: vk::Image,
    /// The image's whole aspect.
    pub aspect: vk::ImageAspectFlags,
    /// Its resting layouts per plane between frames.
    pub rest: [vk::ImageLayout; 2],
    /// The extent of mip 0.
    pub extent: vk::Extent3D,
    /// The staging buffer.
    pub staging: vk::Buffer,
    /// Which way the bytes go.
    pub direction: Direction,
}

/// The copy of one transfer: of a texture, or of a whole buffer.
pub(crate) enum Transfer {
    /// Mip 0 / layer 0 of a texture.
    Image(ImageTransfer),
    /// A whole buffer.
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
pub(crate) unsafe fn record_image_transfer(encoder: &CommandEncoder<'_>, transfer: &ImageTransfer) {
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
pub(crate) unsafe fn record_buffer_transfer(
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
