//! The per-subresource state of barrier planning and the one rule that turns an access's needs
//! into a barrier (and queue wait), plus the emitter that places barriers into batches and
//! keeps the regions of the barriers that do not cover their whole resource.

use crate::compile::barriers::access_map::AccessState;
use crate::compile::frame::{Barrier, BarrierBatch, QueueWait, RegionRef};
use crate::ids::ResourceId;
use crate::view::SubresourceBox;
use crate::vk::{Accesses, ImageLayout, Stages};

/// What the planner knows of one segment of a resource's subresources.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) struct SubState {
    pub(super) layout: ImageLayout,
    pub(super) write_stages: Stages,
    pub(super) write_accesses: Accesses,
    pub(super) read_stages: Stages,
    pub(super) visible: Stages,
    /// One more than the execution position of the last access, 0 before the first (a `u32`
    /// rather than a signed position keeps the record small).
    pub(super) after_last: u32,
    pub(super) queue: u32,
    pub(super) relaxed_write: bool,
    pub(super) touched: bool,
}

impl Default for SubState {
    fn default() -> SubState {
        SubState::UNTOUCHED
    }
}

impl SubState {
    /// The state of a resource nothing has accessed yet this frame.
    pub(super) const UNTOUCHED: SubState = SubState {
        layout: ImageLayout::Undefined,
        write_stages: Stages::NONE,
        write_accesses: Accesses::NONE,
        read_stages: Stages::NONE,
        visible: Stages::NONE,
        after_last: 0,
        queue: 0,
        relaxed_write: false,
        touched: false,
    };
}

/// The subresources of a barrier being emitted, as the planner knows them.
#[derive(Copy, Clone, Debug)]
pub(super) enum EmitRegion<'a> {
    /// The whole of the resource, known without a look at any box (the fast path: a whole
    /// access of a resource kept whole).
    Whole,
    /// These subresources (which may still be the whole resource).
    Boxed(&'a SubresourceBox),
}

/// The lists a frame's barrier plan fills (each emptied by [`Emitter::new`]): the barriers,
/// the regions of those that do not cover their whole resource, the batches and the queue
/// waits.
pub(super) struct BarrierLists {
    pub(super) barriers: Vec<Barrier>,
    pub(super) regions: Vec<SubresourceBox>,
    pub(super) batch_list: Vec<BarrierBatch>,
    pub(super) waits: Vec<QueueWait>,
}

/// Where planned barriers go: straight into the frame's barrier list, batch by batch (batches
/// only ever open at the end, so no sorting is needed). The lists are the frame's, taken for
/// the walk (so the hot loop reaches them without a pointer to follow) and handed back by
/// [`Emitter::finish`].
///
/// A barrier's region is [`RegionRef::WHOLE`] exactly when it is its resource's whole box;
/// any other region is pushed to `regions` with the barrier, so `regions` holds one entry per
/// such barrier, in barrier order (a merge edits the last one in place, or drops it when the
/// merged region became the whole box).
///
/// Barriers of one resource that differ only in neighbouring regions become one: a barrier
/// merges into the one right before it when it can, and a batch in which a resource got several
/// barriers is merged pairwise, per resource, when it closes (the regions of one access can
/// come in any order).
pub(super) struct Emitter<'a> {
    barriers: Vec<Barrier>,
    /// The regions of the barriers that do not cover their whole resource.
    regions: Vec<SubresourceBox>,
    /// The resources' whole boxes.
    full: &'a [SubresourceBox],
    batch_list: Vec<BarrierBatch>,
    /// The position of the batch barriers go to now, or -1 when none is open (below every
    /// earliest place of a barrier, which is at least 0).
    open_position: i64,
    /// The open batch's first barrier.
    open_start: u32,
    /// A resource got two barriers of one transition in the open batch that were not
    /// neighbours (the batch is merged when it closes).
    merge_batch: bool,
    waits: Vec<QueueWait>,
}

