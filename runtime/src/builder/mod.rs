//! [`GraphBuilder`]: records one frame's resources, node calls and scheduling markers. The VM
//! calls it every frame; it keeps its allocations and the cross-frame storage of persistent,
//! temporal and external resources.
//!
//! # Use
//! ```
//! use rpsl_runtime::*;
//! let mut builder = GraphBuilder::new();
//! let draw = builder.declare_node(NodeDeclDesc::new("draw", QueueClass::Graphics, vec![
//!     ParamDesc::new("id", ValueType::Scalar(ScalarType::U32)),
//!     ParamDesc::new("rt", ValueType::Texture)
//!         .with_access(AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
//!         .with_semantic(SemanticKind::Target, 0),
//! ]));
//! builder.begin_frame(0);
//! let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64);
//! let backbuffer = builder.import_external("backbuffer", desc).unwrap();
//! let view = builder.default_texture_view(backbuffer).unwrap();
//! let mut args = ArgsWriter::new(builder.decl(draw).unwrap());
//! args.write_u32(0, 0).write_texture(1, &view);
//! builder.call_node(draw, args.bytes(), CallFlags::default(), 1).unwrap();
//! let graph = builder.finish().unwrap();
//! assert_eq!(graph.nodes.len(), 1);
//! assert_eq!(graph.accesses[0].resource, backbuffer);
//! ```
//!
//! # Identity across frames
//! Every `create_resource` gets an identity key from the VM (call site and loop counters hashed to
//! a `u64`). For resources whose data must survive (`PERSISTENT` or temporal) and for external
//! ones, the builder maps the key to a [`StorageSlot`]: the same key with the same description in
//! the next frame gets the same slot and `frames_alive` one higher; a changed description or a
//! frame without the key starts a new slot with `frames_alive` 0. A key used twice in one frame
//! gets a deterministic second identity (the key mixed with its occurrence count).

pub use crate::build_error::BuildError;
use crate::compile::cache::same_resource;
use crate::decl::{AccessDesc, NodeDeclDesc};
use crate::graph::{RecordedGraph, ResourceRecord, SubgraphRecord};
use crate::graph_limits::{GraphLimit, GraphLimits};
use crate::ids::{DeclId, NodeId, ResourceId, StorageSlot};
use crate::resource::{ResourceDesc, ResourceKind};
use crate::view::{BufferView, TextureView, VIEW_BYTES};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

mod calls;
mod expansion;
mod frame_keys;
mod history;
mod replay;
mod script_resources;
mod valid_descs;
mod view_formats;

pub use expansion::{ExpansionCall, NodeExpansion};
pub use history::StorageHistory;

use calls::{CallPlan, ResourceFacts};
use frame_keys::FrameKeys;
use replay::{Replay, ReplayFacts};
use script_resources::ScriptDescs;
use valid_descs::ValidatedDescs;
use view_formats::PassedFormatChecks;

#[derive(Copy, Clone, Debug)]
struct StorageEntry {
    slot: StorageSlot,
    desc: ResourceDesc,
    last_frame: u64,
    frames_alive: u64,
}

