//! Memory figures of the `chain` and `lanes` shapes next to two lower bounds: the live-set bound
//! of the chosen order (peak of summed live transient sizes per position) and the batch-segment
//! bound (memory can change hands only at a barrier batch, so a transient blocks its memory for
//! every segment between batches that it touches; the peak over segments of the blocked sizes),
//! plus `2 * sum(sizes) / segments`, the least peak any order with this many batches can reach
//! when every transient is written in one segment and read in a later one.
//! Run: `cargo run --release -p rpsl-runtime --example shape_memory`.
//!
//! With `--lanes-segments default|balanced|memory`, it prints instead the segment of every node
//! of lanes 1k under that schedule, as the JSON schedule that `scripts/bench/lanes_memory_bound.py
//! check FILE` reads (`{"segments": S, "lanes": [[segment of node j] per lane], "merges": [...],
//! "segment_bound_bytes": B}`), so the model's live bytes can be checked against the compiler's.
//!
//! With `--lanes-schedule FILE` (such a JSON schedule, e.g. one the model found), it records lanes
//! 1k so that every node's dependency level is its segment ([`record_lanes_scheduled`]),
//! compiles it with the `Default` schedule and then the `Searched` one (its levels are forced,
//! so only the placement differs), checks that every node ran in its segment, and prints the
//! batches, the segment bound (live bytes) and the placed bytes of each.

use rpsl_runtime::shapes::{
    declare_shapes, record_lanes_scheduled, record_shape, shape_graph, LanesSchedule,
};
use rpsl_runtime::*;

