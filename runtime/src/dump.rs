//! The JSON graph dump of `docs/cli.md`: resources, nodes with decoded arguments and
//! accesses, and (when compiled) the schedule, with extra fields: per-access `discard` flags,
//! resource `placement`, `node_queues`, `barrier_batches` (Vulkan stage/access bits and layout
//! values), `queue_waits` and `render_passes` (attachments, resolve targets, viewports,
//! scissors). Deterministic: a pure function of the recorded graph and the compiled frame.
//!
//! The dump streams: it is written into an [`io::Write`] while the frame is walked, so a frame of
//! a million nodes needs the writer's buffer, not a string of the whole document. Every range
//! is `[start, count]`: `mips` and `layers` `[base, count]`, buffer `bytes` `[offset, size]`.

use std::io::{self, Write};

use crate::compile::{CompiledFrame, DiscardFlags, RenderPass};
use crate::decl::{ScalarType, ValueType};
use crate::format::Format;
use crate::graph::{AccessRange, RecordedGraph};
use crate::ids::{NodeId, ResourceId};
use crate::json::JsonWriter;
use crate::view::{BufferView, TextureView};

/// Writes the dump of several frames, `{"version":1,"entry":...,"frames":[...]}`, into `W` as
/// the frames come ([`DumpWriter::new`] collects it in memory).
///
/// ```
/// use rpsl_runtime::{DumpWriter, RecordedGraph};
///
/// let mut out = Vec::new();
/// let mut dump = DumpWriter::streaming("main", &mut out);
/// dump.add_frame(&RecordedGraph::default(), None);
/// dump.close().unwrap();
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "{\"version\":1,\"entry\":\"main\",\"frames\":[{\"index\":0,\"resources\":[],\"nodes\":[]}]}\n"
/// );
/// ```
#[derive(Debug)]
pub struct DumpWriter<W: Write = Vec<u8>> {
    json: JsonWriter<W>,
}

impl DumpWriter<Vec<u8>> {
    /// Starts a dump for an entry point, collected in memory ([`DumpWriter::finish`]).
    pub fn new(entry: &str) -> DumpWriter<Vec<u8>> {
        DumpWriter::streaming(entry, Vec::new())
    }

    /// The finished JSON text.
    pub fn finish(self) -> String {
        let mut json = self.json;
        close_document(&mut json);
        json.into_string()
    }
}

impl<W: Write> DumpWriter<W> {
    /// Starts a dump for an entry point written into `out` (buffer files and pipes: the dump
    /// makes many small writes).
    pub fn streaming(entry: &str, out: W) -> DumpWriter<W> {
        let mut json = JsonWriter::new(out);
        json.begin_object();
        json.field_uint("version", 1);
        json.field_str("entry", entry);
        json.key("frames");
        json.begin_array();
        DumpWriter { json }
    }

    /// Appends one frame; `compiled` adds the `schedule` section and per-access discard flags.
    /// A write that fails is kept for [`DumpWriter::error`] and [`DumpWriter::close`].
    pub fn add_frame(&mut self, graph: &RecordedGraph, compiled: Option<&CompiledFrame>) {
        write_frame(&mut self.json, graph, compiled);
    }

    /// The first write error so far (what follows it is not written).
    pub fn error(&self) -> Option<&io::Error> {
        self.json.error()
    }

    /// Ends the document, flushes, and returns the writer or the first write error.
    pub fn close(self) -> io::Result<W> {
        let mut json = self.json;
        close_document(&mut json);
        json.into_inner()
    }
}

fn close_document<W: Write>(json: &mut JsonWriter<W>) {
    json.end_array();
    json.end_object();
    json.text("\n");
}

/// The dump of one frame as a whole document (`{"version":1,"entry":...,"frames":[frame]}`).
pub fn dump_frame_json(
    entry: &str,
    graph: &RecordedGraph,
    compiled: Option<&CompiledFrame>,
) -> String {
    let mut writer = DumpWriter::new(entry);
    writer.add_frame(graph, compiled);
    writer.finish()
}

