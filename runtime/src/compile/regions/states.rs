//! Per-subresource states of the resources a walk tracks by region: one state per subresource in
//! a dense array for textures with few subresources (a mip chain's texture, a cube map), the
//! segment lists of [`RegionMap`] for the others (buffers, whose byte ranges have no small
//! grid, and textures with very many subresources). The answers are the same either way: a
//! region's states are the states of the subresources in it.
//!
//! A texture accessed mip by mip splits its segment list into a piece per mip and every access
//! then scans and splits that list; in the dense array an access visits exactly the
//! subresources of its box. The dependency builder lays its per-subresource segments out on the
//! same grid ([`dense_count`], [`visit_indices`]).

use crate::compile::regions::map::RegionMap;
use crate::view::SubresourceBox;

/// Textures with at most this many subresources (mips x layers x planes) are tracked densely.
pub(crate) const DENSE_LIMIT: u64 = 256;

/// Where one tracked resource's states live.
#[derive(Copy, Clone, Debug)]
enum Place {
    /// In the dense array from `start`, over the grid of `full` (mip-major, then layer, then
    /// plane).
    Dense { start: u32, full: SubresourceBox },
    /// In the segment lists, under this index.
    Segments(u32),
}

/// The states of the tracked resources of one frame (see the module documentation).
#[derive(Debug, Default)]
pub(crate) struct RegionStates<T: Copy + PartialEq> {
    /// Per resource index: its place (only the tracked resources' entries are meaningful).
    places: Vec<Place>,
    dense: Vec<T>,
    segments: RegionMap<T>,
}

/// The subresource count of `full` when a texture of that box is tracked densely.
pub(crate) fn dense_count(full: &SubresourceBox, texture: bool) -> Option<u64> {
    if !texture || full.is_empty() {
        return None;
    }
    let mut count = 1u64;
    for axis in 0..3 {
        count = count.checked_mul(full.hi[axis] - full.lo[axis])?;
    }
    (count <= DENSE_LIMIT).then_some(count)
}

impl<T: Copy + PartialEq> RegionStates<T> {
    /// Forgets every resource, keeping the allocations; `resources` is the frame's resource
    /// count (the index space of [`RegionStates::track`]).
    pub(crate) fn reset(&mut self, resources: usize) {
        if self.places.len() < resources {
            self.places.resize(resources, Place::Segments(0));
        }
        self.dense.clear();
        self.segments.clear();
    }

    /// Starts tracking resource `resource` (whole box `full`, a texture when `texture`) with
    /// every subresource in state `state`.
    pub(crate) fn track(&mut self, resource: usize, full: SubresourceBox, texture: bool, state: T) {
        let place = match dense_count(&full, texture) {
            Some(count) => {
                let start = self.dense.len() as u32;
                self.dense
                    .extend(std::iter::repeat_n(state, count as usize));
                Place::Dense { start, full }
            }
            None => Place::Segments(self.segments.push_resource(full, state) as u32),
        };
        if let Some(slot) = self.places.get_mut(resource) {
            *slot = place;
        }
    }

    /// The place of `resource` (tracked by [`RegionStates::track`] this frame).
    fn place(&self, resource: usize) -> Place {
        self.places[resource]
    }

    /// Every subresource of `region` satisfies `pred`.
    pub(crate) fn all(
        &self,
        resource: usize,
        region: &SubresourceBox,
        pred: impl Fn(&T) -> bool,
    ) -> bool {
        match self.place(resource) {
            Place::Segments(index) => self.segments.all(index as usize, region, pred),
            Place::Dense { start, full } => {
                let dense = &self.dense;
                visit_indices(start, &full, region, |index| {
                    dense.get(index).is_none_or(&pred)
                })
            }
        }
    }

    /// Applies `update` to the states of the subresources of `region`.
    pub(crate) fn update(
        &mut self,
        resource: usize,
        region: &SubresourceBox,
        mut update: impl FnMut(&mut T),
    ) {
        match self.place(resource) {
            Place::Segments(index) => self.segments.update(index as usize, region, update),
            Place::Dense { start, full } => {
                let dense = &mut self.dense;
                visit_indices(start, &full, region, |index| {
                    if let Some(state) = dense.get_mut(index) {
                        update(state);
                    }
                    true
                });
            }
        }
    }
}

