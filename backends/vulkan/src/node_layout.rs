//! The layouts an image is in while a node runs: what the frame compiler's barriers leave it
//! in, read from the planner's own table ([`rpsl_runtime::compile::map_access`], per plane) and
//! merged as the planner merges a node's overlapping accesses
//! ([`rpsl_runtime::compile::merge_layouts`]). [`crate::BoundTexture::layout`] tells a node
//! implementation; shader nodes write it into their descriptors.

use ash::vk;
use rpsl_runtime::compile::{map_access, merge_layouts};
use rpsl_runtime::{AccessRecord, QueueClass, RecordedGraph, SubresourceBox};

/// The layouts of the image of access `index` (one of a node's `accesses`, which run on a
/// queue of class `queue`) during the node: its first plane's (colour, depth, or stencil for a
/// stencil-only view) and, when the view covers the stencil plane, the stencil plane's.
pub(super) fn layouts_during_node(
    graph: &RecordedGraph,
    queue: QueueClass,
    accesses: &[AccessRecord],
    index: usize,
) -> (vk::ImageLayout, Option<vk::ImageLayout>) {
    let access = &accesses[index];
    let Some(resource) = graph.resources.get(access.resource.index()) else {
        return (vk::ImageLayout::UNDEFINED, None);
    };
    let desc = &resource.desc;
    let planes = access.subresource_box(desc);
    let layout_of_plane = |plane: u64| {
        let depth = desc.format.is_depth_stencil();
        let mut layout = map_access(&access.access, plane as u32, true, depth, queue).layout;
        for (other_index, other) in accesses.iter().enumerate() {
            if other_index == index
                || other.resource != access.resource
                || !share_plane(&planes, &other.subresource_box(desc), plane)
            {
                continue;
            }
            let theirs = map_access(&other.access, plane as u32, true, depth, queue).layout;
            layout = merge_layouts(layout, theirs);
        }
        vk::ImageLayout::from_raw(layout as i32)
    };
    let first = layout_of_plane(planes.lo[2]);
    let stencil = (desc.format.has_stencil() && desc.format.has_depth() && planes.hi[2] > 1)
        .then(|| layout_of_plane(1));
    let stencil = stencil.or_else(|| {
        // A stencil-only format has its one plane at 0.
        (desc.format.has_stencil() && !desc.format.has_depth()).then_some(first)
    });
    (first, stencil)
}

