//! Typed `u32` ids: [`define_id!`], the one macro that every crate's ids come from (the HIR's
//! functions and nodes, the bytecode's registers and blocks, the render graph's resources and
//! nodes), and [`ResourceId`], the id rpsl.h's views carry.

/// Defines a typed `u32` id: a `Copy` newtype with a public field, ordered and hashable, whose
/// `Display` is a prefix and the number (`fn3`, `r7`).
///
/// Every id gets `from_u32` / `as_u32` (the raw number), `index` / `from_index` (the number as
/// an index into the dense table the id belongs to). An id is only meaningful next to that table.
///
/// ```
/// rpsl_types::define_id!(
///     /// A lane of a demo table.
///     LaneId,
///     "lane"
/// );
/// let lane = LaneId::from_index(4);
/// assert_eq!((lane.as_u32(), lane.index(), lane.to_string()), (4, 4, "lane4".to_string()));
/// ```
#[macro_export]
macro_rules! define_id {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
        pub struct $name(pub u32);

        impl $name {
            /// The id with this raw number.
            #[inline]
            pub const fn from_u32(raw: u32) -> Self {
                Self(raw)
            }

            /// The raw number of this id.
            #[inline]
            pub const fn as_u32(self) -> u32 {
                self.0
            }

            /// The id as an index into its dense table.
            #[inline]
            pub const fn index(self) -> usize {
                self.0 as usize
            }

            /// The id with the given dense index.
            #[inline]
            pub const fn from_index(index: usize) -> Self {
                Self(index as u32)
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_and_print_with_their_prefix() {
        let id = ResourceId::from_u32(12);
        assert_eq!(id, ResourceId(12));
        assert_eq!(ResourceId::from_index(id.index()), id);
        assert_eq!(id.to_string(), "r12");
        assert!(ResourceId(3) < ResourceId(4));
        assert_eq!(ResourceId::default(), ResourceId(0));
    }
}
