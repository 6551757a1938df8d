//! Helpers for building corpus-shaped graphs by hand through the builder.
#![allow(
    dead_code,
    missing_docs,
    reason = "shared by several test binaries, each using a subset"
)]

use rpsl_runtime::*;

pub fn uint_param(name: &str) -> ParamDesc {
    ParamDesc::new(name, ValueType::Scalar(ScalarType::U32))
}

pub fn tex_param(name: &str, access: AccessDesc) -> ParamDesc {
    ParamDesc::new(name, ValueType::Texture).with_access(access)
}

pub fn rtv(name: &str, target: u32) -> ParamDesc {
    tex_param(name, AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
        .with_semantic(SemanticKind::Target, target)
}

pub fn discard_rtv(name: &str, target: u32) -> ParamDesc {
    tex_param(name, AccessDesc::writeonly(AccessFlags::RENDER_TARGET))
        .with_semantic(SemanticKind::Target, target)
}

pub fn ps_srv(name: &str) -> ParamDesc {
    tex_param(name, AccessDesc::readonly(AccessFlags::PS))
}

pub fn uav(name: &str) -> ParamDesc {
    tex_param(
        name,
        AccessDesc::readwrite(AccessFlags::PS | AccessFlags::CS),
    )
}

pub fn buf_param(name: &str, access: AccessDesc) -> ParamDesc {
    ParamDesc::new(name, ValueType::Buffer).with_access(access)
}

/// A value passed to `call`.
pub enum Arg {
    U32(u32),
    Tex(TextureView),
    Texs(Vec<TextureView>),
    Buf(BufferView),
    Node(NodeId),
    F32(f32),
}

/// A builder plus the script-level `id` of each node call.
pub struct Recorder {
    pub builder: GraphBuilder,
    pub ids: Vec<u32>,
    key: u64,
}

impl Recorder {
    pub fn new() -> Recorder {
        Recorder {
            builder: GraphBuilder::new(),
            ids: Vec::new(),
            key: 0,
        }
    }

    pub fn declare(&mut self, name: &str, queue: QueueClass, params: Vec<ParamDesc>) -> DeclId {
        self.builder
            .declare_node(NodeDeclDesc::new(name, queue, params))
    }

    pub fn begin(&mut self, frame: u64) {
        self.builder.begin_frame(frame);
        self.ids.clear();
        self.key = 0;
    }

    pub fn output(&mut self) -> TextureView {
        let id = self
            .builder
            .import_external(
                "output",
                ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080),
            )
            .unwrap();
        self.builder.default_texture_view(id).unwrap()
    }

    pub fn texture(&mut self, desc: ResourceDesc) -> TextureView {
        self.key += 1;
        let id = self.builder.create_resource(desc, self.key).unwrap();
        self.builder.default_texture_view(id).unwrap()
    }

    pub fn buffer(&mut self, size: u64) -> BufferView {
        self.key += 1;
        let id = self
            .builder
            .create_resource(ResourceDesc::buffer(size), self.key)
            .unwrap();
        self.builder.default_buffer_view(id).unwrap()
    }

    /// Calls a node; the first `U32` argument is taken as the script's `id`.
    pub fn call(&mut self, decl: DeclId, args: &[Arg]) -> NodeId {
        self.call_with(decl, args, CallFlags::default())
    }

    pub fn call_with(&mut self, decl: DeclId, args: &[Arg], flags: CallFlags) -> NodeId {
        let desc = self.builder.decl(decl).unwrap();
        let mut writer = ArgsWriter::new(desc);
        let mut id = u32::MAX;
        for (index, arg) in args.iter().enumerate() {
            match arg {
                Arg::U32(value) => {
                    if id == u32::MAX {
                        id = *value;
                    }
                    writer.write_u32(index, *value);
                }
                Arg::F32(value) => {
                    writer.write_f32(index, 0, *value);
                }
                Arg::Tex(view) => {
                    writer.write_texture(index, view);
                }
                Arg::Texs(views) => {
                    for (element, view) in views.iter().enumerate() {
                        writer.write_texture_at(index, element as u32, view);
                    }
                }
                Arg::Buf(view) => {
                    writer.write_buffer(index, view);
                }
                Arg::Node(node) => {
                    writer.write_node(index, *node);
                }
            }
        }
        self.key += 1;
        let node = self
            .builder
            .call_node(decl, writer.bytes(), flags, self.key)
            .unwrap();
        self.ids.push(id);
        node
    }

    pub fn finish(&mut self) -> &RecordedGraph {
        self.builder.finish().unwrap()
    }

    /// Script ids of nodes in the given order.
    pub fn ids_of(&self, nodes: &[NodeId]) -> Vec<u32> {
        nodes.iter().map(|node| self.ids[node.index()]).collect()
    }
}