impl<'a> Emitter<'a> {
    /// An emitter into the (emptied) `lists`, without an open batch; `full` holds the
    /// resources' whole boxes (what [`RegionRef::WHOLE`] stands for).
    pub(super) fn new(lists: BarrierLists, full: &'a [SubresourceBox]) -> Emitter<'a> {
        let BarrierLists {
            mut barriers,
            mut regions,
            mut batch_list,
            mut waits,
        } = lists;
        barriers.clear();
        regions.clear();
        batch_list.clear();
        waits.clear();
        Emitter {
            barriers,
            regions,
            full,
            batch_list,
            open_position: -1,
            open_start: 0,
            merge_batch: false,
            waits,
        }
    }

    /// Closes the open batch and hands the lists back.
    pub(super) fn finish(mut self) -> BarrierLists {
        self.close();
        BarrierLists {
            barriers: self.barriers,
            regions: self.regions,
            batch_list: self.batch_list,
            waits: self.waits,
        }
    }

    /// The whole box of `resource` (empty for an index out of range).
    fn full_box(&self, resource: ResourceId) -> SubresourceBox {
        self.full.get(resource.index()).copied().unwrap_or_default()
    }

    /// The reference to `region` of `resource` for a barrier about to be pushed: `WHOLE`
    /// without a look at any box for [`EmitRegion::Whole`], else after a comparison with the
    /// whole box (a region that differs is pushed to `regions`).
    #[inline(always)]
    fn region_ref(&mut self, resource: ResourceId, region: EmitRegion<'_>) -> RegionRef {
        match region {
            EmitRegion::Whole => RegionRef::WHOLE,
            EmitRegion::Boxed(region) => self.boxed_region_ref(resource, region),
        }
    }

    /// [`Emitter::region_ref`] of a box (the general paths).
    #[inline(never)]
    fn boxed_region_ref(&mut self, resource: ResourceId, region: &SubresourceBox) -> RegionRef {
        if self.full.get(resource.index()) == Some(region) {
            return RegionRef::WHOLE;
        }
        self.regions.push(*region);
        RegionRef::at(self.regions.len() as u32 - 1)
    }

    /// The subresources `region` of a barrier of `resource` stands for.
    fn resolve(&self, resource: ResourceId, region: RegionRef) -> SubresourceBox {
        match region.index() {
            None => self.full_box(resource),
            Some(index) => self.regions.get(index).copied().unwrap_or_default(),
        }
    }

    /// Closes the open batch (if any) and opens one at `position`.
    pub(super) fn open_new(&mut self, position: u32) {
        self.close();
        self.open_position = position as i64;
        self.open_start = self.barriers.len() as u32;
    }

    /// Closes the open batch (if any).
    fn close(&mut self) {
        if std::mem::take(&mut self.merge_batch) {
            self.merge_open_batch();
        }
        if self.open_position >= 0 {
            self.batch_list.push(BarrierBatch {
                position: self.open_position as u32,
                barriers: self.open_start..self.barriers.len() as u32,
            });
            self.open_position = -1;
        }
    }

    /// Adds the barrier `make` builds (of `resource`, given the reference to `region`), which
    /// may go anywhere in `earliest..=position`: into the open batch when it lies in that
    /// range, else into a new batch at `position`.
    #[inline(always)]
    fn push_between<const MAY_MERGE: bool>(
        &mut self,
        earliest: i64,
        position: u32,
        resource: ResourceId,
        region: EmitRegion<'_>,
        make: impl FnOnce(RegionRef) -> Barrier,
    ) {
        if self.open_position < earliest {
            self.open_new(position);
        }
        if MAY_MERGE {
            self.push(resource, region, make);
        } else {
            let region = self.region_ref(resource, region);
            self.push_unmerged(make(region));
        }
    }

    /// Adds a barrier of a resource kept whole, which never merges: its previous barrier went
    /// into a batch placed at or before that access, and `push_between` never adds to such a
    /// batch (the barrier's earliest place is after that access), so no barrier of the resource
    /// is in the open batch.
    #[inline(always)]
    fn push_unmerged(&mut self, barrier: Barrier) {
        debug_assert!({
            let start = self.open_start as usize;
            self.barriers[start.min(self.barriers.len())..]
                .iter()
                .all(|earlier| earlier.resource != barrier.resource)
        });
        self.barriers.push(barrier);
    }

    /// Adds the barrier `make` builds (of `resource`, given the reference to `region`) to the
    /// open batch. Only a barrier of the same resource right before it in its batch can merge
    /// with it; otherwise the barrier is built straight into the list.
    #[inline(always)]
    pub(super) fn push(
        &mut self,
        resource: ResourceId,
        region: EmitRegion<'_>,
        make: impl FnOnce(RegionRef) -> Barrier,
    ) {
        if self.barriers.len() > self.open_start as usize {
            if let Some(last) = self.barriers.last() {
                if last.resource == resource {
                    // Built with a stand-in region: a merge keeps the last barrier's reference.
                    let barrier = make(RegionRef::WHOLE);
                    self.push_or_merge(barrier, region);
                    return;
                }
            }
        }
        let region = self.region_ref(resource, region);
        self.barriers.push(make(region));
    }

    /// Merges `barrier` (of `region`; its own `region` field is a stand-in) into the last
    /// barrier, of the same resource, when they differ only in adjacent regions; else pushes
    /// it.
    #[cold]
    #[inline(never)]
    fn push_or_merge(&mut self, barrier: Barrier, region: EmitRegion<'_>) {
        let b = match region {
            EmitRegion::Whole => self.full_box(barrier.resource),
            EmitRegion::Boxed(region) => *region,
        };
        if !self.merge_adjacent(&barrier, &b) {
            // The same transition as an earlier barrier of the resource in this batch (the run
            // of its barriers right before) on a region that is not a neighbour: a later part
            // may join them, so the batch is merged when it closes.
            let start = (self.open_start as usize).min(self.barriers.len());
            self.merge_batch |= self.barriers[start..]
                .iter()
                .rev()
                .take_while(|earlier| earlier.resource == barrier.resource)
                .any(|earlier| {
                    Barrier {
                        region: earlier.region,
                        ..barrier
                    } == *earlier
                });
            let region = self.region_ref(barrier.resource, EmitRegion::Boxed(&b));
            self.barriers.push(Barrier { region, ..barrier });
        }
    }

    /// Merges, per resource, the open batch's barriers that differ only in neighbouring
    /// regions until no two do (a texture written mip by mip and then read whole gets one
    /// barrier, not one per mip, whatever order its parts came in); the survivors keep their
    /// order. The batch's regions are the tail of `regions` and are written again.
    #[cold]
    #[inline(never)]
    fn merge_open_batch(&mut self) {
        let start = (self.open_start as usize).min(self.barriers.len());
        let mut items: Vec<(Barrier, SubresourceBox, bool)> = self.barriers[start..]
            .iter()
            .map(|barrier| {
                (
                    *barrier,
                    self.resolve(barrier.resource, barrier.region),
                    true,
                )
            })
            .collect();
        let first_region = self.barriers[start..]
            .iter()
            .find_map(|barrier| barrier.region.index())
            .unwrap_or(self.regions.len());
        // Per resource (barriers of one resource by position), merge pairs until none merges.
        let resources: Vec<ResourceId> = items.iter().map(|item| item.0.resource).collect();
        let mut by_resource: Vec<usize> = (0..items.len()).collect();
        by_resource.sort_by_key(|&index| (resources[index], index));
        for group in by_resource.chunk_by(|&a, &b| resources[a] == resources[b]) {
            // Pairwise, so a resource with very many parts in one batch is left as it came
            // (a bound on the work, not a case that arises from mips, layers and planes).
            let mut merged = group.len() <= MERGE_GROUP_LIMIT;
            while merged {
                merged = false;
                for (at, &a) in group.iter().enumerate() {
                    for &b in &group[at + 1..] {
                        if !(items[a].2 && items[b].2) {
                            continue;
                        }
                        let same = Barrier {
                            region: items[a].0.region,
                            ..items[b].0
                        } == items[a].0;
                        if let Some(union) = same
                            .then(|| adjacent_union(&items[a].1, &items[b].1))
                            .flatten()
                        {
                            items[a].1 = union;
                            items[b].2 = false;
                            merged = true;
                        }
                    }
                }
            }
        }
        self.barriers.truncate(start);
        self.regions.truncate(first_region);
        for (barrier, region, alive) in items {
            if alive {
                let region = self.region_ref(barrier.resource, EmitRegion::Boxed(&region));
                self.barriers.push(Barrier { region, ..barrier });
            }
        }
    }

    /// Merges `barrier` (of the subresources `b`) into the last barrier when all their other
    /// fields are equal and their regions differ on one axis only, where they are adjacent.
    fn merge_adjacent(&mut self, barrier: &Barrier, b: &SubresourceBox) -> bool {
        let Some(&last) = self.barriers.last() else {
            return false;
        };
        let same = Barrier {
            region: last.region,
            ..*barrier
        } == last;
        if !same {
            return false;
        }
        let Some(merged) = adjacent_union(&self.resolve(last.resource, last.region), b) else {
            return false;
        };
        // The last barrier's region, if it has one, is the last entry of `regions` (one entry
        // per barrier that is not whole, in barrier order): it is edited in place, or dropped
        // when the merged region is the whole box.
        if last.region.index() == self.regions.len().checked_sub(1) {
            self.regions.pop();
        }
        let region = self.region_ref(last.resource, EmitRegion::Boxed(&merged));
        if let Some(last) = self.barriers.last_mut() {
            last.region = region;
        }
        true
    }
}

/// The most barriers of one resource in one batch that [`Emitter::merge_open_batch`] merges
/// pairwise.
const MERGE_GROUP_LIMIT: usize = 64;

/// The union of `a` and `b` when it is a box: they differ on one axis only, where they are
/// neighbours.
fn adjacent_union(a: &SubresourceBox, b: &SubresourceBox) -> Option<SubresourceBox> {
    let mut differing = 0;
    let mut axis_of = 0;
    for axis in 0..3 {
        if a.lo[axis] != b.lo[axis] || a.hi[axis] != b.hi[axis] {
            differing += 1;
            axis_of = axis;
        }
    }
    if differing != 1 || (a.hi[axis_of] != b.lo[axis_of] && b.hi[axis_of] != a.lo[axis_of]) {
        return None;
    }
    let mut union = *a;
    union.lo[axis_of] = a.lo[axis_of].min(b.lo[axis_of]);
    union.hi[axis_of] = a.hi[axis_of].max(b.hi[axis_of]);
    Some(union)
}

/// One access's need (of one plane) at one execution position.
#[derive(Copy, Clone, Debug)]
pub(super) struct Step {
    pub(super) resource: u32,
    pub(super) position: u32,
    pub(super) queue: u32,
    pub(super) need: AccessState,
    pub(super) discard_before: bool,
    pub(super) relaxed: bool,
}

impl Step {
    /// Updates one segment's state, emitting the barrier (and queue wait) it needs; `region` is
    /// the part of the access the segment covers (read only when a barrier is emitted).
    /// `MAY_MERGE`: the segment belongs to a split resource, whose barriers may merge with the
    /// one before them (false for a resource kept whole, see [`Emitter::push_unmerged`]).
    #[inline(always)]
    pub(super) fn apply<const MAY_MERGE: bool>(
        &self,
        state: &mut SubState,
        region: &SubresourceBox,
        out: &mut Emitter<'_>,
    ) {
        if state.touched & (state.after_last == self.position.wrapping_add(1)) {
            // Another access of this node (already merged into the first one).
            return;
        }
        self.apply_first::<MAY_MERGE>(state, EmitRegion::Boxed(region), out);
    }