/// Lanes of `record_lanes(.., 1000)` and their nodes, in call order (the merges follow).
const LANES: usize = 8;
const LANE_NODES: usize = 999 / LANES;

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, count] = arguments.as_slice() {
        if flag == "--attempts" {
            let Ok(count) = count.parse::<u32>() else {
                eprintln!("error: `--attempts` takes a count");
                std::process::exit(2);
            };
            print_search_attempts(count);
            return;
        }
    }
    if let [flag, schedule] = arguments.as_slice() {
        if flag == "--lanes-segments" {
            let schedule = match schedule.as_str() {
                "default" => SchedulePreference::Default,
                "balanced" => SchedulePreference::Balanced,
                "searched" => SchedulePreference::Searched,
                "memory" => SchedulePreference::Memory,
                other => {
                    eprintln!(
                        "error: unknown schedule `{other}` (default, balanced, searched or memory)"
                    );
                    std::process::exit(2);
                }
            };
            print_lanes_segments(schedule);
            return;
        }
        if flag == "--lanes-schedule" {
            if let Err(message) = run_lanes_schedule(schedule) {
                eprintln!("error: {message}");
                std::process::exit(1);
            }
            return;
        }
    }
    if !arguments.is_empty() {
        eprintln!(
            "usage: shape_memory [--attempts N | --lanes-segments default|balanced|searched|memory | \
             --lanes-schedule SCHEDULE.json]"
        );
        std::process::exit(2);
    }
    for (lanes, schedule) in [
        (false, SchedulePreference::Default),
        (true, SchedulePreference::Default),
        (true, SchedulePreference::Balanced),
        (true, SchedulePreference::Searched),
        (true, SchedulePreference::Memory),
    ] {
        let frame = compile_shape(lanes, schedule);
        let segments = frame
            .barrier_segments()
            .last()
            .map_or(0, |&last| last as usize + 1);
        let mut total = 0u64;
        for placement in frame.placements.iter().flatten() {
            total += placement.size;
        }
        let segment_bound = frame.segment_live_peak_bytes();
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

/// Records the chain or lanes shape at 1,000 nodes and compiles it under `schedule`.
fn compile_shape(lanes: bool, schedule: SchedulePreference) -> CompiledFrame {
    compile_recorded(schedule, |builder, decls| {
        record_shape(builder, decls, lanes, 1000)
    })
}

/// Lanes 1k under the searched schedule, attempts 0 to `count - 1` of its level search (the
/// attempts memory refinement makes), each on its own line.
fn print_search_attempts(count: u32) {
    let graph = shape_graph(true, 1000);
    for attempt in 0..count {
        let frame = compile_graph(&graph, SchedulePreference::Searched, attempt);
        println!(
            "lanes Searched attempt {attempt}: batches {} transient {} bytes, segment bound {} bytes",
            frame.batches,
            frame.memory.transient_bytes,
            frame.segment_live_peak_bytes()
        );
    }
}

/// Records a frame with `record` and compiles it under `schedule`.
fn compile_recorded(
    schedule: SchedulePreference,
    record: impl FnOnce(&mut GraphBuilder, shapes::ShapeDecls) -> Result<(), BuildError>,
) -> CompiledFrame {
    let mut builder = GraphBuilder::new();
    let decls = declare_shapes(&mut builder);
    builder.begin_frame(0);
    record(&mut builder, decls).unwrap();
    compile_graph(builder.finish().unwrap(), schedule, 0)
}

/// Compiles `graph` under `schedule` (the searched schedule's level search at `attempt`).
fn compile_graph(
    graph: &RecordedGraph,
    schedule: SchedulePreference,
    attempt: u32,
) -> CompiledFrame {
    let mut compiler = FrameCompiler::new(CompileOptions {
        schedule,
        cache: false,
        ..CompileOptions::default()
    });
    compiler.set_search_attempt(attempt);
    compiler.compile(graph).unwrap().clone()
}

/// Prints lanes 1k's schedule under `schedule` as the model's JSON (see the file's doc).
fn print_lanes_segments(schedule: SchedulePreference) {
    let frame = compile_shape(true, schedule);
    let segment_of = frame.barrier_segments();
    let segments = segment_of.last().map_or(0, |&last| last + 1);
    let node_segment = |call: usize| segment_of[frame.position[call] as usize];
    let lanes: Vec<String> = (0..LANES)
        .map(|lane| {
            let nodes: Vec<String> = (0..LANE_NODES)
                .map(|j| node_segment(lane * LANE_NODES + j).to_string())
                .collect();
            format!("[{}]", nodes.join(","))
        })
        .collect();
    let merges: Vec<String> = (0..LANES - 1)
        .map(|m| node_segment(LANES * LANE_NODES + m).to_string())
        .collect();
    println!(
        "{{\"segments\": {}, \"lanes\": [{}], \"merges\": [{}], \"segment_bound_bytes\": {}}}",
        segments,
        lanes.join(","),
        merges.join(","),
        frame.segment_live_peak_bytes(),
    );
}

/// Runs the JSON schedule at `path` through the compiler (see the file's doc).
fn run_lanes_schedule(path: &str) -> Result<(), String> {
    let text =
        std::fs::read_to_string(path).map_err(|error| format!("cannot read `{path}`: {error}"))?;
    let json: serde_json::Value =
        serde_json::from_str(&text).map_err(|error| format!("`{path}`: {error}"))?;
    let numbers = |value: &serde_json::Value, what: &str| -> Result<Vec<u32>, String> {
        value
            .as_array()
            .and_then(|items| {
                items
                    .iter()
                    .map(|item| item.as_u64().and_then(|n| u32::try_from(n).ok()))
                    .collect::<Option<Vec<u32>>>()
            })
            .ok_or_else(|| format!("`{path}`: `{what}` is not a list of segments"))
    };
    let lanes = json["lanes"]
        .as_array()
        .ok_or_else(|| format!("`{path}`: no `lanes` list"))?
        .iter()
        .map(|lane| numbers(lane, "lanes"))
        .collect::<Result<Vec<_>, _>>()?;
    let merges = numbers(&json["merges"], "merges")?;
    let schedule = LanesSchedule::from_segments(1000, &lanes, &merges)
        .map_err(|error| format!("`{path}`: {error}"))?;
    // Calls are in segment order: call index -> the segment the schedule asked for.
    let mut wanted: Vec<u32> = lanes.iter().flatten().chain(&merges).copied().collect();
    wanted.sort_unstable();
    for preference in [SchedulePreference::Default, SchedulePreference::Searched] {
        let frame = compile_recorded(preference, |builder, decls| {
            record_lanes_scheduled(builder, decls, &schedule)
        });
        print_scheduled(path, preference, &frame, &wanted);
    }
    Ok(())
}

/// Prints the figures of lanes 1k recorded by a JSON schedule and compiled under `preference`
/// (`wanted`: the segment the schedule asked for, by call).
fn print_scheduled(
    path: &str,
    preference: SchedulePreference,
    frame: &CompiledFrame,
    wanted: &[u32],
) {
    let segment_of = frame.barrier_segments();
    let segments = segment_of.last().map_or(0, |&last| last + 1);
    let mismatches = frame
        .order
        .iter()
        .enumerate()
        .filter(|&(position, &node)| segment_of[position] != wanted[node.0 as usize])
        .count();
    println!(
        "lanes, {path}, {preference:?}: batches {} segments {segments} (nodes not in their \
         segment: {mismatches}), segment bound (live) {} bytes, transient (placed) {} bytes",
        frame.batches,
        frame.segment_live_peak_bytes(),
        frame.memory.transient_bytes,
    );
}
