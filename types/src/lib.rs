//! The data model of rpsl.h, in one place: what a script's values mean to the render graph.
//!
//! Every crate of rpsl builds on these definitions (as wgpu-core and wgpu-hal build on
//! wgpu-types): the frontend checks access attributes against [`AccessFlags`]' table, the VM moves
//! [`RpslResourceDesc`]s and [`ViewBytes`] across its host interface, and the runtime decodes them
//! into [`ResourceDesc`], [`TextureView`] and [`BufferView`].
//!
//! | concept | module |
//! |---|---|
//! | resource description (rpsl.h's bytes and the decoded form), type, flags, limits | [`resource`] |
//! | formats (`RPS_FORMAT`) and their facts | [`format`] |
//! | texture and buffer views, their byte layout and subresource ranges | [`view`] |
//! | access modes, access flags (shader stages included), semantics | [`access`] |
//! | queue classes, view kinds | [`node`] |
//! | typed ids ([`define_id!`]) and [`ResourceId`] | [`id`] |
//!
//! **Architecture Invariant**: a leaf crate. It depends on nothing but `std` and knows nothing of
//! the script language, the bytecode, the render graph or Vulkan.

#![deny(missing_docs)]

pub mod access;
pub mod format;
pub mod id;
pub mod node;
pub mod resource;
pub mod view;

pub use access::{AccessDesc, AccessFlags, AccessMode, SemanticKind};
pub use format::{Format, FormatInfo};
pub use id::ResourceId;
pub use node::{QueueClass, ViewKind};
pub use resource::{
    ResourceDesc, ResourceError, ResourceFlags, ResourceKind, RpslResourceDesc,
    ALLOCATION_ALIGNMENT, MAX_ARRAY_LAYERS, MAX_BUFFER_BYTES, MAX_TEMPORAL_LAYERS,
    MAX_TEXTURE_DIMENSION_2D, MAX_TEXTURE_DIMENSION_3D, RESOURCE_DESC_SIZE,
};
pub use view::{
    view_offsets, view_resource, BufferView, PlaneMask, TextureRange, TextureView, ViewBytes,
    ViewRangeError, CUBEMAP_VIEW_FLAG, IDENTITY_COMPONENT_MAPPING, NULL_RESOURCE, NULL_VIEW,
    REMAINING, VIEW_BYTES,
};