    /// [`Step::apply`] for a segment no other access of this node has touched (the caller
    /// knows: the node names the resource once). `region` is the part of the access the
    /// segment covers (looked at only when a barrier is emitted).
    #[inline(always)]
    pub(super) fn apply_first<const MAY_MERGE: bool>(
        &self,
        state: &mut SubState,
        region: EmitRegion<'_>,
        out: &mut Emitter<'_>,
    ) {
        let (position, queue, need, relaxed) = (self.position, self.queue, self.need, self.relaxed);
        // A first use of memory that other resources used before starts with a pending write
        // of all commands after their last use (see `BarrierPlanner::begin_frame`), so it gets
        // a barrier placed after that use without a look at the aliasing here.
        let first_use = !state.touched;
        let layout_change = need.layout != state.layout;
        let pending_write = state.write_stages != Stages::NONE;
        // Visibility on one queue says nothing of another: an access on a different queue
        // than the last one after any write waits for it (through a semaphore) and gets its
        // own barrier, even when the data is already visible to its stages.
        let other_queue = !first_use && state.queue != queue;
        let needs_barrier = layout_change
            || (other_queue && pending_write)
            || (need.writes
                && pending_write
                && !(relaxed && state.relaxed_write && state.read_stages == Stages::NONE))
            || (need.writes && state.read_stages != Stages::NONE)
            || (!need.writes && pending_write && state.visible.0 & need.stages.0 != need.stages.0);
        if needs_barrier {
            self.emit::<MAY_MERGE>(state, region, out);
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
                if first_use {
                    // The pending write of an aliased first use only forces this barrier.
                    state.write_stages = Stages::NONE;
                    state.write_accesses = Accesses::NONE;
                }
                if layout_change || self.discard_before {
                    // The layout transition is a write that only this barrier's stages wait
                    // for: a later read in other stages (a copy source read again by a resolve)
                    // needs an execution dependency on them. Nothing is left to make available.
                    state.write_stages = need.stages;
                    state.write_accesses = Accesses::NONE;
                }
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
        state.after_last = position.wrapping_add(1);
        state.queue = queue;
        state.touched = true;
    }

    /// The barrier (and queue wait) from `state` (before the access) to the need.
    #[inline(always)]
    fn emit<const MAY_MERGE: bool>(
        &self,
        state: &SubState,
        region: EmitRegion<'_>,
        out: &mut Emitter<'_>,
    ) {
        let (position, queue, need) = (self.position, self.queue, self.need);
        let src_stages = state.write_stages | state.read_stages;
        let src_accesses = state.write_accesses;
        let earliest = state.after_last as i64;
        // A state nothing has accessed this frame has the layout `Undefined` (every access
        // sets `touched` with the layout), so only a discard needs a look here.
        debug_assert!(state.touched || state.layout == ImageLayout::Undefined);
        let old_layout = if self.discard_before {
            ImageLayout::Undefined
        } else {
            state.layout
        };
        let resource = ResourceId(self.resource);
        let make = |region| Barrier {
            resource,
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
        out.push_between::<MAY_MERGE>(earliest, position, resource, region, make);
        if state.queue != queue && state.touched && state.after_last > 0 {
            out.waits.push(QueueWait {
                wait_queue: queue,
                signal_queue: state.queue,
                signal_after: state.after_last - 1,
                wait_before: position,
            });
        }
    }
}
