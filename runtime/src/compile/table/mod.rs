//! Compact per-access records of one frame, computed once at the start of a compile: the
//! resource and a few bits (modes, attributes, whole-resource coverage, resource kind), so the
//! stages' hot loops read one small word per access instead of the recorded access, its
//! resource's record and description. Subresource boxes are stored only for accesses of part
//! of a resource; a whole access's box is its resource's whole box (see [`AccessBoxes`]).
//! Each access also gets a key (attribute flags, mode, parameter index) for barrier planning,
//! and the table lists the resources that outlive the frame. The per-resource facts are kept
//! across frames and recomputed only for resources whose description changed.

use super::cache::same_desc;
mod node_span;
use crate::decl::{AccessDesc, AccessFlags, ParamDesc};
use crate::graph::{AccessRange, AccessRecord, RecordedGraph, ResourceRecord};
use crate::resource::ResourceDesc;
use crate::view::SubresourceBox;
pub use node_span::NodeSpan;

/// The whole subresource space of a resource (see [`crate::SubresourceBox`]).
pub fn full_box(desc: &crate::resource::ResourceDesc) -> SubresourceBox {
    let temporal = desc.temporal_layers.max(1) as u64;
    if desc.kind.is_texture() {
        SubresourceBox {
            lo: [0, 0, 0],
            hi: [
                desc.mip_levels as u64,
                temporal * desc.array_layers() as u64,
                desc.plane_count() as u64,
            ],
        }
    } else {
        SubresourceBox {
            lo: [0, 0, 0],
            hi: [temporal * desc.width, 1, 1],
        }
    }
}

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

/// The access attributes of a declaration parameter as [`AccessTable`] and barrier planning
/// take them: its first view slot's, else its own (else the default).
pub(crate) fn param_access(param: &ParamDesc) -> AccessDesc {
    match param.view_slots.first() {
        Some(slot) => slot.access,
        None => param.access.unwrap_or_default(),
    }
}

/// Where an access key ([`AccessTable::keys`]) keeps the access's parameter index.
pub const KEY_PARAM_SHIFT: u32 = 40;

/// The attribute flags and mode of `access` in one word: the low [`KEY_PARAM_SHIFT`] bits of
/// an access key.
#[inline(always)]
pub fn attribute_key(access: &AccessDesc) -> u64 {
    access.flags.0 as u64 | (access.mode as u64) << 32
}

/// The key of `access`: [`attribute_key`] of its attributes, and its parameter index from
/// [`KEY_PARAM_SHIFT`] up.
#[inline(always)]
fn access_key(access: &AccessRecord) -> u64 {
    attribute_key(&access.access) | (access.param as u64) << KEY_PARAM_SHIFT
}

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

/// [`ResourceFacts::full_hi`]`[1]` of a resource with more than one plane: no access box has
/// it as `hi[1]` with `lo[1] == 0` (then `hi[1]` is a layer count, below 2^32, or 1 for a
/// buffer), so no access of such a resource is whole.
const NOT_WHOLE: u64 = u64::MAX;

/// What the per-access loop needs of one resource (32 bytes: the loop's scattered reads touch
/// one cache line per resource at most).
#[derive(Copy, Clone, Debug, Default)]
struct ResourceFacts {
    /// `hi[0]` and `hi[1]` of the resource's whole box (its `lo` is 0 and its `hi[2]` is 1), or
    /// `hi[1]` is [`NOT_WHOLE`] when the resource has two planes.
    full_hi: [u64; 2],
    /// Byte size of a buffer: the stride of its temporal slices.
    width: u64,
    /// Array layers of a texture: the stride of its temporal slices on the layer axis.
    layers: u32,
    /// `TEXTURE`, `OUTLIVES` and `DEPTH_FORMAT`.
    bits: u32,
}

/// [`TargetExtent::whole_layers`] of a resource whose whole accesses are not plain
/// one-mip render targets (more than one mip, not a texture, or a width beyond `u32`).
pub const NOT_TARGET: u32 = u32::MAX;

/// A resource's extent as render passes take it for an access of the whole resource (16 bytes,
/// dense per resource: render-pass building reads one per pass at the end of the compile,
/// instead of the resource's 104-byte record).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TargetExtent {
    /// Width of mip 0.
    pub width: u32,
    /// Height of mip 0.
    pub height: u32,
    /// Samples per texel.
    pub samples: u32,
    /// The layer count of a [`WHOLE`] access (all layers of all temporal slices) when the
    /// resource is a texture of one mip whose width fits a `u32`; else [`NOT_TARGET`].
    pub whole_layers: u32,
}