/// Records the render graph of a frame. Reusable: `begin_frame`, calls, `finish`, repeat.
#[derive(Debug, Default)]
pub struct GraphBuilder {
    graph: RecordedGraph,
    recording: bool,
    subgraph_stack: Vec<u32>,
    storage: foldhash::HashMap<u64, StorageEntry>,
    /// This frame's identity keys ([`frame_keys`]).
    frame_keys: FrameKeys,
    next_slot: u32,
    /// The previous frame's graph (double buffer), compared record by record while recording.
    previous: RecordedGraph,
    /// The previous frame was finished without error.
    previous_finished: bool,
    /// Every node and access record pushed this frame equals the previous frame's at the same
    /// index (and the previous frame can be compared with).
    unchanged: bool,
    /// The previous frame's resources can be compared with this frame's.
    resources_comparable: bool,
    /// How many resource records of this frame differ from the previous frame's at the same
    /// index (or have none there). A count, not a flag: marking an output
    /// ([`Self::mark_output`]) after the script ran can make a record equal again.
    differing_resources: usize,
    /// Bounds on one frame's size.
    limits: GraphLimits,
    /// Depth-capable typeless resources (`R32_TYPELESS`, `R16_TYPELESS`) written as depth or
    /// as colour this frame: whether as depth, and the node that first did.
    typeless_roles: HashMap<u32, (bool, String)>,
    /// Per resource of this frame, what recording a call needs of it (`calls.rs`).
    resource_facts: Vec<ResourceFacts>,
    /// Per declaration, what recording a call of it needs of it (`calls.rs`).
    call_plans: Vec<CallPlan>,
    /// Format checks that passed: packed (resource format, view format, access kind) keys
    /// ([`format_check_key`]) in a small two-way set-associative table. The answer depends on
    /// nothing else, so it holds across frames; nearly every view of a frame repeats a few
    /// combinations.
    passed_format_checks: PassedFormatChecks,
    /// Resource descriptions that passed validation (each distinct one is validated once).
    validated_descs: ValidatedDescs,
    /// Descriptions as scripts pass them that made a resource (`script_resources.rs`).
    script_descs: ScriptDescs,
    /// Storage of the program this builder's replaces, by reload identity, until claimed
    /// ([`GraphBuilder::continue_history`]).
    carried: HashMap<u64, StorageEntry>,
    /// Per declaration index, the expansion its calls go to (`expansion.rs`); empty when no
    /// declaration has one.
    expansions: Vec<Option<expansion::ExpansionEntry>>,
    /// Expansions running now (nested ones included).
    expansion_depth: u32,
    /// How far this frame replays the last one (`replay.rs`).
    replay: Replay,
    /// What replaying this frame's records needs to know of them (`replay.rs`).
    replay_facts: ReplayFacts,
    /// The same of the previous frame (double buffer, as `previous`).
    previous_replay_facts: ReplayFacts,
    /// The next frame may replay the last finished one: no declaration, expansion or bound
    /// changed since it finished.
    replayable: bool,
}

/// The error of a passed [`GraphLimits`] bound (out of line: the checks stay small).
#[cold]
#[inline(never)]
fn limit_exceeded(limit: GraphLimit, bound: u64) -> BuildError {
    BuildError::LimitExceeded { limit, bound }
}

/// The bytes of the default view of a resource of this description: its whole-buffer view for
/// a buffer, else its whole-resource texture view.
#[inline]
fn default_view_bytes_of(resource: ResourceId, desc: &ResourceDesc) -> [u8; VIEW_BYTES] {
    if desc.kind == ResourceKind::Buffer {
        BufferView::whole(resource, desc).to_bytes()
    } else {
        TextureView::whole(resource, desc).to_bytes()
    }
}

/// Structure and resource serials handed out by all builders (0 = unknown).
static NEXT_STRUCTURE_SERIAL: AtomicU64 = AtomicU64::new(1);

/// Mixes a key with a salt (splitmix64 finaliser); used for duplicate keys and parameter names.
pub fn mix_key(key: u64, salt: u64) -> u64 {
    let mut z = key
        ^ salt
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(0x632B_E59B_D9B4_E019);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The identity key of an external resource: a hash of its parameter name (FNV-1a).
pub fn external_key(param_name: &str) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for byte in param_name.bytes() {
        hash = (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3);
    }
    mix_key(hash, 0xE87E_12A1)
}

impl GraphBuilder {
    /// An empty builder with no declarations.
    pub fn new() -> GraphBuilder {
        GraphBuilder::default()
    }

    /// Registers a node declaration (once per program, before or between frames).
    pub fn declare_node(&mut self, decl: NodeDeclDesc) -> DeclId {
        self.settle();
        self.replayable = false;
        self.call_plans.push(CallPlan::of(&decl));
        let decls = Arc::make_mut(&mut self.graph.decls);
        decls.push(decl);
        // The next frame's structure differs from the previous frame's (new declarations).
        self.previous_finished = false;
        self.unchanged = false;
        DeclId::from_index(decls.len() - 1)
    }

