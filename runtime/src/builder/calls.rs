//! Node calls: [`GraphBuilder::call_node`] records a call's argument block, one access record
//! per non-null view and the node record, and compares each record with the previous frame's
//! as it is appended. While the frame so far repeats the previous one, a call whose views
//! repeat the previous frame's call at its index copies that call's access records instead
//! (`repeated_accesses`).
//!
//! Two paths record a call. The direct one ([`GraphBuilder::call_direct`]) serves the common
//! call, a script's node whose views are whole single-plane textures of format combinations
//! that passed their check before: it walks the declaration's [`CallPlan`] (its view slots with
//! their offsets, access and format-check key bits, found once when the node is declared) and
//! the [`ResourceFacts`] of each viewed resource (found once per distinct description), writes each
//! record straight into the graph's arrays and folds the size limits into one check up front.
//! Anything else (a built-in node, node handles, an unsized tail, an expansion, a partial or
//! multi-plane view, a buffer, a format combination not yet passed, an unknown resource, a limit
//! close to being reached) leaves no trace there and takes the general path, which checks every
//! rule one by one and reports each failure as its own located error. Both record the same
//! records: the tests below (each call recorded both ways) and the corpus dumps pin it.

use super::view_formats::{is_passed, key_bits_of_slot, PassedFormatChecks};
use super::{BuildError, GraphBuilder};
use crate::compile::cache::{same_node, same_range};
use crate::decl::{AccessDesc, NodeDeclDesc, ValueType, ViewKind};
use crate::format::Format;
use crate::graph::{
    AccessRange, AccessRecord, CallFlags, NodeRecord, RecordedGraph, ResourceRecord,
};
use crate::graph_limits::GraphLimit;
use crate::ids::{DeclId, NodeId, ResourceId};
use crate::resource::ResourceDesc;
use crate::view::{BufferView, TextureRange, TextureView, VIEW_BYTES};
use crate::view_format_check::is_depth_capable_typeless;
use std::sync::Arc;

/// What recording a call of one declaration needs of it, found once when it is declared
/// ([`GraphBuilder::declare_node`]).
#[derive(Clone, Debug)]
pub(super) struct CallPlan {
    /// Every view slot of the declaration, parameter by parameter.
    pub(super) slots: Box<[PlannedSlot]>,
    /// A parameter holds node handles (explicit dependencies).
    pub(super) has_handles: bool,
    /// Calls may take the direct path: a script's node (not built in) whose view slots are all
    /// textures, without node handles or an unsized array parameter (a declaration with an
    /// expansion is checked per call).
    pub(super) direct: bool,
    /// [`NodeDeclDesc::args_size`].
    args_size: u32,
    /// [`NodeDeclDesc::args_end`].
    args_end: u32,
}

/// One view slot of a declaration, as the direct path reads it.
#[derive(Clone, Copy, Debug)]
pub(super) struct PlannedSlot {
    /// Byte offset of the view in the argument block.
    pub(super) at: u32,
    /// Parameter index.
    param: u16,
    /// Slot index within the parameter.
    slot: u16,
    /// The slot's access.
    access: AccessDesc,
    /// The slot's format-check key bits ([`key_bits_of_slot`]).
    pub(super) key_bits: u64,
}

impl CallPlan {
    /// The plan of a declaration.
    pub(super) fn of(decl: &NodeDeclDesc) -> CallPlan {
        let mut slots = Vec::new();
        let mut all_textures = true;
        for (param_index, param) in decl.params.iter().enumerate() {
            for (slot_index, slot) in param.view_slots.iter().enumerate() {
                all_textures &= slot.kind == ViewKind::Texture;
                slots.push(PlannedSlot {
                    at: param.offset + slot.offset,
                    param: param_index as u16,
                    slot: slot_index as u16,
                    access: slot.access,
                    key_bits: key_bits_of_slot(slot),
                });
            }
        }
        let has_handles = decl
            .params
            .iter()
            .any(|param| holds_node_handles(&param.value_type));
        let unsized_tail = matches!(
            decl.params.last().map(|p| &p.value_type),
            Some(ValueType::Array(_, 0))
        );
        CallPlan {
            slots: slots.into_boxed_slice(),
            has_handles,
            direct: all_textures && !has_handles && !unsized_tail && !decl.is_builtin(),
            args_size: decl.args_size,
            args_end: decl.args_end,
        }
    }
}

