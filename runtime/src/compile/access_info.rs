//! Compact per-access records of one frame, computed once at the start of a compile: the
//! resource and a few bits (modes, attributes, whole-resource coverage, resource kind), so the
//! stages' hot loops read one small word per access instead of the recorded access, its
//! resource's record and description.

use crate::decl::AccessFlags;
use crate::graph::RecordedGraph;
use crate::view::SubresourceBox;

/// Plane 0 (color/depth, or the buffer) is read.
pub const READS: u32 = 1;
/// Plane 0 (color/depth, or the buffer) is written.
pub const WRITES: u32 = 1 << 1;
/// Some plane is read ([`crate::AccessDesc::reads`]).
pub const ANY_READS: u32 = 1 << 2;
/// Some plane is written ([`crate::AccessDesc::writes`]).
pub const ANY_WRITES: u32 = 1 << 3;
/// `[relaxed]`.
pub const RELAXED: u32 = 1 << 4;
/// Explicit `discard_before`.
pub const DISCARD_BEFORE: u32 = 1 << 5;
/// Explicit `discard_after`.
pub const DISCARD_AFTER: u32 = 1 << 6;
/// CPU access.
pub const CPU: u32 = 1 << 7;
/// Covers the whole of a one-plane resource (its box equals the resource's whole box): such
/// accesses never split a resource's state.
pub const WHOLE: u32 = 1 << 8;
/// The resource is a texture.
pub const TEXTURE: u32 = 1 << 9;
/// The resource outlives the frame (external, persistent or temporal).
pub const OUTLIVES: u32 = 1 << 10;
/// The resource has a depth and/or stencil format.
pub const DEPTH_FORMAT: u32 = 1 << 11;

/// One access in compact form.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct AccessInfo {
    /// The resource index.
    pub resource: u32,
    /// The bits above.
    pub bits: u32,
}

impl AccessInfo {
    /// All of `bits` are set.
    #[inline(always)]
    pub fn has(self, bits: u32) -> bool {
        self.bits & bits == bits
    }
}

/// Per resource in `AccessTable::resource_bits`: whole accesses are possible (one plane).
const ONE_PLANE: u32 = 1 << 31;

/// The compact records of a frame and their scratch, kept by the compiler between frames.
#[derive(Debug, Default)]
pub struct AccessTable {
    /// Each access's subresource box (indexed like `RecordedGraph::accesses`).
    pub boxes: Vec<SubresourceBox>,
    /// Each access's compact record.
    pub infos: Vec<AccessInfo>,
    /// Per resource: its `TEXTURE`, `OUTLIVES`, `DEPTH_FORMAT` and `ONE_PLANE` bits.
    resource_bits: Vec<u32>,
}

impl AccessTable {
    /// Fills the table from `graph`, given the resources' whole boxes `full`.
    pub fn build(&mut self, graph: &RecordedGraph, full: &[SubresourceBox]) {
        self.resource_bits.clear();
        for (record, full) in graph.resources.iter().zip(full) {
            let desc = &record.desc;
            self.resource_bits.push(
                flag(desc.kind.is_texture(), TEXTURE)
                    | flag(record.outlives_frame(), OUTLIVES)
                    | flag(desc.format.is_depth_stencil(), DEPTH_FORMAT)
                    | flag(full.hi[2] - full.lo[2] == 1, ONE_PLANE),
            );
        }
        self.boxes.clear();
        self.infos.clear();
        for access in &graph.accesses {
            let resource = access.resource.index();
            let region = access.subresource_box(&graph.resources[resource].desc);
            let full = &full[resource];
            let resource_bits = self.resource_bits[resource];
            let whole = resource_bits & ONE_PLANE != 0
                && region.lo[0] == full.lo[0]
                && region.hi[0] == full.hi[0]
                && region.lo[1] == full.lo[1]
                && region.hi[1] == full.hi[1]
                && region.lo[2] == full.lo[2]
                && region.hi[2] == full.hi[2];
            self.boxes.push(region);
            let attr = access.access;
            let bits = (resource_bits & !ONE_PLANE)
                | flag(attr.mode.reads(), READS)
                | flag(attr.mode.writes(), WRITES)
                | flag(attr.reads(), ANY_READS)
                | flag(attr.writes(), ANY_WRITES)
                | flag(attr.relaxed, RELAXED)
                | flag(
                    attr.flags.contains(AccessFlags::DISCARD_BEFORE),
                    DISCARD_BEFORE,
                )
                | flag(
                    attr.flags.contains(AccessFlags::DISCARD_AFTER),
                    DISCARD_AFTER,
                )
                | flag(attr.flags.contains(AccessFlags::CPU), CPU)
                | flag(whole, WHOLE);
            self.infos.push(AccessInfo {
                resource: resource as u32,
                bits,
            });
        }
    }
}

#[inline(always)]
fn flag(on: bool, bit: u32) -> u32 {
    if on {
        bit
    } else {
        0
    }
}
