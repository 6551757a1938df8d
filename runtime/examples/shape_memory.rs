//! Memory figures of the `chain` and `lanes` shapes next to two lower bounds: the live-set bound
//! of the chosen order (peak of summed live transient sizes per position) and the batch-segment
//! bound (memory can change hands only at a barrier batch, so a transient blocks its memory for
//! every segment between batches that it touches; the peak over segments of the blocked sizes),
//! plus `2 * sum(sizes) / segments`, the least peak any order with this many batches can reach
//! when every transient is written in one segment and read in a later one.
//! Run: `cargo run --release -p rpsl-runtime --example shape_memory`.

use rpsl_runtime::shapes::{declare_shapes, record_chain, record_lanes};
use rpsl_runtime::*;

fn main() {
    for (lanes, schedule) in [
        (false, SchedulePreference::Default),
        (true, SchedulePreference::Default),
        (true, SchedulePreference::Balanced),
        (true, SchedulePreference::Memory),
    ] {
        let mut builder = GraphBuilder::new();
        let decls = declare_shapes(&mut builder);
        builder.begin_frame(0);
        if lanes {
            record_lanes(&mut builder, decls, 1000).unwrap();
        } else {
            record_chain(&mut builder, decls, 1000).unwrap();
        }
        let graph = builder.finish().unwrap();
        let mut compiler = FrameCompiler::new(CompileOptions {
            schedule,
            cache: false,
            ..CompileOptions::default()
        });
        let frame = compiler.compile(graph).unwrap();
        // Segment index of every position: batches start segments.
        let mut segment_of = vec![0usize; frame.order.len()];
        let mut segment = 0;
        let mut batch = 0;
        for (position, slot) in segment_of.iter_mut().enumerate() {
            while batch < frame.batch_list.len()
                && frame.batch_list[batch].position as usize <= position
            {
                if frame.batch_list[batch].position as usize == position && position > 0 {
                    segment += 1;
                }
                batch += 1;
            }
            *slot = segment;
        }
        let segments = segment + 1;
        let mut blocked = vec![0u64; segments];
        let mut total = 0u64;
        for (index, placement) in frame.placements.iter().enumerate() {
            let (Some(placement), Some((first, last))) = (placement, frame.lifetimes[index]) else {
                continue;
            };
            total += placement.size;
            for value in &mut blocked[segment_of[first as usize]..=segment_of[last as usize]] {
                *value += placement.size;
            }
        }
        let segment_bound = blocked.iter().copied().max().unwrap_or(0);
        let mb = |bytes: u64| bytes as f64 / 1e6;
        println!(
            "{} {:?}: batches {} segments {} transient {:.1} MB ({} bytes), live-set bound \
             {:.1} MB, segment bound {:.1} MB, 2*sum/segments {:.1} MB",
            if lanes { "lanes" } else { "chain" },
            schedule,
            frame.batches,
            segments,
            mb(frame.memory.transient_bytes),
            frame.memory.transient_bytes,
            mb(frame.memory.lower_bound_bytes),
            mb(segment_bound),
            mb(2 * total / segments as u64),
        );
    }
}
