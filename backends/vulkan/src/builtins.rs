//! Recording of rpsl.h's built-in nodes: clears (colour and depth/stencil through dynamic
//! rendering, storage textures and buffers through transfer clears), texture and buffer copies
//! (whole and regions), texture/buffer copies, and resolves (the average colour resolve here;
//! min/max colour resolves in `minmax.rs`, depth/stencil resolves in `depth_resolve.rs`).

use crate::record::{access_region, DepthTarget, FrameRecorder};
use ash::vk;
use rpsl_runtime::compile::map_access;
use rpsl_runtime::vk::{Accesses, Stages};
use rpsl_runtime::{AccessFlags, BackendError, NodeId, ResourceKind};

/// Argument reader of one node call.
struct Args<'a> {
    bytes: &'a [u8],
    offsets: Vec<u32>,
}

impl Args<'_> {
    fn u32(&self, param: usize, index: u32) -> u32 {
        let at = (self.offsets.get(param).copied().unwrap_or(u32::MAX) + index * 4) as usize;
        self.bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .unwrap_or(0)
    }

    fn u64(&self, param: usize) -> u64 {
        self.u32(param, 0) as u64 | (self.u32(param, 1) as u64) << 32
    }

    fn f32(&self, param: usize, index: u32) -> f32 {
        f32::from_bits(self.u32(param, index))
    }

    fn offset3(&self, param: usize) -> vk::Offset3D {
        vk::Offset3D {
            x: self.u32(param, 0) as i32,
            y: self.u32(param, 1) as i32,
            z: self.u32(param, 2) as i32,
        }
    }

    fn extent3(&self, param: usize) -> vk::Extent3D {
        vk::Extent3D {
            width: self.u32(param, 0),
            height: self.u32(param, 1),
            depth: self.u32(param, 2).max(1),
        }
    }
}

/// The resolve mode of a built-in `resolve` node (0 average, 1 min, 2 max), or `None` for
/// other nodes.
pub(crate) fn resolve_mode(graph: &rpsl_runtime::RecordedGraph, node: NodeId) -> Option<u32> {
    let decl = graph.decl_of(node);
    if !decl.builtin || decl.name != "resolve" {
        return None;
    }
    let args = Args {
        bytes: graph.node_args(node),
        offsets: decl.params.iter().map(|p| p.offset).collect(),
    };
    Some(args.u32(5, 0))
}

/// Whether a node may need the resolve shaders ([`crate::minmax::MinMaxResolve`]): min/max
/// colour resolves, and every depth/stencil resolve (the shader is their fallback where the
/// device's render-pass resolve cannot do the mode, the offsets or the aspect; which applies is
/// decided while recording).
pub(crate) fn needs_resolve_shaders(graph: &rpsl_runtime::RecordedGraph, node: NodeId) -> bool {
    match resolve_mode(graph, node) {
        Some(1 | 2) => true,
        Some(0) => graph.node_accesses(node).iter().any(|access| {
            graph
                .resources
                .get(access.resource.index())
                .is_some_and(|record| record.desc.format.is_depth_stencil())
        }),
        _ => false,
    }
}

/// Bytes per texel of `aspect` of `format` in buffer copies (Vulkan packs the depth aspect of
/// D24S8 in 4 bytes and the stencil aspect in 1).
fn aspect_texel_bytes(format: rpsl_runtime::Format, aspect: vk::ImageAspectFlags) -> u32 {
    if !format.is_depth_stencil() || aspect == vk::ImageAspectFlags::COLOR {
        return format.bytes_per_element().max(1);
    }
    if aspect == vk::ImageAspectFlags::STENCIL {
        1
    } else if format.bytes_per_element() == 2 {
        2
    } else {
        4
    }
}

fn unsupported(node: NodeId, name: &str, what: &str) -> BackendError {
    BackendError::Node {
        node,
        name: name.to_string(),
        message: what.to_string(),
    }
}

