//! Texture clears (`clear_texture`, `clear_texture_regions`) with the value written as
//! [`rpsl_runtime::texture_clear`] decides:
//!
//! - integer formats and float clears: `vkCmdClearColorImage` (whole subresources) or the region
//!   clear's scratch image (`region_clear.rs`) with a `VkClearColorValue` the format takes
//!   exactly (integer channels already cut to their low bits and sign-extended);
//! - a `uint4` clear of any other format (unorm, snorm, sRGB, float, typeless): Vulkan would read
//!   the words as floats and convert them, so the texel's bytes (the low bits of each component
//!   per channel) are written by the host into a scratch buffer holding whole rows of the base
//!   mip (as many as fit 1 MiB, at least one), and copied, a band of rows at a time, into each
//!   mip, layer and depth slice (or rectangle) of the target. The copies run at the COPY stage,
//!   chained into and out of the CLEAR stage the barrier plan gives the access.
//! - a clear through a view whose format is not the image's (a typed view of a typeless
//!   texture): texel bytes too, packed in the view's format, whatever the value.

use ash::vk;
use gpu_allocator::vulkan::Allocator;
use rpsl_runtime::{
    buffer_clear_pattern, texture_clear, BackendError, BuiltinCall, BuiltinNode, ClearTexture,
    CompiledFrame, Format, NodeId, RecordedGraph, ResourceKind, TextureClear,
};

use crate::buffer_clear::{create_pattern_buffer, SCRATCH_BYTES};
use crate::format::vk_format;
use crate::record::{access_region, FrameRecorder, ResourceHandle};
use crate::resources::{GpuObject, GpuResource};

/// The texel buffer of one texture clear that copies its texel bytes.
#[derive(Copy, Clone, Debug)]
pub struct TextureClearScratch {
    /// The node.
    pub node: NodeId,
    /// The buffer holding the texel repeated over `rows` rows of the cleared range's base mip
    /// (every copy reads from offset 0).
    pub buffer: vk::Buffer,
    /// The most rows one copy writes.
    pub rows: u32,
}

/// The rows of the base mip (`base`, of `texel_bytes` texels) a texel buffer holds: as many
/// as fit [`SCRATCH_BYTES`], at least one, at most the mip's height.
fn rows_per_copy(base: vk::Extent3D, texel_bytes: u64) -> u32 {
    let row = base.width as u64 * texel_bytes;
    (SCRATCH_BYTES / row.max(1)).clamp(1, base.height.max(1) as u64) as u32
}

/// The boxes copied to fill the box at `offset` of `extent` with at most `rows` rows each:
/// bands of rows of each depth slice, in order.
fn row_bands(
    offset: vk::Offset3D,
    extent: vk::Extent3D,
    rows: u32,
) -> impl Iterator<Item = (vk::Offset3D, vk::Extent3D)> {
    (0..extent.depth).flat_map(move |z| {
        (0..extent.height)
            .step_by(rows.max(1) as usize)
            .map(move |y| {
                let at = vk::Offset3D {
                    x: offset.x,
                    y: offset.y + y as i32,
                    z: offset.z + z as i32,
                };
                let size = vk::Extent3D {
                    width: extent.width,
                    height: rows.min(extent.height - y),
                    depth: 1,
                };
                (at, size)
            })
    })
}

/// How the built-in texture clear `node` writes its value into its target image, whose Vulkan
/// format is `image_format`, or `None` for other nodes (and null views). `Err`: the view's
/// format cannot be cleared this way.
pub(crate) fn texture_clear_of(
    graph: &RecordedGraph,
    node: NodeId,
    image_format: vk::Format,
) -> Option<Result<TextureClear, String>> {
    if !matches!(
        graph.decl_of(node).builtin,
        Some(BuiltinNode::ClearTexture | BuiltinNode::ClearTextureRegions)
    ) {
        return None;
    }
    match BuiltinCall::of_node(graph, node)? {
        Ok(BuiltinCall::ClearTexture(call)) => texture_clear_value(graph, &call, image_format),
        _ => None,
    }
}