pub fn compile(graph: &RecordedGraph, schedule: SchedulePreference, cull: bool) -> CompiledFrame {
    let mut compiler = FrameCompiler::new(CompileOptions {
        schedule,
        cull,
        cache: false,
        async_compute: true,
    });
    compiler.compile(graph).unwrap().clone()
}

pub fn with_view(view: TextureView, f: impl FnOnce(&mut TextureView)) -> TextureView {
    let mut out = view;
    f(&mut out);
    out
}

/// `t.array(base, count).mips(mip)` etc.
pub fn sub(
    view: TextureView,
    base_mip: u32,
    mips: u32,
    base_layer: u32,
    layers: u32,
) -> TextureView {
    TextureView {
        base_mip_level: base_mip,
        mip_level_count: mips,
        base_array_layer: base_layer,
        array_layer_count: layers,
        ..view
    }
}

/// Position of a script id in an order of script ids.
pub fn pos(order: &[u32], id: u32) -> usize {
    order
        .iter()
        .position(|&x| x == id)
        .unwrap_or_else(|| panic!("id {id} not scheduled in {order:?}"))
}

/// Checks the frame's aliasing (`what` names the frame in failures): every placement lies
/// within the heap, no two transients live at once share memory, and where two share memory
/// the later one has a barrier in a batch after the earlier one's last use and no later than
/// its own first use (the aliasing barrier that hands the memory over).
pub fn assert_aliasing_holds(frame: &CompiledFrame, what: &str) {
    // Batch positions with a barrier on each resource, in order.
    let mut barrier_positions: Vec<Vec<u32>> = vec![Vec::new(); frame.placements.len()];
    for batch in &frame.batch_list {
        for barrier in &frame.barriers[batch.barriers.start as usize..batch.barriers.end as usize] {
            if let Some(positions) = barrier_positions.get_mut(barrier.resource.index()) {
                positions.push(batch.position);
            }
        }
    }
    let placed: Vec<(usize, Placement, (u32, u32))> = frame
        .placements
        .iter()
        .enumerate()
        .filter_map(|(index, placement)| {
            placement.map(|p| (index, p, frame.lifetimes[index].unwrap()))
        })
        .collect();
    for (x, (ra, pa, la)) in placed.iter().enumerate() {
        assert!(
            pa.offset + pa.size <= frame.memory.transient_bytes,
            "{what}"
        );
        for (rb, pb, lb) in &placed[x + 1..] {
            let memory = pa.offset < pb.offset + pb.size && pb.offset < pa.offset + pa.size;
            let time = la.0 <= lb.1 && lb.0 <= la.1;
            assert!(
                !(memory && time),
                "resources {ra} and {rb} alias while both live ({what})"
            );
            if memory {
                // The later resource's first barrier comes after the earlier one's last use.
                let (early, late, late_first) = if la.1 < lb.0 {
                    (la, *rb, lb.0)
                } else {
                    (lb, *ra, la.0)
                };
                let positions = &barrier_positions[late];
                let after = positions.partition_point(|&position| position <= early.1);
                let handed_over = positions
                    .get(after)
                    .is_some_and(|&position| position <= late_first);
                assert!(handed_over, "no aliasing barrier for r{late} ({what})");
            }
        }
    }
}