impl TargetExtent {
    fn of(desc: &ResourceDesc, whole: &SubresourceBox) -> TargetExtent {
        let plain = desc.kind.is_texture()
            & (whole.hi[0] == 1)
            & (whole.hi[1] < u64::from(NOT_TARGET))
            & (desc.width < u64::from(u32::MAX));
        TargetExtent {
            width: desc.width as u32,
            height: desc.height,
            samples: desc.sample_count,
            whole_layers: if plain {
                whole.hi[1] as u32
            } else {
                NOT_TARGET
            },
        }
    }
}

/// What a resource's cached facts, size and whole box were computed from.
#[derive(Copy, Clone, Debug)]
struct FactsSource {
    desc: ResourceDesc,
    external: bool,
}

/// The compact records of a frame and their scratch, kept by the compiler between frames.
#[derive(Debug, Default)]
pub struct AccessTable {
    /// Each access's subresource box (indexed like `RecordedGraph::accesses`), written only for
    /// accesses without [`WHOLE`]: a whole access's box is its resource's whole box, so its
    /// entry is left stale (read the boxes through [`AccessTable::boxes`]).
    partial_boxes: Vec<SubresourceBox>,
    /// Each access's compact record.
    pub infos: Vec<AccessInfo>,
    /// Per resource: what the access loop needs (same length as `sources`).
    facts: Vec<ResourceFacts>,
    /// Per resource: the description and external flag `facts` (and the caller's sizes and
    /// whole boxes) were computed from.
    sources: Vec<FactsSource>,
    /// Per resource: its extent (same length as `sources`).
    extents: Vec<TargetExtent>,
    /// The resources that outlive the frame ([`OUTLIVES`] in their facts), in index order;
    /// listed again only when some resource's facts change.
    outliving: Vec<u32>,
    /// The resource serial of the graph the per-resource vectors were last refreshed for (0:
    /// none known).
    refreshed_serial: u64,
    /// Each access's key: its attribute flags, mode and parameter index in one word (see
    /// [`KEY_PARAM_SHIFT`]), so barrier planning finds what an access needs without reading
    /// its 56-byte record again.
    pub keys: Vec<u64>,
    /// Each node's span (indexed like `RecordedGraph::nodes`): what the later stages read of a
    /// node, so that the 48-byte node records are swept once per compile, here.
    pub nodes: Vec<NodeSpan>,
    /// Some node of the frame is called `async`.
    any_async: bool,
    /// Some access covers only part of a resource that does not outlive the frame (see
    /// [`AccessTable::any_partial_transient`]).
    any_partial_transient: bool,
    /// Per resource: its allocation size (see [`AccessTable::sizes`]).
    sizes: Vec<u64>,
    /// Per resource: its whole box (see [`AccessTable::full_boxes`]).
    full_boxes: Vec<SubresourceBox>,
}

impl AccessTable {
    /// Fills the table from `graph`. The per-resource results ([`AccessTable::sizes`],
    /// [`AccessTable::full_boxes`]) are kept between frames: they are brought up to date here,
    /// recomputed only for resources whose description or external flag changed since the
    /// last call.
    pub fn build(&mut self, graph: &RecordedGraph) {
        // Taken out while `begin` (a method of the table) updates them.
        let (mut sizes, mut full) = (
            std::mem::take(&mut self.sizes),
            std::mem::take(&mut self.full_boxes),
        );
        self.begin(graph, &mut sizes, &mut full);
        (self.sizes, self.full_boxes) = (sizes, full);
        self.record_nodes(graph);
        let (recorder, boxes, infos, keys) = self.split();
        // `begin` sized the three outputs to the access count: cut to one length, the loop's
        // indexing needs no bounds checks.
        let count = graph.accesses.len().min(infos.len()).min(keys.len());
        let (accesses, infos, keys) = (
            &graph.accesses[..count],
            &mut infos[..count],
            &mut keys[..count],
        );
        let mut any_partial_transient = false;
        for (index, access) in accesses.iter().enumerate() {
            // Both words are computed before either is stored (the attributes are read once).
            let key = access_key(access);
            let info = recorder.record(access);
            keys[index] = key;
            infos[index] = info;
            // A whole access's box is its resource's whole box: not written (48 bytes less
            // per access to store and to bring back through the caches), nor computed.
            if !info.has(WHOLE) {
                any_partial_transient |= !info.has(OUTLIVES);
                if let Some(region_out) = boxes.get_mut(index) {
                    *region_out = recorder.partial_box(access);
                }
            }
        }
        self.any_partial_transient = any_partial_transient;
    }

