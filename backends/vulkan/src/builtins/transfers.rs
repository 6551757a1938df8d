//! Recording of the built-in copies (`copy_texture`, `copy_buffer`, `copy_texture_to_buffer`,
//! `copy_buffer_to_texture`) and resolves, from their decoded calls.

use ash::vk;
use rpsl_runtime::{BackendError, BufferTextureCopy, CopyBuffer, CopyTexture, NodeId, Resolve};

use super::{layers, mip_extent, unsupported, BoundView};
use crate::record::FrameRecorder;

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

/// A texel offset as Vulkan takes it (rpsl.h's `uint3`, reinterpreted).
fn offset3([x, y, z]: [u32; 3]) -> vk::Offset3D {
    vk::Offset3D {
        x: x as i32,
        y: y as i32,
        z: z as i32,
    }
}

/// A copy extent as Vulkan takes it (a depth of 0 copies one slice).
fn extent3([width, height, depth]: [u32; 3]) -> vk::Extent3D {
    vk::Extent3D {
        width,
        height,
        depth: depth.max(1),
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

impl FrameRecorder<'_> {
    /// `copy_texture`: every common mip of the views, or one region of their first mips
    /// (clamped to both).
    pub(super) fn record_copy_texture(
        &self,
        dst: &BoundView,
        src: &BoundView,
        call: &CopyTexture,
    ) -> Result<(), BackendError> {
        let (src_range, dst_range) = (&src.region.range, &dst.region.range);
        let mut regions = Vec::new();
        match call.region {
            Some(region) => {
                let (src_at, dst_at) = (offset3(region.src_offset), offset3(region.dst_offset));
                let extent = clamp_extent(
                    extent3(region.extent),
                    (
                        mip_extent(&src.handle.desc, src_range.base_mip_level),
                        src_at,
                    ),
                    (
                        mip_extent(&dst.handle.desc, dst_range.base_mip_level),
                        dst_at,
                    ),
                );
                if extent.width == 0 || extent.height == 0 || extent.depth == 0 {
                    return Ok(());
                }
                regions.push(vk::ImageCopy {
                    src_subresource: layers(src_range, 0),
                    src_offset: src_at,
                    dst_subresource: layers(dst_range, 0),
                    dst_offset: dst_at,
                    extent,
                });
            }
            None => {
                for mip in 0..dst_range.level_count.min(src_range.level_count) {
                    regions.push(vk::ImageCopy {
                        src_subresource: layers(src_range, mip),
                        src_offset: vk::Offset3D::default(),
                        dst_subresource: layers(dst_range, mip),
                        dst_offset: vk::Offset3D::default(),
                        extent: mip_extent(&src.handle.desc, src_range.base_mip_level + mip),
                    });
                }
            }
        }
        let (src_image, dst_image) = (src.handle.image()?, dst.handle.image()?);
        // SAFETY: `cb` is the node's recording command buffer, outside any render pass; both
        // images live until the frame completes and their ranges were put in transfer layouts
        // by the compiler's barriers; the regions are clamped to both views.
        unsafe {
            self.encoder().copy_image(
                src_image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                dst_image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &regions,
            )
        };
        Ok(())
    }

    /// `copy_buffer`: the views' common size from their starts, or one region of them.
    pub(super) fn record_copy_buffer(
        &self,
        dst: &BoundView,
        src: &BoundView,
        call: &CopyBuffer,
    ) -> Result<(), BackendError> {
        let region = match call.region {
            Some(region) => vk::BufferCopy {
                src_offset: src.region.offset + region.src_offset,
                dst_offset: dst.region.offset + region.dst_offset,
                size: region.size,
            },
            None => vk::BufferCopy {
                src_offset: src.region.offset,
                dst_offset: dst.region.offset,
                size: src.region.size.min(dst.region.size),
            },
        };
        if region.size > 0 {
            let (src_buffer, dst_buffer) = (src.handle.buffer()?, dst.handle.buffer()?);
            // SAFETY: `cb` is the node's recording command buffer, outside any render pass;
            // both buffers live until the frame completes, in the planned transfer states; the
            // builder checked the region against both views.
            unsafe {
                self.encoder()
                    .copy_buffer(src_buffer, dst_buffer, &[region])
            };
        }
        Ok(())
    }

    /// `copy_texture_to_buffer` (`to_buffer`) and `copy_buffer_to_texture`: one region of the
    /// texture's first mip and the image the buffer holds, rows and slices as the builder
    /// checked them.
    pub(super) fn record_buffer_texture_copy(
        &self,
        texture: &BoundView,
        buffer: &BoundView,
        call: &BufferTextureCopy,
        to_buffer: bool,
    ) -> Result<(), BackendError> {
        let texture_range = &texture.region.range;
        let texel = aspect_texel_bytes(texture.handle.desc.format, texture_range.aspect_mask);
        let pitch = call.row_pitch;
        let image_height = call.buffer_image_size[1];
        let extent = extent3(call.extent);
        // Rows and slices as the buffer holds them (0: packed).
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
        let at = offset3(call.buffer_offset);
        let buffer_offset = buffer.region.offset
            + call.byte_offset
            + at.z as u64 * row_bytes * slice_rows as u64
            + at.y as u64 * row_bytes
            + at.x as u64 * texel as u64;
        let copy = vk::BufferImageCopy {
            buffer_offset,
            buffer_row_length: pitch / texel,
            buffer_image_height: image_height,
            image_subresource: layers(texture_range, 0),
            image_offset: offset3(call.texture_offset),
            image_extent: extent,
        };
        let (image, buffer) = (texture.handle.image()?, buffer.handle.buffer()?);
        // SAFETY: `cb` is the node's recording command buffer, outside any render pass; both
        // resources live until the frame completes, in the compiler's transfer layouts; the
        // builder checked the rows and slices against both views.
        unsafe {
            let encoder = self.encoder();
            if to_buffer {
                encoder.copy_image_to_buffer(
                    image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    buffer,
                    &[copy],
                )
            } else {
                encoder.copy_buffer_to_image(
                    buffer,
                    image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &[copy],
                )
            }
        };
        Ok(())
    }

    /// `resolve`: a region clamped to both views' first mips, resolved by
    /// `vkCmdResolveImage` (average colour), the min/max compute pass (`minmax.rs`) or the
    /// depth/stencil resolve (`depth_resolve/`).
    pub(super) fn record_resolve(
        &mut self,
        node: NodeId,
        name: &str,
        dst: BoundView,
        call: &Resolve,
    ) -> Result<(), BackendError> {
        let mode = call.mode;
        if mode > 2 {
            return Err(unsupported(
                node,
                name,
                "sampler feedback resolve modes are DirectX 12 only",
            ));
        }
        let Some(src) = self.bind_other(node, call.src)? else {
            return Ok(());
        };
        let at = |[x, y]: [u32; 2]| vk::Offset3D {
            x: x as i32,
            y: y as i32,
            z: 0,
        };
        let (src_at, dst_at) = (at(call.src_offset), at(call.dst_offset));
        let (src_range, dst_range) = (src.region.range, dst.region.range);
        let mut extent = vk::Extent3D {
            width: call.extent[0],
            height: call.extent[1],
            depth: 1,
        };
        if extent.width == 0 || extent.height == 0 {
            extent = mip_extent(&src.handle.desc, src_range.base_mip_level);
        }
        let mut src_size = mip_extent(&src.handle.desc, src_range.base_mip_level);
        let mut dst_size = mip_extent(&dst.handle.desc, dst_range.base_mip_level);
        src_size.depth = 1;
        dst_size.depth = 1;
        extent.depth = 1;
        let extent = clamp_extent(extent, (src_size, src_at), (dst_size, dst_at));
        if extent.width == 0 || extent.height == 0 {
            return Ok(());
        }
        if dst.handle.desc.format.is_depth_stencil() || src.handle.desc.format.is_depth_stencil() {
            let job = crate::depth_resolve::DepthResolveJob {
                node,
                src: src.handle,
                src_image: src.handle.image()?,
                src_range,
                dst: dst.handle,
                dst_image: dst.handle.image()?,
                dst_range,
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
                src_image: src.handle.image()?,
                src_format: src.handle.format,
                src_range,
                dst_image: dst.handle.image()?,
                dst_format: dst.handle.format,
                dst_range,
                src_offset: [src_at.x, src_at.y],
                dst_offset: [dst_at.x, dst_at.y],
                extent: [extent.width, extent.height],
                use_max: mode == 2,
                samples: self
                    .context
                    .sample_count(src.handle.desc.sample_count)
                    .as_raw(),
            };
            return pass.record(self, &job);
        }
        let region = vk::ImageResolve {
            src_subresource: layers(&src_range, 0),
            src_offset: src_at,
            dst_subresource: layers(&dst_range, 0),
            dst_offset: dst_at,
            extent,
        };
        let (src_image, dst_image) = (src.handle.image()?, dst.handle.image()?);
        // SAFETY: `cb` is the node's recording command buffer on the graphics queue, outside
        // any render pass; both images live until the frame completes, in the compiler's
        // transfer layouts (the builder checked a multisampled colour source and a
        // single-sampled destination of one format); the region is clamped to both.
        unsafe {
            self.encoder().resolve_image(
                src_image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                dst_image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &[region],
            )
        };
        Ok(())
    }
}
