//! Formatted buffer views bound as colour attachments (RPS's row-major image buffers), which
//! Vulkan cannot render to: the pass renders into a scratch image of the compiler's extent and
//! the view's format instead; a loading pass first copies the buffer's texels into it, and after
//! the pass its texels are copied back into the buffer (rows tightly packed from the view's
//! offset). The extra barriers chain to the compiler's through the colour-attachment stage.
//! A frame slot keeps its scratch images (and their views) for its next frame, which reuses
//! those of the same size and format.

use crate::format::vk_format;
use crate::record::{access_region, FrameRecorder};
use crate::resources::{create_with_own_memory, GpuObject, GpuResource};
use crate::view_cache::{ObjectId, ViewCache, ViewKey};
use ash::vk;
use gpu_allocator::vulkan::Allocator;
use rpsl_runtime::{
    BackendError, CompiledFrame, LoadOp, RecordedGraph, ResourceDesc, ResourceKind,
};

/// The scratch image standing in for one buffer colour attachment.
#[derive(Copy, Clone, Debug)]
pub struct BufferTarget {
    /// The attachment's access.
    pub access: u32,
    /// The scratch image.
    pub image: vk::Image,
    /// Its format.
    pub format: vk::Format,
    /// Its extent (the pass's render area).
    pub width: u32,
    /// Its height.
    pub height: u32,
    /// The pass loads the attachment's contents.
    pub load: bool,
}

/// Finds or creates (with their own memory) the scratch images of every buffer colour
/// attachment of the frame. `kept` holds the slot's scratch images of its previous frame (the
/// slot is not in flight): those of the same description are reused, the rest are destroyed,
/// and on return `kept` holds this frame's.
///
/// # Safety
///
/// The frame slot that owns `kept` is not in flight (its fence was waited for), so its
/// previous frame's scratch images are free to destroy.
pub(crate) unsafe fn create_buffer_targets(
    context: &crate::context::Context,
    allocator: &mut Allocator,
    views: &mut ViewCache,
    graph: &RecordedGraph,
    frame: &CompiledFrame,
    kept: &mut Vec<GpuResource>,
) -> Result<Vec<BufferTarget>, BackendError> {
    let mut previous = std::mem::take(kept);
    let result = find_or_create(context, allocator, graph, frame, &mut previous, kept);
    for resource in previous {
        // SAFETY: the slot's previous frame, the last that used it or its views, is complete
        // (the caller's guarantee); the views go first.
        unsafe {
            views.forget(context, &resource);
            resource.destroy(context, allocator);
        }
    }
    result
}

fn find_or_create(
    context: &crate::context::Context,
    allocator: &mut Allocator,
    graph: &RecordedGraph,
    frame: &CompiledFrame,
    previous: &mut Vec<GpuResource>,
    kept: &mut Vec<GpuResource>,
) -> Result<Vec<BufferTarget>, BackendError> {
    let mut targets = Vec::new();
    for pass in &frame.render_passes {
        for color in &pass.colors {
            let record = &graph.resources[color.resource.index()];
            if record.desc.kind != ResourceKind::Buffer {
                continue;
            }
            let access = &graph.accesses[color.access as usize];
            let name = &graph.decl_of(pass.node).name;
            let format = vk_format(access.view_format).ok_or_else(|| {
                BackendError::Unsupported(format!(
                    "node `{name}` renders to a buffer view of format {}",
                    access.view_format.name().unwrap_or("?")
                ))
            })?;
            let desc = ResourceDesc::tex2d(access.view_format, pass.width, pass.height);
            let resource = match previous.iter().position(|r| r.desc == desc) {
                Some(index) => previous.swap_remove(index),
                None => {
                    let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT
                        | vk::ImageUsageFlags::TRANSFER_SRC
                        | vk::ImageUsageFlags::TRANSFER_DST;
                    let label = format!("buffer target of `{name}`");
                    create_with_own_memory(context, allocator, &desc, usage, &label)?
                }
            };
            let GpuObject::Image(image) = resource.object else {
                unreachable!("a texture description makes an image")
            };
            targets.push(BufferTarget {
                access: color.access,
                image,
                format,
                width: pass.width,
                height: pass.height,
                load: color.load == LoadOp::Load,
            });
            kept.push(resource);
        }
    }
    Ok(targets)
}

fn whole_color() -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        base_mip_level: 0,
        level_count: 1,
        base_array_layer: 0,
        layer_count: 1,
    }
}