    /// Some access covers only part of (or both planes of) a resource that does not outlive
    /// the frame: an access without [`WHOLE`] whose resource lacks [`OUTLIVES`]. Discard
    /// inference tracks such resources by region.
    #[inline(always)]
    pub fn any_partial_transient(&self) -> bool {
        self.any_partial_transient
    }

    /// Writes the nodes' spans and notes whether any node is called `async`.
    fn record_nodes(&mut self, graph: &RecordedGraph) {
        let node_count = graph.nodes.len();
        // Every entry is overwritten: only a grown table is written here.
        self.nodes.resize(node_count, NodeSpan::default());
        // Both cut to the node count: the loop's indexing needs no bounds checks.
        let (spans, records) = (&mut self.nodes[..node_count], &graph.nodes[..node_count]);
        let mut any_async = false;
        for (span, record) in spans.iter_mut().zip(records) {
            *span = NodeSpan::of(record);
            any_async |= record.flags.prefer_async;
        }
        self.any_async = any_async;
    }

    /// Some node is called `async` ([`crate::CallFlags::prefer_async`]): only then does queue
    /// assignment read the node records' flags.
    #[inline(always)]
    pub fn any_async(&self) -> bool {
        self.any_async
    }

    /// The accesses' subresource boxes.
    #[inline(always)]
    pub fn boxes(&self) -> AccessBoxes<'_> {
        AccessBoxes {
            partial: &self.partial_boxes,
            full: &self.full_boxes,
            infos: &self.infos,
        }
    }

    /// Each resource's allocation size (indexed like `RecordedGraph::resources`).
    #[inline(always)]
    pub fn sizes(&self) -> &[u64] {
        &self.sizes
    }

    /// Each resource's whole subresource box ([`full_box`], indexed like
    /// `RecordedGraph::resources`).
    #[inline(always)]
    pub fn full_boxes(&self) -> &[SubresourceBox] {
        &self.full_boxes
    }

    /// The resources that outlive the frame (external, persistent or temporal), in index
    /// order: per-resource facts kept by [`AccessTable::build`], so no stage walks every
    /// resource record for them.
    #[inline(always)]
    pub fn outliving(&self) -> &[u32] {
        &self.outliving
    }

    /// Each resource's extent (width, height, sample count, layers of a whole access), indexed
    /// like `RecordedGraph::resources`: per-resource facts kept by [`AccessTable::build`].
    #[inline(always)]
    pub fn extents(&self) -> &[TargetExtent] {
        &self.extents
    }

    /// The first half of [`AccessTable::build`]: brings the per-resource facts, `sizes` and
    /// `full` up to date and sizes `boxes` and `infos` to the access count. Their entries are
    /// left as they were (stale from an earlier frame, or defaults) until the caller writes
    /// every one of them with [`AccessRecorder::record`] (see [`AccessTable::split`]).
    fn begin(
        &mut self,
        graph: &RecordedGraph,
        sizes: &mut Vec<u64>,
        full: &mut Vec<SubresourceBox>,
    ) {
        self.refresh_resources(graph, sizes, full);
        // No clearing: every entry is overwritten, so only a grown table is written here.
        let count = graph.accesses.len();
        self.partial_boxes.resize(count, SubresourceBox::default());
        self.infos.resize(count, AccessInfo::default());
        self.keys.resize(count, 0);
    }

    /// The recorder of the current resources' facts, with the boxes and records to write.
    fn split<'a>(
        &'a mut self,
    ) -> (
        AccessRecorder<'a>,
        &'a mut [SubresourceBox],
        &'a mut [AccessInfo],
        &'a mut [u64],
    ) {
        (
            AccessRecorder { facts: &self.facts },
            &mut self.partial_boxes,
            &mut self.infos,
            &mut self.keys,
        )
    }

    /// Brings `facts`, `sizes` and `full` up to date with `graph.resources`. A graph whose
    /// resource serial is the one of the last refresh has the same resource records (see
    /// [`RecordedGraph::resource_serial`]: the builder found every resource equal to the previous
    /// frame's while recording, e.g. a frame where only passes changed): nothing is read then.
    fn refresh_resources(
        &mut self,
        graph: &RecordedGraph,
        sizes: &mut Vec<u64>,
        full: &mut Vec<SubresourceBox>,
    ) {
        let serial = graph.resource_serial();
        let count = graph.resources.len();
        if serial != 0
            && serial == self.refreshed_serial
            && self.sources.len() == count
            && self.facts.len() == count
            && self.extents.len() == count
            && sizes.len() == count
            && full.len() == count
        {
            return;
        }
        self.refreshed_serial = serial;
        // Entries beyond the shortest of the four vectors (or the resource count) are recomputed.
        let kept = graph
            .resources
            .len()
            .min(self.sources.len())
            .min(self.extents.len())
            .min(sizes.len())
            .min(full.len());
        let mut changed = kept != self.facts.len();
        self.sources.truncate(kept);
        self.facts.truncate(kept);
        self.extents.truncate(kept);
        sizes.truncate(kept);
        full.truncate(kept);
        for (index, record) in graph.resources.iter().enumerate() {
            if let Some(source) = self.sources.get(index) {
                if same_desc(&source.desc, &record.desc) & (source.external == record.external) {
                    continue;
                }
            }
            changed = true;
            let whole = full_box(&record.desc);
            let facts = facts_of(record, &whole);
            let source = FactsSource {
                desc: record.desc,
                external: record.external,
            };
            let size = record.desc.allocation_size();
            let extent = TargetExtent::of(&record.desc, &whole);
            if index < kept {
                self.sources[index] = source;
                self.facts[index] = facts;
                self.extents[index] = extent;
                sizes[index] = size;
                full[index] = whole;
            } else {
                self.sources.push(source);
                self.facts.push(facts);
                self.extents.push(extent);
                sizes.push(size);
                full.push(whole);
            }
        }
        if changed {
            self.outliving.clear();
            self.outliving.extend(
                (0..self.facts.len() as u32)
                    .filter(|&index| self.facts[index as usize].bits & OUTLIVES != 0),
            );
        }
    }
}

