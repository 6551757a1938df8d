//! Resources created by scripts: [`GraphBuilder::create_script_resource`] takes a description
//! as a script passes it (rpsl.h's `ResourceDesc`, [`RpslResourceDesc`]) and returns the new
//! resource's default view. A frame creates many resources from a few distinct descriptions,
//! so what a description gives (decoded, validated, its [`ResourceFacts`], the default view of
//! a resource of it) is remembered by the description's own bytes: a transient resource of a
//! description seen before is one record appended, without decoding or validating again. Any
//! other creation (a new description, a persistent or temporal one, a frame near its resource
//! bound) takes [`GraphBuilder::create_resource_view`], which checks and reports each rule.

use super::calls::ResourceFacts;
use super::replay::TransientOrigin;
use super::valid_descs::DescMemo;
use super::{BuildError, GraphBuilder};
use crate::compile::cache::same_resource;
use crate::graph::ResourceRecord;
use crate::ids::ResourceId;
use crate::resource::{ResourceDesc, RpslResourceDesc};
use crate::view::VIEW_BYTES;
use rpsl_types::view_offsets;

/// What a script's description gives, remembered by its bytes.
#[derive(Clone, Copy, Debug)]
pub(super) struct ScriptDesc {
    /// The decoded, validated description.
    validated: ResourceDesc,
    /// Its facts for the call path.
    facts: ResourceFacts,
    /// The default view of a resource of it, with resource id 0.
    default_view: [u8; VIEW_BYTES],
}

impl ScriptDesc {
    /// The default view of resource `index` of this description.
    #[inline(always)]
    pub(super) fn default_view_of(&self, index: usize) -> [u8; VIEW_BYTES] {
        let mut view = self.default_view;
        let at = view_offsets::RESOURCE as usize;
        view[at..at + 4].copy_from_slice(&(index as u32).to_le_bytes());
        view
    }
}

impl Default for ScriptDesc {
    fn default() -> ScriptDesc {
        ScriptDesc {
            validated: ResourceDesc::default(),
            facts: ResourceFacts::default(),
            default_view: [0; VIEW_BYTES],
        }
    }
}

/// Descriptions scripts passed that made a transient resource (neither persistent nor
/// temporal: nothing outlives the frame, so no storage is looked up), by their bytes.
pub(super) type ScriptDescs = DescMemo<RpslResourceDesc, ScriptDesc>;

impl GraphBuilder {
    /// Creates a resource from a description as a script passes it (rpsl.h's layout) and
    /// returns the bytes of its default view, as [`Self::create_resource_view`] does with the
    /// decoded description. `None` when the description's resource type is not one rpsl.h
    /// defines (nothing is recorded then).
    ///
    /// ```
    /// use rpsl_runtime::*;
    /// let mut builder = GraphBuilder::new();
    /// builder.begin_frame(0);
    /// let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64);
    /// let view = builder.create_script_resource(&desc.to_rpsl(), 1).unwrap().unwrap();
    /// assert_eq!(builder.default_view_bytes(ResourceId(0)), Ok(view));
    /// assert_eq!(builder.describe(ResourceId(0)), Ok(desc));
    /// ```
    #[inline]
    pub fn create_script_resource(
        &mut self,
        desc: &RpslResourceDesc,
        identity_key: u64,
    ) -> Option<Result<[u8; VIEW_BYTES], BuildError>> {
        if self.replay.active {
            if let Some(view) = self.replay_script_resource(desc, identity_key) {
                return Some(Ok(view));
            }
            self.end_replay();
        }
        let index = self.graph.resources.len();
        // `within(GraphLimit::Resources, index + 1)` and `check_recording`, at once.
        if self.recording & (index < self.limits.max_resources as usize) {
            if let Some((entry, known)) = self.script_descs.get_entry(desc) {
                self.replay_facts
                    .note_transient(index, TransientOrigin::Script(entry));
                let identity_key = self.frame_keys.unique(identity_key);
                self.graph.resources.push(ResourceRecord {
                    desc: known.validated,
                    name: None,
                    identity_key,
                    external: false,
                    external_access: None,
                    storage: None,
                    frames_alive: 0,
                });
                self.resource_facts.push(known.facts);
                let same =
                    self.previous.resources.get(index).is_some_and(|previous| {
                        same_resource(previous, &self.graph.resources[index])
                    });
                self.differing_resources += usize::from(!same);
                return Some(Ok(known.default_view_of(index)));
            }
        }
        self.create_new_script_resource(desc, identity_key)
    }

