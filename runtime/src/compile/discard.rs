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

use super::access_info::{AccessInfo, DISCARD_AFTER, DISCARD_BEFORE, READS, WHOLE, WRITES};
use super::region_map::RegionMap;
use super::DiscardFlags;
use crate::decl::AccessFlags;
use crate::graph::{AccessRecord, RecordedGraph};
use crate::ids::NodeId;
use crate::view::SubresourceBox;

#[derive(Copy, Clone, PartialEq, Debug, Default)]
struct ForwardState {
    valid: bool,
    keep_mark: u32,
}

/// How a resource's accesses are tracked.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Class {
    /// Outlives the frame: never gets flags.
    Outlives,
    /// One plane, every access covers it whole: one state per resource.
    Simple,
    /// Tracked per subresource segment.
    Regions,
}

/// Reusable scratch of discard inference.
#[derive(Debug, Default)]
pub struct DiscardInference {
    forward: RegionMap<ForwardState>,
    needed: RegionMap<bool>,
    class: Vec<Class>,
    valid: Vec<bool>,
    keep_mark: Vec<u32>,
    needed_simple: Vec<bool>,
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
        // Resources that outlive the frame get no flags; one-plane resources that every access
        // covers whole keep one state each (the fast path); the rest go through the region maps.
        self.class.clear();
        self.class.extend(graph.resources.iter().map(|resource| {
            if resource.outlives_frame() {
                Class::Outlives
            } else {
                Class::Simple
            }
        }));
        let mut any_regions = false;
        for info in infos {
            let resource = info.resource as usize;
            if !info.has(WHOLE) && self.class[resource] == Class::Simple {
                self.class[resource] = Class::Regions;
                any_regions = true;
            }
        }
        let count = graph.resources.len();
        self.valid.clear();
        self.valid.resize(count, false);
        self.keep_mark.clear();
        self.keep_mark.resize(count, 0);
        self.needed_simple.clear();
        self.needed_simple.resize(count, false);
        if any_regions {
            self.forward
                .reset(full.iter().map(|full| (*full, ForwardState::default())));
            self.needed.reset(full.iter().map(|full| (*full, false)));
        }
        // Forward: discard before.
        for (position, node) in order.iter().enumerate() {
            let mark = position as u32 + 1;
            let range = graph.nodes[node.index()].accesses.clone();
            let range = range.start as usize..range.end as usize;
            if self.simple_and_distinct(&infos[range.clone()]) {
                // Each resource once, one state each: the three steps below fold into one.
                for access_index in range {
                    let info = infos[access_index];
                    let resource = info.resource as usize;
                    if self.class[resource] == Class::Outlives {
                        continue;
                    }
                    if info.has(DISCARD_BEFORE) || !info.has(READS) || !self.valid[resource] {
                        flags[access_index] = flags[access_index] | DiscardFlags::BEFORE;
                    }
                    if info.has(DISCARD_AFTER) {
                        self.valid[resource] = false;
                    } else if info.has(WRITES) {
                        self.valid[resource] = true;
                    }
                }
                continue;
            }
            for access_index in range.clone() {
                let info = infos[access_index];
                let resource = info.resource as usize;
                match self.class[resource] {
                    Class::Outlives => {}
                    Class::Simple => {
                        if info.has(DISCARD_BEFORE) || !info.has(READS) || !self.valid[resource] {
                            flags[access_index] = flags[access_index] | DiscardFlags::BEFORE;
                        }
                    }
                    Class::Regions => self.regions_before(graph, boxes, access_index, flags),
                }
            }
            for access_index in range.clone() {
                let info = infos[access_index];
                let resource = info.resource as usize;
                match self.class[resource] {
                    Class::Outlives => {}
                    Class::Simple => {
                        if info.has(WRITES) {
                            self.valid[resource] = true;
                        }
                        if !info.has(DISCARD_AFTER) {
                            self.keep_mark[resource] = mark;
                        }
                    }
                    Class::Regions => self.regions_write(graph, boxes, access_index, mark),
                }
            }
            for access_index in range {
                let info = infos[access_index];
                if !info.has(DISCARD_AFTER) {
                    continue;
                }
                let resource = info.resource as usize;
                match self.class[resource] {
                    Class::Outlives => {}
                    Class::Simple => {
                        if self.keep_mark[resource] != mark {
                            self.valid[resource] = false;
                        }
                    }
                    Class::Regions => self.regions_drop(graph, boxes, access_index, mark),
                }
            }
        }

        // Backward: discard after.
        for node in order.iter().rev() {
            let range = graph.nodes[node.index()].accesses.clone();
            let range = range.start as usize..range.end as usize;
            if self.simple_and_distinct(&infos[range.clone()]) {
                for access_index in range {
                    let info = infos[access_index];
                    let resource = info.resource as usize;
                    if self.class[resource] == Class::Outlives {
                        continue;
                    }
                    if info.has(DISCARD_AFTER) || !self.needed_simple[resource] {
                        flags[access_index] = flags[access_index] | DiscardFlags::AFTER;
                    }
                    self.needed_simple[resource] = !info.has(DISCARD_BEFORE) && info.has(READS);
                }
                continue;
            }
            for access_index in range.clone() {
                let info = infos[access_index];
                let resource = info.resource as usize;
                match self.class[resource] {
                    Class::Outlives => {}
                    Class::Simple => {
                        if info.has(DISCARD_AFTER) || !self.needed_simple[resource] {
                            flags[access_index] = flags[access_index] | DiscardFlags::AFTER;
                        }
                    }
                    Class::Regions => self.regions_after(graph, boxes, access_index, flags),
                }
            }
            for access_index in range.clone() {
                let resource = infos[access_index].resource as usize;
                match self.class[resource] {
                    Class::Outlives => {}
                    Class::Simple => self.needed_simple[resource] = false,
                    Class::Regions => {
                        let (access, texture) = access_of(graph, access_index);
                        for (region, _) in plane_regions(boxes[access_index], texture) {
                            let Some(region) = region else { continue };
                            self.needed
                                .update(access.resource.index(), &region, |needed| *needed = false);
                        }
                    }
                }
            }
            for access_index in range {
                let info = infos[access_index];
                if info.has(DISCARD_BEFORE) {
                    continue;
                }
                let resource = info.resource as usize;
                match self.class[resource] {
                    Class::Outlives => {}
                    Class::Simple => {
                        if info.has(READS) {
                            self.needed_simple[resource] = true;
                        }
                    }
                    Class::Regions => {
                        let (access, texture) = access_of(graph, access_index);
                        for (region, plane) in plane_regions(boxes[access_index], texture) {
                            let Some(region) = region else { continue };
                            if access.access.mode_for_plane(plane).reads() {
                                self.needed
                                    .update(resource, &region, |needed| *needed = true);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The accesses (of one node) touch pairwise different resources, none region-tracked: then
    /// the per-node steps of both directions fold into one pass (a `discard_after` drops what
    /// the same access wrote; `keep_mark` only matters between accesses of one node).
    #[inline(always)]
    fn simple_and_distinct(&self, infos: &[AccessInfo]) -> bool {
        for (index, info) in infos.iter().enumerate() {
            if self.class[info.resource as usize] == Class::Regions {
                return false;
            }
            if infos[..index]
                .iter()
                .any(|other| other.resource == info.resource)
            {
                return false;
            }
        }
        true
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
