//! The short path of render-pass building: a node whose declaration has one attachment slot, a
//! color target without clear color, and no viewports or scissors (nearly every pass of the
//! bench shapes). Its pass is one color attachment with the default viewport and scissor, all
//! held inline; it overwrites last frame's pass at the same place.

use super::render_pass::{
    ColorAttachment, ColorAttachments, LoadOp, RenderPass, ScissorRect, ScissorRects, StoreOp,
    Viewports,
};
use super::render_pass_area::full_viewport;
use super::DiscardFlags;
use crate::decl::AccessFlags;
use crate::graph::{AccessRange, AccessRecord, NodeRecord, RecordedGraph};
use crate::ids::NodeId;

/// What the short path makes of a node.
pub(super) enum Single {
    /// No view is bound to the slot: the node has no pass.
    Unbound,
    /// The pass.
    Pass(SinglePass),
    /// The general path must decide (buffer views, several accesses for the slot, anything it
    /// reports as an error).
    General,
}

/// A pass of one color attachment covering the render area.
pub(super) struct SinglePass {
    color: ColorAttachment,
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
}

/// The pass of `record` whose declaration's only attachment slot is `target` (its parameter,
/// slot and target index).
#[inline(always)]
pub(super) fn single_target(
    graph: &RecordedGraph,
    record: &NodeRecord,
    (param, slot, index): (u16, u16, u32),
    discard: &[DiscardFlags],
) -> Single {
    let start = record.accesses.start;
    let Some(accesses) = graph
        .accesses
        .get(start as usize..record.accesses.end as usize)
    else {
        return Single::General;
    };
    let Some(found) = unique_hit(accesses, u32::from(param) | u32::from(slot) << 16) else {
        return Single::General;
    };
    let Some((offset, access)) = found else {
        return Single::Unbound;
    };
    let access_index = start + offset;
    let AccessRange::Texture(range) = access.range else {
        return Single::General;
    };
    if range.mip_count != 1 {
        return Single::General;
    }
    let Some(resource) = graph.resources.get(access.resource.index()) else {
        return Single::General;
    };
    let desc = &resource.desc;
    let flags = discard
        .get(access_index as usize)
        .copied()
        .unwrap_or_default();
    let load = if access.access.flags.contains(AccessFlags::CLEAR) {
        LoadOp::Clear
    } else if flags.contains(DiscardFlags::BEFORE) {
        LoadOp::DontCare
    } else {
        LoadOp::Load
    };
    Single::Pass(SinglePass {
        color: ColorAttachment {
            slot: index,
            access: access_index,
            resource: access.resource,
            load,
            store: if flags.contains(DiscardFlags::AFTER) {
                StoreOp::DontCare
            } else {
                StoreOp::Store
            },
            clear_color: [0.0; 4],
            resolve: None,
        },
        width: ((desc.width >> range.base_mip) as u32).max(1),
        height: (desc.height >> range.base_mip).max(1),
        layers: range.layer_count,
        samples: desc.sample_count,
    })
}

/// The parameter and slot of an access as one word.
#[inline(always)]
fn slot_key(access: &AccessRecord) -> u32 {
    u32::from(access.param) | u32::from(access.slot) << 16
}

/// The one access among `accesses` with slot key `key`, and its offset: `Some(None)` when there
/// is none, `None` when there are several. Nodes have few accesses: up to three are compared
/// without a loop, the last first (render targets usually follow the inputs they draw from).
#[inline(always)]
fn unique_hit(accesses: &[AccessRecord], key: u32) -> Option<Option<(u32, &AccessRecord)>> {
    let hit = |access: &AccessRecord| slot_key(access) == key;
    match accesses {
        [] => Some(None),
        [a] => Some(hit(a).then_some((0, a))),
        [a, b] => {
            if hit(b) {
                (!hit(a)).then_some(Some((1, b)))
            } else {
                Some(hit(a).then_some((0, a)))
            }
        }
        [a, b, c] => {
            if hit(c) {
                (!hit(a) && !hit(b)).then_some(Some((2, c)))
            } else if hit(b) {
                (!hit(a)).then_some(Some((1, b)))
            } else {
                Some(hit(a).then_some((0, a)))
            }
        }
        _ => {
            let mut found = None;
            for (offset, access) in (0..).zip(accesses) {
                if hit(access) {
                    if found.is_some() {
                        return None;
                    }
                    found = Some((offset, access));
                }
            }
            Some(found)
        }
    }
}

