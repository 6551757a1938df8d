//! Barrier planning in Vulkan synchronization2 terms. One walk over the schedule tracks per
//! subresource segment its layout, last write, reads since and the stages the data is visible
//! to; an access needs a barrier for a layout change, after a write (unless both accesses are
//! `[relaxed]` storage writes), for a write after reads, or for a read by stages the data is not
//! yet visible to. Read states merge (no redundant transitions). Each barrier may sit anywhere
//! after the subresource's previous access (or, for a transient's first use, after the last use
//! of the memory it aliases) and before its access; a greedy interval stabbing puts barriers into
//! the fewest batches. Accesses from a different queue than the previous one also get a
//! semaphore wait. External, persistent and temporal resources rest between frames in a fixed
//! state (external: the entry parameter's access, else `General`); a last batch at the end of
//! the frame returns them to it.

use super::access_info::{AccessInfo, DEPTH_FORMAT, RELAXED, TEXTURE, WHOLE};
use super::access_map::{map_access, merge_layouts, AccessState};
use super::region_map::RegionMap;
use super::{CompiledFrame, DiscardFlags};
use crate::decl::{AccessDesc, AccessMode, QueueClass};
use crate::graph::RecordedGraph;
use crate::ids::ResourceId;
use crate::view::SubresourceBox;
use crate::vk::{Accesses, ImageLayout, Stages};

/// One image or buffer memory barrier.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Barrier {
    /// The resource.
    pub resource: ResourceId,
    /// Subresources (mips x layers with temporal slices folded in x planes, or bytes).
    pub region: SubresourceBox,
    /// Source stages.
    pub src_stages: Stages,
    /// Source accesses.
    pub src_accesses: Accesses,
    /// Destination stages.
    pub dst_stages: Stages,
    /// Destination accesses.
    pub dst_accesses: Accesses,
    /// Layout before (`Undefined` discards the contents).
    pub old_layout: ImageLayout,
    /// Layout after.
    pub new_layout: ImageLayout,
    /// Queue of the previous access.
    pub src_queue: u32,
    /// Queue of the next access.
    pub dst_queue: u32,
}

/// Barriers issued together before the node at execution position `position` (a position
/// equal to the node count is the end of the frame).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct BarrierBatch {
    /// Where the batch goes.
    pub position: u32,
    /// Range of its barriers in [`CompiledFrame::barriers`].
    pub barriers: std::ops::Range<u32>,
}

/// A semaphore wait between queues.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct QueueWait {
    /// The queue that waits.
    pub wait_queue: u32,
    /// The queue that signals.
    pub signal_queue: u32,
    /// Signal after the node at this execution position.
    pub signal_after: u32,
    /// Wait before the node at this execution position.
    pub wait_before: u32,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
struct SubState {
    layout: ImageLayout,
    write_stages: Stages,
    write_accesses: Accesses,
    read_stages: Stages,
    visible: Stages,
    last_position: i64,
    queue: u32,
    relaxed_write: bool,
    touched: bool,
}

/// `Need::plane` of an access whose box is used as is (whole one-plane resources, buffers).
const WHOLE_PLANE: u8 = u8::MAX;

/// What one access needs of one plane of its subresources.
#[derive(Copy, Clone, Debug)]
struct Need {
    resource: u32,
    /// The access (index into the frame's accesses and boxes).
    access: u32,
    /// The texture plane, or [`WHOLE_PLANE`].
    plane: u8,
    need: AccessState,
    discard_before: bool,
    relaxed: bool,
}

impl Need {
    /// The subresources: the access's box, limited to the plane.
    #[inline(always)]
    fn region(&self, boxes: &[SubresourceBox]) -> SubresourceBox {
        let mut region = boxes[self.access as usize];
        if self.plane != WHOLE_PLANE {
            region.lo[2] = self.plane as u64;
            region.hi[2] = self.plane as u64 + 1;
        }
        region
    }
}

