//! The native baseline of the record benchmark: the `chain` and `lanes` graphs of
//! `scripts/bench/rps_shapes.rpsl` built by hand-written calls to the runtime's `GraphBuilder`.
//! Shared by `examples/record_profile` and `benches/record.rs`.

use rpsl::runtime::{
    AccessDesc, AccessFlags, ArgsWriter, CallFlags, DeclId, Format, GraphBuilder, NodeDeclDesc,
    ParamDesc, QueueClass, ResourceDesc, SemanticKind, TextureView, ValueType,
};

/// The resource class of `makeResource(i)`.
fn make_resource(i: u32) -> ResourceDesc {
    match (i.wrapping_mul(2654435761) >> 7) & 3 {
        0 => ResourceDesc::tex2d(Format::R16G16B16A16_FLOAT, 1920, 1080),
        1 => ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080),
        2 => ResourceDesc::tex2d(Format::R16G16B16A16_FLOAT, 960, 540),
        _ => ResourceDesc::tex2d(Format::R32_FLOAT, 480, 270),
    }
}

/// A builder with the script's two node declarations, recording the shapes by hand.
pub struct Hand {
    builder: GraphBuilder,
    raster: DeclId,
    compute: DeclId,
}

impl Default for Hand {
    fn default() -> Hand {
        Hand::new()
    }
}

impl Hand {
    /// A builder with `Raster` and `Compute` declared as the script declares them.
    pub fn new() -> Hand {
        let mut builder = GraphBuilder::new();
        let read = |name: &str, stage| {
            ParamDesc::new(name, ValueType::Texture).with_access(AccessDesc::readonly(stage))
        };
        let raster = builder.declare_node(NodeDeclDesc::new(
            "Raster",
            QueueClass::Graphics,
            vec![
                read("a", AccessFlags::PS),
                read("b", AccessFlags::PS),
                ParamDesc::new("rt", ValueType::Texture)
                    .with_access(AccessDesc::writeonly(AccessFlags::RENDER_TARGET))
                    .with_semantic(SemanticKind::Target, 0),
            ],
        ));
        let compute = builder.declare_node(NodeDeclDesc::new(
            "Compute",
            QueueClass::Compute,
            vec![
                read("a", AccessFlags::CS),
                read("b", AccessFlags::CS),
                ParamDesc::new("uav", ValueType::Texture)
                    .with_access(AccessDesc::writeonly(AccessFlags::CS)),
            ],
        ));
        Hand {
            builder,
            raster,
            compute,
        }
    }

    fn view(&mut self, i: u32) -> TextureView {
        let id = self
            .builder
            .create_resource(make_resource(i), i as u64 + 1)
            .unwrap();
        self.builder.default_texture_view(id).unwrap()
    }

    fn call(
        &mut self,
        compute: bool,
        a: Option<TextureView>,
        b: Option<TextureView>,
        o: TextureView,
        key: u64,
    ) {
        let decl = if compute { self.compute } else { self.raster };
        let mut args = ArgsWriter::new(self.builder.decl(decl).unwrap());
        if let Some(a) = a {
            args.write_texture(0, &a);
        }
        if let Some(b) = b {
            args.write_texture(1, &b);
        }
        args.write_texture(2, &o);
        self.builder
            .call_node(decl, args.bytes(), CallFlags::default(), key)
            .unwrap();
    }

    fn backbuffer(&mut self) -> TextureView {
        let desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1280, 720);
        let id = self
            .builder
            .import_external_with_access(
                "backbuffer",
                desc,
                Some(AccessDesc::readonly(AccessFlags::PRESENT)),
            )
            .unwrap();
        self.builder.default_texture_view(id).unwrap()
    }

    /// Records the `chain` graph of `n` nodes as frame `frame`; returns the node count.
    pub fn chain(&mut self, frame: u64, n: u32) -> usize {
        self.builder.begin_frame(frame);
        let backbuffer = self.backbuffer();
        let mut ring = [None; 16];
        for i in 0..n {
            let k = (i * 7) % 8 + 2;
            let mut a = if i >= 1 {
                ring[((i - 1) % 16) as usize]
            } else {
                None
            };
            let b = if i >= k {
                ring[((i - k) % 16) as usize]
            } else {
                None
            };
            if a.is_none() {
                a = b;
            }
            let o = if i == n - 1 { backbuffer } else { self.view(i) };
            ring[(i % 16) as usize] = Some(o);
            self.call(i % 3 == 1 && i != n - 1, a, b, o, i as u64);
        }
        self.builder.finish().unwrap().nodes.len()
    }

    /// Records the `lanes` graph of `n` nodes as frame `frame`; returns the node count.
    pub fn lanes(&mut self, frame: u64, n: u32) -> usize {
        self.builder.begin_frame(frame);
        let backbuffer = self.backbuffer();
        let (w, l) = (8, (n - 1) / 8);
        let mut heads = [None; 8];
        for lane in 0..w {
            let mut prev = None;
            for j in 0..l {
                let o = self.view(lane * l + j);
                self.call(j % 2 == 1, prev, None, o, (lane * l + j) as u64);
                prev = Some(o);
            }
            heads[lane as usize] = prev;
        }
        let mut acc = heads[0];
        for m in 1..w {
            let o = if m == w - 1 {
                backbuffer
            } else {
                self.view(w * l + m - 1)
            };
            self.call(false, acc, heads[m as usize], o, (w * l + m) as u64);
            acc = Some(o);
        }
        self.builder.finish().unwrap().nodes.len()
    }
}
