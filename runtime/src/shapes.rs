//! Synthetic graph shapes of `bench/rps_shapes.rpsl` (`chain`, `lanes`), recorded by hand
//! through the [`GraphBuilder`], for benchmarks and tests that compare with the RPS figures, and
//! the deterministic generator that random-graph tests and examples draw their shapes from.

use crate::args_writer::ArgsWriter;
use crate::builder::{BuildError, GraphBuilder};
use crate::decl::{
    AccessDesc, AccessFlags, NodeDeclDesc, ParamDesc, QueueClass, SemanticKind, ValueType,
};
use crate::format::Format;
use crate::graph::{CallFlags, RecordedGraph};
use crate::ids::{DeclId, NodeId};
use crate::resource::ResourceDesc;
use crate::view::TextureView;

/// A small deterministic generator (a 64-bit linear congruential step, high bits out) for
/// random graph shapes: the same seed gives the same graph on every machine.
///
/// ```
/// let mut rng = rpsl_runtime::shapes::ShapeRng(7);
/// let first = rng.below(10);
/// assert!(first < 10);
/// assert_eq!(rpsl_runtime::shapes::ShapeRng(7).below(10), first);
/// ```
#[derive(Clone, Debug)]
pub struct ShapeRng(pub u64);

impl ShapeRng {
    /// The next 31-bit value.
    pub fn next_value(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    /// A value in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_value() % n.max(1)
    }
}

/// The two node declarations of the shapes.
#[derive(Copy, Clone, Debug)]
pub struct ShapeDecls {
    /// `graphics node Raster([readonly(ps)] a, [readonly(ps)] b, [writeonly(rendertarget)] rt : SV_Target0)`.
    pub raster: DeclId,
    /// `compute node Compute([readonly(cs)] a, [readonly(cs)] b, [writeonly(cs)] uav)`.
    pub compute: DeclId,
}

/// Declares `Raster` and `Compute`.
pub fn declare_shapes(builder: &mut GraphBuilder) -> ShapeDecls {
    let tex = |name: &str, access: AccessDesc| {
        ParamDesc::new(name, ValueType::Texture).with_access(access)
    };
    let raster = builder.declare_node(NodeDeclDesc::new(
        "Raster",
        QueueClass::Graphics,
        vec![
            tex("a", AccessDesc::readonly(AccessFlags::PS)),
            tex("b", AccessDesc::readonly(AccessFlags::PS)),
            tex("rt", AccessDesc::writeonly(AccessFlags::RENDER_TARGET))
                .with_semantic(SemanticKind::Target, 0),
        ],
    ));
    let compute = builder.declare_node(NodeDeclDesc::new(
        "Compute",
        QueueClass::Compute,
        vec![
            tex("a", AccessDesc::readonly(AccessFlags::CS)),
            tex("b", AccessDesc::readonly(AccessFlags::CS)),
            tex("uav", AccessDesc::writeonly(AccessFlags::CS)),
        ],
    ));
    ShapeDecls { raster, compute }
}

/// `makeResource(i)`: one of four size classes chosen by a hash of `i`.
pub fn shape_resource(i: u32) -> ResourceDesc {
    match (i.wrapping_mul(2654435761) >> 7) & 3 {
        0 => ResourceDesc::tex2d(Format::R16G16B16A16_FLOAT, 1920, 1080),
        1 => ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080),
        2 => ResourceDesc::tex2d(Format::R16G16B16A16_FLOAT, 960, 540),
        _ => ResourceDesc::tex2d(Format::R32_FLOAT, 480, 270),
    }
}

/// Calls `decl` (one of [`ShapeDecls`]: two texture reads, one write) on `views`.
pub(crate) fn call(
    builder: &mut GraphBuilder,
    decl: DeclId,
    views: [TextureView; 3],
    key: u64,
) -> Result<NodeId, BuildError> {
    let mut args = ArgsWriter::new(builder.decl(decl).ok_or(BuildError::UnknownDecl(decl))?);
    args.write_texture(0, &views[0])
        .write_texture(1, &views[1])
        .write_texture(2, &views[2]);
    builder.call_node(decl, args.bytes(), CallFlags::default(), key)
}

fn backbuffer(builder: &mut GraphBuilder) -> Result<TextureView, BuildError> {
    let id = builder.import_external_with_access(
        "backbuffer",
        ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080),
        Some(AccessDesc::readonly(AccessFlags::PRESENT)),
    )?;
    builder.default_texture_view(id)
}