/// The subresource boxes of a frame's accesses: a [`WHOLE`] access's box is its resource's
/// whole box, any other's is stored per access.
#[derive(Copy, Clone, Debug)]
pub struct AccessBoxes<'a> {
    /// Per access; stale for [`WHOLE`] accesses.
    partial: &'a [SubresourceBox],
    /// Per resource: its whole box.
    full: &'a [SubresourceBox],
    /// Per access: its compact record.
    infos: &'a [AccessInfo],
}

impl AccessBoxes<'_> {
    /// The box of access `index` (whose compact record is `infos[index]`).
    #[inline(always)]
    pub fn get(&self, index: usize) -> SubresourceBox {
        let info = self.infos[index];
        if info.has(WHOLE) {
            // The table's resource index is in range of the per-resource vectors it filled.
            self.full[info.resource as usize]
        } else {
            self.partial[index]
        }
    }

    /// The number of accesses.
    #[inline(always)]
    pub fn count(&self) -> usize {
        self.infos.len().min(self.partial.len())
    }
}

/// Computes accesses' boxes and compact records from the per-resource facts of an
/// [`AccessTable`] (see [`AccessTable::split`]).
#[derive(Copy, Clone)]
struct AccessRecorder<'a> {
    facts: &'a [ResourceFacts],
}

/// `READS` / `WRITES` and `ANY_READS` / `ANY_WRITES` by [`crate::decl::AccessMode`] (in
/// declaration order).
const MODE_BITS: [u32; 3] = [
    READS | ANY_READS,
    WRITES | ANY_WRITES,
    READS | WRITES | ANY_READS | ANY_WRITES,
];

/// The bits of an access's mode, stencil mode and `[relaxed]` (one lookup): indexed by
/// `mode | stencil << 2 | relaxed << 4`, where `stencil` is 3 for none.
const MODE_TABLE: [u32; 32] = {
    let mut table = [0; 32];
    let mut index = 0;
    while index < 32 {
        let mode = index & 3;
        let stencil = (index >> 2) & 3;
        if mode < 3 {
            let mut bits = MODE_BITS[mode];
            if stencil < 3 {
                bits |= MODE_BITS[stencil] & (ANY_READS | ANY_WRITES);
            }
            if index >> 4 != 0 {
                bits |= RELAXED;
            }
            table[index] = bits;
        }
        index += 1;
    }
    table
};

