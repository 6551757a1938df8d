//! Replay of the last frame: while a frame repeats the last finished one call by call, the
//! builder appends nothing. Each call is checked against the last frame's record at its index
//! and the frame is, so far, the last frame's first records; the first call that differs (or
//! any call this module does not replay) copies those records into the frame at once
//! ([`GraphBuilder::end_replay`]) and recording goes on as usual. A frame replayed to its end
//! is the last frame's graph, which [`GraphBuilder::finish`] takes over without a copy, its
//! structure serial kept (the compiled-frame cache hits at once).
//!
//! What is replayed, and why the records are then the ones recording would make:
//! - A transient resource made through the builder's API
//!   ([`GraphBuilder::create_resource`]) from the same description, with the same identity
//!   key, as the last frame's at its index (named or marked by nothing).
//! - A script's transient resource ([`GraphBuilder::create_script_resource`]) whose
//!   description's bytes are those that made the last frame's resource at its index (that
//!   resource was made from the same [`super::ScriptDescs`] entry, which still holds them),
//!   with the same identity key, and which nothing named or marked as an output last frame.
//!   Its record is a function of the description.
//! - An external resource imported under the same name, description and access as the last
//!   frame's at its index, given the same storage slot: its record differs only in
//!   `frames_alive`, written in place (externals' sameness does not look at it).
//!
//! Identity keys are told apart per frame ([`super::FrameKeys`]); a replayed resource's key
//! is the last frame's, which was its first use then (it is stored as it was passed), so it is
//! its first use now too. The keys are counted only when a replay ends, for the resources
//! replayed so far, in their order.
//! - A node call of the same declaration and flags as the last frame's at its index, made
//!   after as many resources as then, outside any subgraph and before any `sch_barrier`,
//!   viewing no temporal resource (its slices move every frame) and no depth-capable typeless
//!   one (roles are claimed per frame), without node handles or an unsized tail. Its records
//!   and the outcome of its checks are then a function of its argument bytes and of the
//!   resources made so far, which are the last frame's. A call that took the direct path
//!   ([`GraphBuilder::call_direct`]) depends on its view slots' bytes alone: other bytes
//!   (constants) may differ and are written in place, as is the identity key (neither enters
//!   the comparison of frames). Any other call (a built-in node, whose checks read its
//!   constants; a partial view; a buffer) must repeat its whole block.
//!
//! Every size bound was met by the same records last frame, and a change of the bounds (or of
//! declarations or expansions) between frames turns replay off for the next frame. Naming a
//! resource or marking it as an output, resources created any other way, dependencies,
//! markers and every call the rules above do not cover end the replay first.

use super::valid_descs::MemoEntry;
use super::GraphBuilder;
use crate::graph::CallFlags;
use crate::ids::{DeclId, NodeId, ResourceId};
use crate::resource::RpslResourceDesc;
use crate::view::VIEW_BYTES;

/// What a frame knows of its records beyond the records themselves, for the next frame's
/// replay. Entries past a vector's end are "no".
#[derive(Debug, Default)]
pub(super) struct ReplayFacts {
    /// Per transient resource (nothing named or marked since): how it was made.
    transients: Vec<Option<TransientOrigin>>,
    /// Per node: for a call that may be replayed, how.
    replayable_calls: Vec<Option<ReplayableCall>>,
}

/// How a transient resource was made.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(super) enum TransientOrigin {
    /// By a script, from this script description entry.
    Script(MemoEntry),
    /// By [`GraphBuilder::create_resource`] (or `create_resource_view`).
    Api,
}

/// How a node call may be replayed.
#[derive(Copy, Clone, Debug)]
pub(super) struct ReplayableCall {
    /// The number of resources made before it.
    resources_before: u32,
    /// Its records depend on its view slots' bytes alone (a direct-path call): other argument
    /// bytes may differ. Else every byte of its block must repeat (a built-in node's checks
    /// read its constants).
    views_decide: bool,
}

impl ReplayFacts {
    pub(super) fn clear(&mut self) {
        self.transients.clear();
        self.replayable_calls.clear();
    }

    /// Transient resource `index` was made as `origin` says.
    #[inline(always)]
    pub(super) fn note_transient(&mut self, index: usize, origin: TransientOrigin) {
        set_fact(&mut self.transients, index, origin);
    }

