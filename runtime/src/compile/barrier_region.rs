//! The reference from a barrier to its subresources: nearly every barrier covers its whole
//! resource and says so in four bytes; the few others index the frame's list of regions.

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