/// Stores `single` as the pass of `node` at `passes[count]` (`count <= passes.len()`),
/// overwriting the pass there: the new pass's lists hold their one element inline, so nothing
/// is allocated (a pass there whose lists had spilled to the heap frees them).
#[inline(always)]
pub(super) fn write_single(
    node: NodeId,
    single: &SinglePass,
    passes: &mut Vec<RenderPass>,
    count: usize,
) {
    let (width, height) = (single.width, single.height);
    let pass = RenderPass {
        node,
        colors: ColorAttachments::from_buf([single.color]),
        depth_stencil: None,
        width,
        height,
        layers: single.layers,
        samples: single.samples,
        viewports: Viewports::from_buf([full_viewport(width, height)]),
        scissors: ScissorRects::from_buf([ScissorRect {
            x: 0,
            y: 0,
            width,
            height,
        }]),
    };
    match passes.get_mut(count) {
        // The pass there owns no heap block (its lists are inline, the rest is plain data):
        // forgetting it frees nothing, and skips the out-of-line drop of its three lists.
        Some(slot) if !slot.owns_heap() => std::mem::forget(std::mem::replace(slot, pass)),
        Some(slot) => *slot = pass,
        None => passes.push(pass),
    }
}

#[cfg(test)]
mod tests {
    use super::{slot_key, unique_hit};
    use crate::graph::{AccessRange, AccessRecord};
    use crate::*;

    /// Every placement of zero, one or two matching accesses among one to four.
    #[test]
    fn unique_hit_finds_the_one_match_or_reports_none_or_several() {
        let record = |param: u16| AccessRecord {
            node: NodeId(0),
            param,
            slot: 0,
            resource: ResourceId(0),
            access: AccessDesc::readonly(AccessFlags::PS),
            range: AccessRange::Buffer { offset: 0, size: 4 },
            temporal_layer: 0,
            temporal_slice: 0,
            view_format: Format::UNKNOWN,
        };
        let key = slot_key(&record(7));
        for len in 0..5u32 {
            for mask in 0..1u32 << len {
                let accesses: Vec<AccessRecord> = (0..len)
                    .map(|at| record(if mask >> at & 1 != 0 { 7 } else { at as u16 }))
                    .collect();
                let expected = match mask.count_ones() {
                    0 => Some(None),
                    1 => Some(Some(mask.trailing_zeros())),
                    _ => None,
                };
                let got = unique_hit(&accesses, key)
                    .map(|found| found.map(|(offset, access)| (offset, access.param)));
                assert_eq!(
                    got,
                    expected.map(|found| found.map(|offset| (offset, 7))),
                    "{len} accesses, matches {mask:b}"
                );
            }
        }
    }

    /// Records frames of one call each, a two-target or a single-target draw, and compiles
    /// them with one compiler (so each frame's pass reuses the storage the last one left) and
    /// with a fresh compiler: the passes must agree.
    #[test]
    fn reused_pass_storage_matches_fresh_builds() {
        let mut builder = GraphBuilder::new();
        let target = |name: &str, index: u32| {
            ParamDesc::new(name, ValueType::Texture)
                .with_access(AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
                .with_semantic(SemanticKind::Target, index)
        };
        let two = builder.declare_node(NodeDeclDesc::new(
            "two",
            QueueClass::Graphics,
            vec![target("a", 0), target("b", 1)],
        ));
        let one = builder.declare_node(NodeDeclDesc::new(
            "one",
            QueueClass::Graphics,
            vec![target("a", 0)],
        ));
        let options = CompileOptions {
            cull: false,
            cache: false,
            ..CompileOptions::default()
        };
        let mut reused = FrameCompiler::new(options);
        for (frame, decl, size) in [(0, two, 64), (1, one, 32), (2, two, 16), (3, one, 8)] {
            builder.begin_frame(frame);
            let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, size, size);
            let mut views = Vec::new();
            for key in 0..2 {
                let id = builder.create_resource(desc, key).unwrap();
                views.push(builder.default_texture_view(id).unwrap());
            }
            let mut args = ArgsWriter::new(builder.decl(decl).unwrap());
            args.write_texture(0, &views[0]);
            if decl == two {
                args.write_texture(1, &views[1]);
            }
            builder
                .call_node(decl, args.bytes(), CallFlags::default(), 1)
                .unwrap();
            let graph = builder.finish().unwrap().clone();
            let expected = FrameCompiler::new(options).compile(&graph).unwrap().clone();
            let got = reused.compile(&graph).unwrap();
            assert_eq!(got.render_passes, expected.render_passes, "frame {frame}");
            assert_eq!(got.render_passes.len(), 1);
            let colors = if decl == two { 2 } else { 1 };
            assert_eq!(got.render_passes[0].colors.len(), colors);
            assert_eq!(got.render_passes[0].width, size);
        }
    }
}