    /// A registered declaration.
    pub fn decl(&self, decl: DeclId) -> Option<&NodeDeclDesc> {
        self.graph.decls.get(decl.index())
    }

    /// All registered declarations.
    pub fn decls(&self) -> &Arc<Vec<NodeDeclDesc>> {
        &self.graph.decls
    }

    /// Sets the bounds on one frame's size (the next call checks against them).
    pub fn set_limits(&mut self, limits: GraphLimits) {
        self.settle();
        if limits != self.limits {
            self.replayable = false;
        }
        self.limits = limits;
    }

    /// Names for resources by creation site: a resource without a name of its own is shown as
    /// `names[identity_key >> 32]` ([`RecordedGraph::resource_name`]). The VM's identity keys
    /// carry the creating instruction's location there (`rpsl_vm::CallSite`); the session
    /// passes the program's variable names, so `texture gbuffer = create_tex2d(..)` shows as
    /// `gbuffer` in dumps, Vulkan object names and captures. Costs nothing per frame.
    pub fn set_site_names(&mut self, names: Arc<Vec<Option<String>>>) {
        self.settle();
        self.graph.site_names = names;
    }

    /// The bounds on one frame's size.
    pub fn limits(&self) -> GraphLimits {
        self.limits
    }

    /// Fails when a frame holding `count` of what `limit` counts would pass its bound.
    #[inline(always)]
    fn within(&self, limit: GraphLimit, count: usize) -> Result<(), BuildError> {
        let bound = self.limits.bound(limit);
        if count as u64 > bound {
            return Err(limit_exceeded(limit, bound));
        }
        Ok(())
    }

    #[inline]
    fn within_scopes(&self) -> Result<(), BuildError> {
        let scopes = self.graph.subgraphs.len() + self.graph.barrier_count as usize;
        self.within(GraphLimit::Scopes, scopes + 1)
    }

    /// Starts recording a frame; clears the previous frame's contents.
    pub fn begin_frame(&mut self, frame_index: u64) {
        std::mem::swap(&mut self.graph, &mut self.previous);
        std::mem::swap(&mut self.replay_facts, &mut self.previous_replay_facts);
        self.replay_facts.clear();
        self.graph.decls = Arc::clone(&self.previous.decls);
        self.graph.site_names = Arc::clone(&self.previous.site_names);
        self.unchanged = self.previous_finished && !self.recording;
        self.resources_comparable = self.unchanged;
        self.replay = Replay {
            active: self.unchanged && self.replayable,
            ..Replay::default()
        };
        self.differing_resources = 0;
        self.previous_finished = false;
        self.graph.clear();
        self.graph.frame_index = frame_index;
        self.subgraph_stack.clear();
        self.frame_keys.begin_frame();
        self.typeless_roles.clear();
        if !self.replay.active {
            // A replay keeps the last frame's facts: its resources are the same.
            self.resource_facts.clear();
        }
        self.recording = true;
    }