/// What the call path needs of a resource of this frame, found once per distinct description
/// ([`ResourceFacts::of`], remembered with the validated description).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ResourceFacts {
    /// The range of its whole-resource texture view, when `whole_known`.
    whole_range: TextureRange,
    /// The whole view's range needs no resolving: a single-plane texture (what
    /// [`TextureView::resolve_range`] gives such a view is `whole_range`).
    whole_known: bool,
    /// Views of it may take the direct path: `whole_known`, and its format packs into a
    /// format-check key and is not depth-capable typeless (whose role is claimed per frame).
    direct: bool,
    /// Bytes 16..24 of a whole view of it as one little-endian word: base mip 0, mip count.
    whole_mips_word: u64,
    /// Bytes 24..32 of a whole view of it: base layer 0, layer count.
    whole_layers_word: u64,
    /// Its format, the low bits of a format-check key.
    format_bits: u64,
    /// It has more than one temporal layer (views resolve to a slice).
    temporal: bool,
}

/// The format-check key fields above 47 bits hold the slot's bits; a format fits below 24.
const FORMAT_KEY_LIMIT: u32 = 1 << 24;

impl ResourceFacts {
    /// The facts of a validated description.
    pub(super) fn of(desc: &ResourceDesc) -> ResourceFacts {
        let single_plane_texture = desc.kind.is_texture() && desc.format.plane_count() != 2;
        let format_packs = desc.format.0 < FORMAT_KEY_LIMIT;
        ResourceFacts {
            whole_range: TextureRange {
                base_mip: 0,
                mip_count: desc.mip_levels,
                base_layer: 0,
                layer_count: desc.array_layers(),
                planes: 1,
            },
            whole_known: single_plane_texture,
            direct: single_plane_texture && format_packs && !is_depth_capable_typeless(desc.format),
            whole_mips_word: u64::from(desc.mip_levels) << 32,
            whole_layers_word: u64::from(desc.array_layers()) << 32,
            format_bits: u64::from(desc.format.0),
            temporal: desc.temporal_layers > 1,
        }
    }

    /// The range of its whole-resource texture view when that needs no resolving.
    #[inline]
    pub(super) fn whole(&self) -> Option<TextureRange> {
        self.whole_known.then_some(self.whole_range)
    }
}

/// Whether `range` is the texture range `texture` (without branches).
#[inline(always)]
fn same_texture_range(range: &AccessRange, texture: &TextureRange) -> bool {
    match range {
        AccessRange::Texture(range) => {
            (range.base_mip == texture.base_mip)
                & (range.mip_count == texture.mip_count)
                & (range.base_layer == texture.base_layer)
                & (range.layer_count == texture.layer_count)
                & (range.planes == texture.planes)
        }
        AccessRange::Buffer { .. } => false,
    }
}

/// A little-endian `u32` of a view at byte `at`.
#[inline(always)]
fn word32(view: &[u8; VIEW_BYTES], at: usize) -> u32 {
    u32::from_le_bytes([view[at], view[at + 1], view[at + 2], view[at + 3]])
}

/// A little-endian `u64` of a view at byte `at`.
#[inline(always)]
fn word64(view: &[u8; VIEW_BYTES], at: usize) -> u64 {
    u64::from(word32(view, at)) | u64::from(word32(view, at + 4)) << 32
}