/// Records `chain(backbuffer, n)` into the current frame.
pub fn record_chain(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    n: u32,
) -> Result<(), BuildError> {
    record_chain_variant(builder, decls, n, 0)
}

/// Records variant `variant` of `chain(backbuffer, n)`: the same resources (so the same sizes
/// and a frame-to-frame resource serial) and the same statistics, but other skip-link distances
/// and another raster/compute pattern, so a compile takes other branches. Variant 0 is
/// [`record_chain`]. Benchmarks rotate variants to time compiles whose branch outcomes the
/// CPU's predictor cannot have learnt from the previous frames (see `profile_compile ...
/// variants K`).
///
/// ```
/// use rpsl_runtime::shapes::{declare_shapes, record_chain_variant};
/// use rpsl_runtime::GraphBuilder;
/// let mut builder = GraphBuilder::new();
/// let decls = declare_shapes(&mut builder);
/// builder.begin_frame(0);
/// record_chain_variant(&mut builder, decls, 100, 3).unwrap();
/// assert_eq!(builder.finish().unwrap().nodes.len(), 100);
/// ```
pub fn record_chain_variant(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    n: u32,
    variant: u32,
) -> Result<(), BuildError> {
    let back = backbuffer(builder)?;
    let mut ring = [TextureView::NULL; 16];
    for i in 0..n {
        let k = (i.wrapping_add(variant.wrapping_mul(3)).wrapping_mul(7)) % 8 + 2;
        let mut a = if i >= 1 {
            ring[((i - 1) % 16) as usize]
        } else {
            TextureView::NULL
        };
        let b = if i >= k {
            ring[((i - k) % 16) as usize]
        } else {
            TextureView::NULL
        };
        if a.is_null() {
            a = b;
        }
        let out = if i == n - 1 {
            back
        } else {
            let id = builder.create_resource(shape_resource(i), i as u64)?;
            builder.default_texture_view(id)?
        };
        ring[(i % 16) as usize] = out;
        let decl = if i.wrapping_add(variant) % 3 == 1 && i != n - 1 {
            decls.compute
        } else {
            decls.raster
        };
        call(builder, decl, [a, b, out], 1_000_000 + i as u64)?;
    }
    Ok(())
}

/// Records `lanes(backbuffer, n)` when `lanes`, else `chain(backbuffer, n)`, into the current
/// frame.
pub fn record_shape(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    lanes: bool,
    n: u32,
) -> Result<(), BuildError> {
    if lanes {
        record_lanes(builder, decls, n)
    } else {
        record_chain(builder, decls, n)
    }
}

/// The graph of one frame of `lanes(backbuffer, n)` (or `chain` when not `lanes`), recorded by
/// a builder of its own.
///
/// # Panics
/// When `n` passes the builder's default limits ([`crate::GraphLimits`]).
///
/// ```
/// let graph = rpsl_runtime::shapes::shape_graph(true, 100);
/// // Eight lanes of 12 nodes, then 7 merges.
/// assert_eq!(graph.nodes.len(), 103);
/// ```
pub fn shape_graph(lanes: bool, n: u32) -> RecordedGraph {
    let mut builder = GraphBuilder::new();
    let decls = declare_shapes(&mut builder);
    builder.begin_frame(0);
    record_shape(&mut builder, decls, lanes, n).expect("the shapes record within the limits");
    builder
        .finish()
        .expect("the shapes record within the limits")
        .clone()
}

/// Records `lanes(backbuffer, n)` into the current frame.
pub fn record_lanes(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    n: u32,
) -> Result<(), BuildError> {
    record_lanes_variant(builder, decls, n, 0)
}

/// Records variant `variant` of `lanes(backbuffer, n)`: the same resources and dependencies, another
/// raster/compute pattern along each lane (so other barriers and other branches in a compile).
/// Variant 0 is [`record_lanes`]; see [`record_chain_variant`].
pub fn record_lanes_variant(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    n: u32,
    variant: u32,
) -> Result<(), BuildError> {
    let back = backbuffer(builder)?;
    let l = lane_length(n);
    let mut heads = [TextureView::NULL; LANES as usize];
    for lane in 0..LANES {
        let mut prev = TextureView::NULL;
        for j in 0..l {
            (prev, _) = record_lane_node(builder, decls, l, lane, j, prev, variant)?;
        }
        heads[lane as usize] = prev;
    }
    let mut acc = heads[0];
    for m in 1..LANES {
        (acc, _) = record_merge(builder, decls, l, m, [acc, heads[m as usize]], back)?;
    }
    Ok(())
}

