//! The recorded graph of one frame: resources, node calls, their accesses and scheduling markers,
//! as [`crate::GraphBuilder`] leaves them for the frame compiler and the dump.

use crate::decl::{AccessDesc, NodeDeclDesc};
use crate::format::Format;
use crate::ids::{DeclId, NodeId, ResourceId, StorageSlot};
use crate::resource::ResourceDesc;
use crate::view::{SubresourceBox, TextureRange};
use std::ops::Range;
use std::sync::Arc;

/// A resource of the frame.
#[derive(Clone, PartialEq, Debug)]
pub struct ResourceRecord {
    /// The validated description.
    pub desc: ResourceDesc,
    /// Entry parameter name of an external resource, or a name given with
    /// [`crate::GraphBuilder::set_resource_name`].
    pub name: Option<String>,
    /// The identity key the VM passed (call site + loop counters), or the hash of the parameter
    /// name of an external resource.
    pub identity_key: u64,
    /// Imported from outside (entry argument or `out` parameter): never aliased or discarded.
    pub external: bool,
    /// External access state the resource enters and leaves the graph in (from the entry
    /// parameter's attributes), if any.
    pub external_access: Option<AccessDesc>,
    /// Backing storage stable across frames (external, persistent and temporal resources).
    pub storage: Option<StorageSlot>,
    /// How many consecutive earlier frames this storage already held data (0 in its first frame).
    pub frames_alive: u64,
}

impl ResourceRecord {
    /// Data must survive the frame: external, `PERSISTENT` or temporal.
    pub fn outlives_frame(&self) -> bool {
        self.external || self.desc.is_persistent()
    }

    /// The temporal slice a view's `temporal_layer` resolves to this frame (rpsl.h's rule: a layer
    /// older than the resource's history resolves to the first frame's slice; layers beyond the
    /// temporal layer count wrap).
    pub fn temporal_slice(&self, temporal_layer: u32) -> u32 {
        let layers = self.desc.temporal_layers.max(1) as u64;
        let age = (temporal_layer as u64).min(self.frames_alive);
        ((self.frames_alive - age) % layers) as u32
    }
}

/// How a node was called.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct CallFlags {
    /// `async`: prefer a queue other than the main graphics queue.
    pub prefer_async: bool,
}

/// One node call.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct NodeRecord {
    /// Its declaration.
    pub decl: DeclId,
    /// Byte range of its argument block in [`RecordedGraph::args`].
    pub args: Range<u32>,
    /// Call flags.
    pub flags: CallFlags,
    /// The identity key the VM passed.
    pub identity_key: u64,
    /// Range of its accesses in [`RecordedGraph::accesses`].
    pub accesses: Range<u32>,
    /// The innermost subgraph containing the call.
    pub subgraph: Option<u32>,
    /// The number of `sch_barrier` calls before this call.
    pub barrier_epoch: u32,
}

/// The subresources an access covers.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum AccessRange {
    /// A texture view's mips, layers and planes.
    Texture(TextureRange),
    /// A buffer view's bytes: offset, size.
    Buffer {
        /// Byte offset.
        offset: u64,
        /// Byte size.
        size: u64,
    },
}

/// One view argument of a node call.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct AccessRecord {
    /// The node.
    pub node: NodeId,
    /// Parameter index in the declaration.
    pub param: u16,
    /// View slot index within the parameter.
    pub slot: u16,
    /// The resource.
    pub resource: ResourceId,
    /// Access attributes.
    pub access: AccessDesc,
    /// Covered subresources.
    pub range: AccessRange,
    /// The view's temporal layer.
    pub temporal_layer: u32,
    /// The temporal slice it resolves to this frame.
    pub temporal_slice: u32,
    /// The view's format (`UNKNOWN` = the resource's).
    pub view_format: Format,
}

impl AccessRecord {
    /// The covered subresources as a box in the resource's subresource space, temporal slice
    /// folded in (see [`SubresourceBox`]).
    pub fn subresource_box(&self, desc: &ResourceDesc) -> SubresourceBox {
        match self.range {
            AccessRange::Texture(range) => {
                let layers = desc.array_layers() as u64;
                let layer_base = self.temporal_slice as u64 * layers + range.base_layer as u64;
                let plane_lo = if range.planes & 1 != 0 { 0 } else { 1 };
                let plane_hi = if range.planes & 2 != 0 { 2 } else { 1 };
                SubresourceBox {
                    lo: [range.base_mip as u64, layer_base, plane_lo],
                    hi: [
                        (range.base_mip + range.mip_count) as u64,
                        layer_base + range.layer_count as u64,
                        plane_hi,
                    ],
                }
            }
            AccessRange::Buffer { offset, size } => {
                let base = self.temporal_slice as u64 * desc.width + offset;
                SubresourceBox {
                    lo: [base, 0, 0],
                    hi: [base + size, 1, 1],
                }
            }
        }
    }
}