/// Appends the access records of a call of `plan` at `node` whose non-null views are all plain
/// ([`GraphBuilder::call_direct`]'s case: whole single-plane textures of a format combination
/// that passed before), comparing each with the previous frame's record at its index while
/// `same` holds, and sets `temporal` when a view is of a temporal resource. `false` (records
/// left for the caller to drop) at the first view that is not plain.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn record_plain_views(
    graph: &mut RecordedGraph,
    previous: &RecordedGraph,
    plan: &CallPlan,
    resource_facts: &[ResourceFacts],
    passed_format_checks: &PassedFormatChecks,
    node: NodeId,
    args: &[u8],
    same: &mut bool,
    temporal: &mut bool,
) -> bool {
    use rpsl_types::view_offsets as at;
    for slot in plan.slots.iter() {
        let Some(view) = args
            .get(slot.at as usize..)
            .and_then(|rest| rest.first_chunk::<VIEW_BYTES>())
        else {
            return false;
        };
        let resource = word32(view, at::RESOURCE as usize);
        if resource == rpsl_types::NULL_RESOURCE {
            continue;
        }
        let Some(facts) = resource_facts.get(resource as usize) else {
            return false;
        };
        let view_format = word32(view, at::VIEW_FORMAT as usize);
        let temporal_layer = word32(view, at::TEMPORAL_LAYER as usize);
        // A whole-resource view: no flags, base mip and layer 0, all mips and layers.
        let plain = facts.direct
            & (word32(view, at::FLAGS as usize) == 0)
            & (word64(view, at::BASE_MIP as usize) == facts.whole_mips_word)
            & (word64(view, at::BASE_LAYER as usize) == facts.whole_layers_word)
            & (view_format < FORMAT_KEY_LIMIT);
        let key = slot.key_bits | facts.format_bits | u64::from(view_format) << 24;
        if !(plain && is_passed(passed_format_checks, key)) {
            return false;
        }
        *temporal |= facts.temporal;
        let temporal_slice = if facts.temporal {
            graph.resources[resource as usize].temporal_slice(temporal_layer)
        } else {
            0
        };
        let range = facts.whole_range;
        if *same {
            // The previous frame's record at this index, in the fields the node record does
            // not decide (as `same_access_of_same_node`).
            *same = previous
                .accesses
                .get(graph.accesses.len())
                .is_some_and(|previous| {
                    (previous.param == slot.param)
                        & (previous.slot == slot.slot)
                        & (previous.resource.0 == resource)
                        & same_texture_range(&previous.range, &range)
                        & (previous.temporal_layer == temporal_layer)
                        & (previous.temporal_slice == temporal_slice)
                        & (previous.view_format.0 == view_format)
                });
        }
        graph.accesses.push(AccessRecord {
            node,
            param: slot.param,
            slot: slot.slot,
            resource: ResourceId(resource),
            access: slot.access,
            range: AccessRange::Texture(range),
            temporal_layer,
            temporal_slice,
            view_format: Format(view_format),
        });
    }
    true
}

/// The access records of the previous frame's call at `node_index` when a call of `decl_id`
/// with `args` at that index records exactly those. The caller has checked that every record of
/// this frame so far, resources included, equals the previous frame's at its index and that
/// the previous frame finished. Then that call, at the same access index, of the same
/// declaration, with the same bytes in every view slot (so the same null views), viewing
/// resources of the same descriptions, passed every check and its records are a function of
/// those: this call's are the same, unless a viewed resource is temporal (its slice moves with
/// the frame) or depth-capable typeless (its role is claimed per frame), which
/// [`ResourceFacts::direct`] and [`ResourceFacts::temporal`] exclude. Bytes outside the view
/// slots (constants) do not enter the records.
#[inline(always)]
fn repeated_accesses<'p>(
    previous: &'p RecordedGraph,
    plan: &CallPlan,
    resource_facts: &[ResourceFacts],
    decl_id: DeclId,
    node_index: usize,
    args: &[u8],
) -> Option<&'p [AccessRecord]> {
    use rpsl_types::view_offsets as at;
    let previous_node = previous.nodes.get(node_index)?;
    let accesses = previous_node.accesses.start as usize..previous_node.accesses.end as usize;
    if previous_node.decl != decl_id {
        return None;
    }
    let previous_block = previous
        .args
        .get(previous_node.args.start as usize..previous_node.args.end as usize)?;
    for slot in plan.slots.iter() {
        let view = args.get(slot.at as usize..)?.first_chunk::<VIEW_BYTES>()?;
        let previous_view = previous_block
            .get(slot.at as usize..)?
            .first_chunk::<VIEW_BYTES>()?;
        if !same_view_bytes(view, previous_view) {
            return None;
        }
        let resource = word32(view, at::RESOURCE as usize);
        if resource != rpsl_types::NULL_RESOURCE {
            let facts = resource_facts.get(resource as usize)?;
            if !facts.direct | facts.temporal {
                return None;
            }
        }
    }
    previous.accesses.get(accesses)
}

