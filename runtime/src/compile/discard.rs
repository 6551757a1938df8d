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

use super::access_info::{
    AccessInfo, DISCARD_AFTER, DISCARD_BEFORE, OUTLIVES, READS, WHOLE, WRITES,
};
use super::region_map::RegionMap;
use super::DiscardFlags;
use crate::decl::AccessFlags;
use crate::graph::{AccessRecord, NodeRecord, RecordedGraph};
use crate::ids::NodeId;
use crate::view::SubresourceBox;

#[derive(Copy, Clone, PartialEq, Debug, Default)]
struct ForwardState {
    valid: bool,
    keep_mark: u32,
}

/// `Track::bits`: some access does not cover the resource whole: tracked by the region maps.
const REGIONS: u32 = 1;
/// `Track::bits`: a node touched the resource.
const TOUCHED: u32 = 1 << 1;
/// `Track::bits`: the data is valid after the latest node touching the resource: not all its
/// accesses carry `discard_after`, and it was valid before or the node writes it.
const VALID: u32 = 1 << 2;
/// `Track::bits`: some access of the latest node lacks `discard_after`, so its provisional
/// discard-after is taken back if the next node needs the data.
const KEEPABLE: u32 = 1 << 3;
/// `Track::bits`: the latest node has several accesses to the resource.
const MULTI: u32 = 1 << 4;

/// The state of one whole-resource-tracked resource in the single forward walk. Nodes touch it
/// in groups (all accesses of one node); the walk keeps the latest group and the one before it.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
struct Track {
    /// Execution position + 1 of the latest node touching the resource (0: none yet).
    group: u32,
    /// The first and last of that node's accesses to the resource.
    first: u32,
    last: u32,
    /// The bits above.
    bits: u32,
    /// The first and last accesses of the node before it, and the bits after that node
    /// (for further accesses of the latest node, which see the state before it).
    prev_first: u32,
    prev_last: u32,
    prev_bits: u32,
}

#[inline(always)]
fn bit(on: bool, bit: u32) -> u32 {
    u32::from(on) * bit
}

/// Takes back the provisional discard-after of the accesses `first..=last` (one node's) to
/// `resource` that do not carry `discard_after`: a later node needs their data.
#[cold]
fn keep_group(
    infos: &[AccessInfo],
    flags: &mut [DiscardFlags],
    resource: u32,
    first: u32,
    last: u32,
) {
    for earlier in first as usize..last as usize + 1 {
        let info = infos[earlier];
        if info.resource == resource && info.bits & DISCARD_AFTER == 0 {
            flags[earlier].0 &= !DiscardFlags::AFTER.0;
        }
    }
}

/// `discard_before` does not apply and the access reads (plane 0): it needs the data before it.
#[inline(always)]
fn needs_data(bits: u32) -> bool {
    bits & (READS | DISCARD_BEFORE) == READS
}

/// A further access of the latest node to a resource (several accesses of one node, rare): its
/// discard-before follows from the state before the node; the node's accesses so far
/// (`first..=last`) give what it needed, wrote and dropped.
#[cold]
fn same_node_access(
    track: &mut Track,
    infos: &[AccessInfo],
    flags: &mut [DiscardFlags],
    access_index: u32,
    info: AccessInfo,
) {
    let entry_valid = track.prev_bits & VALID != 0;
    let needs = needs_data(info.bits);
    flags[access_index as usize] = DiscardFlags::AFTER
        | if needs && entry_valid {
            DiscardFlags::NONE
        } else {
            DiscardFlags::BEFORE
        };
    let mut needed = false;
    let mut writes = info.bits & WRITES != 0;
    let mut all_after = info.bits & DISCARD_AFTER != 0;
    for earlier in &infos[track.first as usize..track.last as usize + 1] {
        if earlier.resource == info.resource {
            needed |= needs_data(earlier.bits);
            writes |= earlier.bits & WRITES != 0;
            all_after &= earlier.bits & DISCARD_AFTER != 0;
        }
    }
    if needs && !needed && track.prev_bits & TOUCHED != 0 {
        keep_group(infos, flags, info.resource, track.prev_first, track.prev_last);
    }
    let mut bits = (track.bits & REGIONS) | TOUCHED | MULTI;
    if !all_after {
        bits |= KEEPABLE;
        if entry_valid || writes {
            bits |= VALID;
        }
    }
    track.bits = bits;
    track.last = access_index;
}

