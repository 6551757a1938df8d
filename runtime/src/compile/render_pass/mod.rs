//! Render passes of graphics nodes, from parameter semantics: color attachments (`SV_Target[n]`,
//! arrays included), depth-stencil (`SV_DepthStencil`), resolve targets (`SV_ResolveTarget[n]`),
//! load/store operations from clear and inferred discard flags, clear values
//! (`SV_ClearColor[n]`, `SV_ClearDepth`, `SV_ClearStencil`), viewports and scissors (defaults:
//! the whole attachment; overridden by `SV_Viewport[n]` / `SV_ScissorRect[n]`), and read-only
//! depth/stencil. Validated: one mip per attachment, matching extents and sample
//! counts (the pass renders the smallest layer count), resolve targets single-sampled with the source's extent, distinct attachments, finite
//! clear values with depth in [0, 1] and stencil in [0, 255], read-only planes not cleared,
//! viewports with positive finite size inside the attachment and depth range in [0, 1].
//!
//! A color attachment may also be a formatted buffer view (RPS's row-major image buffers): a
//! 2-D target of one layer whose texels are the view's bytes read in the view format; rows are
//! as wide as the node's `SV_Viewport` 0 reaches (else one row holds every texel), see
//! `buffer_target_extent`. Backends that cannot render to buffers refuse such passes.
//!
//! What the declarations say (slot roles, clear-value parameters) is worked out once per
//! declaration set (`plan.rs`); viewports, scissors and buffer-target extents are in `area.rs`;
//! the pass types and the rules both paths share in `pass.rs`; the short path of one color
//! target in `single.rs`. This file is the general path and the stage's entry.

mod area;
mod pass;
mod plan;
mod single;

use super::frame::{CompileError, DiscardFlags};
use super::table::AccessTable;
use crate::compile::frame::{
    ColorAttachment, DepthStencilAttachment, LoadOp, RenderPass, ScissorRect, Viewport,
};
use crate::decl::AccessFlags;
use crate::graph::{AccessRange, RecordedGraph};
use crate::ids::{NodeId, ResourceId};
use area::{buffer_target_extent, viewports_and_scissors};
use pass::{error, full_scissor, full_viewport, load_op, mip_extent, store_op, words};
use plan::{DeclPlans, Role};
use single::{single_target, write_single, CompactAccesses, Single};

/// Reusable scratch of render-pass building (kept by the compiler between frames).
#[derive(Debug, Default)]
pub struct RenderPassScratch {
    plans: DeclPlans,
    lists: PassLists,
    /// The first `inline_passes` passes of the vector last built (or refreshed) own no heap
    /// block (their lists hold one element each, inline): the next build overwrites them
    /// without reading them. Only the general path makes passes with more elements.
    inline_passes: usize,
}

/// The lists the general path gathers a pass in.
#[derive(Debug, Default)]
struct PassLists {
    resolves: Vec<(u32, u32)>,
    /// The attachments of the pass so far: resource and access.
    used: Vec<(ResourceId, u32)>,
    viewports: Vec<(u32, Viewport)>,
    scissors: Vec<(u32, ScissorRect)>,
}

