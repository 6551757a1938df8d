//! Discard inference per access and subresource (rpsl.h's `discard_before` / `discard_after`):
//! - before (B, or SB on the stencil plane): the access is `writeonly` for that plane, carries an
//!   explicit `discard_before`, or every subresource it touches holds no defined data (never
//!   written this frame, or dropped by an earlier `discard_after`);
//! - after (A / SA): the access carries `discard_after`, or no later access needs the data (the
//!   next node touching each subresource overwrites it, or reads it only through accesses that all
//!   carry `discard_before`, or nothing touches it again).
//!
//! A node's `discard_after` drops data only where every access of that node to the subresource
//! carries it; `discard_before` makes a node not need the data only where every one of its
//! accesses to it carries it. External, persistent and temporal resources never get flags.

use super::table::{AccessBoxes, AccessInfo, AccessTable, OUTLIVES, WHOLE};
pub(super) mod whole;
use super::frame::DiscardFlags;
use super::regions::states::RegionStates;
use crate::decl::AccessFlags;
use crate::graph::{AccessRecord, RecordedGraph};
use crate::ids::NodeId;
use crate::view::SubresourceBox;
use std::cell::Cell;
use whole::{Track, Whole, WholeWalk, REGIONS};

/// The discard rule both walks apply (region-tracked resources here, whole-tracked ones in
/// [`whole`]): an access needs the data before it where it reads the plane and carries no
/// `discard_before`.
#[inline(always)]
pub(crate) fn needs_data(reads: bool, explicit_before: bool) -> bool {
    reads & !explicit_before
}

/// The discard rule's before half: the access discards the data before it (B / SB) where it
/// does not need it or none is valid.
#[inline(always)]
pub(crate) fn discards_before(needs: bool, valid: bool) -> bool {
    !(needs & valid)
}

/// The discard rule's after half: the access discards the data after it (A / SA) where it
/// carries `discard_after` or no later access needs the data.
#[inline(always)]
pub(crate) fn discards_after(explicit_after: bool, needed_later: bool) -> bool {
    explicit_after | !needed_later
}

#[derive(Copy, Clone, PartialEq, Debug, Default)]
struct ForwardState {
    valid: bool,
    keep_mark: u32,
}

/// Reusable scratch of discard inference.
#[derive(Debug, Default)]
pub struct DiscardInference {
    forward: RegionStates<ForwardState>,
    needed: RegionStates<bool>,
    /// The walk over whole-resource-tracked resources.
    whole: Whole,
    /// The region-tracked resources of the frame (each once).
    region_resources: Vec<u32>,
    /// The region-tracked accesses of the live nodes, grouped by node in execution order.
    region_accesses: Vec<u32>,
    /// The end (in `region_accesses`) of each node's group, for the backward walk.
    region_ends: Vec<u32>,
}

/// `region` cut by plane: the part on the depth/colour plane (0) and on the stencil plane (1)
/// of a texture, each with its plane; a buffer's region whole, as plane 0.
#[inline(always)]
fn plane_regions(region: SubresourceBox, texture: bool) -> [(Option<SubresourceBox>, u32); 2] {
    if !texture {
        return [(Some(region), 0), (None, 1)];
    }
    // The common region: one plane (colour textures have no other).
    if region.lo[2] < 2 && region.hi[2] == region.lo[2] + 1 {
        return if region.lo[2] == 0 {
            [(Some(region), 0), (None, 1)]
        } else {
            [(None, 0), (Some(region), 1)]
        };
    }
    let mut out = [(None, 0), (None, 1)];
    for plane in 0..2u64 {
        if region.lo[2] <= plane && plane < region.hi[2] {
            let mut plane_region = region;
            plane_region.lo[2] = plane;
            plane_region.hi[2] = plane + 1;
            out[plane as usize].0 = Some(plane_region);
        }
    }
    out
}