/// Overlapping accesses of one node act as one: each gets the union of their needs
/// (conservative for the non-overlapping parts).
fn merge_overlapping_needs(needs: &mut [Need], boxes: &[SubresourceBox]) {
    for first in 0..needs.len() {
        for second in first + 1..needs.len() {
            let (a, b) = (needs[first], needs[second]);
            if a.resource == b.resource && a.region(boxes).overlaps(&b.region(boxes)) {
                let merged = AccessState {
                    stages: a.need.stages | b.need.stages,
                    accesses: a.need.accesses | b.need.accesses,
                    layout: merge_layouts(a.need.layout, b.need.layout),
                    reads: a.need.reads || b.need.reads,
                    writes: a.need.writes || b.need.writes,
                };
                let discard = a.discard_before && b.discard_before;
                let relaxed = a.relaxed && b.relaxed;
                for index in [first, second] {
                    needs[index].need = merged;
                    needs[index].discard_before = discard;
                    needs[index].relaxed = relaxed;
                }
            }
        }
    }
}

/// Reusable scratch of barrier planning.
#[derive(Debug, Default)]
pub struct BarrierPlanner {
    states: RegionMap<SubState>,
    /// The batch barriers go to now: its position and first barrier.
    open_batch: Option<(u32, u32)>,
    /// What the accesses of the current node need, per plane.
    node_needs: Vec<Need>,
    mapped: Vec<(u64, AccessState)>,
}

/// The inputs of [`map_access`] packed into one word (attribute flags, modes, relaxed, plane,
/// texture, depth format, queue class), the key of [`map_access_memo`].
fn map_key(access: &AccessDesc, plane: u32, texture: bool, depth: bool, class: QueueClass) -> u64 {
    let mode = |mode: AccessMode| match mode {
        AccessMode::ReadOnly => 0u64,
        AccessMode::WriteOnly => 1,
        AccessMode::ReadWrite => 2,
    };
    let stencil = access.stencil_mode.map_or(3, mode);
    access.flags.0 as u64
        | mode(access.mode) << 32
        | stencil << 34
        | (access.relaxed as u64) << 36
        | ((plane == 1) as u64) << 37
        | (texture as u64) << 38
        | (depth as u64) << 39
        | (class as u64) << 40
}

/// [`map_access`] through a small memo (a frame has few distinct access kinds).
fn map_access_memo(
    memo: &mut Vec<(u64, AccessState)>,
    access: &AccessDesc,
    plane: u32,
    texture: bool,
    depth: bool,
    class: QueueClass,
) -> AccessState {
    let key = map_key(access, plane, texture, depth, class);
    if let Some((_, state)) = memo.iter().find(|(known, _)| *known == key) {
        return *state;
    }
    let state = map_access(access, plane, texture, depth, class);
    if memo.len() == 64 {
        memo.clear();
    }
    memo.push((key, state));
    state
}

/// The state an outliving resource rests in between frames.
fn resting_state(graph: &RecordedGraph, resource: usize) -> AccessState {
    let record = &graph.resources[resource];
    let texture = record.desc.kind.is_texture();
    match record.external_access {
        Some(access) if record.external => map_access(
            &access,
            0,
            texture,
            record.desc.format.is_depth_stencil(),
            QueueClass::Graphics,
        ),
        _ => AccessState {
            stages: Stages::ALL_COMMANDS,
            accesses: Accesses::MEMORY_READ | Accesses::MEMORY_WRITE,
            layout: if texture {
                ImageLayout::General
            } else {
                ImageLayout::Undefined
            },
            reads: true,
            writes: true,
        },
    }
}