/// Streams the dump of one frame as a whole document into `out` (as [`dump_frame_json`]);
/// returns `out` flushed, or the first write error.
pub fn write_frame_json<W: Write>(
    out: W,
    entry: &str,
    graph: &RecordedGraph,
    compiled: Option<&CompiledFrame>,
) -> io::Result<W> {
    let mut writer = DumpWriter::streaming(entry, out);
    writer.add_frame(graph, compiled);
    writer.close()
}

fn write_frame<W: Write>(
    json: &mut JsonWriter<W>,
    graph: &RecordedGraph,
    compiled: Option<&CompiledFrame>,
) {
    json.begin_object();
    json.field_uint("index", graph.frame_index);
    json.key("resources");
    json.begin_array();
    for (index, resource) in graph.resources.iter().enumerate() {
        let desc = &resource.desc;
        json.begin_object();
        json.field_uint("id", index as u64);
        json.key("name");
        match graph.resource_name(ResourceId::from_index(index)) {
            Some(name) => json.string(name),
            None => json.null(),
        }
        json.field_str("kind", desc.kind.name());
        json.field_str("format", &desc.format.to_string());
        json.field_uint("width", desc.width);
        json.field_uint("height", desc.height as u64);
        json.field_uint("depth_or_array_size", desc.depth_or_array_size as u64);
        json.field_uint("mips", desc.mip_levels as u64);
        json.field_uint("samples", desc.sample_count as u64);
        json.field_uint("temporal_layers", desc.temporal_layers as u64);
        json.field_strs("flags", desc.flags.names());
        json.field_bool("external", resource.external);
        if let Some(compiled) = compiled {
            if let Some(placement) = compiled.placements.get(index).copied().flatten() {
                json.key("placement");
                json.begin_object();
                json.field_uint("offset", placement.offset);
                json.field_uint("size", placement.size);
                json.end_object();
            }
        }
        json.end_object();
    }
    json.end_array();
    json.key("nodes");
    json.begin_array();
    for (index, node) in graph.nodes.iter().enumerate() {
        let node_id = NodeId::from_index(index);
        let decl = graph.decl_of(node_id);
        let args = graph.node_args(node_id);
        json.begin_object();
        json.field_uint("id", index as u64);
        json.field_str("name", &decl.name);
        json.field_str("queue", decl.queue.name());
        json.field_bool("async", node.flags.prefer_async);
        json.key("args");
        json.begin_array();
        for param in &decl.params {
            json.begin_object();
            json.field_str("param", &param.name);
            json.key("value");
            write_value(json, &param.value_type, args, param.offset as usize);
            json.end_object();
        }
        json.end_array();
        json.key("accesses");
        json.begin_array();
        let access_start = node.accesses.start as usize;
        for (offset, access) in graph.node_accesses(node_id).iter().enumerate() {
            let param = &decl.params[access.param as usize];
            let slot = &param.view_slots[access.slot as usize];
            json.begin_object();
            json.field_str("param", &slot.name);
            json.field_uint("resource", access.resource.0 as u64);
            write_range(json, access.range);
            json.field_uint("temporal", access.temporal_layer as u64);
            json.key("access");
            json.begin_array();
            for name in access.access.flags.names() {
                json.string(name);
            }
            if access.access.relaxed {
                json.string("relaxed");
            }
            json.end_array();
            json.field_str("mode", access.access.mode.name());
            if let Some(stencil_mode) = access.access.stencil_mode {
                json.field_str("stencil_mode", stencil_mode.name());
            }
            if let Some((kind, index)) = slot.semantic {
                json.field_str("semantic", &semantic_text(kind, index));
            }
            if let Some(discard) =
                compiled.and_then(|compiled| compiled.access_discard.get(access_start + offset))
            {
                json.field_strs("discard", discard.names());
            }
            json.end_object();
        }
        json.end_array();
        json.end_object();
    }
    json.end_array();
    if let Some(compiled) = compiled {
        write_schedule(json, graph, compiled);
    }
    json.end_object();
}

