//! The first-fit searches against a plain reference: every rank, in order, at the lowest offset
//! free of the earlier ranks whose extents overlap its own in time.

use super::blocks::BlockLists;
use super::occupancy::OccupancyLists;
use super::search::{Occupant, Span};
use crate::shapes::ShapeRng;

/// One random frame for the searches: the group of each position, and per rank an extent that
/// starts at a group's first position and a size of at least one unit.
struct Frame {
    group_of: Vec<u32>,
    extents: Vec<(u32, u32)>,
    sizes: Vec<u64>,
}

fn random_frame(rng: &mut ShapeRng) -> Frame {
    let positions = 1 + rng.below(60) as usize;
    // Runs of one to four same-level positions (long runs give occupancy lists real work,
    // single positions block lists).
    let longest = 1 + rng.below(4);
    let mut group_of = Vec::with_capacity(positions);
    let mut group_starts = Vec::new();
    let mut group = 0u32;
    while group_of.len() < positions {
        group_starts.push(group_of.len() as u32);
        for _ in 0..1 + rng.below(longest) {
            if group_of.len() < positions {
                group_of.push(group);
            }
        }
        group += 1;
    }
    let ranks = rng.below(48) as usize;
    let mut extents = Vec::with_capacity(ranks);
    let mut sizes = Vec::with_capacity(ranks);
    // Few distinct sizes, as frames have, so that ranges pack into gapless runs.
    let palette = [1, 2, 3, 4, 8, 16, 5 + rng.below(20)];
    for _ in 0..ranks {
        let start = group_starts[rng.below(group_starts.len() as u64) as usize];
        let end = start + rng.below(u64::from(positions as u32 - start).min(12)) as u32;
        extents.push((start, end));
        sizes.push(palette[rng.below(palette.len() as u64) as usize]);
    }
    Frame {
        group_of,
        extents,
        sizes,
    }
}

/// The reference placement: each rank scans the earlier ranks overlapping it in time, sorted
/// by offset.
fn reference(frame: &Frame) -> Vec<(u64, u64)> {
    let mut placed: Vec<(u64, u64)> = Vec::new();
    for (rank, (&(start, end), &size)) in frame.extents.iter().zip(&frame.sizes).enumerate() {
        let mut occupants: Vec<(u64, u64)> = (0..rank)
            .filter(|&other| {
                let (other_start, other_end) = frame.extents[other];
                other_start <= end && start <= other_end
            })
            .map(|other| placed[other])
            .collect();
        occupants.sort_unstable();
        let mut offset = 0;
        for (lo, hi) in occupants {
            if lo >= offset + size {
                break;
            }
            offset = offset.max(hi);
        }
        placed.push((offset, offset + size));
    }
    placed
}

fn ranges<S: Span>(spans: &[S]) -> Vec<(u64, u64)> {
    spans.iter().map(|span| (span.lo(), span.hi())).collect()
}

/// Both searches, in both span widths, reusing their scratch from frame to frame.
fn check<S: Occupant>(seed: u64) {
    let mut rng = ShapeRng(seed);
    let (mut occupancy, mut blocks) = (OccupancyLists::default(), BlockLists::default());
    let mut spans: Vec<S> = Vec::new();
    for round in 0..400 {
        let frame = random_frame(&mut rng);
        let want = reference(&frame);
        occupancy.build(&frame.extents, &frame.group_of);
        occupancy.place(&frame.extents, &frame.sizes, &frame.group_of, &mut spans);
        assert_eq!(ranges(&spans), want, "occupancy lists, round {round}");
        blocks.build(&frame.extents, &frame.group_of);
        blocks.place(&frame.extents, &frame.sizes, &mut spans);
        assert_eq!(ranges(&spans), want, "block lists, round {round}");
    }
}

#[test]
fn searches_place_every_rank_at_the_lowest_free_offset() {
    check::<u64>(0x0cc0_5eed);
    check::<u128>(0xb10c_5eed);
}
