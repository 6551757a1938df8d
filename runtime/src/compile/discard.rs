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
    /// whole boxes and `whole` the accesses' whole flags (see `deps::whole_accesses`).
    #[inline(never)]
    pub fn infer(
        &mut self,
        graph: &RecordedGraph,
        boxes: &[SubresourceBox],
        full: &[SubresourceBox],
        whole: &[bool],
        order: &[NodeId],
        flags: &mut [DiscardFlags],
    ) {
        let plane_regions = |access_index: usize| {
            let access = &graph.accesses[access_index];
            let texture = graph.resources[access.resource.index()]
                .desc
                .kind
                .is_texture();
            plane_regions(boxes[access_index], texture)
        };
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
        for (access, &whole) in graph.accesses.iter().zip(whole) {
            let resource = access.resource.index();
            if !whole && self.class[resource] == Class::Simple {
                self.class[resource] = Class::Regions;
            }
        }
        let count = graph.resources.len();
        self.valid.clear();
        self.valid.resize(count, false);
        self.keep_mark.clear();
        self.keep_mark.resize(count, 0);
        self.needed_simple.clear();
        self.needed_simple.resize(count, false);
        if self.class.contains(&Class::Regions) {
            self.forward
                .reset(full.iter().map(|full| (*full, ForwardState::default())));
            self.needed.reset(full.iter().map(|full| (*full, false)));
        }
        let class = &self.class;
        let skip = |access: &AccessRecord| class[access.resource.index()] == Class::Outlives;

        // Forward: discard before.
        for (position, node) in order.iter().enumerate() {
            let mark = position as u32 + 1;
            let range = graph.nodes[node.index()].accesses.clone();
            for access_index in range.start as usize..range.end as usize {
                let access = &graph.accesses[access_index];
                if skip(access) {
                    continue;
                }
                let resource = access.resource.index();
                let explicit_before = access.access.flags.contains(AccessFlags::DISCARD_BEFORE);
                if class[resource] == Class::Simple {
                    if explicit_before || !access.access.mode.reads() || !self.valid[resource] {
                        flags[access_index] = flags[access_index] | DiscardFlags::BEFORE;
                    }
                    continue;
                }
                for (region, plane) in plane_regions(access_index) {
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
            for access_index in range.start as usize..range.end as usize {
                let access = &graph.accesses[access_index];
                if skip(access) {
                    continue;
                }
                let resource = access.resource.index();
                let has_after = access.access.flags.contains(AccessFlags::DISCARD_AFTER);
                if class[resource] == Class::Simple {
                    if access.access.mode.writes() {
                        self.valid[resource] = true;
                    }
                    if !has_after {
                        self.keep_mark[resource] = mark;
                    }
                    continue;
                }
                for (region, plane) in plane_regions(access_index) {
                    let Some(region) = region else { continue };
                    let writes = access.access.mode_for_plane(plane).writes();
                    self.forward.update(resource, &region, |state| {
                        if writes {
                            state.valid = true;
                        }
                        if !has_after {
                            state.keep_mark = mark;
                        }
                    });
                }
            }
            for access_index in range.start as usize..range.end as usize {
                let access = &graph.accesses[access_index];
                if skip(access) || !access.access.flags.contains(AccessFlags::DISCARD_AFTER) {
                    continue;
                }
                let resource = access.resource.index();
                if class[resource] == Class::Simple {
                    if self.keep_mark[resource] != mark {
                        self.valid[resource] = false;
                    }
                    continue;
                }
                for (region, _) in plane_regions(access_index) {
                    let Some(region) = region else { continue };
                    self.forward.update(resource, &region, |state| {
                        if state.keep_mark != mark {
                            state.valid = false;
                        }
                    });
                }
            }
        }

        // Backward: discard after.
        for node in order.iter().rev() {
            let range = graph.nodes[node.index()].accesses.clone();
            for access_index in range.start as usize..range.end as usize {
                let access = &graph.accesses[access_index];
                if skip(access) {
                    continue;
                }
                let resource = access.resource.index();
                let explicit_after = access.access.flags.contains(AccessFlags::DISCARD_AFTER);
                if class[resource] == Class::Simple {
                    if explicit_after || !self.needed_simple[resource] {
                        flags[access_index] = flags[access_index] | DiscardFlags::AFTER;
                    }
                    continue;
                }
                for (region, plane) in plane_regions(access_index) {
                    let Some(region) = region else { continue };
                    let unneeded = self.needed.all(resource, &region, |needed| !needed);
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
            for access_index in range.start as usize..range.end as usize {
                let access = &graph.accesses[access_index];
                if skip(access) {
                    continue;
                }
                let resource = access.resource.index();
                if class[resource] == Class::Simple {
                    self.needed_simple[resource] = false;
                    continue;
                }
                for (region, _) in plane_regions(access_index) {
                    let Some(region) = region else { continue };
                    self.needed
                        .update(resource, &region, |needed| *needed = false);
                }
            }
            for access_index in range.start as usize..range.end as usize {
                let access = &graph.accesses[access_index];
                if skip(access) || access.access.flags.contains(AccessFlags::DISCARD_BEFORE) {
                    continue;
                }
                let resource = access.resource.index();
                if class[resource] == Class::Simple {
                    if access.access.mode.reads() {
                        self.needed_simple[resource] = true;
                    }
                    continue;
                }
                for (region, plane) in plane_regions(access_index) {
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