    /// [`Self::create_script_resource`] the long way, remembering the description when it
    /// makes a resource.
    #[inline(never)]
    fn create_new_script_resource(
        &mut self,
        desc: &RpslResourceDesc,
        identity_key: u64,
    ) -> Option<Result<[u8; VIEW_BYTES], BuildError>> {
        let decoded = ResourceDesc::from_rpsl(desc)?;
        let view = self.create_resource_view(decoded, identity_key);
        // Recording and under the bound, a known description took the short way: this one is
        // new to the table.
        if view.is_ok() {
            let index = self.graph.resources.len() - 1;
            let validated = self.graph.resources[index].desc;
            if !validated.is_persistent() {
                let known = ScriptDesc {
                    validated,
                    facts: self.resource_facts[index],
                    default_view: super::default_view_bytes_of(ResourceId(0), &validated),
                };
                let entry = self.script_descs.insert(*desc, known);
                self.replay_facts
                    .note_transient(index, TransientOrigin::Script(entry));
            }
        }
        Some(view)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;
    use crate::graph_limits::GraphLimits;
    use crate::resource::ResourceFlags;

    /// The descriptions of one frame: transient ones seen before (the last two swap places
    /// from frame to frame), a persistent and a temporal one twice, an invalid one, one of no
    /// resource type, then more distinct ones than the table holds.
    fn descriptions(frame: u32) -> Vec<RpslResourceDesc> {
        let color = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64);
        let persistent = ResourceDesc {
            flags: ResourceFlags::PERSISTENT,
            ..color
        };
        let temporal = ResourceDesc {
            temporal_layers: 3,
            ..color
        };
        let full_chain = ResourceDesc {
            mip_levels: 0,
            ..ResourceDesc::tex2d(Format::R32_FLOAT, 32, 32)
        };
        let empty = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 0, 64);
        let mut no_type = color.to_rpsl();
        no_type.ty = 9;
        let swapped = if frame.is_multiple_of(2) {
            [color, full_chain]
        } else {
            [full_chain, color]
        };
        let mut descs: Vec<RpslResourceDesc> = [color, full_chain, persistent, temporal]
            .iter()
            .chain(&[persistent, temporal, empty])
            .chain(&swapped)
            .map(ResourceDesc::to_rpsl)
            .collect();
        descs.insert(7, no_type);
        descs.extend(
            (1..12).map(|width| ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, width, 8).to_rpsl()),
        );
        descs
    }

    #[test]
    fn script_descriptions_create_what_decoded_descriptions_create() {
        let mut by_script = GraphBuilder::new();
        let mut by_decoding = GraphBuilder::new();
        let mut serials = Vec::new();
        for frame in 0..4u32 {
            let descs = descriptions(frame % 2);
            // The last frame's bound falls on the second of the swapped descriptions.
            let limits = GraphLimits {
                max_resources: if frame == 3 {
                    7
                } else {
                    GraphLimits::default().max_resources
                },
                ..GraphLimits::default()
            };
            by_script.set_limits(limits);
            by_decoding.set_limits(limits);
            by_script.begin_frame(u64::from(frame));
            by_decoding.begin_frame(u64::from(frame));
            for (index, desc) in descs.iter().enumerate() {
                let key = (1 << 32) | (index as u64 % 5);
                let scripted = by_script.create_script_resource(desc, key);
                let decoded = ResourceDesc::from_rpsl(desc)
                    .map(|decoded| by_decoding.create_resource_view(decoded, key));
                assert_eq!(scripted, decoded, "frame {frame}, description {index}");
            }
            let script_graph = by_script.finish().unwrap().clone();
            let decoding_graph = by_decoding.finish().unwrap();
            assert_eq!(
                script_graph.resources, decoding_graph.resources,
                "frame {frame}"
            );
            // No frame repeats the one before (the swapped descriptions): the comparison with
            // the previous frame agrees too.
            serials.push((
                script_graph.resource_serial(),
                decoding_graph.resource_serial(),
            ));
        }
        let repeats = |pick: fn(&(u64, u64)) -> u64| -> Vec<bool> {
            serials
                .windows(2)
                .map(|w| pick(&w[0]) == pick(&w[1]))
                .collect()
        };
        assert_eq!(repeats(|s| s.0), repeats(|s| s.1));
    }
}