fn semantic_text(kind: crate::decl::SemanticKind, index: u32) -> String {
    use crate::decl::SemanticKind as K;
    match kind {
        K::DepthStencil | K::ClearDepth | K::ClearStencil => kind.name().to_string(),
        _ => format!("{}{index}", kind.name()),
    }
}

fn write_schedule<W: Write>(
    json: &mut JsonWriter<W>,
    graph: &RecordedGraph,
    compiled: &CompiledFrame,
) {
    json.key("schedule");
    json.begin_object();
    json.field_uints("order", compiled.order.iter().map(|node| node.0 as u64));
    json.field_uints("culled", compiled.culled.iter().map(|node| node.0 as u64));
    json.field_uint("batches", compiled.batches as u64);
    json.field_uint("transitions", compiled.transitions as u64);
    json.key("queues");
    json.begin_object();
    for (index, class) in compiled.queues.iter().enumerate() {
        json.field_str(&index.to_string(), class.name());
    }
    json.end_object();
    json.key("node_queues");
    json.begin_object();
    for node in &compiled.order {
        json.field_uint(
            &node.0.to_string(),
            compiled.node_queue[node.index()] as u64,
        );
    }
    json.end_object();
    json.key("memory");
    json.begin_object();
    json.field_uint("transient_bytes", compiled.memory.transient_bytes);
    json.field_uint("unaliased_bytes", compiled.memory.unaliased_bytes);
    json.field_uint("lower_bound_bytes", compiled.memory.lower_bound_bytes);
    json.end_object();
    json.field_bool("cache_hit", compiled.cache_hit);
    json.key("barrier_batches");
    json.begin_array();
    for batch in &compiled.batch_list {
        json.begin_object();
        json.field_uint("position", batch.position as u64);
        json.key("barriers");
        json.begin_array();
        for barrier in
            &compiled.barriers[batch.barriers.start as usize..batch.barriers.end as usize]
        {
            let region = compiled.barrier_region(barrier);
            json.begin_object();
            json.field_uint("resource", barrier.resource.0 as u64);
            json.field_uints("lo", region.lo);
            json.field_uints("hi", region.hi);
            json.field_uint("src_stages", barrier.src_stages.0);
            json.field_uint("src_access", barrier.src_accesses.0);
            json.field_uint("dst_stages", barrier.dst_stages.0);
            json.field_uint("dst_access", barrier.dst_accesses.0);
            json.field_uint("old_layout", barrier.old_layout as u64);
            json.field_uint("new_layout", barrier.new_layout as u64);
            if barrier.src_queue != barrier.dst_queue {
                json.field_uint("src_queue", barrier.src_queue as u64);
                json.field_uint("dst_queue", barrier.dst_queue as u64);
            }
            json.end_object();
        }
        json.end_array();
        json.end_object();
    }
    json.end_array();
    json.key("queue_waits");
    json.begin_array();
    for wait in &compiled.queue_waits {
        json.begin_object();
        json.field_uint("wait_queue", wait.wait_queue as u64);
        json.field_uint("signal_queue", wait.signal_queue as u64);
        json.field_uint("signal_after", wait.signal_after as u64);
        json.field_uint("wait_before", wait.wait_before as u64);
        json.end_object();
    }
    json.end_array();
    json.key("render_passes");
    json.begin_array();
    for pass in &compiled.render_passes {
        write_render_pass(json, graph, pass);
    }
    json.end_array();
    json.end_object();
}

/// The subresources (or bytes) an access covers: `mips` and `layers` as `[base, count]` with
/// `planes` (a mask), or `bytes` as `[offset, size]`.
fn write_range<W: Write>(json: &mut JsonWriter<W>, range: AccessRange) {
    match range {
        AccessRange::Texture(range) => {
            json.field_uints("mips", [range.base_mip as u64, range.mip_count as u64]);
            json.field_uints(
                "layers",
                [range.base_layer as u64, range.layer_count as u64],
            );
            json.field_uint("planes", range.planes as u64);
        }
        AccessRange::Buffer { offset, size } => json.field_uints("bytes", [offset, size]),
    }
}

