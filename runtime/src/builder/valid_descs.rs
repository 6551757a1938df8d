//! Validated resource descriptions remembered across calls: a frame creates many resources
//! from a few distinct descriptions, and [`ResourceDesc::validate`] depends on nothing but the
//! description, so each distinct one is validated once while it stays in a small table
//! ([`DescMemo`]), with the [`ResourceFacts`] the call path needs of resources of that
//! description. Two tables use it: descriptions as the builder's API takes them
//! ([`ValidatedDescs`]) and as scripts pass them (`script_resources.rs`).

use super::calls::ResourceFacts;
use crate::resource::{ResourceDesc, ResourceError};

/// Entries of a [`DescMemo`] (replaced round-robin once full).
const MEMO_ENTRIES: usize = 8;

/// A small table of answers by description: the first `filled` entries are in use, the most
/// recent hit is tried first, and a new entry replaces the oldest one once the table is full.
#[derive(Debug, Default)]
pub(super) struct DescMemo<K, V> {
    entries: [(K, V); MEMO_ENTRIES],
    filled: usize,
    /// The entry the next new key replaces once the table is full.
    next_victim: usize,
    /// The entry of the last hit.
    last_hit: usize,
}

impl<K: Copy + PartialEq, V: Copy> DescMemo<K, V> {
    /// The answer remembered for `key`.
    #[inline(always)]
    pub(super) fn get(&mut self, key: &K) -> Option<&V> {
        self.get_entry(key).map(|(_, value)| value)
    }

    /// The entry holding `key` ([`Self::entry_holding`] finds it again) and its answer.
    #[inline(always)]
    pub(super) fn get_entry(&mut self, key: &K) -> Option<(MemoEntry, &V)> {
        let last = self.last_hit;
        if last < self.filled && self.entries[last].0 == *key {
            return Some((MemoEntry(last as u8), &self.entries[last].1));
        }
        let at = self.entries[..self.filled]
            .iter()
            .position(|(known, _)| known == key)?;
        self.last_hit = at;
        Some((MemoEntry(at as u8), &self.entries[at].1))
    }

    /// The answer for `key` when `entry` still holds it (entries are replaced once the table
    /// is full), without a search.
    #[inline(always)]
    pub(super) fn entry_holding(&self, entry: MemoEntry, key: &K) -> Option<&V> {
        let (known, value) = self.entries[..self.filled].get(usize::from(entry.0))?;
        (known == key).then_some(value)
    }

    /// Remembers `value` for `key` (not already in the table); the entry it went to.
    pub(super) fn insert(&mut self, key: K, value: V) -> MemoEntry {
        let at = if self.filled < MEMO_ENTRIES {
            self.filled += 1;
            self.filled - 1
        } else {
            let victim = self.next_victim;
            self.next_victim = (victim + 1) % MEMO_ENTRIES;
            victim
        };
        self.entries[at] = (key, value);
        self.last_hit = at;
        MemoEntry(at as u8)
    }
}

/// An entry of a [`DescMemo`], by position.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) struct MemoEntry(pub(super) u8);

/// Descriptions as given that passed [`ResourceDesc::validate`], each with its validated form
/// and that form's facts (the tests below show its use).
pub(super) type ValidatedDescs = DescMemo<ResourceDesc, (ResourceDesc, ResourceFacts)>;

impl ValidatedDescs {
    /// `desc.validate()` and the validated form's [`ResourceFacts`], from the table when
    /// `desc` passed before. Failures are not remembered (they end the frame anyway) and
    /// always take the full check.
    #[inline(always)]
    pub(super) fn validate(
        &mut self,
        desc: &ResourceDesc,
    ) -> Result<(ResourceDesc, ResourceFacts), ResourceError> {
        match self.get(desc) {
            Some(known) => Ok(*known),
            None => self.validate_new(desc),
        }
    }

    /// [`Self::validate`] of a description not in the table: the full check, and the
    /// description remembered when it passes.
    #[inline(never)]
    fn validate_new(
        &mut self,
        desc: &ResourceDesc,
    ) -> Result<(ResourceDesc, ResourceFacts), ResourceError> {
        let validated = desc.validate()?;
        let facts = ResourceFacts::of(&validated);
        self.insert(*desc, (validated, facts));
        Ok((validated, facts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;

    /// A description with defaults for validation to resolve (full mip chain, one sample).
    fn distinct_desc(width: u32) -> ResourceDesc {
        let mut desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, width, 16);
        desc.mip_levels = 0;
        desc.sample_count = 0;
        desc
    }

    #[test]
    fn answers_as_validate_does_for_new_repeated_and_replaced_descriptions() {
        let mut memo = ValidatedDescs::default();
        // More distinct descriptions than entries, twice over: every answer (first time, from
        // the table, after replacement) is validate's own, with the defaults resolved.
        for round in 0..3 {
            for width in 1..=(MEMO_ENTRIES as u32 + 3) {
                let desc = distinct_desc(width * 32);
                let expected = desc.validate().unwrap();
                assert_eq!(
                    expected.mip_levels,
                    1 + (width * 32).ilog2(),
                    "round {round}"
                );
                assert_eq!(expected.sample_count, 1, "round {round}");
                assert_eq!(
                    memo.validate(&desc).map(|(desc, _)| desc),
                    Ok(expected),
                    "round {round}"
                );
                assert_eq!(
                    memo.validate(&desc).map(|(desc, _)| desc),
                    Ok(expected),
                    "round {round}"
                );
            }
        }
        assert_eq!(memo.filled, MEMO_ENTRIES);
    }

    #[test]
    fn failures_are_reported_every_time_and_not_remembered() {
        let mut memo = ValidatedDescs::default();
        let zero = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 0, 16);
        for _ in 0..2 {
            assert_eq!(memo.validate(&zero).err(), Some(ResourceError::ZeroSize));
        }
        assert_eq!(memo.filled, 0);
    }
}
