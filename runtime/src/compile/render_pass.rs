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
//! declaration set (`render_pass_plan.rs`); viewports, scissors and buffer-target extents are in
//! `render_pass_area.rs`.

use super::access_info::AccessTable;
use super::render_pass_area::{buffer_target_extent, full_viewport, viewports_and_scissors};
use super::render_pass_plan::{DeclPlans, Role};
use super::render_pass_single::{single_target, write_single, CompactAccesses, Single};
use super::{CompileError, DiscardFlags};
use crate::decl::AccessFlags;
use crate::graph::{AccessRange, RecordedGraph};
use crate::ids::{NodeId, ResourceId};
use smallvec::SmallVec;

/// What happens to an attachment's contents at the start of the pass.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum LoadOp {
    /// Keep them.
    Load,
    /// Clear to the clear value.
    Clear,
    /// Undefined (discarded).
    DontCare,
}

/// What happens to an attachment's contents at the end of the pass.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum StoreOp {
    /// Keep them.
    Store,
    /// Discard them.
    DontCare,
}

/// One color attachment.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct ColorAttachment {
    /// `SV_Target` index.
    pub slot: u32,
    /// The access (index into `RecordedGraph::accesses`).
    pub access: u32,
    /// The resource.
    pub resource: ResourceId,
    /// Load operation.
    pub load: LoadOp,
    /// Store operation.
    pub store: StoreOp,
    /// Clear color (raw `SV_ClearColor` words read as `f32`).
    pub clear_color: [f32; 4],
    /// The resolve target's access, if any.
    pub resolve: Option<u32>,
}

/// The depth-stencil attachment.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct DepthStencilAttachment {
    /// The access.
    pub access: u32,
    /// The resource.
    pub resource: ResourceId,
    /// Depth load.
    pub depth_load: LoadOp,
    /// Depth store.
    pub depth_store: StoreOp,
    /// Stencil load.
    pub stencil_load: LoadOp,
    /// Stencil store.
    pub stencil_store: StoreOp,
    /// Clear depth.
    pub clear_depth: f32,
    /// Clear stencil.
    pub clear_stencil: u32,
    /// Depth is read-only.
    pub depth_read_only: bool,
    /// Stencil is read-only.
    pub stencil_read_only: bool,
}

/// A viewport.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct Viewport {
    /// Left.
    pub x: f32,
    /// Top.
    pub y: f32,
    /// Width.
    pub width: f32,
    /// Height.
    pub height: f32,
    /// Minimum depth.
    pub min_depth: f32,
    /// Maximum depth.
    pub max_depth: f32,
}

/// A scissor rectangle.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct ScissorRect {
    /// Left.
    pub x: i32,
    /// Top.
    pub y: i32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// The color attachments of a pass: one is stored inline (the common pass), more spill to the
/// heap. Reads like a slice (`len`, indexing, `iter`); see [`RenderPass`].
pub type ColorAttachments = SmallVec<[ColorAttachment; 1]>;

/// The viewports of a pass: one is stored inline, more spill to the heap.
pub type Viewports = SmallVec<[Viewport; 1]>;

/// The scissors of a pass: one is stored inline, more spill to the heap.
pub type ScissorRects = SmallVec<[ScissorRect; 1]>;

/// The render pass of one graphics node.
///
/// A frame's passes lie in one vector ([`crate::CompiledFrame::render_passes`]); the lists of a
/// pass hold their first element inline, so a pass of one color target, one viewport and one
/// scissor (nearly all of them) owns no heap block. The lists read like slices:
///
/// ```
/// use rpsl_runtime::{LoadOp, RenderPass};
///
/// fn describe(pass: &RenderPass) -> String {
///     let cleared = pass.colors.iter().filter(|color| color.load == LoadOp::Clear).count();
///     format!(
///         "node {}: {}x{}, {} color targets ({cleared} cleared), {} viewports",
///         pass.node.0,
///         pass.width,
///         pass.height,
///         pass.colors.len(),
///         pass.viewports.len()
///     )
/// }
/// ```
#[derive(Clone, PartialEq, Debug)]
pub struct RenderPass {
    /// The node.
    pub node: NodeId,
    /// Color attachments by slot order.
    pub colors: ColorAttachments,
    /// Depth-stencil attachment.
    pub depth_stencil: Option<DepthStencilAttachment>,
    /// Render area width.
    pub width: u32,
    /// Render area height.
    pub height: u32,
    /// Layers rendered.
    pub layers: u32,
    /// Samples per pixel.
    pub samples: u32,
    /// Viewports (at least one).
    pub viewports: Viewports,
    /// Scissors (one per viewport).
    pub scissors: ScissorRects,
}

pub(super) fn error(node: NodeId, message: String) -> CompileError {
    CompileError::RenderPass { node, message }
}

/// Up to eight little-endian `u32` words of an argument block (no allocation).
#[derive(Copy, Clone)]
pub(super) struct Words {
    pub data: [u32; 8],
    len: usize,
}

impl Words {
    /// The words read.
    pub fn as_slice(&self) -> &[u32] {
        &self.data[..self.len]
    }
}

pub(super) fn words(args: &[u8], at: usize, count: usize) -> Option<Words> {
    let mut out = Words {
        data: [0; 8],
        len: count.min(8),
    };
    for index in 0..out.len {
        let b = args.get(at + index * 4..at + index * 4 + 4)?;
        out.data[index] = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
    Some(out)
}

impl RenderPass {
    /// Some list of the pass holds its elements on the heap (more than one of them).
    #[inline(always)]
    pub(super) fn owns_heap(&self) -> bool {
        self.colors.spilled() | self.viewports.spilled() | self.scissors.spilled()
    }

    /// An empty pass of `node` (storage to build into).
    fn empty(node: NodeId) -> RenderPass {
        RenderPass {
            node,
            colors: ColorAttachments::new(),
            depth_stencil: None,
            width: 0,
            height: 0,
            layers: 0,
            samples: 0,
            viewports: Viewports::new(),
            scissors: ScissorRects::new(),
        }
    }
}

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
                (
                    ((desc.width >> range.base_mip) as u32).max(1),
                    (desc.height >> range.base_mip).max(1),
                    range.layer_count,
                )
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
        let load_for = |before: DiscardFlags, has_clear: bool| {
            if has_clear {
                LoadOp::Clear
            } else if flags.contains(before) {
                LoadOp::DontCare
            } else {
                LoadOp::Load
            }
        };
        let store_for = |after: DiscardFlags| {
            if flags.contains(after) {
                StoreOp::DontCare
            } else {
                StoreOp::Store
            }
        };
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
            let w = ((desc.width >> range.base_mip) as u32).max(1);
            let h = (desc.height >> range.base_mip).max(1);
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
        pass.scissors.push(ScissorRect {
            x: 0,
            y: 0,
            width,
            height,
        });
    }
    Ok(true)
}
