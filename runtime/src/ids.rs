//! Typed `u32` ids of the render graph: resources, nodes, node declarations and storage slots.

use std::fmt;

macro_rules! define_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as an index into dense per-frame storage.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }

            /// The id with the given dense index.
            #[inline]
            pub fn from_index(index: usize) -> Self {
                Self(index as u32)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

define_id!(
    /// A resource of one frame: the index in call order of `create_resource` / `import_external`.
    /// The same number is stored in the `Resource` field of texture and buffer views.
    ResourceId,
    "r"
);
define_id!(
    /// A node call of one frame: the call index in that frame (the dump's node `id`).
    NodeId,
    "n"
);
define_id!(
    /// A node declaration registered once per program with [`crate::GraphBuilder::declare_node`].
    DeclId,
    "decl"
);
define_id!(
    /// Backing storage of a persistent, temporal or external resource, stable across frames for a
    /// stable identity key (see [`crate::GraphBuilder::create_resource`]).
    StorageSlot,
    "slot"
);