    /// Makes the last finished frame frame `frame_index` again without recording it, when that
    /// gives exactly the graph recording the same calls would give; returns whether it did.
    ///
    /// A caller that knows the script will make the same calls (the same inputs, nothing else
    /// observed) uses this instead of `begin_frame`, the calls and `finish`. What differs from
    /// frame to frame is then only the frame index and the history of cross-frame storage, and
    /// the repeat advances both: every storage slot lives one frame longer (`frames_alive` + 1).
    /// It refuses (returns false, changing nothing) when the last frame did not finish, when
    /// `frame_index` does not follow it, or when the history would change the graph's
    /// structure: a temporal resource (its views resolve to other slices every frame) or a
    /// persistent resource in its first frame (its data becomes valid in the next).
    ///
    /// ```
    /// use rpsl_runtime::*;
    /// let mut builder = GraphBuilder::new();
    /// builder.begin_frame(0);
    /// let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64);
    /// builder.import_external("backbuffer", desc).unwrap();
    /// let serial = builder.finish().unwrap().structure_serial();
    /// assert!(!builder.repeat_frame(2)); // frame 1 comes next
    /// assert!(builder.repeat_frame(1));
    /// assert_eq!(builder.graph().frame_index, 1);
    /// assert_eq!(builder.graph().resources[0].frames_alive, 1);
    /// assert_eq!(builder.graph().structure_serial(), serial);
    /// builder.begin_frame(2);
    /// assert!(!builder.repeat_frame(3)); // recording
    /// ```
    pub fn repeat_frame(&mut self, frame_index: u64) -> bool {
        let graph = &self.graph;
        let repeatable = !self.recording
            && self.previous_finished
            && graph.frame_index.checked_add(1) == Some(frame_index)
            && graph.resources.iter().all(|record| {
                record.desc.temporal_layers <= 1
                    && (record.external || record.storage.is_none() || record.frames_alive > 0)
            });
        if !repeatable {
            return false;
        }
        for record in &mut self.graph.resources {
            if record.storage.is_none() {
                continue;
            }
            // Every slot of a finished frame has its entry, under the record's key.
            if let Some(entry) = self.storage.get_mut(&record.identity_key) {
                if entry.last_frame != frame_index {
                    entry.last_frame = frame_index;
                    entry.frames_alive += 1;
                }
                record.frames_alive = entry.frames_alive;
            }
        }
        self.graph.frame_index = frame_index;
        true
    }

    fn check_recording(&self) -> Result<(), BuildError> {
        if self.recording {
            Ok(())
        } else {
            Err(BuildError::NotRecording)
        }
    }

    #[inline(always)]
    fn unique_key(&mut self, key: u64) -> u64 {
        self.frame_keys.unique(key)
    }

    fn storage_for(&mut self, key: u64, desc: &ResourceDesc, external: bool) -> (StorageSlot, u64) {
        let frame = self.graph.frame_index;
        if let Some(entry) = self.storage.get_mut(&key) {
            let continues = entry.desc == *desc && entry.last_frame.checked_add(1) == Some(frame);
            if continues {
                entry.last_frame = frame;
                entry.frames_alive += 1;
                return (entry.slot, entry.frames_alive);
            }
            if entry.desc == *desc && entry.last_frame == frame {
                return (entry.slot, entry.frames_alive);
            }
        }
        let (slot, frames_alive) = match self.claim_carried(key, desc, external) {
            Some(carried) => carried,
            None => {
                self.next_slot += 1;
                (StorageSlot(self.next_slot - 1), 0)
            }
        };
        self.storage.insert(
            key,
            StorageEntry {
                slot,
                desc: *desc,
                last_frame: frame,
                frames_alive,
            },
        );
        (slot, frames_alive)
    }

    /// Creates a resource. `identity_key` identifies the creation site (call site + loop
    /// counters); it keeps persistent and temporal storage across frames (see the module doc).
    /// Returns the validated description's resource; see [`ResourceDesc::validate`] for limits.
    pub fn create_resource(
        &mut self,
        desc: ResourceDesc,
        identity_key: u64,
    ) -> Result<ResourceId, BuildError> {
        self.create_resource_record(desc, identity_key)
            .map(|(resource, _)| resource)
    }

    /// [`Self::create_resource`], returning the bytes of the new resource's default view
    /// ([`Self::default_view_bytes`]): what a script's `create_tex2d(..)` and the like return.
    ///
    /// ```
    /// use rpsl_runtime::*;
    /// let mut builder = GraphBuilder::new();
    /// builder.begin_frame(0);
    /// let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64);
    /// let view = builder.create_resource_view(desc, 1).unwrap();
    /// assert_eq!(builder.default_view_bytes(ResourceId(0)), Ok(view));
    /// ```
    pub fn create_resource_view(
        &mut self,
        desc: ResourceDesc,
        identity_key: u64,
    ) -> Result<[u8; VIEW_BYTES], BuildError> {
        let (resource, desc) = self.create_resource_record(desc, identity_key)?;
        Ok(default_view_bytes_of(resource, &desc))
    }