/// Builds and validates the render passes of the live graphics nodes of `order` into `passes`,
/// reusing the storage of the passes already there (one pass per node with attachments).
/// `table` is the access table of `graph`.
pub fn build_render_passes(
    graph: &RecordedGraph,
    order: &[NodeId],
    table: &AccessTable,
    discard: &[DiscardFlags],
    scratch: &mut RenderPassScratch,
    passes: &mut Vec<RenderPass>,
) -> Result<(), CompileError> {
    scratch.plans.update(&graph.decls);
    let RenderPassScratch {
        plans,
        lists,
        inline_passes,
    } = scratch;
    // Local slices: the loop's writes to `passes` cannot move them.
    // The nodes' spans (declaration and access range), not their 48-byte records.
    let (nodes, kinds) = (table.nodes.as_slice(), plans.kinds.as_slice());
    let compact = CompactAccesses {
        keys: &table.keys,
        infos: &table.infos,
        extents: table.extents(),
    };
    let known_inline = *inline_passes;
    // The passes built here below this index own no heap block.
    let mut inline_below = usize::MAX;
    let mut count = 0;
    let result = (|| {
        for &node in order {
            let Some(&record) = nodes.get(node.index()) else {
                continue;
            };
            let Some(kind) = kinds.get(record.decl as usize) else {
                continue;
            };
            // A single target implies attachments: the common pass tests one field.
            if let Some(target) = kind.single_target {
                match single_target(graph, record, (kind, target), compact, discard) {
                    Single::Unbound => continue,
                    Single::Pass(single) => {
                        write_single(node, &single, passes, (count, known_inline));
                        count += 1;
                        continue;
                    }
                    Single::General => {}
                }
            } else if !kind.attachments {
                continue;
            }
            if count == passes.len() {
                passes.push(RenderPass::empty(node));
            }
            if build_render_pass(graph, node, discard, plans, lists, &mut passes[count])? {
                if passes[count].owns_heap() {
                    inline_below = inline_below.min(count);
                }
                count += 1;
            }
        }
        Ok(())
    })();
    passes.truncate(count);
    // After an error the pass being built may be half made: nothing is assumed then.
    *inline_passes = if result.is_ok() {
        inline_below.min(count)
    } else {
        0
    };
    debug_assert!(passes[..*inline_passes]
        .iter()
        .all(|pass| !pass.owns_heap()));
    result
}

/// After a cache hit (the structure of the last built frame, argument values possibly not):
/// rebuilds the passes whose nodes take clear values, viewports or scissors as arguments, so
/// a frame that only changes a clear colour or a viewport still gets it. Passes of other
/// nodes depend on the structure alone and stay as they are.
pub fn refresh_argument_values(
    graph: &RecordedGraph,
    discard: &[DiscardFlags],
    scratch: &mut RenderPassScratch,
    passes: &mut [RenderPass],
) -> Result<(), CompileError> {
    scratch.plans.update(&graph.decls);
    let RenderPassScratch {
        plans,
        lists,
        inline_passes,
        ..
    } = scratch;
    for (index, pass) in passes.iter_mut().enumerate() {
        let decl = graph.nodes[pass.node.index()].decl.index();
        if plans
            .kinds
            .get(decl)
            .is_some_and(|kind| kind.argument_values)
        {
            // A rebuilt pass may spill its lists to the heap (or fail half made).
            *inline_passes = (*inline_passes).min(index);
            build_render_pass(graph, pass.node, discard, plans, lists, pass)?;
        }
    }
    debug_assert!(passes[..*inline_passes]
        .iter()
        .all(|pass| !pass.owns_heap()));
    Ok(())
}