/// Whether two views' bytes are equal, in three word compares (no call to `memcmp`).
#[inline(always)]
fn same_view_bytes(a: &[u8; VIEW_BYTES], b: &[u8; VIEW_BYTES]) -> bool {
    let (a_head, a_tail) = a.split_at(32);
    let (b_head, b_tail) = b.split_at(32);
    let wide = |bytes: &[u8], at: usize| {
        u128::from_le_bytes(bytes[at..at + 16].try_into().expect("16 bytes"))
    };
    let narrow = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
    (wide(a_head, 0) == wide(b_head, 0))
        & (wide(a_head, 16) == wide(b_head, 16))
        & (narrow(a_tail) == narrow(b_tail))
}

/// A parameter of this type holds node handles ([`GraphBuilder::call_node`] records them as
/// explicit dependencies).
fn holds_node_handles(value_type: &ValueType) -> bool {
    match value_type {
        ValueType::NodeHandle => true,
        ValueType::Array(elem, _) => matches!(**elem, ValueType::NodeHandle),
        _ => false,
    }
}

/// Whether access record `current` of this frame equals `previous`, the previous frame's record
/// at the same index, in the fields its node record does not already decide. The rest follows
/// from what [`GraphBuilder::finish`] requires of an unchanged frame anyway: with every node
/// record the same ([`same_node`]: the same access index ranges) the record belongs to the same
/// node, and with the same declarations (the same `Arc`), declaration, parameter and slot give
/// the same access attributes.
#[inline]
fn same_access_of_same_node(previous: &AccessRecord, current: &AccessRecord) -> bool {
    (previous.param == current.param)
        & (previous.slot == current.slot)
        & (previous.resource == current.resource)
        & same_range(&previous.range, &current.range)
        & (previous.temporal_layer == current.temporal_layer)
        & (previous.temporal_slice == current.temporal_slice)
        & (previous.view_format == current.view_format)
}

impl GraphBuilder {
    /// Records a node call. `args` is the flattened argument block laid out as the declaration's
    /// params say ([`crate::ParamDesc::offset`]; see [`ArgsWriter`]), at least
    /// [`NodeDeclDesc::args_end`] bytes; views are decoded from it
    /// through the view slots, node handles become explicit dependencies. Returns the node's id
    /// (its call index this frame).
    #[inline]
    pub fn call_node(
        &mut self,
        decl_id: DeclId,
        args: &[u8],
        flags: CallFlags,
        identity_key: u64,
    ) -> Result<NodeId, BuildError> {
        // A replayed call (`replay.rs`) stays in the caller; the rest is out of line.
        if self.replay.active {
            if let Some(node) = self.replay_call(decl_id, args, flags, identity_key) {
                return Ok(node);
            }
        }
        self.record_call(decl_id, args, flags, identity_key)
    }

    /// [`Self::call_node`] of a call that is not replayed.
    #[inline(never)]
    fn record_call(
        &mut self,
        decl_id: DeclId,
        args: &[u8],
        flags: CallFlags,
        identity_key: u64,
    ) -> Result<NodeId, BuildError> {
        if self.recording {
            self.settle();
            if let Some(node) = self.call_direct(decl_id, args, flags, identity_key) {
                return Ok(node);
            }
        }
        self.call_general(decl_id, args, flags, identity_key)
    }