    /// Resource `index` was named or marked: its record is no longer the description's alone.
    pub(super) fn forget_transient(&mut self, index: usize) {
        if let Some(entry) = self.transients.get_mut(index) {
            *entry = None;
        }
    }

    /// Node `index` may be replayed; `resources` resources were made before it, and
    /// `views_decide` as [`ReplayableCall::views_decide`].
    #[inline(always)]
    pub(super) fn note_replayable_call(
        &mut self,
        index: usize,
        resources: usize,
        views_decide: bool,
    ) {
        let call = ReplayableCall {
            resources_before: resources as u32,
            views_decide,
        };
        set_fact(&mut self.replayable_calls, index, call);
    }

    /// The facts of the first `resources` resources and `nodes` nodes of `other`.
    fn extend_from_prefix(&mut self, other: &ReplayFacts, resources: usize, nodes: usize) {
        let entries = &other.transients;
        self.transients
            .extend_from_slice(&entries[..resources.min(entries.len())]);
        let calls = &other.replayable_calls;
        self.replayable_calls
            .extend_from_slice(&calls[..nodes.min(calls.len())]);
    }
}

/// Sets record `index`'s fact (records are noted in order; those skipped have none).
#[inline(always)]
fn set_fact<T: Copy>(facts: &mut Vec<Option<T>>, index: usize, fact: T) {
    facts.resize(index, None);
    facts.push(Some(fact));
}

/// How far the frame being recorded has repeated the last one (see the module documentation).
#[derive(Debug, Default)]
pub(super) struct Replay {
    /// The frame so far is the last frame's first `resources` resources and `nodes` nodes
    /// (with their accesses and argument blocks); the frame's own arrays are empty.
    pub(super) active: bool,
    pub(super) resources: usize,
    pub(super) nodes: usize,
}

impl GraphBuilder {
    /// How many resources the frame has made so far.
    #[inline(always)]
    pub(super) fn resource_count(&self) -> usize {
        if self.replay.active {
            self.replay.resources
        } else {
            self.graph.resources.len()
        }
    }

    /// Resource record `index` of the frame so far.
    #[inline]
    pub(super) fn resource_record(&self, index: usize) -> Option<&crate::graph::ResourceRecord> {
        if self.replay.active {
            self.previous.resources[..self.replay.resources].get(index)
        } else {
            self.graph.resources.get(index)
        }
    }

    /// Ends a replay, if one runs: the frame's arrays get the records replayed so far.
    #[inline(always)]
    pub(super) fn settle(&mut self) {
        if self.replay.active {
            self.end_replay();
        }
    }

    /// Copies the records replayed so far into the frame and stops replaying.
    #[cold]
    #[inline(never)]
    pub(super) fn end_replay(&mut self) {
        let Replay {
            resources, nodes, ..
        } = std::mem::take(&mut self.replay);
        let previous = &self.previous;
        let (accesses, args) = previous.nodes[..nodes]
            .last()
            .map_or((0, 0), |last| (last.accesses.end, last.args.end));
        let graph = &mut self.graph;
        graph
            .resources
            .extend_from_slice(&previous.resources[..resources]);
        graph.nodes.extend_from_slice(&previous.nodes[..nodes]);
        graph
            .accesses
            .extend_from_slice(&previous.accesses[..accesses as usize]);
        graph
            .args
            .extend_from_slice(&previous.args[..args as usize]);
        self.replay_facts
            .extend_from_prefix(&self.previous_replay_facts, resources, nodes);
        self.resource_facts.truncate(resources);
        // Each replayed resource's key was its first use (see the module documentation).
        for record in &self.previous.resources[..resources] {
            self.frame_keys.unique(record.identity_key);
        }
    }

    /// Replays a script's transient resource, or `None` (nothing changed) when the last
    /// frame's resource at this index was not made from the same description.
    #[inline(always)]
    pub(super) fn replay_script_resource(
        &mut self,
        desc: &RpslResourceDesc,
        identity_key: u64,
    ) -> Option<[u8; VIEW_BYTES]> {
        let index = self.replay.resources;
        let Some(TransientOrigin::Script(entry)) =
            *self.previous_replay_facts.transients.get(index)?
        else {
            return None;
        };
        let known = self.script_descs.entry_holding(entry, desc)?;
        if self.previous.resources.get(index)?.identity_key != identity_key {
            return None;
        }
        let view = known.default_view_of(index);
        self.replay.resources = index + 1;
        Some(view)
    }