impl BarrierPlanner {
    /// Fills `frame.batches_list`, `frame.barriers`, `frame.queue_waits`, `frame.batches` and
    /// `frame.transitions` from the order, queues, discard flags and aliasing of `frame`.
    /// `boxes` are the accesses' subresource boxes, `full` the resources' whole boxes and `infos`
    /// the accesses' compact records. Barriers go straight into the frame's list in batch order.
    #[inline(never)]
    pub fn plan(
        &mut self,
        graph: &RecordedGraph,
        boxes: &[SubresourceBox],
        full: &[SubresourceBox],
        infos: &[AccessInfo],
        frame: &mut CompiledFrame,
    ) {
        self.states
            .reset(graph.resources.iter().enumerate().map(|(index, record)| {
                let mut state = SubState {
                    last_position: -1,
                    ..SubState::default()
                };
                if record.outlives_frame() && (record.external || record.frames_alive > 0) {
                    let rest = resting_state(graph, index);
                    state.layout = rest.layout;
                    state.write_stages = Stages::ALL_COMMANDS;
                    state.write_accesses = Accesses::MEMORY_WRITE;
                    state.touched = true;
                }
                (full[index], state)
            }));
        self.open_batch = None;
        frame.queue_waits.clear();
        frame.barriers.clear();
        frame.batch_list.clear();
        for (position, node) in frame.order.iter().enumerate() {
            let queue = frame.node_queue[node.index()];
            let class = graph.decls[graph.nodes[node.index()].decl.index()].queue;
            let range = graph.nodes[node.index()].accesses.clone();
            // What each access needs, per plane; overlapping accesses of one node share a layout.
            self.node_needs.clear();
            for access_index in range.start as usize..range.end as usize {
                let info = infos[access_index];
                let discard = frame
                    .access_discard
                    .get(access_index)
                    .copied()
                    .unwrap_or_default();
                let access = &graph.accesses[access_index].access;
                let texture = info.has(TEXTURE);
                let depth = info.has(DEPTH_FORMAT);
                if info.has(WHOLE) {
                    // One plane (plane 0), the whole resource.
                    self.node_needs.push(Need {
                        resource: info.resource,
                        access: access_index as u32,
                        plane: WHOLE_PLANE,
                        need: map_access_memo(&mut self.mapped, access, 0, texture, depth, class),
                        discard_before: discard.contains(DiscardFlags::BEFORE),
                        relaxed: info.has(RELAXED),
                    });
                    continue;
                }
                let region = &boxes[access_index];
                for plane in region.lo[2]..region.hi[2] {
                    let need = map_access_memo(
                        &mut self.mapped,
                        access,
                        plane as u32,
                        texture,
                        depth,
                        class,
                    );
                    let discard_before = discard.contains(if plane == 1 {
                        DiscardFlags::STENCIL_BEFORE
                    } else {
                        DiscardFlags::BEFORE
                    });
                    self.node_needs.push(Need {
                        resource: info.resource,
                        access: access_index as u32,
                        plane: if texture { plane as u8 } else { WHOLE_PLANE },
                        need,
                        discard_before,
                        relaxed: info.has(RELAXED),
                    });
                    if !texture {
                        break;
                    }
                }
            }
            if self.node_needs.len() > 1 {
                merge_overlapping_needs(&mut self.node_needs, boxes);
            }
            let mut out = Emitter {
                barriers: &mut frame.barriers,
                batch_list: &mut frame.batch_list,
                open: &mut self.open_batch,
                waits: &mut frame.queue_waits,
            };
            for need in &self.node_needs {
                let resource = need.resource as usize;
                let region = need.region(boxes);
                let step = Step {
                    resource,
                    position: position as u32,
                    queue,
                    need: need.need,
                    discard_before: need.discard_before,
                    relaxed: need.relaxed,
                    alias_after: frame.alias_after.get(resource).copied().flatten(),
                };
                let single = if infos[need.access as usize].has(WHOLE) {
                    self.states.single_whole_mut(resource)
                } else {
                    self.states.single_mut(resource, &region)
                };
                if let Some(state) = single {
                    step.apply(state, region, &mut out);
                } else {
                    // Each state covers its own part of the region: a barrier per part, so each
                    // carries the old layout of exactly the subresources it transitions.
                    self.states.update_boxed(resource, &region, |part, state| {
                        step.apply(state, *part, &mut out)
                    });
                }
            }
        }
        self.plan_end_of_frame(graph, full, frame);
        if let Some(open) = self.open_batch.take() {
            frame.batch_list.push(BarrierBatch {
                position: open.0,
                barriers: open.1..frame.barriers.len() as u32,
            });
        }
        frame.batches = frame.batch_list.len() as u32;
        frame.transitions = frame.barriers.len() as u32;
    }

