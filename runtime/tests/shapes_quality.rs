//! Schedule quality on the `chain` and `lanes` shapes of `bench/rps_shapes.rpsl` compared with
//! the RPS figures in `docs/performance.md` (quality only; no timings).

use rpsl_runtime::shapes::{declare_shapes, record_chain, record_lanes};
use rpsl_runtime::*;

fn compile_shape(lanes: bool, n: u32, schedule: SchedulePreference) -> CompiledFrame {
    let mut builder = GraphBuilder::new();
    let decls = declare_shapes(&mut builder);
    builder.begin_frame(0);
    if lanes {
        record_lanes(&mut builder, decls, n).unwrap();
    } else {
        record_chain(&mut builder, decls, n).unwrap();
    }
    let graph = builder.finish().unwrap();
    let mut compiler = FrameCompiler::new(CompileOptions {
        schedule,
        cull: true,
        cache: false,
        async_compute: true,
    });
    compiler.compile(graph).unwrap().clone()
}

#[test]
fn shape_figures() {
    for (lanes, schedule) in [
        (false, SchedulePreference::Default),
        (true, SchedulePreference::Default),
        (true, SchedulePreference::Memory),
        (true, SchedulePreference::ProgramOrder),
    ] {
        let frame = compile_shape(lanes, 1000, schedule);
        let m = frame.memory;
        eprintln!(
            "{} {:?}: nodes {} batches {} transitions {} transient {:.1} MB lower bound {:.1} MB unaliased {:.1} MB",
            if lanes { "lanes" } else { "chain" },
            schedule,
            frame.order.len(),
            frame.batches,
            frame.transitions,
            m.transient_bytes as f64 / 1e6,
            m.lower_bound_bytes as f64 / 1e6,
            m.unaliased_bytes as f64 / 1e6
        );
        assert!(m.transient_bytes >= m.lower_bound_bytes);
        assert!(m.transient_bytes <= m.unaliased_bytes);
    }
}
