//! The short path of render-pass building: a node whose declaration has one attachment slot, a
//! color target without clear color, and no viewports or scissors (nearly every pass of the
//! bench shapes). Its pass is one color attachment with the default viewport and scissor, all
//! held inline; it overwrites last frame's pass at the same place.
//!
//! Render passes are built at the end of the compile, after memory and barrier planning have
//! streamed megabytes through the caches: the big records are gone by then. So the target is
//! found, where it can be, from the access table's compact words instead of the 56-byte
//! recorded accesses and the 104-byte resource records: the access keys (8 bytes: parameter
//! and clear flag), the access's compact record (resource, whole-resource bit) and the
//! resource's 16-byte [`TargetExtent`]. That covers a declaration whose target parameter is a
//! lone texture slot ([`super::plan::DeclKind::target_param_alone`]) and an access
//! of the whole of a one-mip texture; other cases read the recorded accesses as before.

use super::pass::{full_scissor, full_viewport, load_op, mip_extent, store_op};
use super::plan::DeclKind;
use crate::compile::frame::DiscardFlags;
use crate::compile::frame::{
    ColorAttachment, ColorAttachments, LoadOp, RenderPass, ScissorRects, StoreOp, Viewports,
};
use crate::compile::table::{
    AccessInfo, NodeSpan, TargetExtent, KEY_PARAM_SHIFT, NOT_TARGET, WHOLE,
};
use crate::decl::AccessFlags;
use crate::graph::{AccessRange, AccessRecord, RecordedGraph};
use crate::ids::{NodeId, ResourceId};

/// What the short path makes of a node.
#[derive(PartialEq, Debug)]
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
#[derive(PartialEq, Debug)]
pub(super) struct SinglePass {
    color: ColorAttachment,
    width: u32,
    height: u32,
    layers: u32,
    samples: u32,
}

/// What the short path reads of the access table: per access its key and compact record, per
/// resource its extent.
#[derive(Copy, Clone)]
pub(super) struct CompactAccesses<'a> {
    /// Per access: attribute flags, mode and parameter
    /// ([`crate::compile::table::AccessTable::keys`]).
    pub keys: &'a [u64],
    /// Per access: resource and bits ([`crate::compile::table::AccessTable::infos`]).
    pub infos: &'a [AccessInfo],
    /// Per resource ([`crate::compile::table::AccessTable::extents`]).
    pub extents: &'a [TargetExtent],
}

/// The pass of `record` whose declaration (of kind `kind`) has one attachment slot `target`
/// (its parameter, slot and target index).
#[inline(always)]
pub(super) fn single_target(
    graph: &RecordedGraph,
    record: NodeSpan,
    (kind, target): (&DeclKind, (u16, u16, u32)),
    compact: CompactAccesses<'_>,
    discard: &[DiscardFlags],
) -> Single {
    if kind.target_param_alone {
        if let Some(single) = whole_target(record, target, compact, discard) {
            return single;
        }
    }
    recorded_target(graph, record, target, discard)
}

/// [`single_target`] from the compact words, for a target parameter with one texture slot:
/// `None` where they do not decide (several accesses of the parameter, an access of part of
/// its resource, a resource of several mips).
///
/// In a graph a [`crate::GraphBuilder`] recorded, every access of the parameter is of its one
/// slot, a texture view; a [`WHOLE`] access of a texture of one mip covers all of that mip
/// (`extent.whole_layers` layers from base mip 0). So the one access of the parameter is the
/// target, and the pass equals the one [`recorded_target`] makes. (A hand-made graph may hold
/// what no builder records: an access of the parameter naming a slot it does not have, or a
/// buffer range over a texture. Such an access is taken as the target here, where the recorded
/// path would skip it or leave it to the general path: a pass either way, never a panic.)
#[inline(always)]
fn whole_target(
    record: NodeSpan,
    (param, _, index): (u16, u16, u32),
    compact: CompactAccesses<'_>,
    discard: &[DiscardFlags],
) -> Option<Single> {
    let start = record.start;
    let keys = compact.keys.get(start as usize..record.end as usize)?;
    // A key's parameter is its 16 bits from KEY_PARAM_SHIFT (the bits above are zero): compared
    // as a `u16`, one memory compare per key.
    let found = unique_hit(keys, |key| (key >> KEY_PARAM_SHIFT) as u16 == param)?;
    let Some((offset, &key)) = found else {
        return Some(Single::Unbound);
    };
    let access_index = start + offset;
    let info = *compact.infos.get(access_index as usize)?;
    if info.bits & WHOLE == 0 {
        return None;
    }
    // Not NOT_TARGET: the resource is a texture (of one mip), so the whole access is too.
    let extent = *compact.extents.get(info.resource as usize)?;
    if extent.whole_layers == NOT_TARGET {
        return None;
    }
    let cleared = key & u64::from(AccessFlags::CLEAR.0) != 0;
    Some(Single::Pass(SinglePass {
        color: color(
            index,
            access_index,
            ResourceId(info.resource),
            cleared,
            discard,
        ),
        width: extent.width.max(1),
        height: extent.height.max(1),
        layers: extent.whole_layers,
        samples: extent.samples,
    }))
}