fn mip_extent(desc: &rpsl_runtime::ResourceDesc, mip: u32) -> vk::Extent3D {
    vk::Extent3D {
        width: ((desc.width as u32) >> mip).max(1),
        height: (desc.height >> mip).max(1),
        depth: (desc.depth() >> mip).max(1),
    }
}

/// Clamps a copy or resolve extent to what fits both images from their offsets (rpsl.h's
/// `0xFFFFFFFF` extents mean "to the edge").
fn clamp_extent(
    extent: vk::Extent3D,
    (src, src_at): (vk::Extent3D, vk::Offset3D),
    (dst, dst_at): (vk::Extent3D, vk::Offset3D),
) -> vk::Extent3D {
    let fit = |want: u32, a: u32, a_at: i32, b: u32, b_at: i32| {
        want.min(a.saturating_sub(a_at.max(0) as u32))
            .min(b.saturating_sub(b_at.max(0) as u32))
    };
    vk::Extent3D {
        width: fit(extent.width, src.width, src_at.x, dst.width, dst_at.x),
        height: fit(extent.height, src.height, src_at.y, dst.height, dst_at.y),
        depth: fit(extent.depth, src.depth, src_at.z, dst.depth, dst_at.z),
    }
}

/// The `int4` rectangles (x, y, width, height) of a region clear, clipped to the attachment
/// (empty ones dropped).
fn clear_rects(
    args: &Args<'_>,
    count: u32,
    param: usize,
    layer_count: u32,
    (width, height): (u32, u32),
) -> Result<Vec<vk::ClearRect>, String> {
    let start = args.offsets.get(param).copied().unwrap_or(u32::MAX) as u64;
    if start + count as u64 * 16 > args.bytes.len() as u64 {
        return Err(format!(
            "{count} rectangle(s) announced but fewer were passed in `rects`"
        ));
    }
    Ok((0..count)
        .filter_map(|r| {
            let x = (args.u32(param, r * 4) as i32).max(0) as u32;
            let y = (args.u32(param, r * 4 + 1) as i32).max(0) as u32;
            let w = (args.u32(param, r * 4 + 2) as i32).max(0) as u32;
            let h = (args.u32(param, r * 4 + 3) as i32).max(0) as u32;
            let w = w.min(width.saturating_sub(x));
            let h = h.min(height.saturating_sub(y));
            (w > 0 && h > 0).then_some(vk::ClearRect {
                rect: vk::Rect2D {
                    offset: vk::Offset2D {
                        x: x as i32,
                        y: y as i32,
                    },
                    extent: vk::Extent2D {
                        width: w,
                        height: h,
                    },
                },
                base_array_layer: 0,
                layer_count,
            })
        })
        .collect())
}

fn layers(range: &vk::ImageSubresourceRange, mip: u32) -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: range.aspect_mask,
        mip_level: range.base_mip_level + mip,
        base_array_layer: range.base_array_layer,
        layer_count: range.layer_count,
    }
}

/// The stages and access bits the commands recorded for a built-in node use on the resource of
/// one of its accesses: `target` for parameter 0 (the cleared, copied-to or resolved-to view),
/// else a copy or resolve source. This is the backend's half of the built-ins' access table: the
/// recording checks it against the barrier planner's need of the access
/// ([`rpsl_runtime::compile::map_access`]) before recording, so the two cannot drift apart.
fn recorded_scope(
    name: &str,
    target_flags: AccessFlags,
    target: bool,
    buffer: bool,
) -> (Stages, Accesses) {
    let (read, write) = (Accesses::TRANSFER_READ, Accesses::TRANSFER_WRITE);
    match name {
        "clear" | "clear_color_regions" if target_flags.contains(AccessFlags::RENDER_TARGET) => {
            // A render pass with a CLEAR (or LOAD) load op, and attachment clears.
            (
                Stages::COLOR_ATTACHMENT_OUTPUT,
                Accesses::COLOR_ATTACHMENT_WRITE,
            )
        }
        "clear" | "clear_depth" | "clear_stencil" | "clear_depth_stencil_regions"
            if target_flags.intersects(AccessFlags::DEPTH | AccessFlags::STENCIL) =>
        {
            (
                Stages::EARLY_FRAGMENT_TESTS | Stages::LATE_FRAGMENT_TESTS,
                Accesses::DEPTH_STENCIL_ATTACHMENT_WRITE,
            )
        }
        // vkCmdFillBuffer or vkCmdCopyBuffer of the pattern (`buffer_clear.rs`).
        "clear" | "clear_buffer" if buffer => (Stages::BUFFER_CLEAR, write),
        // vkCmdClearColorImage (the region clear copies from its scratch image in between, with
        // its own barriers into and out of the COPY stage).
        "clear_texture" | "clear_texture_regions" => (Stages::CLEAR, write),
        "resolve" => (Stages::RESOLVE, if target { write } else { read }),
        _ => (Stages::COPY, if target { write } else { read }),
    }
}