    /// Replays a transient resource made through the builder's API, or `None` (nothing
    /// changed) when the last frame's resource at this index was not made so from the same
    /// description with the same identity key.
    #[inline]
    pub(super) fn replay_api_resource(
        &mut self,
        desc: &crate::resource::ResourceDesc,
        identity_key: u64,
    ) -> Option<(ResourceId, crate::resource::ResourceDesc)> {
        let index = self.replay.resources;
        if *self.previous_replay_facts.transients.get(index)? != Some(TransientOrigin::Api) {
            return None;
        }
        let (validated, _) = self.validated_descs.validate(desc).ok()?;
        let record = self.previous.resources.get(index)?;
        if (record.desc != validated) | (record.identity_key != identity_key) {
            return None;
        }
        self.replay.resources = index + 1;
        Some((ResourceId::from_index(index), validated))
    }

    /// Replays an imported external resource (identity key `key` as passed), or `None` when
    /// the last frame's resource at this index is not the same import (its storage entry may
    /// have been renewed then, as recording it will do anyway).
    pub(super) fn replay_external(
        &mut self,
        param_name: &str,
        desc: &crate::resource::ResourceDesc,
        access: Option<crate::decl::AccessDesc>,
        key: u64,
    ) -> Option<ResourceId> {
        let index = self.replay.resources;
        let record = self.previous.resources.get(index)?;
        let same = record.external
            && record.storage.is_some()
            && record.identity_key == key
            && record.desc == *desc
            && record.external_access == access
            && record.name.as_deref() == Some(param_name);
        if !same {
            return None;
        }
        let (slot, frames_alive) = self.storage_for(key, desc, true);
        let record = &mut self.previous.resources[index];
        if record.storage != Some(slot) {
            return None;
        }
        record.frames_alive = frames_alive;
        self.replay.resources = index + 1;
        Some(ResourceId::from_index(index))
    }

    /// Replays a node call, or `None` (nothing changed) when it is not the last frame's call at
    /// this index in every way that decides its records.
    #[inline(always)]
    pub(super) fn replay_call(
        &mut self,
        decl_id: DeclId,
        args: &[u8],
        flags: CallFlags,
        identity_key: u64,
    ) -> Option<NodeId> {
        let index = self.replay.nodes;
        let replayable = (*self.previous_replay_facts.replayable_calls.get(index)?)?;
        let previous = self.previous.nodes.get_mut(index)?;
        if (previous.decl != decl_id)
            | (previous.flags != flags)
            | (replayable.resources_before as usize != self.replay.resources)
        {
            return None;
        }
        let block = self
            .previous
            .args
            .get_mut(previous.args.start as usize..previous.args.end as usize)?;
        let incoming = args.get(..block.len())?;
        if incoming != block {
            // Constants may differ where the views alone decide the records; the views must not.
            if !replayable.views_decide {
                return None;
            }
            let plan = self.call_plans.get(decl_id.index())?;
            for slot in plan.slots.iter() {
                let at = slot.at as usize..slot.at as usize + VIEW_BYTES;
                if incoming.get(at.clone())? != block.get(at)? {
                    return None;
                }
            }
            block.copy_from_slice(incoming);
        }
        previous.identity_key = identity_key;
        self.replay.nodes = index + 1;
        Some(NodeId::from_index(index))
    }

    /// [`GraphBuilder::finish`] of a frame that replayed the last one to its end: the last
    /// frame's graph becomes this frame's. `false` (nothing changed) when the frame made fewer
    /// records, or the last frame had dependencies, subgraphs or barriers.
    pub(super) fn finish_replay(&mut self) -> bool {
        let previous = &self.previous;
        let whole = (self.replay.resources == previous.resources.len())
            & (self.replay.nodes == previous.nodes.len())
            & previous.explicit_deps.is_empty()
            & previous.subgraphs.is_empty()
            & (previous.barrier_count == 0);
        if !whole {
            return false;
        }
        self.replay = Replay::default();
        let frame = self.graph.frame_index;
        std::mem::swap(&mut self.graph, &mut self.previous);
        std::mem::swap(&mut self.replay_facts, &mut self.previous_replay_facts);
        self.graph.frame_index = frame;
        true
    }
}

#[cfg(test)]
#[path = "replay_tests.rs"]
mod tests;
