//! The host interface: the few coarse calls a script makes into the render-graph builder, and
//! [`RecordingHost`], a host for tests that records every call.
//!
//! The calls exchange rpsl.h's plain data, defined once in `rpsl-types` and re-exported here:
//! [`RpslResourceDesc`] (a `ResourceDesc` as its nine `u32`s) and views as their 40 bytes
//! ([`ViewBytes`], fields at [`view_offsets`]).
//!
//! **API Boundary**: this crate does not depend on `rpsl-runtime`. The root crate implements
//! [`Host`] with an adapter over the runtime's `GraphBuilder`, which reads the same types.
//! The interpreter and the JIT call the same trait, which keeps their recorded graphs identical.

use crate::entities::{LocId, NodeDeclId};
use crate::ops::MarkerKind;
use rpsl_types::VIEW_BYTES;
use std::fmt;

pub use rpsl_types::{
    view_offsets, RpslResourceDesc, ViewBytes, IDENTITY_COMPONENT_MAPPING, NULL_VIEW,
    RESOURCE_DESC_SIZE,
};

/// Size of a `texture` or `buffer` view in memory, as the `u32` the bytecode's sizes are.
pub const VIEW_SIZE: u32 = VIEW_BYTES as u32;
/// Node-call flag: the call was made with `async` (a hint to run on another queue).
pub const NODE_FLAG_ASYNC: u32 = 1;

/// Where a host call comes from, with a key that identifies it across frames.
///
/// `key = (loc << 32) | n`, where `n` counts earlier host calls at the same location in this run.
/// The same script taking the same path therefore produces the same keys every frame, which is
/// what persistent resources and the compiled-frame cache need.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CallSite {
    /// The location of the host-call instruction.
    pub loc: LocId,
    /// The identity key.
    pub key: u64,
}

impl CallSite {
    /// The `count`-th host call (from 0) at `loc` in this run.
    pub fn new(loc: LocId, count: u32) -> CallSite {
        CallSite {
            loc,
            key: (loc.as_u32() as u64) << 32 | count as u64,
        }
    }

    /// The location of the call a key came from (its upper 32 bits).
    ///
    /// ```
    /// use rpsl_vm::{CallSite, LocId};
    /// let site = CallSite::new(LocId::from_u32(7), 3);
    /// assert_eq!(CallSite::loc_of_key(site.key), LocId::from_u32(7));
    /// ```
    pub fn loc_of_key(key: u64) -> LocId {
        LocId::from_u32((key >> 32) as u32)
    }
}

/// A failed host call; it ends the run as a located [`crate::RuntimeError`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct HostError {
    /// What went wrong, without a trailing period (`invalid resource description: width is 0`).
    pub message: String,
}

impl HostError {
    /// Makes an error from a message.
    pub fn new(message: impl Into<String>) -> HostError {
        HostError {
            message: message.into(),
        }
    }
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The calls a script makes into its embedder. Implementations must not panic on any input.
pub trait Host {
    /// Creates a resource; returns its default (whole-resource) view.
    fn create_resource(
        &mut self,
        site: CallSite,
        desc: &RpslResourceDesc,
    ) -> Result<ViewBytes, HostError>;

    /// Describes the resource a view refers to.
    fn describe_resource(
        &mut self,
        site: CallSite,
        view: &ViewBytes,
    ) -> Result<RpslResourceDesc, HostError>;

    /// Records a node call with its flattened argument block; returns the node id.
    fn call_node(
        &mut self,
        site: CallSite,
        decl: NodeDeclId,
        args: &[u8],
        flags: u32,
    ) -> Result<u32, HostError>;

    /// A scheduler marker (`sch_barrier`, subgraph begin/end).
    fn marker(&mut self, site: CallSite, kind: MarkerKind, arg: u32) -> Result<(), HostError>;
}

/// One call seen by [`RecordingHost`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum HostEvent {
    /// `create_resource`; the new resource id is its index among created resources.
    CreateResource {
        /// Call site.
        site: CallSite,
        /// The description.
        desc: RpslResourceDesc,
    },
    /// `describe_resource` of this resource id.
    DescribeResource {
        /// Call site.
        site: CallSite,
        /// Resource id read from the view.
        resource: u32,
    },
    /// `call_node`.
    CallNode {
        /// Call site.
        site: CallSite,
        /// Declaration.
        decl: NodeDeclId,
        /// Copy of the argument block.
        args: Vec<u8>,
        /// Flags.
        flags: u32,
    },
    /// A marker.
    Marker {
        /// Call site.
        site: CallSite,
        /// Which marker.
        kind: MarkerKind,
        /// Its argument.
        arg: u32,
    },
}

/// A [`Host`] that records every call; resources get ids 0, 1, 2...; node ids count node calls.
/// A description with width 0 is rejected, as the real builder would.
#[derive(Clone, Debug, Default)]
pub struct RecordingHost {
    /// Every call, in order.
    pub events: Vec<HostEvent>,
    /// Descriptions of the created resources, by id.
    pub resources: Vec<RpslResourceDesc>,
    /// Number of node calls so far.
    pub n_nodes: u32,
}

impl RecordingHost {
    /// An empty recording.
    pub fn new() -> RecordingHost {
        RecordingHost::default()
    }
}

impl Host for RecordingHost {
    fn create_resource(
        &mut self,
        site: CallSite,
        desc: &RpslResourceDesc,
    ) -> Result<ViewBytes, HostError> {
        if desc.width == 0 {
            return Err(HostError::new("invalid resource description: width is 0"));
        }
        let id = self.resources.len() as u32;
        self.resources.push(*desc);
        self.events
            .push(HostEvent::CreateResource { site, desc: *desc });
        let mut view: ViewBytes = [0u8; VIEW_BYTES];
        for (at, word) in [
            (view_offsets::RESOURCE, id),
            (view_offsets::MIP_COUNT, desc.mip_levels.max(1)),
            (view_offsets::LAYER_COUNT, desc.depth_or_array_size.max(1)),
        ] {
            view[at as usize..][..4].copy_from_slice(&word.to_le_bytes());
        }
        Ok(view)
    }

    fn describe_resource(
        &mut self,
        site: CallSite,
        view: &ViewBytes,
    ) -> Result<RpslResourceDesc, HostError> {
        let resource = rpsl_types::view_resource(view);
        let desc = self
            .resources
            .get(resource as usize)
            .copied()
            .ok_or_else(|| HostError::new(format!("invalid resource id {resource}")))?;
        self.events
            .push(HostEvent::DescribeResource { site, resource });
        Ok(desc)
    }

    fn call_node(
        &mut self,
        site: CallSite,
        decl: NodeDeclId,
        args: &[u8],
        flags: u32,
    ) -> Result<u32, HostError> {
        self.events.push(HostEvent::CallNode {
            site,
            decl,
            args: args.to_vec(),
            flags,
        });
        self.n_nodes += 1;
        Ok(self.n_nodes - 1)
    }

    fn marker(&mut self, site: CallSite, kind: MarkerKind, arg: u32) -> Result<(), HostError> {
        self.events.push(HostEvent::Marker { site, kind, arg });
        Ok(())
    }
}