    /// The direct path of [`Self::call_node`] (see the module documentation): records the
    /// call and returns its node, or records nothing and returns `None` when the call needs the
    /// general path. The builder must be recording.
    #[inline]
    fn call_direct(
        &mut self,
        decl_id: DeclId,
        args: &[u8],
        flags: CallFlags,
        identity_key: u64,
    ) -> Option<NodeId> {
        let GraphBuilder {
            graph,
            previous,
            call_plans,
            resource_facts,
            passed_format_checks,
            limits,
            subgraph_stack,
            unchanged,
            differing_resources,
            expansions,
            replay_facts,
            ..
        } = self;
        let plan = call_plans.get(decl_id.index())?;
        let expanded = !expansions.is_empty()
            && expansions
                .get(decl_id.index())
                .is_some_and(|entry| entry.is_some());
        if !plan.direct || expanded || args.len() < plan.args_end as usize {
            return None;
        }
        let args_size = plan.args_size as usize;
        let node_index = graph.nodes.len();
        let access_start = graph.accesses.len();
        let args_start = graph.args.len().next_multiple_of(8);
        // Every bound at once, with room for the most this call can add: a call near a bound
        // takes the general path, which tells which one it passes.
        let fits = (node_index < limits.max_nodes as usize)
            & (access_start + plan.slots.len() <= limits.max_accesses as usize)
            & (graph.explicit_deps.len() <= limits.max_dependencies as usize)
            & ((args_start + args.len().max(args_size)) as u64 <= limits.max_argument_bytes);
        if !fits {
            return None;
        }
        let node = NodeId::from_index(node_index);
        // Once a record differs, the rest of the frame need not be compared.
        let mut same = *unchanged;
        // While everything recorded so far, resources included, repeats the previous frame
        // (which finished), a call whose views repeat the previous frame's call at its index
        // records that call's access records again ([`repeated_accesses`]).
        let repeated = if same & (*differing_resources == 0) {
            repeated_accesses(previous, plan, resource_facts, decl_id, node_index, args)
        } else {
            None
        };
        let mut temporal = false;
        let recorded = match repeated {
            Some(records) => {
                graph.accesses.extend_from_slice(records);
                true
            }
            None => record_plain_views(
                graph,
                previous,
                plan,
                resource_facts,
                passed_format_checks,
                node,
                args,
                &mut same,
                &mut temporal,
            ),
        };
        if !recorded {
            graph.accesses.truncate(access_start);
            return None;
        }
        // Padding to 8 bytes, the block, zeros up to the declared size.
        let copied = args.len().min(args_size);
        let padding = args_start - graph.args.len();
        graph.args.reserve(padding + args_size);
        if padding != 0 {
            graph.args.extend_from_slice(&[0; 8][..padding]);
        }
        graph.args.extend_from_slice(&args[..copied]);
        if copied < args_size {
            graph.args.resize(args_start + args_size, 0);
        }
        let record = NodeRecord {
            decl: decl_id,
            args: args_start as u32..(args_start + args_size) as u32,
            flags,
            identity_key,
            accesses: access_start as u32..graph.accesses.len() as u32,
            subgraph: subgraph_stack.last().copied(),
            barrier_epoch: graph.barrier_count,
        };
        *unchanged &= same
            & previous
                .nodes
                .get(node_index)
                .is_some_and(|previous| same_node(previous, &record));
        graph.nodes.push(record);
        // The next frame may replay this call (`replay.rs`): its records are a function of its
        // view bytes and the resources made before it, none temporal, outside scopes.
        if !temporal & subgraph_stack.is_empty() & (graph.barrier_count == 0) {
            replay_facts.note_replayable_call(node_index, graph.resources.len(), true);
        }
        Some(node)
    }

