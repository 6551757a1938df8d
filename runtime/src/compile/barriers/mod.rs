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
//!
//! Data flow: a resource's state is one 64-byte record, direct-indexed, until an access covers
//! only part of it (then a region map of segments takes over for the rest of the frame); a
//! transient placed in reused memory starts the frame with a pending write of all commands
//! after the previous occupants, so no access looks at the aliasing. The Vulkan terms of an
//! access of a whole resource come from a table made once per declaration set (declaration,
//! parameter, resource kind); other accesses map through a small cache keyed by the access and
//! its context. A node whose accesses name distinct resources (nearly all) applies each access
//! as it comes; the general paths (a node that names a resource twice builds and merges
//! per-plane needs first, accesses of part of a resource) are out of line. The fast path reads
//! neither the access's record (its parameter and attributes come from the access table's key)
//! nor any box: a whole access's region is its resource's whole box, which its barrier names
//! as [`RegionRef::WHOLE`](super::frame::RegionRef::WHOLE) (a 56-byte record; only the rare
//! barrier of part of a resource keeps its box, in the frame's `barrier_regions`). A frame
//! starts in one pass over the states that reads only the outliving resources' records.

// The per-segment state and the barrier emitter, the per-declaration-set needs, the region
// reference of a barrier and the mapping of accesses to Vulkan states.
pub mod access_map;
mod needs;
mod state;

use super::deps::stage::Analysis;
use super::discard::whole::{Track, TrackStore};
use super::discard::DiscardInference;
use super::frame::Barrier;
use super::frame::{BarrierParts, DiscardFlags, Ordered};
use super::regions::map::RegionMap;
use super::table::{
    AccessBoxes, AccessInfo, DEPTH_FORMAT, KEY_PARAM_SHIFT, RELAXED, TEXTURE, WHOLE,
};
use crate::decl::QueueClass;
use crate::graph::{AccessRecord, RecordedGraph};
use crate::ids::ResourceId;
use crate::view::SubresourceBox;
use crate::vk::{Accesses, ImageLayout, Stages};
use access_map::{map_access, merge_layouts, AccessState, AccessStateCache, MapContext};
use needs::{kind_of, DeclNeeds, ParamNeeds};
use state::{BarrierLists, EmitRegion, Emitter, Step, SubState};
use std::cell::Cell;

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
    /// The access covers the whole of a one-plane resource ([`WHOLE`]).
    whole: bool,
    need: AccessState,
    discard_before: bool,
    relaxed: bool,
}

impl Need {
    /// The subresources: the access's box, limited to the plane.
    #[inline(always)]
    fn region(&self, boxes: AccessBoxes<'_>) -> SubresourceBox {
        let mut region = boxes.get(self.access as usize);
        if self.plane != WHOLE_PLANE {
            region.lo[2] = self.plane as u64;
            region.hi[2] = self.plane as u64 + 1;
        }
        region
    }

    /// The need as a step at execution position `position` on queue `queue`.
    #[inline(always)]
    fn step(&self, position: u32, queue: u32) -> Step {
        Step {
            resource: self.resource,
            position,
            queue,
            need: self.need,
            discard_before: self.discard_before,
            relaxed: self.relaxed,
        }
    }
}