    /// Records a created resource: its id and validated description.
    #[inline(always)]
    fn create_resource_record(
        &mut self,
        desc: ResourceDesc,
        identity_key: u64,
    ) -> Result<(ResourceId, ResourceDesc), BuildError> {
        self.check_recording()?;
        if self.replay.active {
            if let Some(replayed) = self.replay_api_resource(&desc, identity_key) {
                return Ok(replayed);
            }
            self.end_replay();
        }
        self.within(GraphLimit::Resources, self.graph.resources.len() + 1)?;
        let (desc, facts) = self.validated_descs.validate(&desc)?;
        let key = self.unique_key(identity_key);
        let (storage, frames_alive) = if desc.is_persistent() {
            let (slot, alive) = self.storage_for(key, &desc, false);
            (Some(slot), alive)
        } else {
            (None, 0)
        };
        self.graph.resources.push(ResourceRecord {
            desc,
            name: None,
            identity_key: key,
            external: false,
            external_access: None,
            storage,
            frames_alive,
        });
        self.note_resource(facts);
        let index = self.graph.resources.len() - 1;
        if storage.is_none() && key == identity_key {
            // Replayable next frame (`replay.rs`): its record is the description's and key's.
            self.replay_facts
                .note_transient(index, replay::TransientOrigin::Api);
        }
        Ok((ResourceId::from_index(index), desc))
    }

    /// Imports an external resource: an entry argument or `out` parameter, named by its
    /// parameter. Never aliased, discarded or culled away.
    pub fn import_external(
        &mut self,
        param_name: &str,
        desc: ResourceDesc,
    ) -> Result<ResourceId, BuildError> {
        self.import_external_with_access(param_name, desc, None)
    }

    /// [`Self::import_external`] with the access state the resource enters and leaves the graph
    /// in (the entry parameter's attributes, e.g. `[readonly(present)]`).
    pub fn import_external_with_access(
        &mut self,
        param_name: &str,
        desc: ResourceDesc,
        access: Option<AccessDesc>,
    ) -> Result<ResourceId, BuildError> {
        self.check_recording()?;
        self.within(GraphLimit::Resources, self.resource_count() + 1)?;
        let (desc, facts) = self.validated_descs.validate(&desc)?;
        let raw_key = external_key(param_name);
        if self.replay.active {
            if let Some(id) = self.replay_external(param_name, &desc, access, raw_key) {
                return Ok(id);
            }
            self.end_replay();
        }
        let key = self.unique_key(raw_key);
        let (slot, frames_alive) = self.storage_for(key, &desc, true);
        self.graph.resources.push(ResourceRecord {
            desc,
            name: Some(param_name.to_string()),
            identity_key: key,
            external: true,
            external_access: access,
            storage: Some(slot),
            frames_alive,
        });
        self.note_resource(facts);
        Ok(ResourceId::from_index(self.graph.resources.len() - 1))
    }

    /// Names a resource for the dump and debugging.
    pub fn set_resource_name(
        &mut self,
        resource: ResourceId,
        name: &str,
    ) -> Result<(), BuildError> {
        let index = resource.index();
        // `let else`, not `ok_or`: an error built eagerly is dropped on every success.
        let Some(record) = self.resource_record(index) else {
            return Err(BuildError::NoSuchResource(resource.0));
        };
        if self.replay.active && record.name.as_deref() == Some(name) {
            return Ok(());
        }
        self.settle();
        self.graph.resources[index].name = Some(name.to_string());
        self.replay_facts.forget_transient(index);
        Ok(())
    }

    /// Marks a resource the script created as an output of the frame (assigned to an entry's `out`
    /// parameter): like an imported external, its data must survive the frame, so the nodes
    /// writing it are kept by dead-node elimination and it is never aliased. `access` is the state
    /// the resource is left in after the frame (the `out` parameter's access attributes).
    pub fn mark_output(
        &mut self,
        resource: ResourceId,
        access: Option<AccessDesc>,
    ) -> Result<(), BuildError> {
        let index = resource.index();
        let Some(record) = self.resource_record(index) else {
            return Err(BuildError::NoSuchResource(resource.0));
        };
        if self.replay.active
            && record.external
            && (access.is_none() || record.external_access == access)
        {
            // Already an output with this access: marking it changes nothing.
            return Ok(());
        }
        self.settle();
        self.replay_facts.forget_transient(index);
        let was_same = self.same_as_previous_resource(index);
        let record = &mut self.graph.resources[index];
        record.external = true;
        if access.is_some() {
            record.external_access = access;
        }
        let same = self.same_as_previous_resource(index);
        if was_same != same {
            if same {
                self.differing_resources -= 1;
            } else {
                self.differing_resources += 1;
            }
        }
        Ok(())
    }

