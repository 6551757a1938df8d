//! The render graph of rpsl: the data model, the [`GraphBuilder`] the VM records each frame
//! through, the JSON graph dump and the frame compiler.
//!
//! **Architecture Invariant**: this crate knows nothing of the frontend, the VM or Vulkan. It
//! expresses barriers in Vulkan terms with its own plain enums and bit sets holding Vulkan's
//! numeric values, and reaches a GPU only through a backend trait.

#![deny(missing_docs)]
#![allow(
    clippy::needless_range_loop,
    reason = "index loops over parallel per-node and per-access arrays read clearer"
)]

mod args_writer;
pub mod backend;
mod build_error;
mod builder;
mod builtin_call;
mod builtins;
mod clear_pattern;
pub mod compile;
mod decl;
mod dump;
mod format;
mod graph;
mod graph_limits;
mod ids;
mod json;
mod node_args;
mod resource;
pub mod shapes;
mod transfer_check;
mod view;
mod view_format_check;
pub mod vk;

pub use args_writer::ArgsWriter;
pub use backend::{Backend, BackendError, NullBackend, NullCommand};
pub use builder::{external_key, mix_key, BuildError, GraphBuilder};
pub use builtin_call::{
    BufferRegion, BufferTextureCopy, BuiltinArgsError, BuiltinCall, ClearBuffer, ClearColor,
    ClearColorRegions, ClearDepthStencil, ClearDepthStencilRegions, ClearRects, ClearTexture,
    CopyBuffer, CopyTexture, Resolve, StorageClearValue, TextureRegion, ViewArg,
};
pub use builtins::{builtin_declarations, BuiltinNode};
pub use clear_pattern::{
    buffer_clear_pattern, option_clear_value, texture_clear, texture_region_clear_value,
    ClearValue, TextureClear, CLEAR_UAV_FLOAT, CLEAR_UAV_UINT,
};
pub use compile::deps::{DepGraph, EdgeKind};
pub use compile::{
    Barrier, BarrierBatch, ColorAttachment, ColorAttachments, CompileError, CompileOptions,
    CompiledFrame, DepthStencilAttachment, DiscardFlags, FrameCompiler, LoadOp, MemoryStats,
    Placement, QueueWait, RegionRef, RenderPass, SchedulePreference, ScissorRect, ScissorRects,
    StoreOp, Viewport, Viewports,
};
pub use decl::{
    AccessDesc, AccessFlags, AccessMode, NodeDeclDesc, ParamDesc, QueueClass, ScalarType,
    SemanticKind, StructField, StructType, ValueType, ViewKind, ViewSlot,
};
pub use dump::{dump_frame_json, write_frame_json, DumpWriter};
pub use format::{Format, FormatInfo};
pub use graph::{
    AccessRange, AccessRecord, CallFlags, NodeRecord, RecordedGraph, ResourceRecord, SubgraphRecord,
};
pub use graph_limits::{GraphLimit, GraphLimits};
pub use ids::{DeclId, NodeId, ResourceId, StorageSlot};
pub use json::JsonWriter;
pub use node_args::{parse_arg_path, ArgField, ArgPathStep, FromArgBytes, NodeArgError, NodeArgs};
pub use resource::{
    ResourceDesc, ResourceError, ResourceFlags, ResourceKind, RpslResourceDesc,
    ALLOCATION_ALIGNMENT, MAX_ARRAY_LAYERS, MAX_BUFFER_BYTES, MAX_TEMPORAL_LAYERS,
    MAX_TEXTURE_DIMENSION_2D, MAX_TEXTURE_DIMENSION_3D,
};
pub use view::{
    BufferView, PlaneMask, SubresourceBox, TextureRange, TextureView, ViewRangeError,
    IDENTITY_COMPONENT_MAPPING, NULL_RESOURCE, REMAINING, VIEW_BYTES,
};
pub use view_format_check::{
    check_view_format, view_format_compatible, FormatClass, FormatUse, ViewFormatError,
};