/// A `[subgraph(...)]` scope.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct SubgraphRecord {
    /// The enclosing subgraph.
    pub parent: Option<u32>,
    /// No outside node may run between its nodes.
    pub atomic: bool,
    /// Its nodes keep their relative order.
    pub sequential: bool,
    /// Its nodes are `first_node..end_node` in call order.
    pub first_node: u32,
    /// End of its node range.
    pub end_node: u32,
}

/// Everything recorded for one frame.
#[derive(Clone, Debug, Default)]
pub struct RecordedGraph {
    /// Frame index passed to `begin_frame`.
    pub frame_index: u64,
    /// The program's declarations.
    pub decls: Arc<Vec<NodeDeclDesc>>,
    /// Resources in creation order (`ResourceId` = index).
    pub resources: Vec<ResourceRecord>,
    /// Node calls in call order (`NodeId` = index).
    pub nodes: Vec<NodeRecord>,
    /// Accesses of all nodes, grouped by node in call order.
    pub accesses: Vec<AccessRecord>,
    /// Explicit dependencies `(node, on)`: `node` runs after `on` (node-handle arguments and
    /// [`crate::GraphBuilder::add_dependency`]).
    pub explicit_deps: Vec<(NodeId, NodeId)>,
    /// Argument blocks of all nodes, concatenated (each starts 8-byte aligned).
    pub args: Vec<u8>,
    /// Subgraphs in the order they were opened.
    pub subgraphs: Vec<SubgraphRecord>,
    /// The number of `sch_barrier` calls.
    pub barrier_count: u32,
    /// See [`RecordedGraph::structure_serial`].
    pub(crate) structure_serial: u64,
    /// See [`RecordedGraph::resource_serial`].
    pub(crate) resource_serial: u64,
    /// Resource names by creation site (see [`crate::GraphBuilder::set_site_names`]).
    pub(crate) site_names: Arc<Vec<Option<String>>>,
}

impl RecordedGraph {
    /// The name to show for a resource: the one it was given (an external resource's
    /// parameter, [`crate::GraphBuilder::set_resource_name`]), else the variable its creation
    /// site initialises (`texture gbuffer = create_tex2d(..)` names it `gbuffer`), if any.
    pub fn resource_name(&self, resource: ResourceId) -> Option<&str> {
        let record = self.resources.get(resource.index())?;
        if let Some(name) = &record.name {
            return Some(name);
        }
        let site = (record.identity_key >> 32) as usize;
        self.site_names.get(site)?.as_deref()
    }

    /// The declaration of a node.
    pub fn decl_of(&self, node: NodeId) -> &NodeDeclDesc {
        &self.decls[self.nodes[node.index()].decl.index()]
    }

    /// The accesses of a node.
    pub fn node_accesses(&self, node: NodeId) -> &[AccessRecord] {
        let range = &self.nodes[node.index()].accesses;
        &self.accesses[range.start as usize..range.end as usize]
    }

    /// The argument block of a node.
    pub fn node_args(&self, node: NodeId) -> &[u8] {
        let range = &self.nodes[node.index()].args;
        &self.args[range.start as usize..range.end as usize]
    }

    /// Identifies the recorded structure (everything the compiled-frame cache compares:
    /// declarations, node calls with their accesses, resource descriptions and history, explicit
    /// dependencies, subgraphs and barriers). [`crate::GraphBuilder::finish`] sets it and keeps
    /// it equal to the previous frame's when it found, while recording, that nothing of the
    /// structure changed; then [`crate::FrameCompiler`] gets a cache hit without comparing the
    /// graph. 0 means unknown (the compiler then compares the structure itself). Code that edits
    /// the public fields of a recorded graph must call [`RecordedGraph::invalidate_structure`].
    pub fn structure_serial(&self) -> u64 {
        self.structure_serial
    }

    /// Identifies the resource records alone (descriptions, external and output flags, storage
    /// and history; not names): [`crate::GraphBuilder::finish`] keeps it equal to the previous
    /// frame's when every resource equals the previous frame's resource at the same index, even
    /// when nodes or accesses changed. The frame compiler then reuses what it derived from the
    /// resources (allocation sizes, whole boxes, per-resource facts) for a frame whose node
    /// structure changed. 0 means unknown. [`RecordedGraph::invalidate_structure`] resets it too.
    pub fn resource_serial(&self) -> u64 {
        self.resource_serial
    }

    /// Forgets the structure and resource serials after the graph's contents were edited by
    /// hand.
    pub fn invalidate_structure(&mut self) {
        self.structure_serial = 0;
        self.resource_serial = 0;
    }

    /// Clears the per-frame contents, keeping allocations.
    pub(crate) fn clear(&mut self) {
        self.structure_serial = 0;
        self.resource_serial = 0;
        self.resources.clear();
        self.nodes.clear();
        self.accesses.clear();
        self.explicit_deps.clear();
        self.args.clear();
        self.subgraphs.clear();
        self.barrier_count = 0;
    }
}