/// Lanes of the `lanes` shape.
const LANES: u32 = 8;

/// Nodes per lane of `lanes(backbuffer, n)`.
fn lane_length(n: u32) -> u32 {
    (n.max(1) - 1) / LANES
}

/// Records node `j` of `lane` (lanes of `l` nodes), which reads `prev` (the lane's previous
/// output) and writes transient `lane * l + j`; returns the view it wrote and the node.
fn record_lane_node(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    l: u32,
    lane: u32,
    j: u32,
    prev: TextureView,
    variant: u32,
) -> Result<(TextureView, NodeId), BuildError> {
    let i = lane * l + j;
    let id = builder.create_resource(shape_resource(i), i as u64)?;
    let out = builder.default_texture_view(id)?;
    // Variant 0: every other node computes; others mix the lane into the pattern.
    let decl = if j.wrapping_add(variant.wrapping_mul(lane + 1)) % (2 + variant % 2) == 1 {
        decls.compute
    } else {
        decls.raster
    };
    let node = call(
        builder,
        decl,
        [prev, TextureView::NULL, out],
        1_000_000 + i as u64,
    )?;
    Ok((out, node))
}

/// Records merge `m` (1..8), which reads `inputs` (the accumulator and lane `m`'s head) and
/// writes transient `8 * l + m - 1`, or `back` for the last merge; returns the view it wrote
/// and the node.
fn record_merge(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    l: u32,
    m: u32,
    inputs: [TextureView; 2],
    back: TextureView,
) -> Result<(TextureView, NodeId), BuildError> {
    let out = if m == LANES - 1 {
        back
    } else {
        let i = LANES * l + m - 1;
        let id = builder.create_resource(shape_resource(i), i as u64)?;
        builder.default_texture_view(id)?
    };
    let node = call(
        builder,
        decls.raster,
        [inputs[0], inputs[1], out],
        2_000_000 + m as u64,
    )?;
    Ok((out, node))
}

/// One call of the `lanes` shape.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum LanesCall {
    /// Node `j` of a lane.
    Lane { lane: u32, j: u32 },
    /// Merge `m` (1..8).
    Merge(u32),
}

/// A schedule of `lanes(backbuffer, n)` given as the barrier segment of every node, for
/// measuring a schedule found elsewhere (e.g. by `scripts/bench/lanes_memory_bound.py`)
/// through the real compiler: [`record_lanes_scheduled`] records the graph so that the
/// `Default` schedule runs this one.
///
/// ```
/// use rpsl_runtime::shapes::LanesSchedule;
/// // n = 17: 8 lanes of 2 nodes, then 7 merges; every lane at once, then the merges.
/// let lanes = vec![vec![0, 1]; 8];
/// let merges: Vec<u32> = (2..9).collect();
/// assert!(LanesSchedule::from_segments(17, &lanes, &merges).is_ok());
/// // A merge before the head it reads.
/// let early = [1, 3, 4, 5, 6, 7, 8];
/// assert_eq!(
///     LanesSchedule::from_segments(17, &lanes, &early).unwrap_err().to_string(),
///     "merge 1 runs in segment 1, not after node 1 of lane 0 (segment 1)"
/// );
/// ```
#[derive(Clone, Debug)]
pub struct LanesSchedule {
    n: u32,
    /// The calls in segment order, each with its segment.
    calls: Vec<(u32, LanesCall)>,
}

/// Why segments are not a schedule of the `lanes` shape (see [`LanesSchedule::from_segments`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct LanesScheduleError(pub String);

impl std::fmt::Display for LanesScheduleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for LanesScheduleError {}

