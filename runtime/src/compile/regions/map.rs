//! Per-resource maps from subresource boxes to a small state, kept as short lists of disjoint
//! segments that split only where accesses cut them.

use crate::view::SubresourceBox;

/// Disjoint segments covering each resource's subresource space, each with a state.
#[derive(Debug, Default)]
pub struct RegionMap<T: Copy + PartialEq> {
    lists: Vec<Vec<(SubresourceBox, T)>>,
    /// Lists in use (the rest are kept allocated for reuse by [`RegionMap::push_resource`]).
    used: usize,
    pieces: Vec<SubresourceBox>,
    fresh: Vec<(SubresourceBox, T)>,
}

impl<T: Copy + PartialEq> RegionMap<T> {
    /// Empties the map, keeping its allocations, for [`RegionMap::push_resource`] (the index
    /// space counts the pushed resources).
    pub fn clear(&mut self) {
        self.used = 0;
    }

    /// Adds a resource of one segment `region` with state `state`; returns its index.
    pub fn push_resource(&mut self, region: SubresourceBox, state: T) -> usize {
        if self.used == self.lists.len() {
            self.lists.push(Vec::new());
        }
        let list = &mut self.lists[self.used];
        list.clear();
        list.push((region, state));
        self.used += 1;
        self.used - 1
    }

    /// Every segment overlapping `region` satisfies `pred`.
    pub fn all(&self, resource: usize, region: &SubresourceBox, pred: impl Fn(&T) -> bool) -> bool {
        let list = &self.lists[resource];
        if let [(segment, state)] = list.as_slice() {
            // Fast path: most resources stay one segment.
            return !segment.overlaps(region) || pred(state);
        }
        list.iter()
            .filter(|(segment, _)| segment.overlaps(region))
            .all(|(_, state)| pred(state))
    }

    /// The state of `resource` when it is one segment that `region` covers whole (the case
    /// [`RegionMap::update`] handles without splitting), for callers with a cheaper inline path.
    #[inline]
    pub fn single_mut(&mut self, resource: usize, region: &SubresourceBox) -> Option<&mut T> {
        match self.lists[resource].as_mut_slice() {
            [(segment, state)] if region.contains(segment) => Some(state),
            _ => None,
        }
    }

    /// The state of `resource` when it is one segment (then covering the whole resource), for
    /// callers that know their region is the whole resource.
    #[inline]
    pub fn single_whole_mut(&mut self, resource: usize) -> Option<&mut T> {
        match self.lists[resource].as_mut_slice() {
            [(_, state)] => Some(state),
            _ => None,
        }
    }

    /// Applies `update` to the states of `region` (splitting segments at its border).
    pub fn update(
        &mut self,
        resource: usize,
        region: &SubresourceBox,
        mut update: impl FnMut(&mut T),
    ) {
        self.update_boxed(resource, region, |_, state| update(state));
    }

    /// Like [`RegionMap::update`], and also tells `update` which part of `region` each state
    /// covers (the segment, or its intersection with `region`), so that work derived from a
    /// state (a barrier, say) can be limited to the subresources that are really in it.
    pub fn update_boxed(
        &mut self,
        resource: usize,
        region: &SubresourceBox,
        mut update: impl FnMut(&SubresourceBox, &mut T),
    ) {
        let list = &mut self.lists[resource];
        if let [(segment, state)] = list.as_mut_slice() {
            // Fast path: a whole-resource access of a one-segment resource.
            if region.contains(segment) {
                update(segment, state);
                return;
            }
        }
        self.fresh.clear();
        let mut index = 0;
        while index < list.len() {
            let (segment, state) = list[index];
            if !segment.overlaps(region) {
                index += 1;
                continue;
            }
            if region.contains(&segment) {
                update(&segment, &mut list[index].1);
                index += 1;
                continue;
            }
            list.swap_remove(index);
            self.pieces.clear();
            segment.subtract_into(region, &mut self.pieces);
            for piece in &self.pieces {
                self.fresh.push((*piece, state));
            }
            let mut inside = state;
            let part = segment.intersection(region);
            update(&part, &mut inside);
            self.fresh.push((part, inside));
        }
        list.append(&mut self.fresh);
    }

    /// Visits the segments overlapping `region` (without splitting).
    pub fn for_each(
        &mut self,
        resource: usize,
        region: &SubresourceBox,
        mut visit: impl FnMut(&SubresourceBox, &mut T),
    ) {
        for (segment, state) in &mut self.lists[resource] {
            if segment.overlaps(region) {
                visit(segment, state);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boxed(lo: [u64; 3], hi: [u64; 3]) -> SubresourceBox {
        SubresourceBox { lo, hi }
    }

    #[test]
    fn pushed_resources_split_and_reuse_lists() {
        let mut map = RegionMap::<u32>::default();
        for round in 0..2 {
            map.clear();
            let a = map.push_resource(boxed([0, 0, 0], [4, 1, 1]), 7);
            let b = map.push_resource(boxed([0, 0, 0], [1, 1, 2]), 9);
            assert_eq!((a, b), (0, 1));
            map.update(a, &boxed([1, 0, 0], [3, 1, 1]), |state| *state += round + 1);
            let mut seen = Vec::new();
            map.for_each(a, &boxed([0, 0, 0], [4, 1, 1]), |region, state| {
                seen.push((region.lo[0], region.hi[0], *state))
            });
            seen.sort();
            assert_eq!(seen, vec![(0, 1, 7), (1, 3, 8 + round), (3, 4, 7)]);
            assert_eq!(map.single_whole_mut(b).copied(), Some(9));
            assert!(map.single_whole_mut(a).is_none());
        }
    }
}
