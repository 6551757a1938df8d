//! The layout an image is in while a node runs, as the frame compiler's barriers leave it: what
//! [`crate::BoundTexture::layout`] tells a node implementation and shader nodes write into their
//! descriptors.

use ash::vk;
use rpsl_runtime::{AccessFlags, AccessRecord};

use crate::node::{BoundTexture, BoundView};

/// The layout the compiler plans for one access of an image (the runtime's access map: shader
/// writes GENERAL, shader reads SHADER_READ_ONLY or the read-only depth/stencil layout,
/// attachments their attachment layouts).
fn planned_layout(access: &AccessRecord, view: &BoundTexture) -> vk::ImageLayout {
    let flags = access.access.flags;
    let writes = access.access.writes();
    let depth_aspect = view
        .range
        .aspect_mask
        .intersects(vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL);
    if flags.contains(AccessFlags::RENDER_TARGET) {
        return vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL;
    }
    if flags.intersects(AccessFlags::DEPTH | AccessFlags::STENCIL) {
        return if writes {
            vk::ImageLayout::DEPTH_ATTACHMENT_OPTIMAL
        } else {
            vk::ImageLayout::DEPTH_READ_ONLY_OPTIMAL
        };
    }
    if writes {
        vk::ImageLayout::GENERAL
    } else if depth_aspect {
        if view
            .range
            .aspect_mask
            .contains(vk::ImageAspectFlags::STENCIL)
            && !view.range.aspect_mask.contains(vk::ImageAspectFlags::DEPTH)
        {
            vk::ImageLayout::STENCIL_READ_ONLY_OPTIMAL
        } else {
            vk::ImageLayout::DEPTH_READ_ONLY_OPTIMAL
        }
    } else {
        vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
    }
}

fn ranges_overlap(a: &vk::ImageSubresourceRange, b: &vk::ImageSubresourceRange) -> bool {
    let overlap = |a0: u32, an: u32, b0: u32, bn: u32| {
        a0 < b0.saturating_add(bn) && b0 < a0.saturating_add(an)
    };
    overlap(
        a.base_mip_level,
        a.level_count,
        b.base_mip_level,
        b.level_count,
    ) && overlap(
        a.base_array_layer,
        a.layer_count,
        b.base_array_layer,
        b.layer_count,
    ) && a.aspect_mask.intersects(b.aspect_mask)
}

/// The layout view `index` (texture `texture`) is in during the node: its planned layout,
/// merged with the other accesses of the node to the same subresources (read-only depth stays
/// read-only depth when also sampled; any other pair is GENERAL).
pub(super) fn layout_during_node(
    views: &[BoundView],
    accesses: &[AccessRecord],
    index: usize,
    texture: &BoundTexture,
) -> vk::ImageLayout {
    let own = planned_layout(&accesses[index], texture);
    let mut layout = own;
    for (other, access) in views
        .iter()
        .zip(accesses)
        .enumerate()
        .filter(|(i, _)| *i != index)
        .map(|(_, pair)| pair)
    {
        let Some(other) = other.texture() else {
            continue;
        };
        if other.image != texture.image || !ranges_overlap(&other.range, &texture.range) {
            continue;
        }
        let theirs = planned_layout(access, other);
        layout = match (layout, theirs) {
            (a, b) if a == b => a,
            (
                vk::ImageLayout::DEPTH_READ_ONLY_OPTIMAL,
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            )
            | (
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                vk::ImageLayout::DEPTH_READ_ONLY_OPTIMAL,
            ) => vk::ImageLayout::DEPTH_READ_ONLY_OPTIMAL,
            _ => vk::ImageLayout::GENERAL,
        };
    }
    layout
}
