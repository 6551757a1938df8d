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

use super::deps::full_box;
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

/// Reusable scratch of discard inference.
#[derive(Debug, Default)]
pub struct DiscardInference {
    forward: RegionMap<ForwardState>,
    needed: RegionMap<bool>,
}

fn plane_regions(
    access: &AccessRecord,
    graph: &RecordedGraph,
) -> [(Option<SubresourceBox>, u32); 2] {
    let desc = &graph.resources[access.resource.index()].desc;
    let region = access.subresource_box(desc);
    if !desc.kind.is_texture() {
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
    /// execution `order`.
    pub fn infer(&mut self, graph: &RecordedGraph, order: &[NodeId], flags: &mut [DiscardFlags]) {
        flags.iter_mut().for_each(|flag| *flag = DiscardFlags::NONE);
        self.forward.reset(
            graph
                .resources
                .iter()
                .map(|resource| (full_box(&resource.desc), ForwardState::default())),
        );
        self.needed.reset(
            graph
                .resources
                .iter()
                .map(|resource| (full_box(&resource.desc), false)),
        );
        let skip =
            |access: &AccessRecord| graph.resources[access.resource.index()].outlives_frame();

        // Forward: discard before.
        for (position, node) in order.iter().enumerate() {
            let mark = position as u32 + 1;
            let range = graph.nodes[node.index()].accesses.clone();
            for access_index in range.start as usize..range.end as usize {
                let access = &graph.accesses[access_index];
                if skip(access) {
                    continue;
                }
                let explicit_before = access.access.flags.contains(AccessFlags::DISCARD_BEFORE);
                for (region, plane) in plane_regions(access, graph) {
                    let Some(region) = region else { continue };
                    let mode = access.access.mode_for_plane(plane);
                    let no_data = self
                        .forward
                        .all(access.resource.index(), &region, |state| !state.valid);
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
            for access in &graph.accesses[range.start as usize..range.end as usize] {
                if skip(access) {
                    continue;
                }
                let has_after = access.access.flags.contains(AccessFlags::DISCARD_AFTER);
                for (region, plane) in plane_regions(access, graph) {
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
            for access in &graph.accesses[range.start as usize..range.end as usize] {
                if skip(access) || !access.access.flags.contains(AccessFlags::DISCARD_AFTER) {
                    continue;
                }
                for (region, _) in plane_regions(access, graph) {
                    let Some(region) = region else { continue };
                    self.forward
                        .update(access.resource.index(), &region, |state| {
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
                let explicit_after = access.access.flags.contains(AccessFlags::DISCARD_AFTER);
                for (region, plane) in plane_regions(access, graph) {
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
            for access in &graph.accesses[range.start as usize..range.end as usize] {
                if skip(access) {
                    continue;
                }
                for (region, _) in plane_regions(access, graph) {
                    let Some(region) = region else { continue };
                    self.needed
                        .update(access.resource.index(), &region, |needed| *needed = false);
                }
            }
            for access in &graph.accesses[range.start as usize..range.end as usize] {
                if skip(access) || access.access.flags.contains(AccessFlags::DISCARD_BEFORE) {
                    continue;
                }
                for (region, plane) in plane_regions(access, graph) {
                    let Some(region) = region else { continue };
                    if access.access.mode_for_plane(plane).reads() {
                        self.needed
                            .update(access.resource.index(), &region, |needed| *needed = true);
                    }
                }
            }
        }
    }
}