/// How texture clear `call` writes its value into its target image, whose Vulkan format is
/// `image_format` (`None` for a null view). `Err`: the view's format cannot be cleared this
/// way. A view whose format is not the image's (a typed view of a typeless texture) always
/// gets texel bytes: `vkCmdClearColorImage` would take the value in the image's format.
pub(crate) fn texture_clear_value(
    graph: &RecordedGraph,
    call: &ClearTexture<'_>,
    image_format: vk::Format,
) -> Option<Result<TextureClear, String>> {
    let access = call.target?.access;
    let resource = graph.resources.get(access.resource.index())?;
    if resource.desc.kind == ResourceKind::Buffer {
        return None;
    }
    let format = if access.view_format == Format::UNKNOWN {
        resource.desc.format
    } else {
        access.view_format
    };
    let value = call.value.for_format(format);
    let clear = texture_clear(format, value);
    if vk_format(format) == Some(image_format)
        || !matches!(clear, Ok(TextureClear::Integer(_) | TextureClear::Float(_)))
    {
        return Some(clear);
    }
    Some(buffer_clear_pattern(format, value).map(TextureClear::Texel))
}

/// The extent of `mip` of an image of `desc`.
fn mip_extent(desc: &rpsl_runtime::ResourceDesc, mip: u32) -> vk::Extent3D {
    vk::Extent3D {
        width: ((desc.width as u32) >> mip).max(1),
        height: (desc.height >> mip).max(1),
        depth: (desc.depth() >> mip).max(1),
    }
}

/// Creates (host-visible, written here) the texel buffers of the frame's texture clears that
/// copy texel bytes. The resources go to the frame's slot and are freed when it is retired.
pub(crate) fn create_texture_clear_scratch(
    context: &crate::context::Context,
    allocator: &mut Allocator,
    graph: &RecordedGraph,
    frame: &CompiledFrame,
    handles: &[Option<ResourceHandle>],
    scratch: &mut Vec<GpuResource>,
) -> Result<Vec<TextureClearScratch>, BackendError> {
    let mut buffers = Vec::new();
    for &node in &frame.order {
        let Some(access) = graph.node_accesses(node).iter().find(|a| a.param == 0) else {
            continue;
        };
        let Some(Some(target)) = handles.get(access.resource.index()) else {
            continue;
        };
        if !matches!(target.object, GpuObject::Image(_)) {
            continue;
        }
        let Some(Ok(TextureClear::Texel(texel))) = texture_clear_of(graph, node, target.format)
        else {
            continue;
        };
        let region = access_region(access, &target.desc);
        let base = mip_extent(&target.desc, region.range.base_mip_level);
        let rows = rows_per_copy(base, texel.len() as u64);
        let size = rows as u64 * base.width as u64 * texel.len() as u64;
        let label = format!("texture clear texels of node {}", node.0);
        let (resource, buffer) = create_pattern_buffer(context, allocator, &label, size, &texel)?;
        buffers.push(TextureClearScratch { node, buffer, rows });
        scratch.push(resource);
    }
    Ok(buffers)
}