    /// [`Self::call_node`] the long way: every rule checked step by step, each failure
    /// reported as its own error.
    #[inline(never)]
    fn call_general(
        &mut self,
        decl_id: DeclId,
        args: &[u8],
        flags: CallFlags,
        identity_key: u64,
    ) -> Result<NodeId, BuildError> {
        self.check_recording()?;
        let decls = Arc::clone(&self.graph.decls);
        let Some(decl) = decls.get(decl_id.index()) else {
            return Err(BuildError::UnknownDecl(decl_id));
        };
        if args.len() < decl.args_end as usize {
            return Err(BuildError::ArgumentsTooShort {
                node: decl.name.clone(),
                expected: decl.args_end,
                actual: args.len(),
            });
        }
        if let Some(entry) = self.expansion_of(decl_id) {
            let entry = entry.clone();
            return self.expand_call(entry, decl, args, flags, identity_key);
        }
        self.within(GraphLimit::Nodes, self.graph.nodes.len() + 1)?;
        let node = NodeId::from_index(self.graph.nodes.len());
        let access_start = self.graph.accesses.len();
        let deps_start = self.graph.explicit_deps.len();
        let result = self
            .record_node_arguments(decl, decl_id.index(), args, node)
            .and_then(|()| {
                self.check_typeless_copies(decl, access_start..self.graph.accesses.len())?;
                self.within(GraphLimit::Accesses, self.graph.accesses.len())?;
                self.within(GraphLimit::Dependencies, self.graph.explicit_deps.len())?;
                self.within(
                    GraphLimit::ArgumentBytes,
                    self.graph.args.len() + args.len().max(decl.args_size as usize),
                )?;
                crate::transfer_check::check_transfer(
                    decl,
                    &self.graph.accesses[access_start..],
                    &self.graph.resources,
                    args,
                )
                .map_err(|message| BuildError::InvalidTransfer {
                    node: decl.name.clone(),
                    message,
                })
            });
        if let Err(err) = result {
            self.graph.accesses.truncate(access_start);
            self.graph.explicit_deps.truncate(deps_start);
            return Err(err);
        }
        let args_start = self.graph.args.len().next_multiple_of(8);
        self.graph.args.resize(args_start, 0);
        // An unsized array parameter (`int4 rects[]`, the last one) keeps every element the
        // caller passed after its offset; other blocks are cut to the declared size.
        let unsized_tail = matches!(
            decl.params.last().map(|p| &p.value_type),
            Some(ValueType::Array(_, 0))
        );
        let copied = if unsized_tail {
            args.len()
        } else {
            args.len().min(decl.args_size as usize)
        };
        self.graph.args.extend_from_slice(&args[..copied]);
        let end = (args_start + decl.args_size as usize).max(self.graph.args.len());
        self.graph.args.resize(end, 0);
        let record = NodeRecord {
            decl: decl_id,
            args: args_start as u32..self.graph.args.len() as u32,
            flags,
            identity_key,
            accesses: access_start as u32..self.graph.accesses.len() as u32,
            subgraph: self.subgraph_stack.last().copied(),
            barrier_epoch: self.graph.barrier_count,
        };
        self.unchanged &= self
            .previous
            .nodes
            .get(node.index())
            .is_some_and(|previous| same_node(previous, &record));
        self.graph.nodes.push(record);
        if self.replayable_as_recorded(node, unsized_tail) {
            let resources = self.graph.resources.len();
            self.replay_facts
                .note_replayable_call(node.index(), resources, false);
        }
        Ok(node)
    }

    /// Whether the next frame may replay call `node`, just recorded the general way, when all of
    /// its argument block repeats (`replay.rs`): its records and checks depend on nothing else
    /// then, unless it has node handles (dependencies) or an unsized tail, views a temporal
    /// resource (slices move every frame) or a depth-capable typeless one (roles are claimed
    /// per frame), or lies in a subgraph or after a barrier.
    fn replayable_as_recorded(&self, node: NodeId, unsized_tail: bool) -> bool {
        let record = &self.graph.nodes[node.index()];
        let plain_place = self.subgraph_stack.is_empty() & (self.graph.barrier_count == 0);
        let handles = self
            .call_plans
            .get(record.decl.index())
            .is_none_or(|plan| plan.has_handles);
        plain_place
            && !handles
            && !unsized_tail
            && self.graph.node_accesses(node).iter().all(|access| {
                let desc = &self.graph.resources[access.resource.index()].desc;
                desc.temporal_layers <= 1 && !is_depth_capable_typeless(desc.format)
            })
    }