    fn plan_end_of_frame(
        &mut self,
        graph: &RecordedGraph,
        full: &[SubresourceBox],
        frame: &mut CompiledFrame,
    ) {
        let end = frame.order.len() as u32;
        let mut out = Emitter {
            barriers: &mut frame.barriers,
            batch_list: &mut frame.batch_list,
            open: &mut self.open_batch,
            waits: &mut frame.queue_waits,
        };
        let mut batch_started = false;
        for (index, record) in graph.resources.iter().enumerate() {
            if !record.outlives_frame() {
                continue;
            }
            let rest = resting_state(graph, index);
            let full = full[index];
            let mut plan = |state: &mut SubState, region: SubresourceBox| {
                if !state.touched || state.last_position < 0 {
                    return;
                }
                let pending_write = state.write_stages != Stages::NONE;
                if state.layout == rest.layout && !pending_write {
                    return;
                }
                if !batch_started {
                    batch_started = true;
                    out.open_new(end);
                }
                out.push(Barrier {
                    resource: ResourceId::from_index(index),
                    region,
                    src_stages: state.write_stages | state.read_stages,
                    src_accesses: state.write_accesses,
                    dst_stages: rest.stages,
                    dst_accesses: rest.accesses,
                    old_layout: state.layout,
                    new_layout: rest.layout,
                    src_queue: state.queue,
                    dst_queue: 0,
                });
            };
            self.states
                .for_each(index, &full, |region, state| plan(state, *region));
        }
    }
}

/// Where planned barriers go: straight into the frame's barrier list, batch by batch (batches
/// only ever open at the end, so no sorting is needed).
struct Emitter<'a> {
    barriers: &'a mut Vec<Barrier>,
    batch_list: &'a mut Vec<BarrierBatch>,
    open: &'a mut Option<(u32, u32)>,
    waits: &'a mut Vec<QueueWait>,
}

impl Emitter<'_> {
    /// Closes the open batch (if any) and opens one at `position`.
    fn open_new(&mut self, position: u32) {
        if let Some((open_position, start)) = self.open.take() {
            self.batch_list.push(BarrierBatch {
                position: open_position,
                barriers: start..self.barriers.len() as u32,
            });
        }
        *self.open = Some((position, self.barriers.len() as u32));
    }

    /// Adds a barrier that may go anywhere in `earliest..=position`: into the open batch when it
    /// lies in that range, else into a new batch at `position`.
    fn push_between(&mut self, earliest: i64, position: u32, barrier: Barrier) {
        match *self.open {
            Some((open_position, _)) if open_position as i64 >= earliest => {}
            _ => self.open_new(position),
        }
        self.push(barrier);
    }

    /// Adds a barrier to the open batch.
    #[inline(always)]
    fn push(&mut self, barrier: Barrier) {
        let start = self.open.map_or(0, |(_, start)| start);
        push_merged(self.barriers, start as usize, barrier);
    }
}

/// One access's need applied to the subresource states it covers.
struct Step {
    resource: usize,
    position: u32,
    queue: u32,
    need: AccessState,
    discard_before: bool,
    relaxed: bool,
    alias_after: Option<u32>,
}