/// Whether two accesses' boxes share a subresource of plane `plane`.
fn share_plane(a: &SubresourceBox, b: &SubresourceBox, plane: u64) -> bool {
    let plane_box = SubresourceBox {
        lo: [0, 0, plane],
        hi: [u64::MAX, u64::MAX, plane + 1],
    };
    a.overlaps(b) && a.overlaps(&plane_box) && b.overlaps(&plane_box)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rpsl_runtime::{
        AccessDesc, AccessFlags, AccessMode, ArgsWriter, CallFlags, Format, GraphBuilder,
        NodeDeclDesc, ParamDesc, ResourceDesc, TextureView, ValueType,
    };

    /// Records one call of a node with texture parameters `accesses`, each given the view
    /// `views[i]` of one of `resources` (`(resource index, base mip, mip count)`), and returns
    /// every view's layouts during the node.
    fn layouts(
        resources: &[ResourceDesc],
        accesses: &[AccessDesc],
        views: &[(usize, u32, u32)],
    ) -> Vec<(vk::ImageLayout, Option<vk::ImageLayout>)> {
        let mut builder = GraphBuilder::new();
        let params = accesses
            .iter()
            .enumerate()
            .map(|(i, access)| {
                ParamDesc::new(format!("t{i}"), ValueType::Texture).with_access(*access)
            })
            .collect();
        let decl = builder.declare_node(NodeDeclDesc::new("n", QueueClass::Graphics, params));
        builder.begin_frame(0);
        let ids: Vec<_> = resources
            .iter()
            .enumerate()
            .map(|(i, desc)| builder.create_resource(*desc, 10 + i as u64).unwrap())
            .collect();
        let mut args = ArgsWriter::new(builder.decl(decl).unwrap());
        for (param, &(resource, base_mip, mips)) in views.iter().enumerate() {
            let mut view: TextureView = builder.default_texture_view(ids[resource]).unwrap();
            view.base_mip_level = base_mip;
            view.mip_level_count = mips;
            args.write_texture(param, &view);
        }
        let node = builder
            .call_node(decl, args.bytes(), CallFlags::default(), 1)
            .unwrap();
        let graph = builder.finish().unwrap();
        let node_accesses = graph.node_accesses(node);
        (0..node_accesses.len())
            .map(|index| layouts_during_node(graph, QueueClass::Graphics, node_accesses, index))
            .collect()
    }

    fn rgba(mips: u32) -> ResourceDesc {
        let mut desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8, 8);
        desc.mip_levels = mips;
        desc
    }

    use vk::ImageLayout as L;

    #[test]
    fn each_kind_of_access_is_in_the_planned_layout() {
        let got = layouts(
            &[rgba(1), rgba(1), rgba(1), rgba(1)],
            &[
                AccessDesc::readwrite(AccessFlags::RENDER_TARGET),
                AccessDesc::readwrite(AccessFlags::COPY),
                AccessDesc::readonly(AccessFlags::PS),
                AccessDesc::readwrite(AccessFlags::PS),
            ],
            &[(0, 0, 1), (1, 0, 1), (2, 0, 1), (3, 0, 1)],
        );
        assert_eq!(
            got,
            [
                (L::COLOR_ATTACHMENT_OPTIMAL, None),
                (L::TRANSFER_DST_OPTIMAL, None),
                (L::SHADER_READ_ONLY_OPTIMAL, None),
                (L::GENERAL, None),
            ]
        );
    }

    #[test]
    fn depth_and_stencil_planes_have_their_own_layouts() {
        let depth = ResourceDesc::tex2d(Format::D24_UNORM_S8_UINT, 8, 8);
        let mut depth_read_stencil_write =
            AccessDesc::readonly(AccessFlags::DEPTH | AccessFlags::STENCIL);
        depth_read_stencil_write.stencil_mode = Some(AccessMode::ReadWrite);
        let got = layouts(
            &[depth, depth],
            &[
                AccessDesc::readwrite(AccessFlags::DEPTH | AccessFlags::STENCIL),
                depth_read_stencil_write,
            ],
            &[(0, 0, 1), (1, 0, 1)],
        );
        assert_eq!(
            got,
            [
                (
                    L::DEPTH_ATTACHMENT_OPTIMAL,
                    Some(L::STENCIL_ATTACHMENT_OPTIMAL)
                ),
                (
                    L::DEPTH_READ_ONLY_OPTIMAL,
                    Some(L::STENCIL_ATTACHMENT_OPTIMAL)
                ),
            ]
        );
    }

    #[test]
    fn overlapping_accesses_of_a_node_share_one_layout() {
        // Read-only depth also sampled stays read-only depth; a sampled read and a copy read of
        // the same mip are GENERAL; a copy of another mip keeps its own layout.
        let depth = ResourceDesc::tex2d(Format::D32_FLOAT, 8, 8);
        let got = layouts(
            &[depth, rgba(2)],
            &[
                AccessDesc::readonly(AccessFlags::DEPTH),
                AccessDesc::readonly(AccessFlags::PS),
                AccessDesc::readonly(AccessFlags::PS),
                AccessDesc::readonly(AccessFlags::COPY),
                AccessDesc::readwrite(AccessFlags::COPY),
            ],
            &[(0, 0, 1), (0, 0, 1), (1, 0, 1), (1, 0, 1), (1, 1, 1)],
        );
        assert_eq!(
            got,
            [
                (L::DEPTH_READ_ONLY_OPTIMAL, None),
                (L::DEPTH_READ_ONLY_OPTIMAL, None),
                (L::GENERAL, None),
                (L::GENERAL, None),
                (L::TRANSFER_DST_OPTIMAL, None),
            ]
        );
    }
}