/// The load and store operations of a color target, indexed by `cleared | discard << 1` where
/// `discard` holds [`DiscardFlags::BEFORE`] and [`DiscardFlags::AFTER`] (one lookup instead of
/// two selections): loaded unless cleared or discarded before, stored unless discarded after.
// The table's index takes the two discard bits as bits 1 and 2.
const _: () = assert!(DiscardFlags::BEFORE.0 | DiscardFlags::AFTER.0 == 3);
const COLOR_OPS: [(LoadOp, StoreOp); 8] = {
    let mut ops = [(LoadOp::Load, StoreOp::Store); 8];
    let mut index = 0;
    while index < 8 {
        let discard = (index >> 1) as u8;
        ops[index] = (
            load_op(index & 1 != 0, discard & DiscardFlags::BEFORE.0 != 0),
            store_op(discard & DiscardFlags::AFTER.0 != 0),
        );
        index += 1;
    }
    ops
};

/// The color attachment of target `index`, access `access` of `resource`: loaded unless
/// `cleared` or discarded before, stored unless discarded after.
#[inline(always)]
fn color(
    index: u32,
    access: u32,
    resource: ResourceId,
    cleared: bool,
    discard: &[DiscardFlags],
) -> ColorAttachment {
    let flags = discard.get(access as usize).copied().unwrap_or_default();
    let discard_bits = (flags.0 & (DiscardFlags::BEFORE.0 | DiscardFlags::AFTER.0)) as usize;
    let (load, store) = COLOR_OPS[cleared as usize | discard_bits << 1];
    ColorAttachment {
        slot: index,
        access,
        resource,
        load,
        store,
        clear_color: [0.0; 4],
        resolve: None,
    }
}

/// [`single_target`] from the recorded accesses and resources.
#[inline(always)]
fn recorded_target(
    graph: &RecordedGraph,
    record: NodeSpan,
    (param, slot, index): (u16, u16, u32),
    discard: &[DiscardFlags],
) -> Single {
    let start = record.start;
    let Some(accesses) = graph.accesses.get(start as usize..record.end as usize) else {
        return Single::General;
    };
    let key = u32::from(param) | u32::from(slot) << 16;
    let Some(found) = unique_hit(accesses, |access| slot_key(access) == key) else {
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
    let (width, height) = mip_extent(&resource.desc, range.base_mip);
    Single::Pass(SinglePass {
        color: color(
            index,
            access_index,
            access.resource,
            access.access.flags.contains(AccessFlags::CLEAR),
            discard,
        ),
        width,
        height,
        layers: range.layer_count,
        samples: resource.desc.sample_count,
    })
}

/// The parameter and slot of an access as one word.
#[inline(always)]
fn slot_key(access: &AccessRecord) -> u32 {
    u32::from(access.param) | u32::from(access.slot) << 16
}

/// The one item among `items` that `hit` accepts, and its offset: `Some(None)` when there is
/// none, `None` when there are several. Nodes have few accesses: up to three are compared
/// without a loop, the last first (render targets usually follow the inputs they draw from).
#[inline(always)]
fn unique_hit<T>(items: &[T], hit: impl Fn(&T) -> bool) -> Option<Option<(u32, &T)>> {
    match items {
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
            for (offset, item) in (0..).zip(items) {
                if hit(item) {
                    if found.is_some() {
                        return None;
                    }
                    found = Some((offset, item));
                }
            }
            Some(found)
        }
    }
}

/// Stores `single` as the pass of `node` at `passes[count]` (`count <= passes.len()`),
/// overwriting the pass there: the new pass's lists hold their one element inline, so nothing
/// is allocated (a pass there whose lists had spilled to the heap frees them). The first
/// `inline_passes` of `passes` are known to own no heap block.
#[inline(always)]
pub(super) fn write_single(
    node: NodeId,
    single: &SinglePass,
    passes: &mut Vec<RenderPass>,
    (count, inline_passes): (usize, usize),
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
        scissors: ScissorRects::from_buf([full_scissor(width, height)]),
    };
    match passes.get_mut(count) {
        // The pass there owns no heap block (its lists are inline, the rest is plain data):
        // forgetting it frees nothing, and skips the out-of-line drop of its three lists.
        // Below `inline_passes` the old pass is not even read (at 10k nodes it left the caches
        // long ago; its lines are all written below anyway).
        Some(slot) if count < inline_passes || !slot.owns_heap() => {
            std::mem::forget(std::mem::replace(slot, pass))
        }
        Some(slot) => *slot = pass,
        None => passes.push(pass),
    }
}

