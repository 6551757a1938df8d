//! Recording of rpsl.h's built-in nodes: clears (colour and depth/stencil through dynamic
//! rendering, storage textures and buffers through transfer clears), texture and buffer copies
//! (whole and regions), texture/buffer copies, and the average MSAA resolve.

use crate::record::{access_region, DepthTarget, FrameRecorder};
use ash::vk;
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

fn layers(range: &vk::ImageSubresourceRange, mip: u32) -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: range.aspect_mask,
        mip_level: range.base_mip_level + mip,
        base_array_layer: range.base_array_layer,
        layer_count: range.layer_count,
    }
}

impl FrameRecorder<'_> {
    /// Records a built-in node.
    pub fn record_builtin(&mut self, node: NodeId) -> Result<(), BackendError> {
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
                    let rects: Vec<_> = (0..count)
                        .map(|r| vk::ClearRect {
                            rect: vk::Rect2D {
                                offset: vk::Offset2D {
                                    x: args.u32(3, r * 4) as i32,
                                    y: args.u32(3, r * 4 + 1) as i32,
                                },
                                extent: vk::Extent2D {
                                    width: args.u32(3, r * 4 + 2),
                                    height: args.u32(3, r * 4 + 3),
                                },
                            },
                            base_array_layer: 0,
                            layer_count: first_region.range.layer_count,
                        })
                        .collect();
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
            "clear_texture" => {
                let value = vk::ClearColorValue {
                    uint32: [0, 1, 2, 3].map(|i| args.u32(2, i)),
                };
                // SAFETY: the compiler's barrier put the range in TRANSFER_DST_OPTIMAL.
                unsafe {
                    device.cmd_clear_color_image(
                        cb,
                        first_handle.image,
                        vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                        &value,
                        &[first_region.range],
                    )
                };
            }
            "clear" | "clear_buffer" if first_handle.desc.kind == ResourceKind::Buffer => {
                let value_param = if name == "clear_buffer" { 2 } else { 1 };
                let words = [0, 1, 2, 3].map(|i| args.u32(value_param, i));
                if words.iter().any(|&w| w != words[0]) || !first_region.size.is_multiple_of(4) {
                    // TODO: non-uniform 16-byte patterns (compute or staged copy).
                    return Err(unsupported(
                        node,
                        name,
                        "buffer clears with four different words or a size not a multiple of 4 are not supported yet",
                    ));
                }
                // SAFETY: the buffer range is live and in the planned state.
                unsafe {
                    device.cmd_fill_buffer(
                        cb,
                        first_handle.buffer,
                        first_region.offset,
                        first_region.size,
                        words[0],
                    )
                };
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
                    regions.push(vk::ImageCopy {
                        src_subresource: layers(&src_region.range, 0),
                        src_offset: args.offset3(3),
                        dst_subresource: layers(&first_region.range, 0),
                        dst_offset: args.offset3(1),
                        extent: args.extent3(4),
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
                let texel = texture.desc.format.bytes_per_element().max(1);
                let image_height = args.u32(size, 1);
                let at = args.offset3(buffer_at);
                let buffer_offset = buffer_region.offset
                    + byte_offset
                    + at.z as u64 * pitch as u64 * image_height as u64
                    + at.y as u64 * pitch as u64
                    + at.x as u64 * texel as u64;
                let copy = vk::BufferImageCopy {
                    buffer_offset,
                    buffer_row_length: pitch / texel,
                    buffer_image_height: image_height,
                    image_subresource: layers(&texture_region.range, 0),
                    image_offset: args.offset3(texture_at),
                    image_extent: args.extent3(7),
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
                if mode != 0 {
                    // TODO: min/max resolve through a compute shader.
                    return Err(unsupported(
                        node,
                        name,
                        "only the average resolve mode is supported (min/max need a compute pass, not done yet)",
                    ));
                }
                let Some((_, src)) = access_of(2) else {
                    return Ok(());
                };
                let src_handle = self.handle(src.resource)?;
                let src_region = access_region(&src, &src_handle.desc);
                let mut extent = vk::Extent3D {
                    width: args.u32(4, 0),
                    height: args.u32(4, 1),
                    depth: 1,
                };
                if extent.width == 0 || extent.height == 0 {
                    extent = mip_extent(&src_handle.desc, src_region.range.base_mip_level);
                }
                let region = vk::ImageResolve {
                    src_subresource: layers(&src_region.range, 0),
                    src_offset: vk::Offset3D {
                        x: args.u32(3, 0) as i32,
                        y: args.u32(3, 1) as i32,
                        z: 0,
                    },
                    dst_subresource: layers(&first_region.range, 0),
                    dst_offset: vk::Offset3D {
                        x: args.u32(1, 0) as i32,
                        y: args.u32(1, 1) as i32,
                        z: 0,
                    },
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
            _ => {
                // TODO: clear_depth_stencil_regions and clear_texture_regions.
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