impl FrameRecorder<'_> {
    /// Checks that the commands about to be recorded for built-in `node` stay inside what the
    /// barrier plan waits for on each of its accesses ([`recorded_scope`] against
    /// [`rpsl_runtime::compile::map_access`]): an error naming both instead of a hazard.
    fn check_builtin_scope(&self, node: NodeId) -> Result<(), BackendError> {
        let graph = self.graph;
        let decl = graph.decl_of(node);
        let accesses = graph.node_accesses(node);
        let Some(target) = accesses.iter().find(|a| a.param == 0) else {
            return Ok(());
        };
        for access in accesses {
            let Some(resource) = graph.resources.get(access.resource.index()) else {
                continue;
            };
            let buffer = resource.desc.kind == ResourceKind::Buffer;
            let depth = resource.desc.format.is_depth_stencil();
            let planned = map_access(&access.access, 0, !buffer, depth, decl.queue);
            let (stages, bits) =
                recorded_scope(&decl.name, target.access.flags, access.param == 0, buffer);
            if !planned.stages.contains(stages) || planned.accesses.0 & bits.0 != bits.0 {
                return Err(unsupported(
                    node,
                    &decl.name,
                    &format!(
                        "parameter {} is recorded at stages {:#x} with accesses {:#x} but the barrier plan waits for stages {:#x} with accesses {:#x}",
                        access.param, stages.0, bits.0, planned.stages.0, planned.accesses.0
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Records a built-in node.
    pub fn record_builtin(&mut self, node: NodeId) -> Result<(), BackendError> {
        self.check_builtin_scope(node)?;
        let graph = self.graph;
        let decl = graph.decl_of(node);
        let args = Args {
            bytes: graph.node_args(node),
            offsets: decl.params.iter().map(|p| p.offset).collect(),
        };
        let accesses = graph.node_accesses(node);
        let access_of = |param: u16| {
            accesses.iter().position(|a| a.param == param).map(|i| {
                (
                    graph.nodes[node.index()].accesses.start + i as u32,
                    accesses[i],
                )
            })
        };
        let name = decl.name.as_str();
        // A null view: nothing to do.
        let Some((first_index, first)) = access_of(0) else {
            return Ok(());
        };
        let first_handle = self.handle(first.resource)?;
        let first_region = access_region(&first, &first_handle.desc);
        let device = self.context.device.clone();
        let cb = self.cb;
        let flags = first.access.flags;
        let full_2d = |desc: &rpsl_runtime::ResourceDesc, range: &vk::ImageSubresourceRange| {
            let extent = mip_extent(desc, range.base_mip_level);
            (extent.width, extent.height)
        };
        match name {
            "clear" | "clear_color_regions" if flags.contains(AccessFlags::RENDER_TARGET) => {
                let clear = [0, 1, 2, 3].map(|i| args.f32(1, i));
                let (width, height) = full_2d(&first_handle.desc, &first_region.range);
                let regions = name == "clear_color_regions";
                let load = if regions {
                    vk::AttachmentLoadOp::LOAD
                } else {
                    vk::AttachmentLoadOp::CLEAR
                };
                self.begin_rendering(
                    &[(first_index, load, vk::AttachmentStoreOp::STORE, clear)],
                    None,
                    width,
                    height,
                    first_region.range.layer_count,
                    &[],
                    &[],
                )?;
                if regions {
                    let count = args.u32(2, 0);
                    let layer_count = first_region.range.layer_count;
                    let rects = clear_rects(&args, count, 3, layer_count, (width, height))
                        .map_err(|message| unsupported(node, name, &message));
                    let rects = match rects {
                        Ok(rects) => rects,
                        Err(error) => {
                            self.end_rendering();
                            return Err(error);
                        }
                    };
                    let attachment = vk::ClearAttachment {
                        aspect_mask: vk::ImageAspectFlags::COLOR,
                        color_attachment: 0,
                        clear_value: vk::ClearValue {
                            color: vk::ClearColorValue { float32: clear },
                        },
                    };
                    if !rects.is_empty() {
                        // SAFETY: inside the dynamic render pass begun above.
                        unsafe { device.cmd_clear_attachments(cb, &[attachment], &rects) };
                    }
                }
                self.end_rendering();
            }
            "clear" | "clear_depth" | "clear_stencil"
                if flags.intersects(AccessFlags::DEPTH | AccessFlags::STENCIL) =>
            {
                let (depth, stencil) = match decl.params.len() {
                    3 => (args.f32(1, 0), args.u32(2, 0)),
                    _ if name == "clear_stencil" => (0.0, args.u32(1, 0)),
                    _ => (args.f32(1, 0), 0),
                };
                let desc = &first_handle.desc;
                let sub = first.subresource_box(desc);
                let covers = |plane: u64| sub.lo[2] <= plane && plane < sub.hi[2];
                let op = (
                    vk::AttachmentLoadOp::CLEAR,
                    vk::AttachmentStoreOp::STORE,
                    false,
                );
                let target = DepthTarget {
                    access: first_index,
                    depth: (desc.format.has_depth() && covers(0) && name != "clear_stencil")
                        .then_some(op),
                    stencil: (desc.format.has_stencil() && covers(1) && name != "clear_depth")
                        .then_some(op),
                    clear_depth: depth,
                    clear_stencil: stencil,
                };
                let (width, height) = full_2d(desc, &first_region.range);
                self.begin_rendering(
                    &[],
                    Some(&target),
                    width,
                    height,
                    first_region.range.layer_count,
                    &[],
                    &[],
                )?;
                self.end_rendering();
            }
            "clear_depth_stencil_regions" => {
                // Parameters: t(0) option(1) d(2) s(3) numRects(4) rects(5).
                let option = args.u32(1, 0);
                let desc = &first_handle.desc;
                let sub = first.subresource_box(desc);
                let covers = |plane: u64| sub.lo[2] <= plane && plane < sub.hi[2];
                let keep = (
                    vk::AttachmentLoadOp::LOAD,
                    vk::AttachmentStoreOp::STORE,
                    false,
                );
                let depth = desc.format.has_depth() && covers(0);
                let stencil = desc.format.has_stencil() && covers(1);
                let target = DepthTarget {
                    access: first_index,
                    depth: depth.then_some(keep),
                    stencil: stencil.then_some(keep),
                    clear_depth: args.f32(2, 0),
                    clear_stencil: args.u32(3, 0),
                };
                let (width, height) = full_2d(desc, &first_region.range);
                let layer_count = first_region.range.layer_count;
                self.begin_rendering(&[], Some(&target), width, height, layer_count, &[], &[])?;
                let mut aspect = vk::ImageAspectFlags::empty();
                if depth && option & 2 != 0 {
                    aspect |= vk::ImageAspectFlags::DEPTH;
                }
                if stencil && option & 4 != 0 {
                    aspect |= vk::ImageAspectFlags::STENCIL;
                }
                let rects = clear_rects(&args, args.u32(4, 0), 5, layer_count, (width, height))
                    .map_err(|message| unsupported(node, name, &message));
                let rects = match rects {
                    Ok(rects) => rects,
                    Err(error) => {
                        self.end_rendering();
                        return Err(error);
                    }
                };
                if !aspect.is_empty() && !rects.is_empty() {
                    let attachment = vk::ClearAttachment {
                        aspect_mask: aspect,
                        color_attachment: 0,
                        clear_value: vk::ClearValue {
                            depth_stencil: vk::ClearDepthStencilValue {
                                depth: target.clear_depth,
                                stencil: target.clear_stencil,
                            },
                        },
                    };
                    // SAFETY: inside the dynamic render pass begun above.
                    unsafe { device.cmd_clear_attachments(cb, &[attachment], &rects) };
                }
                self.end_rendering();
            }
            "clear_texture" => {
                self.record_texture_clear(node, name, &first_handle, &first_region.range, None)?;
            }
            "clear" | "clear_buffer" if first_handle.desc.kind == ResourceKind::Buffer => {
                self.record_buffer_clear(
                    node,
                    name,
                    &first_handle,
                    first_region.offset,
                    first_region.size,
                )?;
            }
            "copy_texture" => {
                let (src_param, region_copy) = if decl.params.len() == 2 {
                    (1, false)
                } else {
                    (2, true)
                };
                let Some((_, src)) = access_of(src_param) else {
                    return Ok(());
                };
                let src_handle = self.handle(src.resource)?;
                let src_region = access_region(&src, &src_handle.desc);
                let mut regions = Vec::new();
                if region_copy {
                    let (src_at, dst_at) = (args.offset3(3), args.offset3(1));
                    let extent = clamp_extent(
                        args.extent3(4),
                        (
                            mip_extent(&src_handle.desc, src_region.range.base_mip_level),
                            src_at,
                        ),
                        (
                            mip_extent(&first_handle.desc, first_region.range.base_mip_level),
                            dst_at,
                        ),
                    );
                    if extent.width == 0 || extent.height == 0 || extent.depth == 0 {
                        return Ok(());
                    }
                    regions.push(vk::ImageCopy {
                        src_subresource: layers(&src_region.range, 0),
                        src_offset: src_at,
                        dst_subresource: layers(&first_region.range, 0),
                        dst_offset: dst_at,
                        extent,
                    });
                } else {
                    let mips = first_region
                        .range
                        .level_count
                        .min(src_region.range.level_count);
                    for mip in 0..mips {
                        let extent =
                            mip_extent(&src_handle.desc, src_region.range.base_mip_level + mip);
                        regions.push(vk::ImageCopy {
                            src_subresource: layers(&src_region.range, mip),
                            src_offset: vk::Offset3D::default(),
                            dst_subresource: layers(&first_region.range, mip),
                            dst_offset: vk::Offset3D::default(),
                            extent,
                        });
                    }
                }
                // SAFETY: both ranges were put in transfer layouts by the compiler's barriers.
                unsafe {
                    device.cmd_copy_image(
                        cb,
                        src_handle.image,
                        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                        first_handle.image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &regions,
                    )
                };
            }
            "copy_buffer" => {
                let (src_param, region_copy) = if decl.params.len() == 2 {
                    (1, false)
                } else {
                    (2, true)
                };
                let Some((_, src)) = access_of(src_param) else {
                    return Ok(());
                };
                let src_handle = self.handle(src.resource)?;
                let src_region = access_region(&src, &src_handle.desc);
                let region = if region_copy {
                    vk::BufferCopy {
                        src_offset: src_region.offset + args.u64(3),
                        dst_offset: first_region.offset + args.u64(1),
                        size: args.u64(4),
                    }
                } else {
                    vk::BufferCopy {
                        src_offset: src_region.offset,
                        dst_offset: first_region.offset,
                        size: src_region.size.min(first_region.size),
                    }
                };
                if region.size > 0 {
                    // SAFETY: live buffers in the planned states.
                    unsafe {
                        device.cmd_copy_buffer(
                            cb,
                            src_handle.buffer,
                            first_handle.buffer,
                            &[region],
                        )
                    };
                }
            }
            "copy_texture_to_buffer" | "copy_buffer_to_texture" => {
                let to_buffer = name == "copy_texture_to_buffer";
                let other_param = if to_buffer { 5 } else { 2 };
                let Some((_, other)) = access_of(other_param) else {
                    return Ok(());
                };
                let other_handle = self.handle(other.resource)?;
                let other_region = access_region(&other, &other_handle.desc);
                let (texture, texture_region, buffer, buffer_region) = if to_buffer {
                    (other_handle, other_region, first_handle, first_region)
                } else {
                    (first_handle, first_region, other_handle, other_region)
                };
                // Parameter layout: to buffer: dst(0) byteOffset(1) rowPitch(2) imageSize(3)
                // bufferOffset(4) src(5) srcOffset(6) extent(7); to texture: dst(0) dstOffset(1)
                // src(2) byteOffset(3) rowPitch(4) imageSize(5) bufferOffset(6) extent(7).
                let (byte_offset, pitch, size, buffer_at, texture_at) = if to_buffer {
                    (args.u64(1), args.u32(2, 0), 3, 4, 6)
                } else {
                    (args.u64(3), args.u32(4, 0), 5, 6, 1)
                };
                let texel =
                    aspect_texel_bytes(texture.desc.format, texture_region.range.aspect_mask);
                let image_height = args.u32(size, 1);
                let extent = args.extent3(7);
                // Rows and slices as the buffer holds them (0: packed), as the builder checked.
                let row_bytes = if pitch == 0 {
                    extent.width as u64 * texel as u64
                } else {
                    pitch as u64
                };
                let slice_rows = if image_height == 0 {
                    extent.height
                } else {
                    image_height
                };
                let at = args.offset3(buffer_at);
                let buffer_offset = buffer_region.offset
                    + byte_offset
                    + at.z as u64 * row_bytes * slice_rows as u64
                    + at.y as u64 * row_bytes
                    + at.x as u64 * texel as u64;
                let copy = vk::BufferImageCopy {
                    buffer_offset,
                    buffer_row_length: pitch / texel,
                    buffer_image_height: image_height,
                    image_subresource: layers(&texture_region.range, 0),
                    image_offset: args.offset3(texture_at),
                    image_extent: extent,
                };
                // SAFETY: live resources in the compiler's transfer layouts.
                unsafe {
                    if to_buffer {
                        device.cmd_copy_image_to_buffer(
                            cb,
                            texture.image,
                            vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                            buffer.buffer,
                            &[copy],
                        )
                    } else {
                        device.cmd_copy_buffer_to_image(
                            cb,
                            buffer.buffer,
                            texture.image,
                            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                            &[copy],
                        )
                    }
                };
            }
            "resolve" => {
                let mode = args.u32(5, 0);
                if mode > 2 {
                    return Err(unsupported(
                        node,
                        name,
                        "sampler feedback resolve modes are DirectX 12 only",
                    ));
                }
                let Some((_, src)) = access_of(2) else {
                    return Ok(());
                };
                let src_handle = self.handle(src.resource)?;
                let src_region = access_region(&src, &src_handle.desc);
                let src_at = vk::Offset3D {
                    x: args.u32(3, 0) as i32,
                    y: args.u32(3, 1) as i32,
                    z: 0,
                };
                let dst_at = vk::Offset3D {
                    x: args.u32(1, 0) as i32,
                    y: args.u32(1, 1) as i32,
                    z: 0,
                };
                let mut extent = vk::Extent3D {
                    width: args.u32(4, 0),
                    height: args.u32(4, 1),
                    depth: 1,
                };
                if extent.width == 0 || extent.height == 0 {
                    extent = mip_extent(&src_handle.desc, src_region.range.base_mip_level);
                }
                let mut src_size = mip_extent(&src_handle.desc, src_region.range.base_mip_level);
                let mut dst_size =
                    mip_extent(&first_handle.desc, first_region.range.base_mip_level);
                src_size.depth = 1;
                dst_size.depth = 1;
                extent.depth = 1;
                let extent = clamp_extent(extent, (src_size, src_at), (dst_size, dst_at));
                if extent.width == 0 || extent.height == 0 {
                    return Ok(());
                }
                if first_handle.desc.format.is_depth_stencil()
                    || src_handle.desc.format.is_depth_stencil()
                {
                    let job = crate::depth_resolve::DepthResolveJob {
                        node,
                        src: src_handle,
                        src_range: src_region.range,
                        dst: first_handle,
                        dst_range: first_region.range,
                        src_offset: vk::Offset2D {
                            x: src_at.x,
                            y: src_at.y,
                        },
                        dst_offset: vk::Offset2D {
                            x: dst_at.x,
                            y: dst_at.y,
                        },
                        extent: vk::Extent2D {
                            width: extent.width,
                            height: extent.height,
                        },
                        mode,
                    };
                    return self.record_depth_resolve(&job);
                }
                if mode != 0 {
                    let Some(pass) = self.minmax else {
                        return Err(unsupported(node, name, "min/max resolve pipeline missing"));
                    };
                    let job = crate::minmax::MinMaxJob {
                        src_image: src_handle.image,
                        src_format: src_handle.format,
                        src_range: src_region.range,
                        dst_image: first_handle.image,
                        dst_format: first_handle.format,
                        dst_range: first_region.range,
                        src_offset: [src_at.x, src_at.y],
                        dst_offset: [dst_at.x, dst_at.y],
                        extent: [extent.width, extent.height],
                        use_max: mode == 2,
                        samples: self
                            .context
                            .sample_count(src_handle.desc.sample_count)
                            .as_raw(),
                    };
                    return pass.record(self, &job);
                }
                let region = vk::ImageResolve {
                    src_subresource: layers(&src_region.range, 0),
                    src_offset: src_at,
                    dst_subresource: layers(&first_region.range, 0),
                    dst_offset: dst_at,
                    extent,
                };
                // SAFETY: live images in the compiler's transfer layouts.
                unsafe {
                    device.cmd_resolve_image(
                        cb,
                        src_handle.image,
                        vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                        first_handle.image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &[region],
                    )
                };
            }
            "clear_texture_regions" => {
                // Parameters: t(0) data(1) numRects(2) rects(3).
                let count = args.u32(2, 0);
                let range = first_region.range;
                let extent = mip_extent(&first_handle.desc, range.base_mip_level);
                let rects = clear_rects(&args, count, 3, 1, (extent.width, extent.height))
                    .map_err(|message| unsupported(node, name, &message))?;
                self.record_texture_clear(node, name, &first_handle, &range, Some(&rects))?;
            }
            _ => {
                return Err(unsupported(
                    node,
                    name,
                    "this built-in node is not implemented in the Vulkan backend yet",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rpsl_runtime::{builtin_declarations, ValueType};

    /// Every parameter of every built-in declaration, on buffers and textures (colour and
    /// depth/stencil where its flags allow), is planned for at least what the recording does.
    #[test]
    fn every_builtin_is_planned_for_what_it_records() {
        let mut checked = 0;
        for decl in builtin_declarations() {
            let target_flags = decl.params[0].access.unwrap().flags;
            for (index, param) in decl.params.iter().enumerate() {
                let Some(access) = param.access else {
                    continue;
                };
                let buffer = param.value_type == ValueType::Buffer;
                for depth in [false, true] {
                    if buffer && depth {
                        continue;
                    }
                    let planned = map_access(&access, 0, !buffer, depth, decl.queue);
                    let (stages, bits) =
                        recorded_scope(&decl.name, target_flags, index == 0, buffer);
                    assert!(
                        planned.stages.contains(stages) && planned.accesses.0 & bits.0 == bits.0,
                        "{} parameter {index} (depth {depth}): recorded {stages:?} {bits:?}, planned {planned:?}",
                        decl.name
                    );
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 43);
    }

    #[test]
    fn buffer_clears_are_recorded_in_clear_and_copy_stages() {
        assert_eq!(
            recorded_scope("clear", AccessFlags::CLEAR, true, true),
            (Stages::BUFFER_CLEAR, Accesses::TRANSFER_WRITE)
        );
        assert_eq!(
            recorded_scope("copy_buffer", AccessFlags::COPY, false, true),
            (Stages::COPY, Accesses::TRANSFER_READ)
        );
    }
}