impl LanesSchedule {
    /// The schedule where node `j` of lane `k` runs in segment `lane_segments[k][j]` and merge
    /// `m` in `merge_segments[m - 1]`. Every node must run in a later segment than the nodes
    /// whose output it reads (8 lanes of `(n - 1) / 8` nodes, 7 merges).
    pub fn from_segments(
        n: u32,
        lane_segments: &[Vec<u32>],
        merge_segments: &[u32],
    ) -> Result<LanesSchedule, LanesScheduleError> {
        let l = lane_length(n) as usize;
        let fail = |message: String| Err(LanesScheduleError(message));
        if lane_segments.len() != LANES as usize || merge_segments.len() != LANES as usize - 1 {
            return fail(format!(
                "expected {} lanes and {} merges, got {} and {}",
                LANES,
                LANES - 1,
                lane_segments.len(),
                merge_segments.len()
            ));
        }
        if l == 0 {
            return fail(format!("lanes({n}) has no lane nodes"));
        }
        let mut calls = Vec::with_capacity(l * LANES as usize + LANES as usize - 1);
        for (lane, segments) in lane_segments.iter().enumerate() {
            if segments.len() != l {
                return fail(format!(
                    "lane {lane} has {} segments, expected {l}",
                    segments.len()
                ));
            }
            for j in 1..l {
                if segments[j] <= segments[j - 1] {
                    return fail(format!(
                        "node {j} of lane {lane} runs in segment {}, not after node {} (segment {})",
                        segments[j],
                        j - 1,
                        segments[j - 1]
                    ));
                }
            }
            for j in 0..l {
                calls.push((
                    segments[j],
                    LanesCall::Lane {
                        lane: lane as u32,
                        j: j as u32,
                    },
                ));
            }
        }
        for m in 1..LANES as usize {
            let segment = merge_segments[m - 1];
            let accumulator = if m == 1 {
                (format!("node {} of lane 0", l - 1), lane_segments[0][l - 1])
            } else {
                (format!("merge {}", m - 1), merge_segments[m - 2])
            };
            let head = (
                format!("node {} of lane {m}", l - 1),
                lane_segments[m][l - 1],
            );
            for (name, before) in [accumulator, head] {
                if segment <= before {
                    return fail(format!(
                        "merge {m} runs in segment {segment}, not after {name} (segment {before})"
                    ));
                }
            }
            calls.push((segment, LanesCall::Merge(m as u32)));
        }
        // Stable: within a segment, lanes in order, then merges.
        calls.sort_by_key(|&(segment, _)| segment);
        Ok(LanesSchedule { n, calls })
    }
}

/// Records `lanes(backbuffer, schedule.n)` (the graph of [`record_lanes`]: the same resources,
/// nodes and keys) with its calls in `schedule`'s segment order, each node of segment `t > 0`
/// also depending on the first node of segment `t - 1` ([`GraphBuilder::add_dependency`]; no
/// resource is involved). Every node's dependency level is then its segment when no segment
/// is empty, so the `Default` schedule runs `schedule` one level per segment. The barrier
/// batches follow the levels, with one exception: a node at the start of its level that needs
/// no barrier there (its barriers went into an earlier batch) runs before the level's batch,
/// one segment early ([`CompiledFrame::barrier_segments`] shows where each node ran).
///
/// [`CompiledFrame::barrier_segments`]: crate::CompiledFrame::barrier_segments
pub fn record_lanes_scheduled(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    schedule: &LanesSchedule,
) -> Result<(), BuildError> {
    let back = backbuffer(builder)?;
    let l = lane_length(schedule.n);
    let mut last = [TextureView::NULL; LANES as usize];
    let mut acc = TextureView::NULL;
    // The first node of the current segment and of the one before it.
    let mut current: Option<(u32, NodeId)> = None;
    let mut previous: Option<(u32, NodeId)> = None;
    for &(segment, call) in &schedule.calls {
        let node = match call {
            LanesCall::Lane { lane, j } => {
                let prev = last[lane as usize];
                let (out, node) = record_lane_node(builder, decls, l, lane, j, prev, 0)?;
                last[lane as usize] = out;
                node
            }
            LanesCall::Merge(m) => {
                let first = if m == 1 { last[0] } else { acc };
                let (out, node) =
                    record_merge(builder, decls, l, m, [first, last[m as usize]], back)?;
                acc = out;
                node
            }
        };
        if current.is_none_or(|(at, _)| at != segment) {
            previous = current;
            current = Some((segment, node));
        }
        if let Some((at, first)) = previous {
            if at + 1 == segment {
                builder.add_dependency(node, first)?;
            }
        }
    }
    Ok(())
}
