//! The identity keys of one frame's resources, told apart when a key repeats.
//!
//! The VM's keys are `(creation site << 32) | n`, where `n` counts the earlier host calls at
//! that site in the run, so a site's keys arrive in increasing order and a key above every
//! earlier one of its site is new without looking it up: [`FrameKeys`] keeps, per site, the
//! next such counter in a dense table. Only a key that could repeat one (a counter at or below
//! the site's last, as a builder driven by hand may pass) or one of a site beyond the table (an
//! external's name hash) is counted in a hash map; from the first such repeat on, every key of
//! the frame is, so the counts are exact.
//!
//! ```text
//! site 3: n = 0, 1, 2     fresh (each above the last): no lookup
//! site 3: n = 1           at or below the last: counted from here on (a repeat: 2nd use)
//! ```

use super::mix_key;

/// Sites below this use the dense table (the VM numbers its locations from 0).
const DENSE_SITES: u64 = 1 << 16;

/// The identity keys of one frame (see the module documentation).
#[derive(Debug, Default)]
pub(super) struct FrameKeys {
    /// Per site: the generation of its last key, and that key's counter plus one.
    sites: Vec<(u32, u64)>,
    /// The current frame's generation (never 0: a zeroed entry is from no frame).
    generation: u32,
    /// Keys counted this frame, with how often each came.
    counts: foldhash::HashMap<u64, u32>,
    /// Keys of this frame taken through `sites` and not in `counts` (each came once).
    dense_keys: Vec<u64>,
    /// Every key of this frame is in `counts`.
    all_counted: bool,
}

impl FrameKeys {
    /// Forgets the frame's keys.
    pub(super) fn begin_frame(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.sites.fill((0, 0));
            self.generation = 1;
        }
        if !self.counts.is_empty() {
            self.counts.clear();
        }
        self.dense_keys.clear();
        self.all_counted = false;
    }

    /// The identity of the next resource created with `key`: `key` itself the first time in
    /// the frame, else `key` mixed with its occurrence count.
    #[inline(always)]
    pub(super) fn unique(&mut self, key: u64) -> u64 {
        let site = key >> 32;
        if !self.all_counted && site < DENSE_SITES {
            let site = site as usize;
            if site >= self.sites.len() {
                self.sites.resize(site + 1, (0, 0));
            }
            let counter = key & 0xFFFF_FFFF;
            let entry = &mut self.sites[site];
            if entry.0 != self.generation || counter >= entry.1 {
                *entry = (self.generation, counter + 1);
                self.dense_keys.push(key);
                return key;
            }
            self.count_every_key();
        }
        self.counted(key)
    }

    /// Moves the dense keys into `counts`: from now on every key is counted.
    #[cold]
    fn count_every_key(&mut self) {
        for key in self.dense_keys.drain(..) {
            self.counts.insert(key, 1);
        }
        self.all_counted = true;
    }

    /// [`Self::unique`] through the hash map.
    #[inline(never)]
    fn counted(&mut self, key: u64) -> u64 {
        let count = self.counts.entry(key).or_insert(0);
        *count += 1;
        if *count == 1 {
            key
        } else {
            mix_key(key, *count as u64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the builder gave before the dense table: every key counted in a map.
    fn counted_only(keys: &[u64]) -> Vec<u64> {
        let mut counts = std::collections::HashMap::new();
        keys.iter()
            .map(|&key| {
                let count = counts.entry(key).or_insert(0u64);
                *count += 1;
                if *count == 1 {
                    key
                } else {
                    mix_key(key, *count)
                }
            })
            .collect()
    }

    #[test]
    fn identities_match_counting_every_key_in_every_order() {
        let site = |loc: u64, n: u64| loc << 32 | n;
        let frames: [&[u64]; 6] = [
            // The VM's order: counters rising per site, sites interleaved.
            &[site(3, 0), site(5, 0), site(3, 1), site(5, 1), site(3, 2)],
            // A repeat after fresh keys, then more fresh ones and repeats of each.
            &[
                site(3, 0),
                site(3, 1),
                site(3, 1),
                site(3, 2),
                site(3, 0),
                site(3, 1),
            ],
            // Sites beyond the table (external name hashes) and a repeated one.
            &[u64::MAX, site(1, 4), u64::MAX, site(1, 5), 7, 7],
            // The highest counter, twice.
            &[site(2, 0xFFFF_FFFF), site(2, 0xFFFF_FFFF)],
            // Counters falling: each is below the last, so counting starts at once.
            &[site(4, 9), site(4, 8), site(4, 9)],
            // The same keys as the first frame: a new frame forgets the last.
            &[site(3, 0), site(5, 0), site(3, 1), site(5, 1), site(3, 2)],
        ];
        let mut keys = FrameKeys::default();
        for frame in frames {
            keys.begin_frame();
            let got: Vec<u64> = frame.iter().map(|&key| keys.unique(key)).collect();
            assert_eq!(got, counted_only(frame), "{frame:x?}");
        }
        // The repeats above gave mixed identities, distinct from every key.
        keys.begin_frame();
        assert_eq!(keys.unique(site(3, 1)), site(3, 1));
        assert_eq!(keys.unique(site(3, 1)), mix_key(site(3, 1), 2));
        assert_eq!(keys.unique(site(3, 1)), mix_key(site(3, 1), 3));
    }

    #[test]
    fn a_generation_wrap_forgets_old_entries() {
        let mut keys = FrameKeys::default();
        keys.begin_frame();
        assert_eq!(keys.unique(5 << 32), 5 << 32);
        keys.generation = u32::MAX;
        keys.begin_frame();
        assert_eq!(keys.generation, 1);
        assert_eq!(keys.unique(5 << 32), 5 << 32);
        assert_eq!(keys.unique(5 << 32), mix_key(5 << 32, 2));
    }
}