    /// The validated description of a resource of this frame.
    pub fn describe(&self, resource: ResourceId) -> Result<ResourceDesc, BuildError> {
        match self.resource_record(resource.index()) {
            Some(record) => Ok(record.desc),
            None => Err(BuildError::NoSuchResource(resource.0)),
        }
    }

    /// The default (whole-resource) texture view of a resource.
    pub fn default_texture_view(&self, resource: ResourceId) -> Result<TextureView, BuildError> {
        Ok(TextureView::whole(resource, &self.describe(resource)?))
    }

    /// The default (whole-buffer) view of a buffer.
    pub fn default_buffer_view(&self, resource: ResourceId) -> Result<BufferView, BuildError> {
        Ok(BufferView::whole(resource, &self.describe(resource)?))
    }

    /// The bytes of the default view of a resource: its whole-buffer view for a buffer, else
    /// its whole-resource texture view (rpsl.h's layout, what a script holds).
    ///
    /// ```
    /// use rpsl_runtime::*;
    /// let mut builder = GraphBuilder::new();
    /// builder.begin_frame(0);
    /// let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64);
    /// let texture = builder.create_resource(desc, 1).unwrap();
    /// let buffer = builder.create_resource(ResourceDesc::buffer(256), 2).unwrap();
    /// let texture_view = builder.default_texture_view(texture).unwrap();
    /// assert_eq!(builder.default_view_bytes(texture), Ok(texture_view.to_bytes()));
    /// let buffer_view = builder.default_buffer_view(buffer).unwrap();
    /// assert_eq!(builder.default_view_bytes(buffer), Ok(buffer_view.to_bytes()));
    /// assert_eq!(
    ///     builder.default_view_bytes(ResourceId(9)),
    ///     Err(BuildError::NoSuchResource(9))
    /// );
    /// ```
    pub fn default_view_bytes(&self, resource: ResourceId) -> Result<[u8; VIEW_BYTES], BuildError> {
        let Some(record) = self.resource_record(resource.index()) else {
            return Err(BuildError::NoSuchResource(resource.0));
        };
        Ok(default_view_bytes_of(resource, &record.desc))
    }

    /// Makes `node` run after `on_node` (both called this frame, `on_node` earlier).
    pub fn add_dependency(&mut self, node: NodeId, on_node: NodeId) -> Result<(), BuildError> {
        self.check_recording()?;
        self.settle();
        let count = self.graph.nodes.len() as u32;
        if node.0 >= count {
            return Err(BuildError::UnknownNode(node.0));
        }
        if on_node.0 >= node.0 {
            return Err(BuildError::UnknownNode(on_node.0));
        }
        self.within(GraphLimit::Dependencies, self.graph.explicit_deps.len() + 1)?;
        self.graph.explicit_deps.push((node, on_node));
        Ok(())
    }

    /// `sch_barrier()`: no node is scheduled across this point.
    pub fn sch_barrier(&mut self) -> Result<(), BuildError> {
        self.check_recording()?;
        self.settle();
        self.within_scopes()?;
        self.graph.barrier_count += 1;
        Ok(())
    }

    /// Opens a `[subgraph(atomic?, sequential?)]` scope.
    pub fn begin_subgraph(&mut self, atomic: bool, sequential: bool) -> Result<(), BuildError> {
        self.check_recording()?;
        self.settle();
        self.within_scopes()?;
        let first = self.graph.nodes.len() as u32;
        self.graph.subgraphs.push(SubgraphRecord {
            parent: self.subgraph_stack.last().copied(),
            atomic,
            sequential,
            first_node: first,
            end_node: first,
        });
        self.subgraph_stack
            .push(self.graph.subgraphs.len() as u32 - 1);
        Ok(())
    }

