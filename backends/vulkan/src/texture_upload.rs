//! Nodes that write texels the host holds into a texture: a MagpieFX effect's `//!SOURCE`
//! image, uploaded in the frame that creates its persistent texture. The node's parameter 0 is
//! a texture view written through a `copy` access (the compiler plans the transfer write and
//! its barriers like any other); the bytes are bound with the node, so they never travel
//! through the node's argument block. Each run copies them through a host buffer
//! ([`crate::NodeContext::host_buffer`]) that lives until the frame completed.

use std::sync::Arc;

use ash::vk;

use crate::encoder::CommandEncoder;
use crate::node::NodeContext;
use crate::VulkanBackend;

/// Binds each `(name, texels)` as a node that copies `texels` into the texture its parameter 0
/// views (one mip level of one layer, written through a `copy` access): the texels of that mip
/// level, rows tightly packed (block-compressed formats: rows of 4x4 blocks), in the texture's
/// format. Texels of another size, a view of several mip levels or layers, or a depth/stencil
/// texture fail the frame with [`rpsl_runtime::BackendError::Node`].
///
/// ```no_run
/// # use std::sync::Arc;
/// # fn bind(backend: &mut rpsl_vulkan::VulkanBackend) {
/// // A 2x2 RGBA8 lookup table written by the node `Lut.lut.upload`.
/// let texels: Arc<[u8]> = Arc::from(vec![255u8; 16]);
/// rpsl_vulkan::texture_upload::bind_texture_uploads(
///     backend,
///     [("Lut.lut.upload".to_string(), texels)],
/// );
/// # }
/// ```
pub fn bind_texture_uploads(
    backend: &mut VulkanBackend,
    uploads: impl IntoIterator<Item = (String, Arc<[u8]>)>,
) {
    for (name, texels) in uploads {
        backend.bind_node(&name, move |context| upload_texels(context, &texels));
    }
}

/// Bytes of a `width` x `height` mip level of `format`, rows tightly packed.
fn packed_bytes(format: rpsl_runtime::Format, width: u32, height: u32) -> u64 {
    let block = format.block_size().max(1);
    width.div_ceil(block) as u64 * height.div_ceil(block) as u64 * format.bytes_per_element() as u64
}

fn upload_texels(context: &mut NodeContext<'_>, texels: &[u8]) -> Result<(), String> {
    let name = context.decl().name.clone();
    let view = *context
        .param_views(0)
        .next()
        .ok_or_else(|| format!("`{name}` has no texture to write"))?;
    let texture = *view
        .texture()
        .ok_or_else(|| format!("`{name}` writes texels into a buffer, not a texture"))?;
    let access = context
        .graph
        .node_accesses(context.node)
        .iter()
        .find(|access| access.param == 0)
        .ok_or_else(|| format!("`{name}` has no access to its texture"))?;
    let desc = context.graph.resources[access.resource.index()].desc;
    if desc.format.is_depth_stencil() {
        return Err(format!(
            "`{name}` cannot upload into a depth/stencil texture"
        ));
    }
    let range = texture.range;
    if range.level_count != 1 || range.layer_count != 1 {
        return Err(format!(
            "`{name}` writes one mip level of one layer, not {} levels of {} layers",
            range.level_count, range.layer_count
        ));
    }
    let mip = range.base_mip_level;
    let width = ((desc.width >> mip) as u32).max(1);
    let height = (desc.height >> mip).max(1);
    let expected = packed_bytes(desc.format, width, height);
    if texels.len() as u64 != expected {
        return Err(format!(
            "`{name}` holds {} bytes of texels, but a {width}x{height} {} mip level takes {expected}",
            texels.len(),
            desc.format.name().unwrap_or("UNKNOWN")
        ));
    }
    if !matches!(
        texture.layout,
        vk::ImageLayout::TRANSFER_DST_OPTIMAL | vk::ImageLayout::GENERAL
    ) {
        return Err(format!(
            "`{name}` must write its texture through a `copy` access (the texture is in {:?})",
            texture.layout
        ));
    }
    if context.render_pass.is_some() {
        return Err(format!("`{name}` cannot copy inside a render pass"));
    }
    let staging = context.host_buffer(&format!("texels of `{name}`"), texels)?;
    let region = vk::BufferImageCopy {
        buffer_offset: 0,
        buffer_row_length: 0,
        buffer_image_height: 0,
        image_subresource: vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            mip_level: mip,
            base_array_layer: range.base_array_layer,
            layer_count: 1,
        },
        image_offset: vk::Offset3D::default(),
        image_extent: vk::Extent3D {
            width,
            height,
            depth: 1,
        },
    };
    let device = context.device.clone();
    // SAFETY: the node's command buffer is recording while the node runs, and only this
    // encoder records into it meanwhile; `debug_utils` belongs to `device`.
    let encoder =
        unsafe { CommandEncoder::new(&device, context.debug_utils, context.command_buffer) };
    // SAFETY: no render pass is open (checked above); the staging buffer (TRANSFER_SRC usage)
    // lives until the frame completed and holds exactly the mip level's bytes; the image is
    // live for the frame (TRANSFER_DST usage: the node's copy access) and its subresource is in
    // `texture.layout` (TRANSFER_DST_OPTIMAL or GENERAL, checked) as the compiler's barriers
    // left it for this node's copy write; the region is that one mip level of one layer.
    unsafe { encoder.copy_buffer_to_image(staging, texture.image, texture.layout, &[region]) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::packed_bytes;
    use rpsl_runtime::Format;

    #[test]
    fn packed_sizes_count_texels_or_whole_blocks() {
        assert_eq!(packed_bytes(Format::R8G8B8A8_UNORM, 3, 2), 24);
        let bc1 = Format::from_name("BC1_UNORM").unwrap();
        assert_eq!(packed_bytes(bc1, 5, 3), 2 * 8);
        let half = Format::from_name("R16G16B16A16_FLOAT").unwrap();
        assert_eq!(packed_bytes(half, 2, 2), 32);
    }
}
