//! What a node declaration says about where it runs and what its parameters hold: the queue
//! class (`graphics`, `compute`, `copy`) and the kind of view in an access slot.

/// The queue class a node needs (`graphics node`, `compute node`, `copy node`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default, PartialOrd, Ord)]
pub enum QueueClass {
    /// `graphics node` (the default).
    #[default]
    Graphics,
    /// `compute node`.
    Compute,
    /// `copy node` (transfer).
    Copy,
}

impl QueueClass {
    /// The keyword, also the dump's name (`graphics`, `compute`, `copy`).
    #[inline]
    pub fn name(self) -> &'static str {
        match self {
            QueueClass::Graphics => "graphics",
            QueueClass::Compute => "compute",
            QueueClass::Copy => "copy",
        }
    }
}

/// Which kind of view a parameter slot holds.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ViewKind {
    /// A `texture` ([`crate::TextureView`]).
    Texture,
    /// A `buffer` ([`crate::BufferView`]).
    Buffer,
}