impl DiscardInference {
    /// Starts the discard inference of a frame: sets `flags` to one `NONE` per access (indexed
    /// like `graph.accesses`) and infers those of the region-tracked resources for the live
    /// nodes in execution `order`. `table` is the frame's access table (the accesses' boxes
    /// and compact records, the resources' whole boxes).
    ///
    /// Resources that some access covers only in part (or on both planes) go through the
    /// region maps, forward and backward, here. The others (nearly all) are left to one forward
    /// walk that barrier planning drives node by node (`whole_walk`): an access's
    /// discard-before follows from the state when its node begins, and its discard-after is set
    /// provisionally and taken back when the next node touching the resource needs the data.
    #[inline(never)]
    pub fn begin(
        &mut self,
        graph: &RecordedGraph,
        table: &AccessTable,
        order: &[NodeId],
        flags: &mut Vec<DiscardFlags>,
    ) {
        flags.clear();
        flags.resize(graph.accesses.len(), DiscardFlags::NONE);
        let (boxes, full, infos) = (table.boxes(), table.full_boxes(), &table.infos[..]);
        let track = &mut self.whole.track;
        track.clear();
        // An access not covering a living resource whole (WHOLE and OUTLIVES both clear) makes
        // its resource region-tracked; outliving resources get no flags at all. The table
        // notes whether the frame has any.
        if table.any_partial_transient() {
            track.resize(graph.resources.len(), Track::UNTOUCHED);
            self.region_resources.clear();
            for info in infos {
                if info.bits & (WHOLE | OUTLIVES) == 0 {
                    if let Some(track) = track.get_mut(info.resource as usize) {
                        if track.bits & REGIONS == 0 {
                            track.bits = REGIONS;
                            self.region_resources.push(info.resource);
                        }
                    }
                }
            }
            self.region_walk(graph, boxes, full, infos, order, flags);
        }
    }

