//! Writing a node call's descriptor set: each planned binding gets its parameter's views (in
//! slot order) in the layout the frame compiler put them in, or the backend's samplers.

use std::collections::HashMap;

use ash::vk;
use rpsl_runtime::{AccessFlags, AccessRecord};
use rpsl_shaders::DescriptorKind;

use super::plan::{DescriptorSource, SamplerKind};
use super::program::{descriptor_type, Program};
use super::ShaderNodeErrorKind;
use crate::node::{BoundView, NodeContext};

/// The layout the compiler plans for one access of an image (the runtime's access map: shader
/// writes GENERAL, shader reads SHADER_READ_ONLY or the read-only depth/stencil layout,
/// attachments their attachment layouts).
fn planned_layout(access: &AccessRecord, view: &BoundView) -> vk::ImageLayout {
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

/// The layout view `index` is in during the node: its planned layout, merged with the other
/// accesses of the node to the same subresources (read-only depth stays read-only depth when
/// also sampled; any other pair is GENERAL).
fn layout_during_node(
    views: &[BoundView],
    accesses: &[AccessRecord],
    index: usize,
) -> vk::ImageLayout {
    let own = planned_layout(&accesses[index], &views[index]);
    let mut layout = own;
    for (other, access) in views
        .iter()
        .zip(accesses)
        .enumerate()
        .filter(|(i, _)| *i != index)
        .map(|(_, pair)| pair)
    {
        if other.image != views[index].image || !ranges_overlap(&other.range, &views[index].range) {
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

/// Writes `set` for one call of the node.
pub(crate) fn write_descriptors(
    device: &ash::Device,
    program: &Program,
    set: vk::DescriptorSet,
    context: &NodeContext<'_>,
    samplers: &HashMap<SamplerKind, vk::Sampler>,
) -> Result<(), ShaderNodeErrorKind> {
    let accesses = context.graph.node_accesses(context.node);
    if accesses.len() != context.views.len() {
        return Err(ShaderNodeErrorKind::Arguments(format!(
            "{} views for {} accesses",
            context.views.len(),
            accesses.len()
        )));
    }
    let linear = samplers
        .get(&SamplerKind::LinearClamp)
        .copied()
        .unwrap_or_default();
    let mut image_infos: Vec<Vec<vk::DescriptorImageInfo>> = Vec::new();
    let mut buffer_infos: Vec<Vec<vk::DescriptorBufferInfo>> = Vec::new();
    let mut targets = Vec::new();
    for descriptor in &program.plan.descriptors {
        let DescriptorSource::Param(param) = descriptor.source else {
            continue;
        };
        let mut slots: Vec<(u16, usize)> = context
            .views
            .iter()
            .enumerate()
            .filter(|(_, view)| view.param == param)
            .map(|(index, view)| (view.slot, index))
            .collect();
        slots.sort_unstable();
        if slots.len() as u32 != descriptor.count {
            let name = &program.decl.params[param as usize].name;
            return Err(ShaderNodeErrorKind::Arguments(format!(
                "parameter `{name}` has {} views bound but binding {} takes {}",
                slots.len(),
                descriptor.binding,
                descriptor.count
            )));
        }
        match descriptor.kind {
            DescriptorKind::StorageBuffer | DescriptorKind::UniformBuffer => {
                let infos = slots
                    .iter()
                    .map(|&(_, index)| {
                        let view = &context.views[index];
                        vk::DescriptorBufferInfo {
                            buffer: view.buffer,
                            offset: view.offset,
                            range: view.size.max(1),
                        }
                    })
                    .collect();
                buffer_infos.push(infos);
                targets.push((
                    descriptor.binding,
                    descriptor.kind,
                    false,
                    buffer_infos.len() - 1,
                ));
            }
            _ => {
                let infos = slots
                    .iter()
                    .map(|&(_, index)| vk::DescriptorImageInfo {
                        sampler: if descriptor.kind == DescriptorKind::CombinedImageSampler {
                            linear
                        } else {
                            vk::Sampler::null()
                        },
                        image_view: context.views[index].image_view,
                        image_layout: layout_during_node(context.views, accesses, index),
                    })
                    .collect();
                image_infos.push(infos);
                targets.push((
                    descriptor.binding,
                    descriptor.kind,
                    true,
                    image_infos.len() - 1,
                ));
            }
        }
    }
    let writes: Vec<vk::WriteDescriptorSet<'_>> = targets
        .iter()
        .map(|&(binding, kind, image, index)| {
            let write = vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(binding)
                .descriptor_type(descriptor_type(kind));
            if image {
                write.image_info(&image_infos[index])
            } else {
                write.buffer_info(&buffer_infos[index])
            }
        })
        .collect();
    if !writes.is_empty() {
        // SAFETY: the set is freshly allocated from this frame's pool and not in use; the views
        // and buffers are live for the frame.
        unsafe { device.update_descriptor_sets(&writes, &[]) };
    }
    Ok(())
}