fn write_render_pass<W: Write>(json: &mut JsonWriter<W>, graph: &RecordedGraph, pass: &RenderPass) {
    json.begin_object();
    json.field_uint("node", pass.node.0 as u64);
    json.field_uints(
        "extent",
        [pass.width as u64, pass.height as u64, pass.layers as u64],
    );
    json.field_uint("samples", pass.samples as u64);
    json.key("colors");
    json.begin_array();
    for color in &pass.colors {
        json.begin_object();
        json.field_uint("slot", color.slot as u64);
        json.field_uint("resource", color.resource.0 as u64);
        json.field_str("load", load_name(color.load));
        json.field_str("store", store_name(color.store));
        if let Some(access) = color
            .resolve
            .and_then(|index| graph.accesses.get(index as usize))
        {
            json.key("resolve");
            json.begin_object();
            json.field_uint("resource", access.resource.0 as u64);
            write_range(json, access.range);
            json.end_object();
        }
        json.end_object();
    }
    json.end_array();
    if let Some(depth) = pass.depth_stencil {
        json.key("depth_stencil");
        json.begin_object();
        json.field_uint("resource", depth.resource.0 as u64);
        json.field_str("depth_load", load_name(depth.depth_load));
        json.field_str("depth_store", store_name(depth.depth_store));
        json.field_str("stencil_load", load_name(depth.stencil_load));
        json.field_str("stencil_store", store_name(depth.stencil_store));
        json.field_bool("depth_read_only", depth.depth_read_only);
        json.field_bool("stencil_read_only", depth.stencil_read_only);
        json.end_object();
    }
    json.key("viewports");
    json.begin_array();
    for viewport in &pass.viewports {
        json.begin_array();
        for value in [
            viewport.x,
            viewport.y,
            viewport.width,
            viewport.height,
            viewport.min_depth,
            viewport.max_depth,
        ] {
            json.float32(value);
        }
        json.end_array();
    }
    json.end_array();
    json.key("scissors");
    json.begin_array();
    for scissor in &pass.scissors {
        json.begin_array();
        json.int(scissor.x as i64);
        json.int(scissor.y as i64);
        json.uint(scissor.width as u64);
        json.uint(scissor.height as u64);
        json.end_array();
    }
    json.end_array();
    json.end_object();
}

fn load_name(op: crate::compile::LoadOp) -> &'static str {
    match op {
        crate::compile::LoadOp::Load => "load",
        crate::compile::LoadOp::Clear => "clear",
        crate::compile::LoadOp::DontCare => "dont_care",
    }
}

fn store_name(op: crate::compile::StoreOp) -> &'static str {
    match op {
        crate::compile::StoreOp::Store => "store",
        crate::compile::StoreOp::DontCare => "dont_care",
    }
}

fn read_bytes<const N: usize>(args: &[u8], at: usize) -> Option<[u8; N]> {
    args.get(at..at + N).map(|slice| {
        let mut out = [0u8; N];
        out.copy_from_slice(slice);
        out
    })
}

fn write_scalar<W: Write>(json: &mut JsonWriter<W>, scalar: ScalarType, args: &[u8], at: usize) {
    let value = match scalar {
        ScalarType::Bool => {
            read_bytes::<4>(args, at).map(|b| json.boolean(u32::from_le_bytes(b) != 0))
        }
        ScalarType::I32 => {
            read_bytes::<4>(args, at).map(|b| json.int(i32::from_le_bytes(b) as i64))
        }
        ScalarType::U32 => {
            read_bytes::<4>(args, at).map(|b| json.uint(u32::from_le_bytes(b) as u64))
        }
        ScalarType::I64 => read_bytes::<8>(args, at).map(|b| json.int(i64::from_le_bytes(b))),
        ScalarType::U64 => read_bytes::<8>(args, at).map(|b| json.uint(u64::from_le_bytes(b))),
        ScalarType::F32 => read_bytes::<4>(args, at).map(|b| json.float32(f32::from_le_bytes(b))),
        ScalarType::F64 => read_bytes::<8>(args, at).map(|b| json.float64(f64::from_le_bytes(b))),
    };
    if value.is_none() {
        json.null();
    }
}