#[cfg(test)]
mod tests {
    use super::{
        recorded_target, single_target, slot_key, unique_hit, whole_target, CompactAccesses, Single,
    };
    use crate::compile::frame::DiscardFlags;
    use crate::compile::render_pass::plan::DeclPlans;
    use crate::compile::table::AccessTable;
    use crate::graph::{AccessRange, AccessRecord};
    use crate::*;

    /// Draws into targets of every kind the compact path meets (whole one-mip textures, one
    /// mip of a mip chain, whole and partial texture arrays, multisampled, temporal, cleared,
    /// unbound; target indices 0 and 2): the short path from
    /// the compact words must give what it gives from the recorded accesses, and take the
    /// compact words where they decide.
    #[test]
    fn compact_targets_match_recorded_targets() {
        let mut builder = GraphBuilder::new();
        let tex = |name: &str, access: AccessDesc| {
            ParamDesc::new(name, ValueType::Texture).with_access(access)
        };
        let draw = |builder: &mut GraphBuilder, name: &str, flags: AccessFlags, index: u32| {
            builder.declare_node(NodeDeclDesc::new(
                name,
                QueueClass::Graphics,
                vec![
                    tex("src", AccessDesc::readonly(AccessFlags::PS)),
                    tex("rt", AccessDesc::writeonly(flags))
                        .with_semantic(SemanticKind::Target, index),
                ],
            ))
        };
        let decls = [
            draw(&mut builder, "Draw", AccessFlags::RENDER_TARGET, 0),
            draw(
                &mut builder,
                "Clear",
                AccessFlags::RENDER_TARGET | AccessFlags::CLEAR,
                0,
            ),
            draw(&mut builder, "Third", AccessFlags::RENDER_TARGET, 2),
        ];
        builder.begin_frame(0);
        let base = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 32);
        let descs = [
            base,
            ResourceDesc {
                mip_levels: 3,
                ..base
            },
            ResourceDesc {
                depth_or_array_size: 4,
                ..base
            },
            ResourceDesc {
                sample_count: 4,
                ..base
            },
            ResourceDesc {
                temporal_layers: 2,
                ..base
            },
            ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1, 1),
        ];
        let mut views = Vec::new();
        for (key, desc) in descs.iter().enumerate() {
            let id = builder.create_resource(*desc, key as u64).unwrap();
            let whole = builder.default_texture_view(id).unwrap();
            views.push(whole);
            if desc.mip_levels > 1 {
                for mip in 0..desc.mip_levels {
                    views.push(TextureView {
                        base_mip_level: mip,
                        mip_level_count: 1,
                        ..whole
                    });
                }
            }
            if desc.depth_or_array_size > 1 {
                views.push(TextureView {
                    base_array_layer: 1,
                    array_layer_count: 2,
                    ..whole
                });
            }
        }
        views.push(TextureView::NULL);
        let mut calls = 0;
        for (at, &target) in views.iter().enumerate() {
            for &decl in &decls {
                let mut args = ArgsWriter::new(builder.decl(decl).unwrap());
                args.write_texture(0, &views[(at + 1) % views.len()]);
                args.write_texture(1, &target);
                builder
                    .call_node(decl, args.bytes(), CallFlags::default(), calls)
                    .unwrap();
                calls += 1;
            }
        }
        let graph = builder.finish().unwrap().clone();
        let mut table = AccessTable::default();
        table.build(&graph);
        let mut plans = DeclPlans::default();
        plans.update(&graph.decls);
        let compact = CompactAccesses {
            keys: &table.keys,
            infos: &table.infos,
            extents: table.extents(),
        };
        let discard: Vec<DiscardFlags> = (0..graph.accesses.len())
            .map(|index| DiscardFlags((index * 7 % 16) as u8))
            .collect();
        let (mut compact_passes, mut unbound) = (0, 0);
        for &record in &table.nodes {
            let kind = &plans.kinds[record.decl as usize];
            let target = kind.single_target.unwrap();
            assert!(kind.target_param_alone);
            let expected = recorded_target(&graph, record, target, &discard);
            assert_eq!(
                single_target(&graph, record, (kind, target), compact, &discard),
                expected
            );
            match whole_target(record, target, compact, &discard) {
                Some(single) => {
                    assert_eq!(single, expected);
                    compact_passes += matches!(single, Single::Pass(_)) as usize;
                    unbound += matches!(single, Single::Unbound) as usize;
                }
                None => assert!(matches!(expected, Single::Pass(_) | Single::General)),
            }
        }
        // The whole one-mip texture, the whole array, the multisampled and the 1x1 texture:
        // compact; the mip chain's views, the partial array and the temporal texture: recorded.
        assert_eq!(compact_passes, 4 * decls.len());
        assert_eq!(unbound, decls.len());
    }

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
                let got = unique_hit(&accesses, |access| slot_key(access) == key)
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