    /// The walk over the whole-tracked resources of the frame `begin` started, to be driven
    /// node by node in execution order (see `WholeWalk`); `flags` as given to `begin`, with the
    /// region-tracked resources' flags in place.
    pub fn whole_walk<'a>(
        &'a mut self,
        infos: &'a [AccessInfo],
        flags: &'a [Cell<DiscardFlags>],
    ) -> WholeWalk<'a> {
        self.whole.walk(infos, flags)
    }

    /// The starting walk state of each resource for the frame `begin` started (`REGIONS` on
    /// the region-tracked ones), or nothing when every resource starts as `Track::UNTOUCHED`.
    pub(super) fn whole_starts(&self) -> &[Track] {
        &self.whole.track
    }

    /// Discard inference of the region-tracked resources: per node in `order`, the forward
    /// steps over its accesses to them, then the backward walk.
    fn region_walk(
        &mut self,
        graph: &RecordedGraph,
        boxes: AccessBoxes<'_>,
        full: &[SubresourceBox],
        infos: &[AccessInfo],
        order: &[NodeId],
        flags: &mut [DiscardFlags],
    ) {
        let count = graph.resources.len();
        self.forward.reset(count);
        self.needed.reset(count);
        for &resource in &self.region_resources {
            let index = resource as usize;
            let (Some(&full), Some(record)) = (full.get(index), graph.resources.get(index)) else {
                continue;
            };
            let texture = record.desc.kind.is_texture();
            self.forward
                .track(index, full, texture, ForwardState::default());
            self.needed.track(index, full, texture, false);
        }
        self.region_accesses.clear();
        self.region_ends.clear();
        for (mark, node) in (1u32..).zip(order) {
            let range = graph.nodes[node.index()].accesses.clone();
            let region_start = self.region_accesses.len();
            for access_index in range {
                let info = infos[access_index as usize];
                if info.bits & OUTLIVES == 0
                    && self.whole.track[info.resource as usize].bits & REGIONS != 0
                {
                    self.region_accesses.push(access_index);
                }
            }
            if self.region_accesses.len() > region_start {
                self.regions_forward(graph, boxes, region_start, mark, flags);
                self.region_ends.push(self.region_accesses.len() as u32);
            }
        }
        self.regions_backward(graph, boxes, flags);
    }

    /// The forward steps of one node's region-tracked accesses `region_accesses[start..]`:
    /// discard-before flags, then writes and keeps, then drops.
    fn regions_forward(
        &mut self,
        graph: &RecordedGraph,
        boxes: AccessBoxes<'_>,
        start: usize,
        mark: u32,
        flags: &mut [DiscardFlags],
    ) {
        for index in start..self.region_accesses.len() {
            let access_index = self.region_accesses[index] as usize;
            self.regions_before(graph, boxes, access_index, flags);
        }
        for index in start..self.region_accesses.len() {
            let access_index = self.region_accesses[index] as usize;
            self.regions_write(graph, boxes, access_index, mark);
        }
        for index in start..self.region_accesses.len() {
            let access_index = self.region_accesses[index] as usize;
            if graph.accesses[access_index]
                .access
                .flags
                .contains(AccessFlags::DISCARD_AFTER)
            {
                self.regions_drop(graph, boxes, access_index, mark);
            }
        }
    }

    /// The backward walk over the region-tracked accesses (nodes in reverse execution order):
    /// discard-after flags, then what the node needs of the data before it.
    fn regions_backward(
        &mut self,
        graph: &RecordedGraph,
        boxes: AccessBoxes<'_>,
        flags: &mut [DiscardFlags],
    ) {
        for group in (0..self.region_ends.len()).rev() {
            let start = if group == 0 {
                0
            } else {
                self.region_ends[group - 1] as usize
            };
            let end = self.region_ends[group] as usize;
            for index in start..end {
                let access_index = self.region_accesses[index] as usize;
                self.regions_after(graph, boxes, access_index, flags);
            }
            for index in start..end {
                let access_index = self.region_accesses[index] as usize;
                let (access, texture) = access_of(graph, access_index);
                for (region, _) in plane_regions(boxes.get(access_index), texture) {
                    let Some(region) = region else { continue };
                    self.needed
                        .update(access.resource.index(), &region, |needed| *needed = false);
                }
            }
            for index in start..end {
                let access_index = self.region_accesses[index] as usize;
                let (access, texture) = access_of(graph, access_index);
                let explicit_before = access.access.flags.contains(AccessFlags::DISCARD_BEFORE);
                for (region, plane) in plane_regions(boxes.get(access_index), texture) {
                    let Some(region) = region else { continue };
                    if needs_data(access.access.mode_for_plane(plane).reads(), explicit_before) {
                        self.needed
                            .update(access.resource.index(), &region, |needed| *needed = true);
                    }
                }
            }
        }
    }

    /// Forward, first step of a region-tracked access: its discard-before flags.
    fn regions_before(
        &mut self,
        graph: &RecordedGraph,
        boxes: AccessBoxes<'_>,
        access_index: usize,
        flags: &mut [DiscardFlags],
    ) {
        let (access, texture) = access_of(graph, access_index);
        let resource = access.resource.index();
        let explicit_before = access.access.flags.contains(AccessFlags::DISCARD_BEFORE);
        for (region, plane) in plane_regions(boxes.get(access_index), texture) {
            let Some(region) = region else { continue };
            let needs = needs_data(access.access.mode_for_plane(plane).reads(), explicit_before);
            let valid = !self.forward.all(resource, &region, |state| !state.valid);
            if discards_before(needs, valid) {
                flags[access_index] = flags[access_index]
                    | if plane == 1 {
                        DiscardFlags::STENCIL_BEFORE
                    } else {
                        DiscardFlags::BEFORE
                    };
            }
        }
    }

    /// Forward, second step: writes make data valid; accesses without `discard_after` keep it.
    fn regions_write(
        &mut self,
        graph: &RecordedGraph,
        boxes: AccessBoxes<'_>,
        access_index: usize,
        mark: u32,
    ) {
        let (access, texture) = access_of(graph, access_index);
        let has_after = access.access.flags.contains(AccessFlags::DISCARD_AFTER);
        for (region, plane) in plane_regions(boxes.get(access_index), texture) {
            let Some(region) = region else { continue };
            let writes = access.access.mode_for_plane(plane).writes();
            self.forward
                .update(access.resource.index(), &region, |state| {
                    if writes {
                        state.valid = true;
                    }
                    if !has_after {
                        state.keep_mark = mark;
                    }
                });
        }
    }

    /// Forward, third step: `discard_after` drops data no other access of the node keeps.
    fn regions_drop(
        &mut self,
        graph: &RecordedGraph,
        boxes: AccessBoxes<'_>,
        access_index: usize,
        mark: u32,
    ) {
        let (access, texture) = access_of(graph, access_index);
        for (region, _) in plane_regions(boxes.get(access_index), texture) {
            let Some(region) = region else { continue };
            self.forward
                .update(access.resource.index(), &region, |state| {
                    if state.keep_mark != mark {
                        state.valid = false;
                    }
                });
        }
    }

    /// Backward, first step: discard-after flags of a region-tracked access.
    fn regions_after(
        &mut self,
        graph: &RecordedGraph,
        boxes: AccessBoxes<'_>,
        access_index: usize,
        flags: &mut [DiscardFlags],
    ) {
        let (access, texture) = access_of(graph, access_index);
        let explicit_after = access.access.flags.contains(AccessFlags::DISCARD_AFTER);
        for (region, plane) in plane_regions(boxes.get(access_index), texture) {
            let Some(region) = region else { continue };
            let needed_later = !self
                .needed
                .all(access.resource.index(), &region, |needed| !needed);
            if discards_after(explicit_after, needed_later) {
                flags[access_index] = flags[access_index]
                    | if plane == 1 {
                        DiscardFlags::STENCIL_AFTER
                    } else {
                        DiscardFlags::AFTER
                    };
            }
        }
    }
}

/// The recorded access and whether its resource is a texture.
fn access_of(graph: &RecordedGraph, access_index: usize) -> (&AccessRecord, bool) {
    let access = &graph.accesses[access_index];
    let texture = graph.resources[access.resource.index()]
        .desc
        .kind
        .is_texture();
    (access, texture)
}