impl FrameRecorder<'_> {
    /// The scratch image of a buffer colour attachment, if `access` is one.
    pub fn buffer_target(&self, access: u32) -> Option<BufferTarget> {
        self.buffer_targets
            .iter()
            .find(|t| t.access == access)
            .copied()
    }

    /// A 2-D view of a scratch image (kept as long as the image) and its identity.
    pub fn buffer_target_view(
        &mut self,
        target: &BufferTarget,
    ) -> Result<(vk::ImageView, ObjectId), BackendError> {
        let key = ViewKey::new(
            target.image,
            vk::ImageViewType::TYPE_2D,
            target.format,
            &whole_color(),
        );
        self.view_cache
            .view(self.context, key, || "buffer target view".to_string())
    }

    fn copy_region(
        &self,
        target: &BufferTarget,
    ) -> Result<(vk::Buffer, vk::BufferImageCopy), BackendError> {
        let access = self.graph.accesses[target.access as usize];
        let handle = self.handle(access.resource)?;
        let region = access_region(&access, &handle.desc);
        let GpuObject::Buffer(buffer) = handle.object else {
            return Err(BackendError::Api(format!(
                "access {} is not of a buffer",
                target.access
            )));
        };
        Ok((
            buffer,
            vk::BufferImageCopy {
                buffer_offset: region.offset,
                buffer_row_length: target.width,
                buffer_image_height: target.height,
                image_subresource: vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    mip_level: 0,
                    base_array_layer: 0,
                    layer_count: 1,
                },
                image_offset: vk::Offset3D::default(),
                image_extent: vk::Extent3D {
                    width: target.width,
                    height: target.height,
                    depth: 1,
                },
            },
        ))
    }

    /// Before the pass: the scratch image to COLOR_ATTACHMENT_OPTIMAL, loaded from the buffer
    /// when the pass loads.
    pub fn begin_buffer_target(&self, target: &BufferTarget) -> Result<(), BackendError> {
        let color = vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT;
        let copy = vk::PipelineStageFlags2::COPY;
        let to_attachment = |old: vk::ImageLayout, src: vk::PipelineStageFlags2, src_access| {
            vk::ImageMemoryBarrier2::default()
                .src_stage_mask(src)
                .src_access_mask(src_access)
                .dst_stage_mask(color)
                .dst_access_mask(
                    vk::AccessFlags2::COLOR_ATTACHMENT_READ
                        | vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
                )
                .old_layout(old)
                .new_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                .image(target.image)
                .subresource_range(whole_color())
        };
        if !target.load {
            let barrier = to_attachment(
                vk::ImageLayout::UNDEFINED,
                vk::PipelineStageFlags2::NONE,
                vk::AccessFlags2::NONE,
            );
            // SAFETY: `cb` is the node's recording command buffer, before its render pass; the
            // scratch image lives in the frame slot until the frame completes.
            unsafe {
                self.encoder().pipeline_barrier(
                    &vk::DependencyInfo::default().image_memory_barriers(&[barrier]),
                )
            };
            return Ok(());
        }
        let (buffer, region) = self.copy_region(target)?;
        let image_in = vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::NONE)
            .dst_stage_mask(copy)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .image(target.image)
            .subresource_range(whole_color());
        // The compiler's barrier made the buffer visible to the colour-attachment stage.
        let buffer_in = vk::BufferMemoryBarrier2::default()
            .src_stage_mask(color)
            .dst_stage_mask(copy)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
            .buffer(buffer)
            .offset(region.buffer_offset)
            .size(vk::WHOLE_SIZE);
        let after = to_attachment(
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            copy,
            vk::AccessFlags2::TRANSFER_WRITE,
        );
        // SAFETY: `cb` is the node's recording command buffer, before its render pass; the
        // buffer and the scratch image live until the frame completes; the image is moved to
        // TRANSFER_DST first; the copy stays inside the buffer view (the compiler's extent
        // holds whole rows of the view).
        unsafe {
            let encoder = self.encoder();
            encoder.pipeline_barrier(
                &vk::DependencyInfo::default()
                    .image_memory_barriers(&[image_in])
                    .buffer_memory_barriers(&[buffer_in]),
            );
            encoder.copy_buffer_to_image(
                buffer,
                target.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            );
            encoder
                .pipeline_barrier(&vk::DependencyInfo::default().image_memory_barriers(&[after]));
        }
        Ok(())
    }

    /// After the pass: the scratch image's texels back into the buffer, then the buffer handed
    /// back to the colour-attachment stage the compiler's next barrier starts from.
    pub fn end_buffer_target(&self, target: &BufferTarget) -> Result<(), BackendError> {
        let color = vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT;
        let copy = vk::PipelineStageFlags2::COPY;
        let (buffer, region) = self.copy_region(target)?;
        let image_out = vk::ImageMemoryBarrier2::default()
            .src_stage_mask(color)
            .src_access_mask(vk::AccessFlags2::COLOR_ATTACHMENT_WRITE)
            .dst_stage_mask(copy)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
            .old_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
            .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .image(target.image)
            .subresource_range(whole_color());
        let buffer_out = vk::BufferMemoryBarrier2::default()
            .src_stage_mask(color | copy)
            .src_access_mask(vk::AccessFlags2::NONE)
            .dst_stage_mask(copy)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .buffer(buffer)
            .offset(region.buffer_offset)
            .size(vk::WHOLE_SIZE);
        let buffer_back = vk::BufferMemoryBarrier2::default()
            .src_stage_mask(copy)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(color)
            .dst_access_mask(
                vk::AccessFlags2::COLOR_ATTACHMENT_READ | vk::AccessFlags2::COLOR_ATTACHMENT_WRITE,
            )
            .buffer(buffer)
            .offset(region.buffer_offset)
            .size(vk::WHOLE_SIZE);
        // SAFETY: `cb` is the node's recording command buffer, after its render pass ended;
        // the buffer and the scratch image live until the frame completes; the image is moved
        // to TRANSFER_SRC first; the copy stays in the view.
        unsafe {
            let encoder = self.encoder();
            encoder.pipeline_barrier(
                &vk::DependencyInfo::default()
                    .image_memory_barriers(&[image_out])
                    .buffer_memory_barriers(&[buffer_out]),
            );
            encoder.copy_image_to_buffer(
                target.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                buffer,
                &[region],
            );
            encoder.pipeline_barrier(
                &vk::DependencyInfo::default().buffer_memory_barriers(&[buffer_back]),
            );
        }
        Ok(())
    }
}