impl FrameRecorder<'_> {
    /// Records the texture clear `node` (`name`) of `target` over `range` (in TRANSFER_DST,
    /// the compiler's barrier for the `clear` access): the whole subresources, or only `rects`
    /// of the base mip in every layer of `range` for a region clear.
    pub(crate) fn record_texture_clear(
        &self,
        node: NodeId,
        name: &str,
        call: &ClearTexture<'_>,
        target: &ResourceHandle,
        range: &vk::ImageSubresourceRange,
        rects: Option<&[vk::ClearRect]>,
    ) -> Result<(), BackendError> {
        let failed = |message: String| BackendError::Node {
            node,
            name: name.to_string(),
            message,
        };
        let clear = texture_clear_value(self.graph, call, target.format)
            .ok_or_else(|| failed("not a texture clear".into()))?
            .map_err(failed)?;
        let value = match clear {
            TextureClear::Integer(words) => vk::ClearColorValue { uint32: words },
            TextureClear::Float(floats) => vk::ClearColorValue { float32: floats },
            TextureClear::Texel(_) => {
                return self.record_texel_copies(node, name, target, range, rects)
            }
        };
        match rects {
            Some(rects) => self.record_region_clear(node, target, range, value, rects),
            None => {
                let image = target.image()?;
                // SAFETY: `cb` is the node's recording command buffer, outside any render
                // pass; the colour image lives until the frame completes (storage textures
                // get TRANSFER_DST usage) and the compiler's barrier put `range` in
                // TRANSFER_DST_OPTIMAL.
                unsafe {
                    self.encoder().clear_color_image(
                        image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &value,
                        &[*range],
                    )
                };
                Ok(())
            }
        }
    }

    /// Copies the node's texel buffer into every mip and layer of `range` of `target`, or into
    /// `rects` of its base mip in every layer.
    fn record_texel_copies(
        &self,
        node: NodeId,
        name: &str,
        target: &ResourceHandle,
        range: &vk::ImageSubresourceRange,
        rects: Option<&[vk::ClearRect]>,
    ) -> Result<(), BackendError> {
        let image = target.image()?;
        let scratch = self
            .texture_clears
            .iter()
            .find(|s| s.node == node)
            .ok_or_else(|| BackendError::Node {
                node,
                name: name.to_string(),
                message: "no texel scratch buffer".into(),
            })?;
        let layers = |mip: u32, layer: u32| vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: mip,
            base_array_layer: range.base_array_layer + layer,
            layer_count: 1,
        };
        // Each copy's rows are tightly packed from offset 0: a band of at most `rows` rows no
        // wider than the base mip, which the buffer holds.
        let copy = |subresource, (offset, extent)| vk::BufferImageCopy {
            buffer_offset: 0,
            buffer_row_length: 0,
            buffer_image_height: 0,
            image_subresource: subresource,
            image_offset: offset,
            image_extent: extent,
        };
        let rows = scratch.rows;
        let copies: Vec<vk::BufferImageCopy> = match rects {
            Some(rects) => rects
                .iter()
                .flat_map(|rect| {
                    let offset = vk::Offset3D {
                        x: rect.rect.offset.x,
                        y: rect.rect.offset.y,
                        z: 0,
                    };
                    let extent = vk::Extent3D {
                        width: rect.rect.extent.width,
                        height: rect.rect.extent.height,
                        depth: 1,
                    };
                    (0..range.layer_count).flat_map(move |layer| {
                        row_bands(offset, extent, rows)
                            .map(move |band| copy(layers(range.base_mip_level, layer), band))
                    })
                })
                .collect(),
            None => (range.base_mip_level..range.base_mip_level + range.level_count)
                .flat_map(|mip| {
                    let extent = mip_extent(&target.desc, mip);
                    (0..range.layer_count).flat_map(move |layer| {
                        row_bands(vk::Offset3D::default(), extent, rows)
                            .map(move |band| copy(layers(mip, layer), band))
                    })
                })
                .collect(),
        };
        let barrier = |src, dst| {
            vk::ImageMemoryBarrier2::default()
                .src_stage_mask(src)
                .src_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                .dst_stage_mask(dst)
                .dst_access_mask(vk::AccessFlags2::TRANSFER_WRITE)
                .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .image(image)
                .subresource_range(*range)
        };
        let into_copy = [barrier(
            vk::PipelineStageFlags2::CLEAR,
            vk::PipelineStageFlags2::COPY,
        )];
        let out_of_copy = [barrier(
            vk::PipelineStageFlags2::COPY,
            vk::PipelineStageFlags2::CLEAR,
        )];
        // SAFETY: `cb` is the node's recording command buffer, outside any render pass; the
        // scratch buffer was written by the host before the submission and lives until the
        // frame is retired, and the copies' bands fit in it; the target is in TRANSFER_DST
        // over `range` (the compiler's barrier for the `clear` access), and the barriers chain
        // the CLEAR stage it planned into and out of COPY.
        unsafe {
            let encoder = self.encoder();
            encoder
                .pipeline_barrier(&vk::DependencyInfo::default().image_memory_barriers(&into_copy));
            if !copies.is_empty() {
                encoder.copy_buffer_to_image(
                    scratch.buffer,
                    image,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn extent(width: u32, height: u32, depth: u32) -> vk::Extent3D {
        vk::Extent3D {
            width,
            height,
            depth,
        }
    }

    #[test]
    fn texel_buffers_hold_at_most_a_mebibyte_of_whole_rows() {
        assert_eq!(rows_per_copy(extent(4, 4, 1), 4), 4);
        // 4096 texels of 16 bytes: 64 KiB rows, 16 of them in 1 MiB.
        assert_eq!(rows_per_copy(extent(4096, 4096, 1), 16), 16);
        // A row larger than 1 MiB: one row.
        assert_eq!(rows_per_copy(extent(1 << 17, 2, 1), 16), 1);
    }

    #[test]
    fn bands_cover_each_depth_slice_in_rows() {
        let at = |x, y, z| vk::Offset3D { x, y, z };
        let bands: Vec<_> = row_bands(at(1, 2, 0), extent(3, 5, 2), 2).collect();
        assert_eq!(
            bands,
            [
                (at(1, 2, 0), extent(3, 2, 1)),
                (at(1, 4, 0), extent(3, 2, 1)),
                (at(1, 6, 0), extent(3, 1, 1)),
                (at(1, 2, 1), extent(3, 2, 1)),
                (at(1, 4, 1), extent(3, 2, 1)),
                (at(1, 6, 1), extent(3, 1, 1)),
            ]
        );
        assert_eq!(row_bands(at(0, 0, 0), extent(4, 0, 1), 2).count(), 0);
    }
}