/// Overlapping accesses of one node act as one: each gets the union of their needs
/// (conservative for the non-overlapping parts).
fn merge_overlapping_needs(needs: &mut [Need], boxes: AccessBoxes<'_>) {
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

/// `WholeState::split` of a resource kept whole.
const NOT_SPLIT: u32 = u32::MAX;

/// The subresource states of the frame's resources. A resource stays one state covering all of
/// it (`whole`, direct-indexed) until an access covers only part of it; then it moves, with
/// that state, into a region map of segments (`split`) for the rest of the frame. A one-segment
/// region map behaves exactly like the whole state, so the move changes nothing but speed.
#[derive(Debug, Default)]
struct States {
    whole: Vec<WholeState>,
    split: RegionMap<SubState>,
}

/// A resource's state while it is kept whole, where it went once split, and its state in the
/// whole-resource discard walk (one 64-byte record, so the hot path of both walks reads one
/// cache line per access).
#[derive(Copy, Clone, Debug)]
struct WholeState {
    state: SubState,
    /// Its index in `States::split`, or [`NOT_SPLIT`] (then `state` is current).
    split: u32,
    /// One more than the execution position of the last node that accessed the resource, or 0.
    node_stamp: u32,
    /// The resource's state in the whole-resource discard walk (driven from this walk).
    discard: Track,
}

// The hot loop touches one cache line per access's resource.
const _: () = assert!(std::mem::size_of::<WholeState>() == 64);

impl TrackStore for [WholeState] {
    fn track_mut(&mut self, resource: u32) -> &mut Track {
        &mut self[resource as usize].discard
    }
}

impl States {
    /// Applies a need of the subresources `region` of `step.resource`; `whole`: the access
    /// covers the whole of a one-plane resource.
    #[inline(always)]
    fn apply(
        &mut self,
        step: &Step,
        region: &SubresourceBox,
        whole: bool,
        full: &[SubresourceBox],
        out: &mut Emitter<'_>,
    ) {
        let resource = step.resource as usize;
        let entry = &mut self.whole[resource];
        let mut index = entry.split;
        if index == NOT_SPLIT {
            if whole || region.contains(&full[resource]) {
                step.apply::<false>(&mut entry.state, region, out);
                return;
            }
            index = self.split.push_resource(full[resource], entry.state) as u32;
            entry.split = index;
        }
        let index = index as usize;
        let single = if whole {
            self.split.single_whole_mut(index)
        } else {
            self.split.single_mut(index, region)
        };
        if let Some(state) = single {
            step.apply::<true>(state, region, out);
        } else {
            // Each state covers its own part of the region: a barrier per part, so each carries
            // the old layout of exactly the subresources it transitions.
            self.split.update_boxed(index, region, |part, state| {
                step.apply::<true>(state, part, out)
            });
        }
    }
}

/// Reusable scratch of barrier planning.
#[derive(Debug, Default)]
pub struct BarrierPlanner {
    states: States,
    /// Needs of the accesses that take the general path.
    general: General,
    /// What each declaration parameter's accesses need (kept across frames).
    decl_needs: DeclNeeds,
    /// The resource serial of the graph whose whole boxes were last copied into the frame's
    /// `resource_boxes` (0: none, or unknown).
    boxes_serial: u64,
}

/// Scratch of the accesses that do not take the fast path (a node that names a resource twice,
/// an access of part of a resource or of a split resource, hand-edited access attributes).
#[derive(Debug, Default)]
struct General {
    /// What the accesses of the current node need, per plane.
    node_needs: Vec<Need>,
    /// [`map_access`] results by access kind.
    mapped: AccessStateCache,
}

/// What barrier planning reads of the frame's accesses, each slice indexed like
/// `RecordedGraph::accesses` (and cut to the shortest).
struct FrameAccesses<'a> {
    records: &'a [AccessRecord],
    /// The accesses' keys (attribute flags, mode and parameter index; see
    /// [`AccessTable::keys`](super::table::AccessTable::keys)).
    keys: &'a [u64],
    infos: &'a [AccessInfo],
    boxes: AccessBoxes<'a>,
    /// Each access's discard-before is final once the discard walk has passed its node.
    discards: &'a [Cell<DiscardFlags>],
    /// The resources' whole boxes.
    full: &'a [SubresourceBox],
}