/// Builds and validates the render pass of a node into `pass`; `false` for nodes without
/// attachments (then `pass` holds no meaningful contents).
fn build_render_pass(
    graph: &RecordedGraph,
    node: NodeId,
    discard: &[DiscardFlags],
    plans: &DeclPlans,
    lists: &mut PassLists,
    pass: &mut RenderPass,
) -> Result<bool, CompileError> {
    let record = &graph.nodes[node.index()];
    let decl_index = record.decl.index();
    let decl = &graph.decls[decl_index];
    if decl.is_builtin() {
        return Ok(false);
    }
    let Some(&decl_kind) = plans.kinds.get(decl_index) else {
        return Ok(false);
    };
    let colors = &mut pass.colors;
    colors.clear();
    let resolves = &mut lists.resolves;
    resolves.clear();
    let mut depth: Option<DepthStencilAttachment> = None;
    let mut extent: Option<(u32, u32, u32, u32)> = None;
    let used = &mut lists.used;
    used.clear();
    for access_index in record.accesses.clone() {
        let access = &graph.accesses[access_index as usize];
        let role = plans.role(decl_index, access.param, access.slot);
        if role.role == Role::None {
            continue;
        }
        let index = role.index;
        // The slot's name, for messages only.
        let slot_name =
            || &decl.params[access.param as usize].view_slots[access.slot as usize].name;
        let desc = &graph.resources[access.resource.index()].desc;
        let (width, height, layer_count) = match access.range {
            AccessRange::Texture(range) => {
                if range.mip_count != 1 {
                    return Err(error(
                        node,
                        format!(
                            "attachment `{}` must view exactly one mip level",
                            slot_name()
                        ),
                    ));
                }
                let (width, height) = mip_extent(desc, range.base_mip);
                (width, height, range.layer_count)
            }
            AccessRange::Buffer { size, .. } if role.role == Role::Target => {
                let (width, height) =
                    buffer_target_extent(graph, node, access.view_format, size, slot_name())?;
                (width, height, 1)
            }
            AccessRange::Buffer { .. } => {
                return Err(error(
                    node,
                    format!("attachment `{}` must be a texture", slot_name()),
                ));
            }
        };
        // Boxes are compared only between attachments of one resource (rare).
        let overlaps = used.iter().any(|&(resource, other)| {
            resource == access.resource && {
                let other = &graph.accesses[other as usize];
                other
                    .subresource_box(desc)
                    .overlaps(&access.subresource_box(desc))
            }
        });
        if overlaps {
            return Err(error(
                node,
                format!(
                    "attachment `{}` overlaps another attachment of the pass",
                    slot_name()
                ),
            ));
        }
        used.push((access.resource, access_index));
        if role.role != Role::ResolveTarget {
            match extent {
                None => extent = Some((width, height, layer_count, desc.sample_count)),
                Some((w, h, layers, samples)) => {
                    if (w, h) != (width, height) {
                        return Err(error(
                            node,
                            format!(
                                "attachment `{}` is {width}x{height} but the pass is {w}x{h}",
                                slot_name()
                            ),
                        ));
                    }
                    if let Some(current) = extent.as_mut() {
                        // Layered rendering covers the layers every attachment has.
                        current.2 = layers.min(layer_count);
                    }
                    if samples != desc.sample_count {
                        return Err(error(
                            node,
                            format!(
                                "attachment `{}` has {} samples but the pass has {samples}",
                                slot_name(),
                                desc.sample_count
                            ),
                        ));
                    }
                }
            }
        }
        let flags = discard
            .get(access_index as usize)
            .copied()
            .unwrap_or_default();
        let cleared = access.access.flags.contains(AccessFlags::CLEAR);
        let load_for =
            |before: DiscardFlags, has_clear: bool| load_op(has_clear, flags.contains(before));
        let store_for = |after: DiscardFlags| store_op(flags.contains(after));
        match role.role {
            Role::Target => {
                if colors.iter().any(|color| color.slot == index) {
                    return Err(error(
                        node,
                        format!("two attachments bind SV_Target{index}"),
                    ));
                }
                let mut clear_color = [0.0f32; 4];
                if let Some(offset) = role.clear_color {
                    let raw = words(graph.node_args(node), offset as usize, 4)
                        .map(|w| w.data)
                        .unwrap_or_default();
                    for (channel, word) in raw.iter().take(4).enumerate() {
                        clear_color[channel] = if role.clear_f32 {
                            f32::from_bits(*word)
                        } else {
                            *word as f32
                        };
                    }
                    if clear_color.iter().any(|value| !value.is_finite()) {
                        return Err(error(
                            node,
                            format!("clear color of SV_Target{index} is not finite"),
                        ));
                    }
                }
                colors.push(ColorAttachment {
                    slot: index,
                    access: access_index,
                    resource: access.resource,
                    load: load_for(DiscardFlags::BEFORE, cleared || role.clear_color.is_some()),
                    store: store_for(DiscardFlags::AFTER),
                    clear_color,
                    resolve: None,
                });
            }
            Role::ResolveTarget => {
                if desc.sample_count != 1 {
                    return Err(error(
                        node,
                        format!("resolve target `{}` must be single-sampled", slot_name()),
                    ));
                }
                resolves.push((index, access_index));
            }
            Role::DepthStencil | Role::None => {
                if depth.is_some() {
                    return Err(error(node, "two depth-stencil attachments".to_string()));
                }
                let args = graph.node_args(node);
                let clear_depth = decl_kind
                    .clear_depth
                    .and_then(|offset| words(args, offset as usize, 1))
                    .map_or(1.0, |w| f32::from_bits(w.data[0]));
                let clear_stencil = decl_kind
                    .clear_stencil
                    .and_then(|offset| words(args, offset as usize, 1))
                    .map_or(0, |w| w.data[0]);
                if !(0.0..=1.0).contains(&clear_depth) {
                    return Err(error(
                        node,
                        format!("clear depth {clear_depth} is not a finite value in [0, 1]"),
                    ));
                }
                if clear_stencil > 255 {
                    return Err(error(
                        node,
                        format!("clear stencil {clear_stencil} does not fit 8 bits"),
                    ));
                }
                let depth_read_only = !access.access.mode_for_plane(0).writes();
                let stencil_read_only = !access.access.mode_for_plane(1).writes();
                let depth_clear = cleared && access.access.flags.contains(AccessFlags::DEPTH)
                    || decl_kind.clear_depth.is_some();
                let stencil_clear = cleared && access.access.flags.contains(AccessFlags::STENCIL)
                    || decl_kind.clear_stencil.is_some();
                if depth_read_only && depth_clear && desc.format.has_depth() {
                    return Err(error(node, "read-only depth cannot be cleared".to_string()));
                }
                if stencil_read_only && stencil_clear && desc.format.has_stencil() {
                    return Err(error(
                        node,
                        "read-only stencil cannot be cleared".to_string(),
                    ));
                }
                depth = Some(DepthStencilAttachment {
                    access: access_index,
                    resource: access.resource,
                    // Read-only planes always load (the pass must see the data as it is).
                    depth_load: if depth_read_only {
                        LoadOp::Load
                    } else {
                        load_for(DiscardFlags::BEFORE, depth_clear)
                    },
                    depth_store: store_for(DiscardFlags::AFTER),
                    stencil_load: if stencil_read_only {
                        LoadOp::Load
                    } else {
                        load_for(DiscardFlags::STENCIL_BEFORE, stencil_clear)
                    },
                    stencil_store: store_for(DiscardFlags::STENCIL_AFTER),
                    clear_depth,
                    clear_stencil,
                    depth_read_only,
                    stencil_read_only,
                });
            }
        }
    }
    let Some((width, height, layers, samples)) = extent else {
        return Ok(false);
    };
    for &(index, access_index) in resolves.iter() {
        let Some(color) = colors.iter_mut().find(|color| color.slot == index) else {
            return Err(error(
                node,
                format!("SV_ResolveTarget{index} has no SV_Target{index} to resolve"),
            ));
        };
        let access = &graph.accesses[access_index as usize];
        let desc = &graph.resources[access.resource.index()].desc;
        if let AccessRange::Texture(range) = access.range {
            let (w, h) = mip_extent(desc, range.base_mip);
            if (w, h) != (width, height) {
                return Err(error(
                    node,
                    format!("resolve target {index} is {w}x{h} but the pass is {width}x{height}"),
                ));
            }
        }
        if samples == 1 {
            return Err(error(
                node,
                format!("SV_ResolveTarget{index} needs a multisampled SV_Target{index}"),
            ));
        }
        color.resolve = Some(access_index);
    }
    if colors.len() > 1 {
        colors.sort_by_key(|color| color.slot);
    }
    pass.node = node;
    pass.depth_stencil = depth;
    pass.width = width;
    pass.height = height;
    pass.layers = layers;
    pass.samples = samples;
    if decl_kind.viewports {
        viewports_and_scissors(graph, node, &mut lists.viewports, &mut lists.scissors, pass)?;
    } else {
        // The defaults: one viewport and one scissor covering the render area.
        pass.viewports.clear();
        pass.viewports.push(full_viewport(width, height));
        pass.scissors.clear();
        pass.scissors.push(full_scissor(width, height));
    }
    Ok(true)
}
