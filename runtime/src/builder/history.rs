//! Cross-frame storage handed from one builder to the next when a script is reloaded.
//!
//! A reloaded program records through a new [`GraphBuilder`], and its identity keys change
//! with any edit (they carry the location of the creating instruction). What stays is what the
//! script calls a resource: the variable its creation site initialises (and the how-many-th
//! creation at that site it is), or an external resource's parameter. [`StorageHistory`] keeps
//! the last frame's persistent, temporal and external storage under that name; the next
//! builder's first frame gives a resource created under the same name with the same
//! description (temporal count included) the same [`StorageSlot`] and continues its
//! `frames_alive`, so backends keep its data and temporal slices keep rotating. A changed
//! description, a renamed variable or a skipped frame starts a new slot: the history is
//! dropped, as between two frames of one builder.

use super::{mix_key, GraphBuilder, StorageEntry};
use crate::ids::StorageSlot;
use std::collections::HashMap;

/// The persistent, temporal and external storage of a builder's last frame, by the name the
/// script gives each resource (see the module documentation).
///
/// ```
/// use rpsl_runtime::*;
/// let names = std::sync::Arc::new(vec![Some("history".to_string())]);
/// let desc = ResourceDesc {
///     temporal_layers: 2,
///     ..ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8, 8)
/// };
/// let mut old = GraphBuilder::new();
/// old.set_site_names(names.clone());
/// old.begin_frame(0);
/// old.create_resource(desc, 0 << 32).unwrap();
/// old.finish().unwrap();
///
/// // The edited program creates the same variable at another location (key 7 << 32).
/// let mut new = GraphBuilder::new();
/// new.set_site_names(std::sync::Arc::new(vec![None; 7].into_iter().chain([Some("history".into())]).collect()));
/// new.continue_history(old.storage_history());
/// new.begin_frame(1);
/// let id = new.create_resource(desc, 7 << 32).unwrap();
/// let graph = new.finish().unwrap();
/// assert_eq!(graph.resources[id.index()].frames_alive, 1);
/// assert_eq!(graph.resources[id.index()].storage, old.graph().resources[0].storage);
/// ```
#[derive(Clone, Debug, Default)]
pub struct StorageHistory {
    /// By reload identity ([`GraphBuilder::reload_identity`]).
    entries: HashMap<u64, StorageEntry>,
    /// The first slot the old builder never gave out: new storage starts there, so no fresh
    /// resource inherits a slot (and a backend's data) of the old program.
    next_slot: u32,
}

