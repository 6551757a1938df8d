//! The host interface: the few coarse calls a script makes into the render-graph builder, the
//! plain-data layouts they exchange (rpsl.h's `ResourceDesc` and views), and [`RecordingHost`], a
//! host for tests that records every call.
//!
//! **API Boundary**: this crate does not depend on `rpsl-runtime`. The root crate implements
//! [`Host`] with an adapter over the runtime's `GraphBuilder`; views cross the boundary as the
//! 40 bytes of rpsl.h's `texture`/`buffer` layout ([`ViewBytes`]), so the adapter is a copy.
//! The interpreter and the JIT call the same trait, which keeps their recorded graphs identical.

use crate::entities::{LocId, NodeDeclId};
use crate::ops::MarkerKind;
use std::fmt;

/// Size of a `texture` or `buffer` view in memory.
pub const VIEW_SIZE: u32 = 40;
/// Size of a `ResourceDesc` in memory.
pub const RESOURCE_DESC_SIZE: u32 = 36;
/// Node-call flag: the call was made with `async` (a hint to run on another queue).
pub const NODE_FLAG_ASYNC: u32 = 1;

/// The bytes of a view: rpsl.h's `texture` (resource id, view format, temporal layer, flags,
/// base mip, mip count, base layer, layer count: `u32`s at 0..32; min LOD `f32` at 32; component
/// mapping `u32` at 36) or `buffer` (resource id, view format, temporal layer, flags at 0..16;
/// offset `u64` at 16; size `u64` at 24; stride `u32` at 32; 4 bytes padding). Little-endian.
pub type ViewBytes = [u8; VIEW_SIZE as usize];

/// Byte offsets of view fields (see [`ViewBytes`]).
pub mod view_offsets {
    /// Resource id (`u32`, `u32::MAX` for `null`).
    pub const RESOURCE: u32 = 0;
    /// View format (`u32`).
    pub const VIEW_FORMAT: u32 = 4;
    /// Temporal layer (`u32`).
    pub const TEMPORAL_LAYER: u32 = 8;
    /// View flags (`u32`).
    pub const FLAGS: u32 = 12;
    /// Texture: base mip level (`u32`).
    pub const BASE_MIP: u32 = 16;
    /// Texture: mip level count (`u32`).
    pub const MIP_COUNT: u32 = 20;
    /// Texture: base array layer (`u32`).
    pub const BASE_LAYER: u32 = 24;
    /// Texture: array layer count (`u32`).
    pub const LAYER_COUNT: u32 = 28;
    /// Texture: min LOD clamp (`f32`).
    pub const MIN_LOD: u32 = 32;
    /// Texture: component mapping (`u32`).
    pub const COMPONENT_MAPPING: u32 = 36;
    /// Buffer: byte offset (`u64`).
    pub const OFFSET: u32 = 16;
    /// Buffer: byte size (`u64`).
    pub const SIZE: u32 = 24;
    /// Buffer: structure stride (`u32`).
    pub const STRIDE: u32 = 32;
}

/// The `null` view: resource id `u32::MAX`, everything else zero.
pub const NULL_VIEW: ViewBytes = {
    let mut bytes = [0u8; VIEW_SIZE as usize];
    bytes[0] = 0xFF;
    bytes[1] = 0xFF;
    bytes[2] = 0xFF;
    bytes[3] = 0xFF;
    bytes
};

/// The component mapping of a default texture view: the identity swizzle (R, G, B, A from
/// channels 0, 1, 2, 3, one byte each), what the host gives the view a `create_*` call returns
/// and what `texture.base()` returns (`0x0302_0100`, as the runtime's view of the same name).
pub const IDENTITY_COMPONENT_MAPPING: u32 = 0x0302_0100;

/// rpsl.h's `ResourceDesc`: nine `u32` fields, in this order, little-endian in VM memory.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
#[repr(C)]
pub struct ResourceDesc {
    /// `RPS_RESOURCE_TYPE`: 0 buffer, 1 tex1d, 2 tex2d, 3 tex3d.
    pub ty: u32,
    /// Number of temporal layers.
    pub temporal_layers: u32,
    /// `RPS_RESOURCE_FLAGS`.
    pub flags: u32,
    /// Width, or the low 32 bits of a buffer's byte size.
    pub width: u32,
    /// Height, or the high 32 bits of a buffer's byte size.
    pub height: u32,
    /// Depth (3D) or array size (1D/2D).
    pub depth_or_array_size: u32,
    /// Mip levels.
    pub mip_levels: u32,
    /// `RPS_FORMAT`.
    pub format: u32,
    /// Sample count.
    pub sample_count: u32,
}

impl ResourceDesc {
    /// The fields in declaration order.
    pub fn to_words(&self) -> [u32; 9] {
        [
            self.ty,
            self.temporal_layers,
            self.flags,
            self.width,
            self.height,
            self.depth_or_array_size,
            self.mip_levels,
            self.format,
            self.sample_count,
        ]
    }

    /// Reads the fields in declaration order.
    pub fn from_words(w: [u32; 9]) -> ResourceDesc {
        ResourceDesc {
            ty: w[0],
            temporal_layers: w[1],
            flags: w[2],
            width: w[3],
            height: w[4],
            depth_or_array_size: w[5],
            mip_levels: w[6],
            format: w[7],
            sample_count: w[8],
        }
    }

    /// The in-memory bytes.
    pub fn to_bytes(&self) -> [u8; RESOURCE_DESC_SIZE as usize] {
        let mut bytes = [0u8; RESOURCE_DESC_SIZE as usize];
        for (chunk, word) in bytes.chunks_exact_mut(4).zip(self.to_words()) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        bytes
    }

    /// Reads the in-memory bytes.
    pub fn from_bytes(bytes: &[u8; RESOURCE_DESC_SIZE as usize]) -> ResourceDesc {
        let mut words = [0u32; 9];
        for (word, chunk) in words.iter_mut().zip(bytes.chunks_exact(4)) {
            *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        ResourceDesc::from_words(words)
    }
}

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
        desc: &ResourceDesc,
    ) -> Result<ViewBytes, HostError>;

    /// Describes the resource a view refers to.
    fn describe_resource(
        &mut self,
        site: CallSite,
        view: &ViewBytes,
    ) -> Result<ResourceDesc, HostError>;

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
        desc: ResourceDesc,
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
    pub resources: Vec<ResourceDesc>,
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
        desc: &ResourceDesc,
    ) -> Result<ViewBytes, HostError> {
        if desc.width == 0 {
            return Err(HostError::new("invalid resource description: width is 0"));
        }
        let id = self.resources.len() as u32;
        self.resources.push(*desc);
        self.events
            .push(HostEvent::CreateResource { site, desc: *desc });
        let mut view = [0u8; VIEW_SIZE as usize];
        view[0..4].copy_from_slice(&id.to_le_bytes());
        view[20..24].copy_from_slice(&desc.mip_levels.max(1).to_le_bytes());
        view[28..32].copy_from_slice(&desc.depth_or_array_size.max(1).to_le_bytes());
        Ok(view)
    }

    fn describe_resource(
        &mut self,
        site: CallSite,
        view: &ViewBytes,
    ) -> Result<ResourceDesc, HostError> {
        let resource = u32::from_le_bytes([view[0], view[1], view[2], view[3]]);
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