    fn record_node_arguments(
        &mut self,
        decl: &NodeDeclDesc,
        decl_index: usize,
        args: &[u8],
        node: NodeId,
    ) -> Result<(), BuildError> {
        let has_handles = self.call_plans[decl_index].has_handles;
        let mut flat_slot = 0;
        for (param_index, param) in decl.params.iter().enumerate() {
            for (slot_index, slot) in param.view_slots.iter().enumerate() {
                let slot_bits = self.call_plans[decl_index].slots[flat_slot].key_bits;
                flat_slot += 1;
                let at = (param.offset + slot.offset) as usize;
                let bytes = &args[at..at + VIEW_BYTES];
                let (resource, temporal_layer, view_format, range) = match slot.kind {
                    ViewKind::Texture => {
                        let Some(view) = TextureView::from_bytes(bytes) else {
                            continue;
                        };
                        if view.is_null() {
                            continue;
                        }
                        let range = match self.whole_texture_range(&view) {
                            Some(range) => range,
                            None => {
                                let record = self.resource_for_view(view.resource, &slot.name)?;
                                view.resolve_range(&record.desc, slot.access.plane_bits())
                                    .map_err(|reason| BuildError::ViewOutOfRange {
                                        param: slot.name.clone(),
                                        reason,
                                    })?
                            }
                        };
                        (
                            view.resource,
                            view.temporal_layer,
                            view.view_format,
                            AccessRange::Texture(range),
                        )
                    }
                    ViewKind::Buffer => {
                        let Some(view) = BufferView::from_bytes(bytes) else {
                            continue;
                        };
                        if view.is_null() {
                            continue;
                        }
                        let record = self.resource_for_view(view.resource, &slot.name)?;
                        let (offset, size) =
                            view.resolve_range(&record.desc).map_err(|reason| {
                                BuildError::ViewOutOfRange {
                                    param: slot.name.clone(),
                                    reason,
                                }
                            })?;
                        (
                            view.resource,
                            view.temporal_layer,
                            view.view_format,
                            AccessRange::Buffer { offset, size },
                        )
                    }
                };
                // After the range, as both kinds report a view out of range first.
                if !self.format_check_passed(resource, view_format, slot_bits) {
                    self.check_slot_format(decl, slot, slot_bits, resource, view_format)?;
                }
                let temporal_slice =
                    self.graph.resources[resource as usize].temporal_slice(temporal_layer);
                let record = AccessRecord {
                    node,
                    param: param_index as u16,
                    slot: slot_index as u16,
                    resource: ResourceId(resource),
                    access: slot.access,
                    range,
                    temporal_layer,
                    temporal_slice,
                    view_format: Format(view_format),
                };
                // Compared before it is pushed: no second read of the record.
                self.unchanged &= self
                    .previous
                    .accesses
                    .get(self.graph.accesses.len())
                    .is_some_and(|previous| same_access_of_same_node(previous, &record));
                self.graph.accesses.push(record);
            }
            if has_handles {
                self.record_node_handles(&param.value_type, args, param.offset as usize, node)?;
            }
        }
        Ok(())
    }

    /// The range of a texture view of this frame's resource that covers the whole of a
    /// single-plane texture (in any view format: one plane either way), not as a cubemap: what
    /// [`TextureView::resolve_range`] gives it, without resolving. `None` for any other view
    /// (resolved the long way).
    #[inline]
    fn whole_texture_range(&self, view: &TextureView) -> Option<TextureRange> {
        let whole = self.resource_facts.get(view.resource as usize)?.whole()?;
        let plain = (view.flags == 0)
            & (view.base_mip_level == 0)
            & (view.base_array_layer == 0)
            & (view.mip_level_count == whole.mip_count)
            & (view.array_layer_count == whole.layer_count);
        plain.then_some(whole)
    }

    fn record_node_handles(
        &mut self,
        value_type: &ValueType,
        args: &[u8],
        at: usize,
        node: NodeId,
    ) -> Result<(), BuildError> {
        match value_type {
            ValueType::NodeHandle => {
                let handle =
                    u32::from_le_bytes([args[at], args[at + 1], args[at + 2], args[at + 3]]);
                if handle != u32::MAX {
                    if handle >= node.0 {
                        return Err(BuildError::UnknownNode(handle));
                    }
                    self.graph.explicit_deps.push((node, NodeId(handle)));
                }
            }
            ValueType::Array(elem, count) if matches!(**elem, ValueType::NodeHandle) => {
                for index in 0..*count as usize {
                    self.record_node_handles(elem, args, at + index * 4, node)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn resource_for_view(&self, resource: u32, param: &str) -> Result<&ResourceRecord, BuildError> {
        self.graph
            .resources
            .get(resource as usize)
            .ok_or_else(|| BuildError::UnknownResource {
                param: param.to_string(),
                resource,
            })
    }
}

#[cfg(test)]
#[path = "calls_tests.rs"]
mod tests;