fn write_value<W: Write>(json: &mut JsonWriter<W>, value_type: &ValueType, args: &[u8], at: usize) {
    match value_type {
        ValueType::Scalar(scalar) => write_scalar(json, *scalar, args, at),
        ValueType::Vector(scalar, count) => {
            json.begin_array();
            for index in 0..*count as usize {
                write_scalar(json, *scalar, args, at + index * scalar.size() as usize);
            }
            json.end_array();
        }
        ValueType::Matrix(scalar, rows, cols) => {
            json.begin_array();
            for row in 0..*rows as usize {
                json.begin_array();
                for col in 0..*cols as usize {
                    write_scalar(
                        json,
                        *scalar,
                        args,
                        at + (row * *cols as usize + col) * scalar.size() as usize,
                    );
                }
                json.end_array();
            }
            json.end_array();
        }
        ValueType::Array(elem, count) => {
            // An unsized array (count 0) holds whatever the call passed up to the block's end.
            let count = match *count {
                0 => args.len().saturating_sub(at) / elem.stride().max(1) as usize,
                count => count as usize,
            };
            json.begin_array();
            for index in 0..count {
                write_value(json, elem, args, at + index * elem.stride() as usize);
            }
            json.end_array();
        }
        ValueType::Struct(ty) => {
            json.begin_object();
            for field in &ty.fields {
                json.key(&field.name);
                write_value(json, &field.value_type, args, at + field.offset as usize);
            }
            json.end_object();
        }
        ValueType::Texture => {
            json.begin_object();
            json.key("view");
            match args
                .get(at..)
                .and_then(TextureView::from_bytes)
                .filter(|view| !view.is_null())
            {
                Some(view) => {
                    json.begin_object();
                    json.field_uint("resource", view.resource as u64);
                    json.field_str("format", &Format(view.view_format).to_string());
                    json.field_uint("temporal", view.temporal_layer as u64);
                    json.field_uint("flags", view.flags as u64);
                    json.field_uints(
                        "mips",
                        [view.base_mip_level as u64, view.mip_level_count as u64],
                    );
                    json.field_uints(
                        "layers",
                        [view.base_array_layer as u64, view.array_layer_count as u64],
                    );
                    json.key("min_lod");
                    json.float32(view.min_lod_clamp);
                    json.field_uint("component_mapping", view.component_mapping as u64);
                    json.end_object();
                }
                None => json.null(),
            }
            json.end_object();
        }
        ValueType::Buffer => {
            json.begin_object();
            json.key("view");
            match args
                .get(at..)
                .and_then(BufferView::from_bytes)
                .filter(|view| !view.is_null())
            {
                Some(view) => {
                    json.begin_object();
                    json.field_uint("resource", view.resource as u64);
                    json.field_str("format", &Format(view.view_format).to_string());
                    json.field_uint("temporal", view.temporal_layer as u64);
                    json.field_uint("flags", view.flags as u64);
                    json.field_uint("offset", view.offset);
                    json.field_uint("size", view.size_in_bytes);
                    json.field_uint("stride", view.stride as u64);
                    json.end_object();
                }
                None => json.null(),
            }
            json.end_object();
        }
        ValueType::NodeHandle => {
            json.begin_object();
            json.key("node");
            match read_bytes::<4>(args, at).map(u32::from_le_bytes) {
                Some(node) if node != u32::MAX => json.uint(node as u64),
                _ => json.null(),
            }
            json.end_object();
        }
    }
}

/// Names of discard flags as the dump prints them.
impl DiscardFlags {
    /// `discard_before`, `discard_after`, `stencil_discard_before`, `stencil_discard_after`.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        [
            (DiscardFlags::BEFORE, "discard_before"),
            (DiscardFlags::AFTER, "discard_after"),
            (DiscardFlags::STENCIL_BEFORE, "stencil_discard_before"),
            (DiscardFlags::STENCIL_AFTER, "stencil_discard_after"),
        ]
        .into_iter()
        .filter(move |(flag, _)| self.0 & flag.0 != 0)
        .map(|(_, name)| name)
    }
}
