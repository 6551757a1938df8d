//! Depth/stencil resolves through a scratch image, for resolves a render pass can do except
//! where it would write the destination: shifted offsets (a render-pass resolve writes at the
//! source's coordinates) and, on drivers with [`super::Quirks`], one aspect of a depth-stencil
//! image. The render pass resolves into a single-sampled scratch image of the source's format,
//! as large as the source's mip (render area = the source region, so the offsets match), and
//! `vkCmdCopyImage` moves the resolved aspects from the scratch's `srcOffset` to the
//! destination's `dstOffset`, which the compiler already put in `TRANSFER_DST_OPTIMAL`. No
//! shader is involved, so stencil needs no VK_EXT_shader_stencil_export.
//!
//! A frame slot keeps its scratch images ([`ResolveScratch`]) for its next frame, keyed by
//! (format, extent, layers); while a slot's frame is recorded they are lent to the recorder
//! ([`FrameRecorder::resolve_scratch`]). Images the frame
//! did not use are destroyed after it is recorded (the slot's previous frame is complete), with
//! their views forgotten in the [`ViewCache`] first.

use super::{frame_view, source_layout, DepthResolveJob, Method, ViewUse};
use crate::context::{vk_error, Context};
use crate::record::FrameRecorder;
use crate::view_cache::ViewCache;
use ash::vk;
use rpsl_runtime::BackendError;

/// What makes two scratch images interchangeable.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct ScratchKey {
    /// The format (the source's).
    pub format: vk::Format,
    /// Width and height (the source's resolved mip).
    pub extent: vk::Extent2D,
    /// Array layers.
    pub layers: u32,
}

/// One scratch image with its own (dedicated) memory.
struct ScratchImage {
    key: ScratchKey,
    image: vk::Image,
    memory: vk::DeviceMemory,
    /// Used by the frame being recorded.
    used: bool,
}

/// The depth/stencil resolve scratch images of one frame slot.
#[derive(Default)]
pub(crate) struct ResolveScratch {
    images: Vec<ScratchImage>,
}

impl ResolveScratch {
    /// Starts a frame of the slot (whose previous frame is complete): no image is used yet.
    pub fn begin_frame(&mut self) {
        for image in &mut self.images {
            image.used = false;
        }
    }

    /// The scratch image of `key`, made on first use. Resolves of one frame share it: each
    /// moves it from `UNDEFINED` after the previous copy out of it.
    pub fn image(&mut self, context: &Context, key: ScratchKey) -> Result<vk::Image, BackendError> {
        if let Some(found) = self.images.iter_mut().find(|image| image.key == key) {
            found.used = true;
            return Ok(found.image);
        }
        let made = create_scratch(context, key)?;
        let image = made.image;
        self.images.push(made);
        Ok(image)
    }

    /// Destroys the images the frame just recorded did not use, forgetting their views first.
    ///
    /// # Safety
    ///
    /// The slot's previous frame (the last one that could use them) is complete, and `views`
    /// and `context` are the ones the images' views and images were made with.
    pub unsafe fn end_frame(&mut self, context: &Context, views: &mut ViewCache) {
        let (keep, unused): (Vec<ScratchImage>, Vec<ScratchImage>) =
            std::mem::take(&mut self.images)
                .into_iter()
                .partition(|image| image.used);
        self.images = keep;
        for image in unused {
            // SAFETY: unused by this frame, and the caller guarantees earlier frames are done.
            unsafe { destroy_scratch(context, views, image) };
        }
    }

    /// Destroys every image, forgetting their views first, and leaves the scratch empty.
    ///
    /// # Safety
    ///
    /// No pending work uses them (the slot is idle), and `views` and `context` are the ones
    /// the images' views and images were made with.
    pub unsafe fn destroy(&mut self, context: &Context, views: &mut ViewCache) {
        for image in self.images.drain(..) {
            // SAFETY: the caller's contract.
            unsafe { destroy_scratch(context, views, image) };
        }
    }
}

/// Destroys `scratch` and its views.
///
/// # Safety
///
/// No pending work uses the image or its views; `views` and `context` made them.
unsafe fn destroy_scratch(context: &Context, views: &mut ViewCache, scratch: ScratchImage) {
    // SAFETY: the caller guarantees no pending work uses the image or its views; its views go
    // before the image.
    unsafe {
        views.forget_image(context, scratch.image);
        context.device.destroy_image(scratch.image, None);
        context.device.free_memory(scratch.memory, None);
    }
}