/// Calls `visit` with the dense index of every subresource of `region` inside `full` (states
/// from `start`, mip-major, then layer, then plane) until it returns `false`; returns whether
/// every call returned `true`.
#[inline(always)]
pub(crate) fn visit_indices(
    start: u32,
    full: &SubresourceBox,
    region: &SubresourceBox,
    mut visit: impl FnMut(usize) -> bool,
) -> bool {
    let lo = [
        region.lo[0].max(full.lo[0]),
        region.lo[1].max(full.lo[1]),
        region.lo[2].max(full.lo[2]),
    ];
    let hi = [
        region.hi[0].min(full.hi[0]),
        region.hi[1].min(full.hi[1]),
        region.hi[2].min(full.hi[2]),
    ];
    let layers = (full.hi[1] - full.lo[1]) as usize;
    let planes = (full.hi[2] - full.lo[2]) as usize;
    let start = start as usize;
    if layers == 1 && planes == 1 {
        // A texture with mips only (one layer, one plane): when the region reaches its layer
        // and plane, its subresources are a run of mips.
        if lo[1] >= hi[1] || lo[2] >= hi[2] {
            return true;
        }
        let base = start as u64 - full.lo[0];
        return (lo[0]..hi[0]).all(|mip| visit((base + mip) as usize));
    }
    for mip in lo[0]..hi[0] {
        let mip_base = (mip - full.lo[0]) as usize * layers;
        for layer in lo[1]..hi[1] {
            let layer_base = (mip_base + (layer - full.lo[1]) as usize) * planes;
            for plane in lo[2]..hi[2] {
                if !visit(start + layer_base + (plane - full.lo[2]) as usize) {
                    return false;
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boxed(lo: [u64; 3], hi: [u64; 3]) -> SubresourceBox {
        SubresourceBox { lo, hi }
    }

    /// Dense and segment tracking answer alike for the same updates (a texture of 4 mips x 3
    /// layers x 2 planes tracked both ways: densely as a texture, by segments as a buffer).
    #[test]
    fn dense_and_segment_tracking_agree() {
        let full = boxed([0, 0, 0], [4, 3, 2]);
        let mut states = RegionStates::<u32>::default();
        states.reset(2);
        states.track(0, full, true, 0);
        states.track(1, full, false, 0);
        assert!(matches!(states.place(0), Place::Dense { .. }));
        assert!(matches!(states.place(1), Place::Segments(_)));
        let updates = [
            boxed([1, 0, 0], [2, 3, 1]),
            boxed([0, 1, 0], [4, 2, 2]),
            boxed([3, 2, 1], [4, 3, 2]),
            boxed([0, 0, 0], [4, 3, 2]),
            boxed([2, 0, 1], [3, 1, 2]),
        ];
        for (step, region) in updates.iter().enumerate() {
            for resource in 0..2 {
                states.update(resource, region, |state| {
                    *state = *state * 3 + step as u32 + 1
                });
            }
            for mip in 0..4 {
                for layer in 0..3 {
                    for plane in 0..2 {
                        let one = boxed([mip, layer, plane], [mip + 1, layer + 1, plane + 1]);
                        let dense: Vec<u32> = (0..1000)
                            .filter(|&value| states.all(0, &one, |state| *state == value))
                            .collect();
                        let segments: Vec<u32> = (0..1000)
                            .filter(|&value| states.all(1, &one, |state| *state == value))
                            .collect();
                        assert_eq!(dense.len(), 1, "one value per subresource");
                        assert_eq!(dense, segments, "step {step} at {mip},{layer},{plane}");
                    }
                }
            }
        }
        // A region outside the resource holds nothing to test.
        assert!(states.all(0, &boxed([9, 0, 0], [10, 1, 1]), |_| false));
    }

    /// Textures over the limit and empty boxes are not dense.
    #[test]
    fn large_textures_use_segments() {
        let mut states = RegionStates::<bool>::default();
        states.reset(3);
        states.track(0, boxed([0, 0, 0], [DENSE_LIMIT, 1, 1]), true, false);
        states.track(1, boxed([0, 0, 0], [DENSE_LIMIT + 1, 1, 1]), true, false);
        states.track(2, boxed([0, 0, 0], [0, 1, 1]), true, false);
        assert!(matches!(states.place(0), Place::Dense { .. }));
        assert!(matches!(states.place(1), Place::Segments(_)));
        assert!(matches!(states.place(2), Place::Segments(_)));
    }
}
