//! The barriers of a compiled frame: image and buffer barriers, their batches, the reference to
//! their subresources, and the semaphore waits between queues.

use crate::ids::ResourceId;
use crate::vk::{Accesses, ImageLayout, Stages};

/// One image or buffer memory barrier.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Barrier {
    /// The resource.
    pub resource: ResourceId,
    /// Subresources (mips x layers with temporal slices folded in x planes, or bytes), by
    /// reference: see [`super::CompiledFrame::barrier_region`].
    pub region: RegionRef,
    /// Source stages.
    pub src_stages: Stages,
    /// Source accesses.
    pub src_accesses: Accesses,
    /// Destination stages.
    pub dst_stages: Stages,
    /// Destination accesses.
    pub dst_accesses: Accesses,
    /// Layout before (`Undefined` discards the contents).
    pub old_layout: ImageLayout,
    /// Layout after.
    pub new_layout: ImageLayout,
    /// Queue of the previous access.
    pub src_queue: u32,
    /// Queue of the next access.
    pub dst_queue: u32,
}

// The frame's largest output stream: two 4-byte ids and six 8-byte words, no padding.
const _: () = assert!(std::mem::size_of::<Barrier>() == 56);

/// Barriers issued together before the node at execution position `position` (a position
/// equal to the node count is the end of the frame).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct BarrierBatch {
    /// Where the batch goes.
    pub position: u32,
    /// Range of its barriers in [`super::CompiledFrame::barriers`].
    pub barriers: std::ops::Range<u32>,
}

/// A semaphore wait between queues.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct QueueWait {
    /// The queue that waits.
    pub wait_queue: u32,
    /// The queue that signals.
    pub signal_queue: u32,
    /// Signal after the node at this execution position.
    pub signal_after: u32,
    /// Wait before the node at this execution position.
    pub wait_before: u32,
}

/// Where a [`Barrier`]'s subresources are: [`RegionRef::WHOLE`], the whole of its resource
/// (nearly every barrier), else an index into [`CompiledFrame::barrier_regions`]. The region
/// itself stays out of the barrier record, which keeps it at 56 bytes instead of 104 (a
/// 10k-node frame writes some 20k barriers). Resolve it with
/// [`CompiledFrame::barrier_region`].
///
/// A compiled frame's barrier is `WHOLE` exactly when its region is its resource's whole box.
///
/// ```
/// use rpsl_runtime::RegionRef;
/// assert!(RegionRef::WHOLE.is_whole());
/// assert_eq!(RegionRef::WHOLE.index(), None);
/// assert_eq!(RegionRef::at(3).index(), Some(3));
/// ```
///
/// [`Barrier`]: crate::Barrier
/// [`CompiledFrame::barrier_regions`]: crate::CompiledFrame::barrier_regions
/// [`CompiledFrame::barrier_region`]: crate::CompiledFrame::barrier_region
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct RegionRef(u32);

impl RegionRef {
    /// The whole of the barrier's resource: mips x layers (temporal slices folded in) x
    /// planes, or all bytes of a buffer (with its temporal slices); see
    /// [`CompiledFrame::resource_boxes`].
    ///
    /// [`CompiledFrame::resource_boxes`]: crate::CompiledFrame::resource_boxes
    pub const WHOLE: RegionRef = RegionRef(u32::MAX);

    /// The region at `index` of [`CompiledFrame::barrier_regions`] (`u32::MAX` is
    /// [`RegionRef::WHOLE`]).
    ///
    /// [`CompiledFrame::barrier_regions`]: crate::CompiledFrame::barrier_regions
    pub const fn at(index: u32) -> RegionRef {
        RegionRef(index)
    }

    /// The region is the whole of the barrier's resource.
    pub const fn is_whole(self) -> bool {
        self.0 == RegionRef::WHOLE.0
    }

    /// The index into [`CompiledFrame::barrier_regions`], or `None` for [`RegionRef::WHOLE`].
    ///
    /// [`CompiledFrame::barrier_regions`]: crate::CompiledFrame::barrier_regions
    pub const fn index(self) -> Option<usize> {
        if self.is_whole() {
            None
        } else {
            Some(self.0 as usize)
        }
    }
}
