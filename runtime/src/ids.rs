//! Typed `u32` ids of the render graph: resources, nodes, node declarations and storage slots.
//! The id macro and [`ResourceId`] (which views carry) are `rpsl-types`'.

pub use rpsl_types::ResourceId;

rpsl_types::define_id!(
    /// A node call of one frame: the call index in that frame (the dump's node `id`).
    NodeId,
    "n"
);
rpsl_types::define_id!(
    /// A node declaration registered once per program with [`crate::GraphBuilder::declare_node`].
    DeclId,
    "decl"
);
rpsl_types::define_id!(
    /// Backing storage of a persistent, temporal or external resource, stable across frames for a
    /// stable identity key (see [`crate::GraphBuilder::create_resource`]).
    StorageSlot,
    "slot"
);
