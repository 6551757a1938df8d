//! A short list of node indices stored inline, spilling to the heap only past a few entries: the
//! writer, reader and group lists of dependency segments, which are cloned whenever a partial
//! access splits a segment and would otherwise allocate on every clone.

/// Entries kept inline.
const INLINE: usize = 4;

/// A list of node indices; up to [`INLINE`] entries need no allocation, and clearing keeps a
/// spilled list's capacity for reuse.
#[derive(Clone, Debug, Default)]
pub struct NodeList {
    len: u32,
    inline: [u32; INLINE],
    /// All entries once there are more than `INLINE` (empty otherwise, so that cloning a short
    /// list never allocates).
    spill: Vec<u32>,
}

impl NodeList {
    /// The entries in insertion order.
    #[inline(always)]
    pub fn as_slice(&self) -> &[u32] {
        let len = self.len as usize;
        if len <= INLINE {
            &self.inline[..len]
        } else {
            &self.spill
        }
    }

    /// No entries.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The last entry.
    #[inline(always)]
    pub fn last(&self) -> Option<u32> {
        self.as_slice().last().copied()
    }

    /// Appends an entry.
    #[inline]
    pub fn push(&mut self, node: u32) {
        let len = self.len as usize;
        if len < INLINE {
            self.inline[len] = node;
        } else {
            if len == INLINE {
                self.spill.clear();
                self.spill.extend_from_slice(&self.inline);
            }
            self.spill.push(node);
        }
        self.len += 1;
    }

    /// Appends entries.
    pub fn extend_from_slice(&mut self, nodes: &[u32]) {
        for &node in nodes {
            self.push(node);
        }
    }

    /// Removes every entry (a spilled list keeps its capacity).
    #[inline]
    pub fn clear(&mut self) {
        if self.len as usize > INLINE {
            self.spill.clear();
        }
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::NodeList;

    #[test]
    fn keeps_order_across_the_spill() {
        let mut list = NodeList::default();
        assert!(list.is_empty());
        assert_eq!(list.last(), None);
        for node in 0..10 {
            list.push(node);
            assert_eq!(list.as_slice(), (0..=node).collect::<Vec<_>>());
            assert_eq!(list.last(), Some(node));
        }
        let copy = list.clone();
        list.clear();
        assert!(list.is_empty());
        assert_eq!(list.as_slice(), &[] as &[u32]);
        list.extend_from_slice(&[7, 8]);
        assert_eq!(list.as_slice(), &[7, 8]);
        assert_eq!(copy.as_slice().len(), 10);
        // A short clone of a list that spilled before carries no stale entries.
        let short = list.clone();
        assert_eq!(short.as_slice(), &[7, 8]);
        list.extend_from_slice(&[1, 2, 3, 4]);
        assert_eq!(list.as_slice(), &[7, 8, 1, 2, 3, 4]);
    }
}