/// The forward walk over the whole-resource-tracked resources (see [`DiscardInference::infer`]):
/// per access one state read and update, and the flags of the access (and of the earlier
/// node's accesses when this one needs their data).
fn whole_walk(
    track: &mut [Track],
    nodes: &[NodeRecord],
    order: &[NodeId],
    infos: &[AccessInfo],
    flags: &mut [DiscardFlags],
) {
    for (mark, node) in (1u32..).zip(order) {
        let range = nodes[node.index()].accesses.clone();
        let node_infos = &infos[range.start as usize..range.end as usize];
        for (access_index, &info) in (range.start..).zip(node_infos) {
            let bits = info.bits;
            let resource = &mut track[info.resource as usize];
            let state = resource.bits;
            if (bits & OUTLIVES) | (state & REGIONS) != 0 {
                continue;
            }
            if resource.group == mark {
                same_node_access(resource, infos, flags, access_index, info);
                continue;
            }
            // The first access of this node to the resource: its discard-before follows
            // from the data's validity after the latest node; if it needs the data, that
            // node's accesses keep it.
            let needs = needs_data(bits);
            let valid = state & VALID != 0;
            flags[access_index as usize] = DiscardFlags::AFTER
                | if needs && valid {
                    DiscardFlags::NONE
                } else {
                    DiscardFlags::BEFORE
                };
            if needs && state & KEEPABLE != 0 {
                if state & MULTI == 0 {
                    // One access, without `discard_after` (KEEPABLE).
                    flags[resource.last as usize].0 &= !DiscardFlags::AFTER.0;
                } else {
                    keep_group(infos, flags, info.resource, resource.first, resource.last);
                }
            }
            let keeps = bits & DISCARD_AFTER == 0;
            let valid_after = keeps && (valid || bits & WRITES != 0);
            resource.prev_bits = state;
            resource.prev_first = resource.first;
            resource.prev_last = resource.last;
            resource.bits = TOUCHED | bit(keeps, KEEPABLE) | bit(valid_after, VALID);
            resource.group = mark;
            resource.first = access_index;
            resource.last = access_index;
        }
    }
}

/// Reusable scratch of discard inference.
#[derive(Debug, Default)]
pub struct DiscardInference {
    forward: RegionMap<ForwardState>,
    needed: RegionMap<bool>,
    /// Per resource: its class and walk state.
    track: Vec<Track>,
    /// The region-tracked accesses of the live nodes, grouped by node in execution order.
    region_accesses: Vec<u32>,
    /// The end (in `region_accesses`) of each node's group, for the backward walk.
    region_ends: Vec<u32>,
}

