//! `clear_texture_regions`: Vulkan clears whole subresources only (`vkCmdClearColorImage`), and
//! the node may run on a compute or transfer queue where attachment clears do not exist. So each
//! such node gets a scratch image of the target's format and base-mip extent: it is cleared to
//! the value, then each rectangle is copied into every layer of the target (which the compiler
//! put in TRANSFER_DST). Like a D3D12 UAV clear, only the view's base mip is touched.

use ash::vk;
use gpu_allocator::vulkan::Allocator;
use rpsl_runtime::{
    BackendError, BuiltinCall, BuiltinNode, CompiledFrame, NodeId, RecordedGraph, ResourceDesc,
    TextureClear, ViewArg,
};

use crate::record::{access_region, FrameRecorder, ResourceHandle};
use crate::resources::{create_unbound, GpuObject, GpuResource};
use crate::texture_clear::texture_clear_value;

/// The scratch image of one `clear_texture_regions` node.
#[derive(Copy, Clone, Debug)]
pub struct RegionClearScratch {
    /// The node.
    pub node: NodeId,
    /// The scratch image (base-mip extent of the target, one layer, the target's format).
    pub image: vk::Image,
}

/// Creates (with their own memory) the scratch images of the frame's `clear_texture_regions`
/// nodes. The resources go to the frame's slot and are freed when it is retired.
pub(crate) fn create_region_clear_scratch(
    context: &crate::context::Context,
    allocator: &mut Allocator,
    graph: &RecordedGraph,
    frame: &CompiledFrame,
    handles: &[Option<ResourceHandle>],
    scratch: &mut Vec<GpuResource>,
) -> Result<Vec<RegionClearScratch>, BackendError> {
    let mut images = Vec::new();
    for &node in &frame.order {
        if graph.decl_of(node).builtin != Some(BuiltinNode::ClearTextureRegions) {
            continue;
        }
        let Some(Ok(BuiltinCall::ClearTexture(call))) = BuiltinCall::of_node(graph, node) else {
            continue;
        };
        let Some(ViewArg { access, .. }) = call.target else {
            continue;
        };
        let Some(Some(target)) = handles.get(access.resource.index()) else {
            continue;
        };
        if !matches!(target.object, GpuObject::Image(_)) {
            continue;
        }
        // Texel clears copy from a buffer instead (`texture_clear.rs`).
        if let Some(Ok(TextureClear::Texel(_))) = texture_clear_value(graph, &call, target.format) {
            continue;
        }
        let region = access_region(access, &target.desc);
        let mip = region.range.base_mip_level;
        let desc = ResourceDesc::tex2d(
            target.desc.format,
            ((target.desc.width as u32) >> mip).max(1),
            (target.desc.height >> mip).max(1),
        );
        let usage = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
        let label = format!("region clear scratch of node {}", node.0);
        let mut resource = create_unbound(context, &desc, usage, &label)?;
        if let Err(error) = resource.allocate_own(context, allocator, &label) {
            // SAFETY: created here and never recorded; no views were made of it.
            unsafe { resource.destroy(context, allocator) };
            return Err(error);
        }
        let GpuObject::Image(image) = resource.object else {
            unreachable!("a texture description makes an image")
        };
        images.push(RegionClearScratch { node, image });
        scratch.push(resource);
    }
    Ok(images)
}

impl FrameRecorder<'_> {
    /// Records a region clear of `target` (in TRANSFER_DST over `range`) to `value` (as
    /// `vkCmdClearColorImage` takes it for the format) in `rects`, through the node's scratch
    /// image.
    pub(crate) fn record_region_clear(
        &self,
        node: NodeId,
        target: &ResourceHandle,
        range: &vk::ImageSubresourceRange,
        value: vk::ClearColorValue,
        rects: &[vk::ClearRect],
    ) -> Result<(), BackendError> {
        let scratch = self
            .region_clears
            .iter()
            .find(|s| s.node == node)
            .ok_or_else(|| {
                BackendError::Api(format!("no region clear scratch for node {}", node.0))
            })?;
        let target_image = target.image()?;
        let whole = vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        };
        let to_clear = vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::NONE)
            .dst_stage_mask(vk::PipelineStageFlags2::CLEAR)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .image(scratch.image)
            .subresource_range(whole);
        let to_copy = vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::CLEAR)
            .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::COPY)
            .dst_access_mask(vk::AccessFlags2::TRANSFER_READ)
            .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .image(scratch.image)
            .subresource_range(whole);
        // The compiler's barriers scope the target's `clear` access to the CLEAR stage; the
        // copies write at the COPY stage, so they chain into and out of it.
        let target_barrier = |src, dst| {
            vk::ImageMemoryBarrier2::default()
                .src_stage_mask(src)
                .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                .dst_stage_mask(dst)
                .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .image(target_image)
                .subresource_range(*range)
        };
        let into_copy = [
            to_copy,
            target_barrier(
                vk::PipelineStageFlags2::CLEAR,
                vk::PipelineStageFlags2::COPY,
            ),
        ];
        let out_of_copy = [target_barrier(
            vk::PipelineStageFlags2::COPY,
            vk::PipelineStageFlags2::CLEAR,
        )];
        let copies: Vec<vk::ImageCopy> = rects
            .iter()
            .flat_map(|rect| {
                (0..range.layer_count).map(move |layer| vk::ImageCopy {
                    src_subresource: vk::ImageSubresourceLayers {
                        aspect_mask: vk::ImageAspectFlags::COLOR,
                        mip_level: 0,
                        base_array_layer: 0,
                        layer_count: 1,
                    },
                    src_offset: vk::Offset3D {
                        x: rect.rect.offset.x,
                        y: rect.rect.offset.y,
                        z: 0,
                    },
                    dst_subresource: vk::ImageSubresourceLayers {
                        aspect_mask: vk::ImageAspectFlags::COLOR,
                        mip_level: range.base_mip_level,
                        base_array_layer: range.base_array_layer + layer,
                        layer_count: 1,
                    },
                    dst_offset: vk::Offset3D {
                        x: rect.rect.offset.x,
                        y: rect.rect.offset.y,
                        z: 0,
                    },
                    extent: vk::Extent3D {
                        width: rect.rect.extent.width,
                        height: rect.rect.extent.height,
                        depth: 1,
                    },
                })
            })
            .collect();
        // SAFETY: `cb` is the node's recording command buffer, outside any render pass; the
        // scratch image (the size of the target's base mip, same format) lives until the frame
        // is retired and is moved to TRANSFER_DST, then TRANSFER_SRC, here; the target is in
        // TRANSFER_DST over `range` (the compiler's barrier for the `clear` access) and the
        // rectangles were checked against its base mip.
        unsafe {
            let encoder = self.encoder();
            encoder.pipeline_barrier(
                &vk::DependencyInfo::default().image_memory_barriers(&[to_clear]),
            );
            encoder.clear_color_image(
                scratch.image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &value,
                &[whole],
            );
            encoder
                .pipeline_barrier(&vk::DependencyInfo::default().image_memory_barriers(&into_copy));
            if !copies.is_empty() {
                encoder.copy_image(
                    scratch.image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    target_image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &copies,
                );
            }
            encoder.pipeline_barrier(
                &vk::DependencyInfo::default().image_memory_barriers(&out_of_copy),
            );
        }
        Ok(())
    }
}