    /// Closes the innermost subgraph.
    pub fn end_subgraph(&mut self) -> Result<(), BuildError> {
        self.check_recording()?;
        self.settle();
        let index = self
            .subgraph_stack
            .pop()
            .ok_or(BuildError::UnbalancedSubgraph)?;
        self.graph.subgraphs[index as usize].end_node = self.graph.nodes.len() as u32;
        Ok(())
    }

    /// Ends the frame and lends the recorded graph (valid until the next `begin_frame`).
    pub fn finish(&mut self) -> Result<&RecordedGraph, BuildError> {
        self.check_recording()?;
        self.recording = false;
        if !self.subgraph_stack.is_empty() {
            self.subgraph_stack.clear();
            return Err(BuildError::UnbalancedSubgraph);
        }
        let frame = self.graph.frame_index;
        self.storage.retain(|_, entry| entry.last_frame == frame);
        self.replayable = true;
        if self.replay.active {
            if self.finish_replay() {
                self.previous_finished = true;
                return Ok(&self.graph);
            }
            self.end_replay();
        }
        let (graph, previous) = (&self.graph, &self.previous);
        let resources_unchanged = self.differing_resources == 0;
        let unchanged = self.unchanged
            && resources_unchanged
            && previous.structure_serial != 0
            && Arc::ptr_eq(&graph.decls, &previous.decls)
            && graph.barrier_count == previous.barrier_count
            && graph.resources.len() == previous.resources.len()
            && graph.nodes.len() == previous.nodes.len()
            && graph.accesses.len() == previous.accesses.len()
            && graph.explicit_deps == previous.explicit_deps
            && graph.subgraphs == previous.subgraphs;
        let resources_unchanged = self.resources_comparable
            && resources_unchanged
            && previous.resource_serial != 0
            && graph.resources.len() == previous.resources.len();
        self.graph.resource_serial = if resources_unchanged {
            previous.resource_serial
        } else {
            NEXT_STRUCTURE_SERIAL.fetch_add(1, Ordering::Relaxed)
        };
        self.graph.structure_serial = if unchanged {
            previous.structure_serial
        } else {
            NEXT_STRUCTURE_SERIAL.fetch_add(1, Ordering::Relaxed)
        };
        self.previous_finished = true;
        Ok(&self.graph)
    }

    #[inline]
    fn note_resource(&mut self, facts: ResourceFacts) {
        let index = self.graph.resources.len() - 1;
        self.resource_facts.push(facts);
        if !self.same_as_previous_resource(index) {
            self.differing_resources += 1;
        }
    }

    /// Resource record `index` equals the previous frame's at the same index.
    #[inline(always)]
    fn same_as_previous_resource(&self, index: usize) -> bool {
        self.previous
            .resources
            .get(index)
            .is_some_and(|previous| same_resource(previous, &self.graph.resources[index]))
    }

    /// The graph of the last finished frame. While a frame is recorded, what this shows may
    /// lag behind the calls made so far (a frame that repeats the last one is held as the last
    /// frame's records until it differs): [`Self::graph_so_far`] shows them.
    pub fn graph(&self) -> &RecordedGraph {
        &self.graph
    }

    /// The graph recorded so far (or by the last finished frame).
    ///
    /// ```
    /// use rpsl_runtime::*;
    /// let mut builder = GraphBuilder::new();
    /// let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64);
    /// for frame in 0..2 {
    ///     builder.begin_frame(frame);
    ///     builder.create_script_resource(&desc.to_rpsl(), 1).unwrap().unwrap();
    ///     assert_eq!(builder.graph_so_far().resources.len(), 1);
    ///     builder.finish().unwrap();
    /// }
    /// ```
    pub fn graph_so_far(&mut self) -> &RecordedGraph {
        self.settle();
        &self.graph
    }
}