// The flag bits are moved by shifts below.
const _: () = {
    assert!(AccessFlags::DISCARD_BEFORE.0 >> (26 - 5) == DISCARD_BEFORE);
    assert!(AccessFlags::DISCARD_AFTER.0 >> (26 - 5) == DISCARD_AFTER);
    assert!(AccessFlags::CPU.0 >> (15 - 7) == CPU);
    assert!(RELAXED == 1 << 4 && WHOLE == 1 << 8);
};

impl AccessRecorder<'_> {
    /// The compact record of `access`. Whether it is [`WHOLE`] is decided from the range's
    /// fields, without its box: the box `lo..hi` (see [`AccessRecorder::partial_box`]) equals
    /// the whole box `[0, 0, 0]..[full_hi, 1]` exactly when every `lo` is 0 (base mip, base
    /// layer and the temporal slice's layer offset; plane 0 included), the counts are the
    /// whole counts, and plane 1 is left out (`planes & 3 == 1`).
    #[inline(always)]
    fn record(&self, access: &AccessRecord) -> AccessInfo {
        let resource = access.resource.index();
        let facts = &self.facts[resource];
        let slice = access.temporal_slice as u64;
        let not_whole = match access.range {
            AccessRange::Texture(range) => {
                range.base_mip as u64
                    | range.base_layer as u64
                    | (slice * facts.layers as u64)
                    | (range.mip_count as u64 ^ facts.full_hi[0])
                    | (range.layer_count as u64 ^ facts.full_hi[1])
                    | ((range.planes & 3) ^ 1) as u64
            }
            AccessRange::Buffer { offset, size } => {
                let base = slice * facts.width + offset;
                base | ((base + size) ^ facts.full_hi[0]) | (1 ^ facts.full_hi[1])
            }
        };
        let attr = access.access;
        let stencil = match attr.stencil_mode {
            Some(mode) => mode as usize,
            None => 3,
        };
        let flags = attr.flags.0;
        let bits = facts.bits
            | MODE_TABLE[attr.mode as usize | stencil << 2 | (attr.relaxed as usize) << 4]
            | ((flags >> (26 - 5)) & (DISCARD_BEFORE | DISCARD_AFTER))
            | ((flags >> (15 - 7)) & CPU)
            | (((not_whole == 0) as u32) << 8);
        AccessInfo {
            resource: resource as u32,
            bits,
        }
    }

    /// The subresource box of `access` (`AccessRecord::subresource_box` with the resource's
    /// strides from its facts); needed only for accesses without [`WHOLE`].
    #[inline(always)]
    fn partial_box(&self, access: &AccessRecord) -> SubresourceBox {
        let facts = &self.facts[access.resource.index()];
        let (lo, hi) = match access.range {
            AccessRange::Texture(range) => {
                let layer_base =
                    access.temporal_slice as u64 * facts.layers as u64 + range.base_layer as u64;
                (
                    [
                        range.base_mip as u64,
                        layer_base,
                        (range.planes & 1 == 0) as u64,
                    ],
                    [
                        (range.base_mip + range.mip_count) as u64,
                        layer_base + range.layer_count as u64,
                        1 + (range.planes & 2 != 0) as u64,
                    ],
                )
            }
            AccessRange::Buffer { offset, size } => {
                let base = access.temporal_slice as u64 * facts.width + offset;
                ([base, 0, 0], [base + size, 1, 1])
            }
        };
        SubresourceBox { lo, hi }
    }
}

/// The access has an effect that keeps its node alive: a CPU access, or a write to a resource
/// that outlives the frame (read by the liveness stage).
#[inline(always)]
pub(crate) fn has_effect(bits: u32) -> bool {
    (bits & CPU != 0) | (bits & (ANY_WRITES | OUTLIVES) == ANY_WRITES | OUTLIVES)
}

fn facts_of(record: &ResourceRecord, whole: &SubresourceBox) -> ResourceFacts {
    let desc = &record.desc;
    ResourceFacts {
        full_hi: [
            whole.hi[0],
            if whole.hi[2] - whole.lo[2] == 1 {
                whole.hi[1]
            } else {
                NOT_WHOLE
            },
        ],
        width: desc.width,
        layers: desc.array_layers(),
        bits: flag(desc.kind.is_texture(), TEXTURE)
            | flag(record.outlives_frame(), OUTLIVES)
            | flag(desc.format.is_depth_stencil(), DEPTH_FORMAT),
    }
}

/// `bit` when `on`, else 0, without a branch.
#[inline(always)]
fn flag(on: bool, bit: u32) -> u32 {
    (on as u32).wrapping_neg() & bit
}

#[cfg(test)]
mod tests;