impl StorageHistory {
    /// How many resources' storage the history holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the history holds no storage.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// FNV-1a of a name (stable across runs and programs).
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
        (hash ^ byte as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The salt of identities made from a variable name.
const NAMED_SALT: u64 = 0x4E41_4D45_4453_4954;

impl GraphBuilder {
    /// The identity of the resource created with `key` that survives a reload: from the
    /// variable its creation site initialises and the occurrence count of the key's low 32
    /// bits; `None` for a site that names no variable.
    pub(super) fn reload_identity(&self, key: u64) -> Option<u64> {
        let name = self
            .graph
            .site_names
            .get((key >> 32) as usize)?
            .as_deref()?;
        Some(mix_key(name_hash(name), NAMED_SALT ^ (key & 0xFFFF_FFFF)))
    }

    /// The storage of the last finished frame (its persistent, temporal and external
    /// resources), for the builder of a reloaded program ([`GraphBuilder::continue_history`]).
    /// Resources whose name is ambiguous (two with one identity) are left out.
    pub fn storage_history(&self) -> StorageHistory {
        let mut entries = HashMap::new();
        let mut ambiguous = Vec::new();
        if self.previous_finished && !self.recording {
            for record in &self.graph.resources {
                let Some(entry) = self.storage.get(&record.identity_key) else {
                    continue;
                };
                let identity = if record.external {
                    // An external's key is its parameter name's hash: stable already.
                    Some(record.identity_key)
                } else {
                    self.reload_identity(record.identity_key)
                };
                if let Some(identity) = identity {
                    if entries.insert(identity, *entry).is_some() {
                        ambiguous.push(identity);
                    }
                }
            }
        }
        for identity in ambiguous {
            entries.remove(&identity);
        }
        StorageHistory {
            entries,
            next_slot: self.next_slot,
        }
    }

    /// Continues `history` (from the builder of the program this one replaces): in the next
    /// frame, a resource with the same name and description as one of the history's, made in
    /// the frame right after the history's, keeps its storage slot and frame count. Call before
    /// the first frame.
    pub fn continue_history(&mut self, history: StorageHistory) {
        self.next_slot = self.next_slot.max(history.next_slot);
        self.carried = history.entries;
    }

    /// The carried storage `key` continues this frame, if any (taken: one resource claims it).
    pub(super) fn claim_carried(
        &mut self,
        key: u64,
        desc: &crate::resource::ResourceDesc,
        external: bool,
    ) -> Option<(StorageSlot, u64)> {
        if self.carried.is_empty() {
            return None;
        }
        let identity = if external {
            key
        } else {
            self.reload_identity(key)?
        };
        let frame = self.graph.frame_index;
        let entry = self.carried.remove(&identity)?;
        let continues = entry.desc == *desc && entry.last_frame.checked_add(1) == Some(frame);
        continues.then_some((entry.slot, entry.frames_alive + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;
    use crate::resource::ResourceDesc;
    use std::sync::Arc;

    fn temporal(width: u32, layers: u32) -> ResourceDesc {
        ResourceDesc {
            temporal_layers: layers,
            ..ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, width, 4)
        }
    }

    /// A builder whose site `loc` names `name` (and no other site names anything).
    fn builder_naming(names: &[(u32, &str)]) -> GraphBuilder {
        let len = names
            .iter()
            .map(|&(loc, _)| loc as usize + 1)
            .max()
            .unwrap_or(0);
        let mut sites = vec![None; len];
        for &(loc, name) in names {
            sites[loc as usize] = Some(name.to_string());
        }
        let mut builder = GraphBuilder::new();
        builder.set_site_names(Arc::new(sites));
        builder
    }

    /// Runs frames `frames` creating `desc` at `key`; the (slot, frames_alive) of each.
    fn frames(
        builder: &mut GraphBuilder,
        frames: std::ops::Range<u64>,
        key: u64,
        desc: ResourceDesc,
    ) -> Vec<(u32, u64)> {
        frames
            .map(|frame| {
                builder.begin_frame(frame);
                let id = builder.create_resource(desc, key).unwrap();
                let record = builder.finish().unwrap().resources[id.index()].clone();
                (record.storage.unwrap().0, record.frames_alive)
            })
            .collect()
    }

    #[test]
    fn a_resource_of_the_same_name_and_description_continues_its_history() {
        let mut old = builder_naming(&[(2, "history")]);
        assert_eq!(
            frames(&mut old, 0..3, 2 << 32, temporal(8, 2)),
            [(0, 0), (0, 1), (0, 2)]
        );
        // The edit moved the creation to another location; the name stays.
        let mut new = builder_naming(&[(9, "history")]);
        new.continue_history(old.storage_history());
        assert_eq!(
            frames(&mut new, 3..5, 9 << 32, temporal(8, 2)),
            [(0, 3), (0, 4)]
        );
    }

    #[test]
    fn a_changed_description_or_name_or_a_skipped_frame_drops_the_history() {
        let cases: [(&str, ResourceDesc, u64); 4] = [
            ("history", temporal(16, 2), 3),
            ("history", temporal(8, 3), 3),
            ("renamed", temporal(8, 2), 3),
            ("history", temporal(8, 2), 4),
        ];
        for (name, desc, first_frame) in cases {
            let mut old = builder_naming(&[(2, "history")]);
            frames(&mut old, 0..3, 2 << 32, temporal(8, 2));
            let mut new = builder_naming(&[(2, name)]);
            new.continue_history(old.storage_history());
            // A fresh slot past the old builder's: no backend data of the old program is taken.
            assert_eq!(
                frames(&mut new, first_frame..first_frame + 2, 2 << 32, desc),
                [(1, 0), (1, 1)],
                "{name} {desc:?} from frame {first_frame}"
            );
        }
    }

    #[test]
    fn externals_continue_and_ambiguous_names_do_not() {
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8, 8);
        // Two sites name a `t` (two scopes' variables).
        let mut old = builder_naming(&[(1, "t"), (3, "t")]);
        old.begin_frame(0);
        old.import_external("bb", desc).unwrap();
        old.create_resource(temporal(8, 2), 1 << 32).unwrap();
        old.create_resource(temporal(8, 2), 3 << 32).unwrap();
        old.finish().unwrap();
        let history = old.storage_history();
        assert_eq!(history.len(), 1);
        let mut new = builder_naming(&[(1, "t")]);
        new.continue_history(history);
        new.begin_frame(1);
        let bb = new.import_external("bb", desc).unwrap();
        let t = new.create_resource(temporal(8, 2), 1 << 32).unwrap();
        let graph = new.finish().unwrap();
        let slot_age = |id: crate::ResourceId| {
            let record = &graph.resources[id.index()];
            (record.storage.unwrap().0, record.frames_alive)
        };
        assert_eq!(slot_age(bb), (0, 1));
        assert_eq!(slot_age(t), (3, 0));
    }
}