impl Step {
    /// Updates one segment's state, emitting the barrier (and queue wait) it needs.
    #[inline(always)]
    fn apply(&self, state: &mut SubState, region: SubresourceBox, out: &mut Emitter<'_>) {
        let (position, queue, need, relaxed) = (self.position, self.queue, self.need, self.relaxed);
        if state.last_position == position as i64 {
            // Another access of this node (already merged into the first one).
            return;
        }
        let alias_after = self.alias_after;
        let first_use = !state.touched;
        let layout_change = need.layout != state.layout;
        let pending_write = state.write_stages != Stages::NONE;
        // Visibility on one queue says nothing of another: an access on a different queue
        // than the last one after any write waits for it (through a semaphore) and gets its
        // own barrier, even when the data is already visible to its stages.
        let other_queue = !first_use && state.queue != queue;
        let needs_barrier = layout_change
            || (first_use && alias_after.is_some())
            || (other_queue && pending_write)
            || (need.writes
                && pending_write
                && !(relaxed && state.relaxed_write && state.read_stages == Stages::NONE))
            || (need.writes && state.read_stages != Stages::NONE)
            || (!need.writes && pending_write && state.visible.0 & need.stages.0 != need.stages.0);
        if needs_barrier {
            let mut src_stages = state.write_stages | state.read_stages;
            let mut src_accesses = state.write_accesses;
            let mut earliest = state.last_position + 1;
            if first_use {
                if let Some(after) = alias_after {
                    src_stages = Stages::ALL_COMMANDS;
                    src_accesses = Accesses::MEMORY_WRITE;
                    earliest = after as i64 + 1;
                }
            }
            let old_layout = if self.discard_before || first_use {
                ImageLayout::Undefined
            } else {
                state.layout
            };
            let barrier = Barrier {
                resource: ResourceId::from_index(self.resource),
                region,
                src_stages,
                src_accesses,
                dst_stages: need.stages,
                dst_accesses: need.accesses,
                old_layout,
                new_layout: need.layout,
                src_queue: if state.touched { state.queue } else { queue },
                dst_queue: queue,
            };
            out.push_between(earliest, position, barrier);
            if state.touched && state.queue != queue && state.last_position >= 0 {
                out.waits.push(QueueWait {
                    wait_queue: queue,
                    signal_queue: state.queue,
                    signal_after: state.last_position as u32,
                    wait_before: position,
                });
            }
            state.visible = need.stages;
            if need.writes {
                // The new data is visible to nobody until the next barrier.
                state.visible = Stages::NONE;
                state.write_stages = need.stages;
                state.write_accesses = Accesses(need.accesses.0 & Accesses::WRITE_MASK.0);
                state.read_stages = if need.reads {
                    need.stages
                } else {
                    Stages::NONE
                };
            } else {
                state.read_stages |= need.stages;
            }
        } else if need.writes {
            state.visible = Stages::NONE;
            state.write_stages |= need.stages;
            state.write_accesses |= Accesses(need.accesses.0 & Accesses::WRITE_MASK.0);
        } else {
            state.read_stages |= need.stages;
        }
        state.layout = need.layout;
        state.relaxed_write = need.writes && relaxed;
        state.last_position = position as i64;
        state.queue = queue;
        state.touched = true;
    }
}

/// Appends a barrier, merging it into the previous one of the batch when they differ only in
/// adjacent regions.
fn push_merged(barriers: &mut Vec<Barrier>, batch_start: usize, barrier: Barrier) {
    if barriers.len() > batch_start && barriers[barriers.len() - 1].resource == barrier.resource {
        let last = barriers.last_mut().unwrap_or_else(|| unreachable!());
        let same = Barrier {
            region: last.region,
            ..barrier
        } == *last;
        if same {
            let (a, b) = (last.region, barrier.region);
            let mut differing = 0;
            let mut axis_of = 0;
            for axis in 0..3 {
                if a.lo[axis] != b.lo[axis] || a.hi[axis] != b.hi[axis] {
                    differing += 1;
                    axis_of = axis;
                }
            }
            if differing == 1 && (a.hi[axis_of] == b.lo[axis_of] || b.hi[axis_of] == a.lo[axis_of])
            {
                last.region.lo[axis_of] = a.lo[axis_of].min(b.lo[axis_of]);
                last.region.hi[axis_of] = a.hi[axis_of].max(b.hi[axis_of]);
                return;
            }
        }
    }
    barriers.push(barrier);
}