/// The state an outliving resource (index `resource` of `graph`) rests in between frames: an
/// external one in its entry parameter's access (`[readonly(present)]`: the present layout),
/// else every stage and access in `General` (buffers: no layout). Each frame starts from it
/// and a last barrier batch returns the resource to it.
pub fn resting_state(graph: &RecordedGraph, resource: usize) -> AccessState {
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

/// Some resource appears more than once among the accesses `infos` of the node at execution
/// position `position`. Up to three accesses are compared pairwise; a longer list stamps each
/// access's resource record with `position + 1` (unique within the frame; the records start
/// at 0 each frame), so a stamp already there is a repeat.
#[inline(always)]
fn repeats_resource(infos: &[AccessInfo], whole: &mut [WholeState], position: u32) -> bool {
    match infos {
        [] | [_] => false,
        [a, b] => a.resource == b.resource,
        [a, b, c] => {
            (a.resource == b.resource) | (a.resource == c.resource) | (b.resource == c.resource)
        }
        _ => {
            let stamp = position + 1;
            let mut repeated = false;
            for info in infos {
                if let Some(entry) = whole.get_mut(info.resource as usize) {
                    repeated |= entry.node_stamp == stamp;
                    entry.node_stamp = stamp;
                }
            }
            repeated
        }
    }
}

/// Appends what access `access_index` needs, per plane, to `needs`.
fn push_needs(
    needs: &mut Vec<Need>,
    mapped: &mut AccessStateCache,
    accesses: &FrameAccesses<'_>,
    access_index: usize,
    class: QueueClass,
) {
    let info = accesses.infos[access_index];
    let access = &accesses.records[access_index].access;
    let discard = accesses.discards[access_index].get();
    let texture = info.has(TEXTURE);
    let depth = info.has(DEPTH_FORMAT);
    let relaxed = info.has(RELAXED);
    if info.has(WHOLE) {
        // One plane (plane 0), the whole resource.
        needs.push(Need {
            resource: info.resource,
            access: access_index as u32,
            plane: WHOLE_PLANE,
            whole: true,
            need: mapped.get(access, MapContext::new(false, texture, depth, class)),
            discard_before: discard.contains(DiscardFlags::BEFORE),
            relaxed,
        });
        return;
    }
    let region = accesses.boxes.get(access_index);
    for plane in region.lo[2]..region.hi[2] {
        let stencil = plane == 1;
        needs.push(Need {
            resource: info.resource,
            access: access_index as u32,
            plane: if texture { plane as u8 } else { WHOLE_PLANE },
            whole: false,
            need: mapped.get(access, MapContext::new(stencil, texture, depth, class)),
            discard_before: discard.contains(if stencil {
                DiscardFlags::STENCIL_BEFORE
            } else {
                DiscardFlags::BEFORE
            }),
            relaxed,
        });
        if !texture {
            break;
        }
    }
}

impl General {
    /// Applies the accesses `range` of a node that names some resource more than once: the
    /// needs of overlapping accesses are merged first.
    #[cold]
    #[inline(never)]
    fn plan_merged_node(
        &mut self,
        states: &mut States,
        accesses: &FrameAccesses<'_>,
        range: std::ops::Range<usize>,
        step: StepAt,
        out: &mut Emitter<'_>,
    ) {
        self.node_needs.clear();
        for access_index in range {
            push_needs(
                &mut self.node_needs,
                &mut self.mapped,
                accesses,
                access_index,
                step.class,
            );
        }
        merge_overlapping_needs(&mut self.node_needs, accesses.boxes);
        self.apply_needs(states, accesses, step, out);
    }

    /// Applies access `access_index` of a node that names its resource once.
    #[cold]
    #[inline(never)]
    fn plan_access(
        &mut self,
        states: &mut States,
        accesses: &FrameAccesses<'_>,
        access_index: usize,
        step: StepAt,
        out: &mut Emitter<'_>,
    ) {
        self.node_needs.clear();
        push_needs(
            &mut self.node_needs,
            &mut self.mapped,
            accesses,
            access_index,
            step.class,
        );
        self.apply_needs(states, accesses, step, out);
    }

    /// Applies the needs gathered in `node_needs` at the node's position and queue.
    fn apply_needs(
        &self,
        states: &mut States,
        accesses: &FrameAccesses<'_>,
        step: StepAt,
        out: &mut Emitter<'_>,
    ) {
        for need in &self.node_needs {
            let region = need.region(accesses.boxes);
            states.apply(
                &need.step(step.position, step.queue),
                &region,
                need.whole,
                accesses.full,
                out,
            );
        }
    }
}

/// Where the accesses of a node take effect: its execution position and queue, and its
/// declaration's queue class.
#[derive(Copy, Clone, Debug)]
struct StepAt {
    position: u32,
    queue: u32,
    class: QueueClass,
}

impl BarrierPlanner {
    /// Fills `out` (batches, barriers, their regions, queue waits and counts) for the analysed
    /// `frame` in the execution order and queues of `ordered`, from its discard flags and
    /// aliasing (`alias_after`), and keeps `out.resource_boxes` equal to the access table's
    /// whole boxes. The table holds the accesses' compact records and boxes and the outliving
    /// resources. Barriers go straight into the frame's list in batch order.
    ///
    /// The discard inference of the whole-tracked resources (`discard`: the inference
    /// `DiscardInference::begin` started, and the flags it wrote) walks each node just before
    /// its barriers are planned, so that every discard-before read here is final; the flags
    /// are complete on return.
    #[inline(never)]
    pub fn plan(
        &mut self,
        frame: Analysis<'_>,
        ordered: &Ordered<'_>,
        alias_after: &[Option<u32>],
        discard: (&mut DiscardInference, &mut [DiscardFlags]),
        out: BarrierParts<'_>,
    ) {
        let Analysis { graph, table, .. } = frame;
        let (discard, discard_flags) = discard;
        let full = table.full_boxes();
        let (boxes, infos, outliving) = (table.boxes(), &table.infos[..], table.outliving());
        self.begin_frame(graph, outliving, alias_after, discard.whole_starts());
        self.decl_needs.update(&graph.decls);
        let count = graph
            .accesses
            .len()
            .min(infos.len())
            .min(boxes.count())
            .min(table.keys.len())
            .min(discard_flags.len());
        let discards = Cell::from_mut(&mut discard_flags[..count]).as_slice_of_cells();
        let accesses = FrameAccesses {
            records: &graph.accesses[..count],
            keys: &table.keys[..count],
            infos: &infos[..count],
            boxes,
            discards,
            full,
        };
        let mut discard_walk = discard.whole_walk(accesses.infos, discards);
        self.keep_resource_boxes(graph, full, out.resource_boxes);
        let lists = BarrierLists {
            barriers: std::mem::take(out.barriers),
            regions: std::mem::take(out.barrier_regions),
            batch_list: std::mem::take(out.batch_list),
            waits: std::mem::take(out.queue_waits),
        };
        let parts = out;
        let mut out = Emitter::new(lists, full);
        // Both are indexed by node (and as long as the node list): cut to one length, one
        // bounds check covers both look-ups.
        // The nodes' spans, not their records: their declarations and access ranges are all
        // the walk reads of them.
        let node_count = table.nodes.len().min(ordered.node_queue.len());
        let (nodes, node_queue) = (
            &table.nodes[..node_count],
            &ordered.node_queue[..node_count],
        );
        for (position, node) in ordered.order.iter().enumerate() {
            let record = nodes[node.index()];
            let decl = self.decl_needs.decl(record.decl as usize);
            let step = StepAt {
                position: position as u32,
                queue: node_queue[node.index()],
                class: decl.class,
            };
            // A reversed range is empty (as a `Range` is), not a slicing panic.
            let first = (record.start as usize).min(count);
            let end = (record.end as usize).clamp(first, count);
            let node_infos = &accesses.infos[first..end];
            // A node that accesses a resource twice merges the needs of overlapping accesses
            // first; any other node applies each access as it comes.
            if repeats_resource(node_infos, &mut self.states.whole, step.position) {
                let resources = self.states.whole.len();
                discard_walk.repeated_node(
                    &mut self.states.whole[..],
                    resources,
                    first as u32,
                    end as u32,
                );
                self.general.plan_merged_node(
                    &mut self.states,
                    &accesses,
                    first..end,
                    step,
                    &mut out,
                );
                continue;
            }
            let params = self.decl_needs.params(decl);
            // The states as a local slice (one pointer and length for the loop), taken again
            // after a general access, which needs all of the states.
            let mut whole = &mut self.states.whole[..];
            // `end <= count`, the length of every per-access slice: no checks on the indexing.
            for index in first..end {
                let info = accesses.infos[index];
                let entry = &mut whole[info.resource as usize];
                let discard = discard_walk.access(
                    &mut entry.discard,
                    info,
                    &accesses.discards[index],
                    index as u32,
                );
                // The common case: the whole of a resource kept whole, with its parameter's
                // attributes (found from the access's key; its record is not read), tested
                // as one condition (a parameter index out of range matches nothing).
                let key = accesses.keys[index];
                let param = params
                    .get((key >> KEY_PARAM_SHIFT) as usize)
                    .unwrap_or(&ParamNeeds::NONE);
                if info.has(WHOLE) & (entry.split == NOT_SPLIT) & param.matches(key) {
                    let step = Step {
                        resource: info.resource,
                        position: step.position,
                        queue: step.queue,
                        need: *param.whole_need(kind_of(info.bits)),
                        discard_before: discard.contains(DiscardFlags::BEFORE),
                        relaxed: info.has(RELAXED),
                    };
                    // A whole access's region is its resource's whole box: its barrier refers to
                    // it as such, no box is read.
                    step.apply_first::<false>(&mut entry.state, EmitRegion::Whole, &mut out);
                    continue;
                }
                self.general
                    .plan_access(&mut self.states, &accesses, index, step, &mut out);
                whole = &mut self.states.whole[..];
            }
        }
        plan_end_of_frame(
            &mut self.states,
            outliving,
            graph,
            full,
            ordered.order.len() as u32,
            &mut out,
        );
        let lists = out.finish();
        *parts.batches = lists.batch_list.len() as u32;
        *parts.transitions = lists.barriers.len() as u32;
        *parts.barriers = lists.barriers;
        *parts.barrier_regions = lists.regions;
        *parts.batch_list = lists.batch_list;
        *parts.queue_waits = lists.waits;
    }

    /// Brings the frame's copy of the resources' whole boxes (`boxes`, what
    /// `RegionRef::WHOLE` stands for) up to date with `full`. A graph with the resource
    /// serial of the last copy has the same resources (the serial is unique to one set of
    /// resource records, see [`RecordedGraph::resource_serial`]), so a steady frame copies
    /// nothing; any other graph (serial 0: unknown) gets a fresh copy.
    fn keep_resource_boxes(
        &mut self,
        graph: &RecordedGraph,
        full: &[SubresourceBox],
        boxes: &mut Vec<SubresourceBox>,
    ) {
        let serial = graph.resource_serial();
        if serial != 0 && serial == self.boxes_serial && boxes.len() == full.len() {
            return;
        }
        self.boxes_serial = serial;
        boxes.clear();
        boxes.extend_from_slice(full);
    }

    /// Resets the states. An outliving resource (`outliving`, in index order) that held data
    /// starts in its resting state; a transient placed in memory that other resources used
    /// before (`alias_after`: their last execution position) starts untouched with a pending
    /// write of all commands after that position, so that its first use (of any part) gets a
    /// barrier from everything, placed after the previous occupants' last use. The discard
    /// walk's states start from `discard_starts` (empty: all untouched). Each record is
    /// written once, in one sequential pass; only the outliving resources' records are read.
    fn begin_frame(
        &mut self,
        graph: &RecordedGraph,
        outliving: &[u32],
        alias_after: &[Option<u32>],
        discard_starts: &[Track],
    ) {
        let states = &mut self.states;
        let count = graph.resources.len();
        // A transient placed after others starts with the pending write (selects rather than
        // branches: most transients of a long frame alias others). The record is written as
        // one literal (constants and three computed fields), not patched from a template.
        // The common frame has an alias entry per resource and no discard starts: one pass
        // over one slice (no per-resource bounds checks), each record written once.
        let start = |after: Option<u32>, discard: Track| {
            let aliased = after.is_some();
            WholeState {
                state: SubState {
                    write_stages: Stages(Stages::ALL_COMMANDS.0 * aliased as u64),
                    write_accesses: Accesses(Accesses::MEMORY_WRITE.0 * aliased as u64),
                    after_last: after.map_or(0, |after| after.saturating_add(1)),
                    ..SubState::UNTOUCHED
                },
                split: NOT_SPLIT,
                node_stamp: 0,
                discard,
            }
        };
        let aliased = &alias_after[..count.min(alias_after.len())];
        states.whole.clear();
        if discard_starts.is_empty() {
            states
                .whole
                .extend(aliased.iter().map(|&after| start(after, Track::UNTOUCHED)));
        } else {
            let starts = discard_starts
                .iter()
                .copied()
                .chain(std::iter::repeat(Track::UNTOUCHED));
            states.whole.extend(
                aliased
                    .iter()
                    .zip(starts)
                    .map(|(&after, discard)| start(after, discard)),
            );
        }
        // Resources past the alias list (none in a compiled frame): untouched, no pending write.
        let discard_rest = discard_starts
            .get(aliased.len()..)
            .unwrap_or(&[])
            .iter()
            .copied()
            .chain(std::iter::repeat(Track::UNTOUCHED));
        let rest = count - aliased.len();
        states
            .whole
            .extend(discard_rest.take(rest).map(|discard| start(None, discard)));
        states.split.clear();
        for &index in outliving {
            let index = index as usize;
            let (Some(record), Some(entry)) =
                (graph.resources.get(index), states.whole.get_mut(index))
            else {
                continue;
            };
            if record.external || record.frames_alive > 0 {
                entry.state = SubState {
                    layout: resting_state(graph, index).layout,
                    write_stages: Stages::ALL_COMMANDS,
                    write_accesses: Accesses::MEMORY_WRITE,
                    touched: true,
                    ..SubState::UNTOUCHED
                };
            }
        }
    }
}

/// A last batch (at position `end`, the end of the frame) returns the outliving resources to
/// their resting state.
fn plan_end_of_frame(
    states: &mut States,
    outliving: &[u32],
    graph: &RecordedGraph,
    full: &[SubresourceBox],
    end: u32,
    out: &mut Emitter<'_>,
) {
    let mut batch_started = false;
    for &resource in outliving {
        let index = resource as usize;
        let mut rest = None;
        let mut plan = |state: &SubState, region: &SubresourceBox| {
            if !state.touched || state.after_last == 0 {
                return;
            }
            let rest = *rest.get_or_insert_with(|| resting_state(graph, index));
            let pending_write = state.write_stages != Stages::NONE;
            if state.layout == rest.layout && !pending_write {
                return;
            }
            if !batch_started {
                batch_started = true;
                out.open_new(end);
            }
            out.push(ResourceId(resource), EmitRegion::Boxed(region), |region| {
                Barrier {
                    resource: ResourceId(resource),
                    region,
                    src_stages: state.write_stages | state.read_stages,
                    src_accesses: state.write_accesses,
                    dst_stages: rest.stages,
                    dst_accesses: rest.accesses,
                    old_layout: state.layout,
                    new_layout: rest.layout,
                    src_queue: state.queue,
                    dst_queue: 0,
                }
            });
        };
        // The list comes from the table built for this graph: every index is in range.
        let (Some(full), Some(entry)) = (full.get(index), states.whole.get(index)) else {
            continue;
        };
        match entry.split {
            // One segment covering the resource (visited when the resource is not empty).
            NOT_SPLIT => {
                if full.overlaps(full) {
                    plan(&entry.state, full);
                }
            }
            split => states
                .split
                .for_each(split as usize, full, |region, state| plan(state, region)),
        }
    }
}