/// Creates a scratch image with a dedicated device-local allocation.
fn create_scratch(context: &Context, key: ScratchKey) -> Result<ScratchImage, BackendError> {
    let device = &context.device;
    let info = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(key.format)
        .extent(vk::Extent3D {
            width: key.extent.width,
            height: key.extent.height,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(key.layers)
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC)
        .sharing_mode(vk::SharingMode::EXCLUSIVE)
        .initial_layout(vk::ImageLayout::UNDEFINED);
    // SAFETY: valid create info on a live device.
    let image =
        unsafe { device.create_image(&info, None) }.map_err(|r| vk_error("vkCreateImage", r))?;
    // SAFETY: the image is live (the whole block); memory properties are a plain query.
    let (requirements, properties) = unsafe {
        (
            device.get_image_memory_requirements(image),
            context
                .instance
                .get_physical_device_memory_properties(context.physical),
        )
    };
    let allowed = |index: u32| requirements.memory_type_bits & (1 << index) != 0;
    let device_local = (0..properties.memory_type_count).find(|&index| {
        allowed(index)
            && properties.memory_types[index as usize]
                .property_flags
                .contains(vk::MemoryPropertyFlags::DEVICE_LOCAL)
    });
    let Some(type_index) =
        device_local.or_else(|| (0..properties.memory_type_count).find(|&i| allowed(i)))
    else {
        // SAFETY: the image is unused.
        unsafe { device.destroy_image(image, None) };
        return Err(BackendError::OutOfMemory(format!(
            "no memory type can hold a {:?} depth resolve scratch image",
            key.format
        )));
    };
    let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().image(image);
    let allocate = vk::MemoryAllocateInfo::default()
        .allocation_size(requirements.size)
        .memory_type_index(type_index)
        .push_next(&mut dedicated);
    // SAFETY: valid allocate info; the image is live and unbound.
    let bound = unsafe {
        device.allocate_memory(&allocate, None).and_then(|memory| {
            match device.bind_image_memory(image, memory, 0) {
                Ok(()) => Ok(memory),
                Err(result) => {
                    device.free_memory(memory, None);
                    Err(result)
                }
            }
        })
    };
    let memory = match bound {
        Ok(memory) => memory,
        Err(result) => {
            // SAFETY: the image is unused.
            unsafe { device.destroy_image(image, None) };
            return Err(vk_error("vkAllocateMemory/vkBindImageMemory", result));
        }
    };
    context.name(
        image,
        &format!(
            "rpsl depth resolve scratch ({:?} {}x{}, {} layers)",
            key.format, key.extent.width, key.extent.height, key.layers
        ),
    );
    Ok(ScratchImage {
        key,
        image,
        memory,
        used: true,
    })
}

/// The layout the scratch image's `aspects` are resolved into.
fn scratch_layout(aspects: vk::ImageAspectFlags) -> vk::ImageLayout {
    if aspects == vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL {
        vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL
    } else {
        super::destination_layout(aspects)
    }
}

impl FrameRecorder<'_> {
    /// One render-pass resolve of the aspects of `pass` into the scratch image, then their copy
    /// into the destination. The source is in its read-only layouts and the destination in
    /// `TRANSFER_DST_OPTIMAL`, visible to copies (`record_depth_resolve`'s barriers).
    pub(super) fn scratch_resolve(
        &mut self,
        job: &DepthResolveJob,
        pass: &[(vk::ImageAspectFlags, Method)],
        (src_mip, src_layers): (u32, (u32, u32)),
        (dst_mip, dst_layers): (u32, (u32, u32)),
    ) -> Result<(), BackendError> {
        let aspects = pass
            .iter()
            .fold(vk::ImageAspectFlags::empty(), |all, (aspect, _)| {
                all | *aspect
            });
        let mip_width = ((job.src.desc.width as u32) >> src_mip).max(1);
        let mip_height = (job.src.desc.height >> src_mip).max(1);
        let key = ScratchKey {
            format: job.src.format,
            extent: vk::Extent2D {
                width: mip_width,
                height: mip_height,
            },
            layers: src_layers.1,
        };
        let scratch = self.resolve_scratch.image(self.context, key)?;
        let src_view = frame_view(
            self,
            ViewUse::Attachment,
            job.src_image,
            job.src.format,
            aspects,
            src_mip,
            src_layers,
            "depth resolve source",
        )?;
        let scratch_view = frame_view(
            self,
            ViewUse::Attachment,
            scratch,
            key.format,
            aspects,
            0,
            (0, src_layers.1),
            "depth resolve scratch",
        )?;
        let layout = scratch_layout(aspects);
        let whole = vk::ImageSubresourceRange {
            aspect_mask: aspects,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: src_layers.1,
        };
        // The resolve writes in COLOR_ATTACHMENT_OUTPUT (spec); the fragment-test stages are
        // included in case a driver resolves depth/stencil there.
        let attachment_stages = vk::PipelineStageFlags2::COLOR_ATTACHMENT_OUTPUT
            | vk::PipelineStageFlags2::EARLY_FRAGMENT_TESTS
            | vk::PipelineStageFlags2::LATE_FRAGMENT_TESTS;
        let attachment_writes = vk::AccessFlags2::COLOR_ATTACHMENT_WRITE
            | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_WRITE;
        let attachment_accesses = attachment_writes
            | vk::AccessFlags2::COLOR_ATTACHMENT_READ
            | vk::AccessFlags2::DEPTH_STENCIL_ATTACHMENT_READ;
        // The last use of the scratch was a copy out of it (this frame or an earlier one of
        // the slot): its contents are not needed, but the copy must be done before they go.
        let to_attachment = vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::COPY)
            .src_access_mask(vk::AccessFlags2::NONE)
            .dst_stage_mask(attachment_stages)
            .dst_access_mask(attachment_accesses)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(layout)
            .image(scratch)
            .subresource_range(whole);
        let to_copy = vk::ImageMemoryBarrier2::default()
            .src_stage_mask(attachment_stages)
            .src_access_mask(attachment_writes)
            .dst_stage_mask(vk::PipelineStageFlags2::COPY)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
            .old_layout(layout)
            .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .image(scratch)
            .subresource_range(whole);
        let mode_of = |aspect: vk::ImageAspectFlags| {
            pass.iter()
                .find(|(a, _)| *a == aspect)
                .and_then(|&(_, method)| match method {
                    Method::Scratch(mode) => Some(mode),
                    _ => None,
                })
        };
        let attachment = |aspect: vk::ImageAspectFlags| {
            mode_of(aspect).map(|mode| {
                vk::RenderingAttachmentInfo::default()
                    .image_view(src_view)
                    .image_layout(source_layout(aspect))
                    .resolve_mode(mode)
                    .resolve_image_view(scratch_view)
                    .resolve_image_layout(layout)
                    .load_op(vk::AttachmentLoadOp::LOAD)
                    .store_op(vk::AttachmentStoreOp::NONE)
            })
        };
        let depth = attachment(vk::ImageAspectFlags::DEPTH);
        let stencil = attachment(vk::ImageAspectFlags::STENCIL);
        let mut info = vk::RenderingInfo::default()
            .render_area(vk::Rect2D {
                offset: job.src_offset,
                extent: job.extent,
            })
            .layer_count(src_layers.1);
        if let Some(depth) = &depth {
            info = info.depth_attachment(depth);
        }
        if let Some(stencil) = &stencil {
            info = info.stencil_attachment(stencil);
        }
        let regions: Vec<vk::ImageCopy> = pass
            .iter()
            .map(|&(aspect, _)| vk::ImageCopy {
                src_subresource: vk::ImageSubresourceLayers {
                    aspect_mask: aspect,
                    mip_level: 0,
                    base_array_layer: 0,
                    layer_count: src_layers.1,
                },
                src_offset: vk::Offset3D {
                    x: job.src_offset.x,
                    y: job.src_offset.y,
                    z: 0,
                },
                dst_subresource: vk::ImageSubresourceLayers {
                    aspect_mask: aspect,
                    mip_level: dst_mip,
                    base_array_layer: dst_layers.0,
                    layer_count: dst_layers.1,
                },
                dst_offset: vk::Offset3D {
                    x: job.dst_offset.x,
                    y: job.dst_offset.y,
                    z: 0,
                },
                extent: vk::Extent3D {
                    width: job.extent.width,
                    height: job.extent.height,
                    depth: 1,
                },
            })
            .collect();
        let label = if aspects.contains(vk::ImageAspectFlags::DEPTH) {
            if aspects.contains(vk::ImageAspectFlags::STENCIL) {
                "depth and stencil"
            } else {
                "depth"
            }
        } else {
            "stencil"
        };
        self.begin_label(&format!(
            "resolve {label} into scratch, copy to destination"
        ));
        // SAFETY: `cb` is the node's recording command buffer on the graphics queue, outside
        // any render pass; the views and images are live (the scratch in the frame slot); the
        // source is in its read-only layouts and the destination in TRANSFER_DST_OPTIMAL (the
        // caller's barriers); the render area and the copy lie inside both images (the extent
        // was clamped to them, and the scratch is as large as the source's mip).
        unsafe {
            let encoder = self.encoder();
            encoder.pipeline_barrier(
                &vk::DependencyInfo::default().image_memory_barriers(&[to_attachment]),
            );
            encoder.begin_rendering(&info);
            encoder.end_rendering();
            encoder
                .pipeline_barrier(&vk::DependencyInfo::default().image_memory_barriers(&[to_copy]));
            encoder.copy_image(
                scratch,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                job.dst_image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &regions,
            );
        }
        self.end_label();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scratch_layouts_follow_the_aspects() {
        assert_eq!(
            scratch_layout(vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL),
            vk::ImageLayout::DEPTH_STENCIL_ATTACHMENT_OPTIMAL
        );
        assert_eq!(
            scratch_layout(vk::ImageAspectFlags::STENCIL),
            vk::ImageLayout::STENCIL_ATTACHMENT_OPTIMAL
        );
        assert_eq!(
            scratch_layout(vk::ImageAspectFlags::DEPTH),
            vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL
        );
    }
}