fn plane_regions(region: SubresourceBox, texture: bool) -> [(Option<SubresourceBox>, u32); 2] {
    if !texture {
        return [(Some(region), 0), (None, 1)];
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
    /// Fills `flags` (one per access, indexed like `graph.accesses`) for the live nodes in
    /// execution `order`. `boxes` are the accesses' subresource boxes, `full` the resources'
    /// whole boxes and `infos` the accesses' compact records.
    ///
    /// Resources that every access covers whole (one plane; nearly all) take one forward walk:
    /// an access's discard-before follows from the state when its node begins, and its
    /// discard-after is set provisionally and taken back when the next node touching the
    /// resource needs the data. The others go through the region maps, forward and backward.
    #[inline(never)]
    pub fn infer(
        &mut self,
        graph: &RecordedGraph,
        boxes: &[SubresourceBox],
        full: &[SubresourceBox],
        infos: &[AccessInfo],
        order: &[NodeId],
        flags: &mut [DiscardFlags],
    ) {
        flags.iter_mut().for_each(|flag| *flag = DiscardFlags::NONE);
        let mut track = std::mem::take(&mut self.track);
        track.clear();
        track.resize(graph.resources.len(), Track::default());
        // An access not covering a living resource whole (bit 10 set below where WHOLE and
        // OUTLIVES are both clear) makes its resource region-tracked; outliving resources
        // get no flags at all.
        let partial = infos.iter().fold(0, |partial, info| {
            partial | (((!info.bits & WHOLE) << 2) & !info.bits & OUTLIVES)
        });
        if partial != 0 {
            for info in infos {
                if info.bits & (WHOLE | OUTLIVES) == 0 {
                    if let Some(track) = track.get_mut(info.resource as usize) {
                        track.bits = REGIONS;
                    }
                }
            }
        }
        whole_walk(&mut track, &graph.nodes, order, infos, flags);
        self.track = track;
        if partial != 0 {
            self.region_walk(graph, boxes, full, infos, order, flags);
        }
    }

    /// Discard inference of the region-tracked resources: per node in `order`, the forward
    /// steps over its accesses to them, then the backward walk.
    fn region_walk(
        &mut self,
        graph: &RecordedGraph,
        boxes: &[SubresourceBox],
        full: &[SubresourceBox],
        infos: &[AccessInfo],
        order: &[NodeId],
        flags: &mut [DiscardFlags],
    ) {
        self.forward
            .reset(full.iter().map(|full| (*full, ForwardState::default())));
        self.needed.reset(full.iter().map(|full| (*full, false)));
        self.region_accesses.clear();
        self.region_ends.clear();
        for (mark, node) in (1u32..).zip(order) {
            let range = graph.nodes[node.index()].accesses.clone();
            let region_start = self.region_accesses.len();
            for access_index in range {
                let info = infos[access_index as usize];
                if info.bits & OUTLIVES == 0
                    && self.track[info.resource as usize].bits & REGIONS != 0
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
        boxes: &[SubresourceBox],
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
        boxes: &[SubresourceBox],
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
                for (region, _) in plane_regions(boxes[access_index], texture) {
                    let Some(region) = region else { continue };
                    self.needed
                        .update(access.resource.index(), &region, |needed| *needed = false);
                }
            }
            for index in start..end {
                let access_index = self.region_accesses[index] as usize;
                let (access, texture) = access_of(graph, access_index);
                if access.access.flags.contains(AccessFlags::DISCARD_BEFORE) {
                    continue;
                }
                for (region, plane) in plane_regions(boxes[access_index], texture) {
                    let Some(region) = region else { continue };
                    if access.access.mode_for_plane(plane).reads() {
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
        boxes: &[SubresourceBox],
        access_index: usize,
        flags: &mut [DiscardFlags],
    ) {
        let (access, texture) = access_of(graph, access_index);
        let resource = access.resource.index();
        let explicit_before = access.access.flags.contains(AccessFlags::DISCARD_BEFORE);
        for (region, plane) in plane_regions(boxes[access_index], texture) {
            let Some(region) = region else { continue };
            let mode = access.access.mode_for_plane(plane);
            let no_data = self.forward.all(resource, &region, |state| !state.valid);
            if explicit_before || !mode.reads() || no_data {
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
        boxes: &[SubresourceBox],
        access_index: usize,
        mark: u32,
    ) {
        let (access, texture) = access_of(graph, access_index);
        let has_after = access.access.flags.contains(AccessFlags::DISCARD_AFTER);
        for (region, plane) in plane_regions(boxes[access_index], texture) {
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
        boxes: &[SubresourceBox],
        access_index: usize,
        mark: u32,
    ) {
        let (access, texture) = access_of(graph, access_index);
        for (region, _) in plane_regions(boxes[access_index], texture) {
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
        boxes: &[SubresourceBox],
        access_index: usize,
        flags: &mut [DiscardFlags],
    ) {
        let (access, texture) = access_of(graph, access_index);
        let explicit_after = access.access.flags.contains(AccessFlags::DISCARD_AFTER);
        for (region, plane) in plane_regions(boxes[access_index], texture) {
            let Some(region) = region else { continue };
            let unneeded = self
                .needed
                .all(access.resource.index(), &region, |needed| !needed);
            if explicit_after || unneeded {
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
