//! Graph recording through the JIT and the interpreter on `scripts/bench/rps_shapes.rpsl` (chain
//! and lanes at N=1000, script_heavy at N=100), next to the same chain and lanes graphs built by
//! hand-written calls to the runtime's `GraphBuilder` (the native baseline a script can approach).

use criterion::{criterion_group, criterion_main, Criterion};
use rpsl::runtime::{
    AccessDesc, AccessFlags, ArgsWriter, CallFlags, DeclId, Format, GraphBuilder, NodeDeclDesc,
    ParamDesc, QueueClass, ResourceDesc, SemanticKind, TextureView, ValueType,
};
use rpsl::{EntryArgs, Mode, Program, Session, SessionOptions};

const N: u32 = 1000;

fn shapes() -> Program {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/bench/rps_shapes.rpsl");
    Program::from_file(path).unwrap_or_else(|error| panic!("{}", error.rendered))
}

fn bench_script(c: &mut Criterion, program: &Program, mode: Mode, entry: &str, n: u32) {
    let options = SessionOptions {
        mode,
        ..SessionOptions::default()
    };
    let mut session = Session::new(program, Some(entry), options).unwrap();
    let args = EntryArgs::parse(program, session.entry(), [format!("N={n}")]).unwrap();
    c.bench_function(&format!("record/{}/{entry}/{n}", mode.name()), |b| {
        b.iter(|| {
            session
                .record_frame(&args)
                .map(|graph| graph.nodes.len())
                .unwrap()
        })
    });
}

/// The resource class of `makeResource(i)`.
fn make_resource(i: u32) -> ResourceDesc {
    match (i.wrapping_mul(2654435761) >> 7) & 3 {
        0 => ResourceDesc::tex2d(Format::R16G16B16A16_FLOAT, 1920, 1080),
        1 => ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080),
        2 => ResourceDesc::tex2d(Format::R16G16B16A16_FLOAT, 960, 540),
        _ => ResourceDesc::tex2d(Format::R32_FLOAT, 480, 270),
    }
}

struct Hand {
    builder: GraphBuilder,
    raster: DeclId,
    compute: DeclId,
}

impl Hand {
    fn new() -> Hand {
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

    fn chain(&mut self, frame: u64) -> usize {
        self.builder.begin_frame(frame);
        let backbuffer = self.backbuffer();
        let mut ring = [None; 16];
        for i in 0..N {
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
            let o = if i == N - 1 { backbuffer } else { self.view(i) };
            ring[(i % 16) as usize] = Some(o);
            self.call(i % 3 == 1 && i != N - 1, a, b, o, i as u64);
        }
        self.builder.finish().unwrap().nodes.len()
    }

    fn lanes(&mut self, frame: u64) -> usize {
        self.builder.begin_frame(frame);
        let backbuffer = self.backbuffer();
        let (w, l) = (8, (N - 1) / 8);
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

fn record(c: &mut Criterion) {
    let program = shapes();
    for mode in [Mode::Jit, Mode::Interp] {
        bench_script(c, &program, mode, "chain", N);
        bench_script(c, &program, mode, "lanes", N);
        bench_script(c, &program, mode, "script_heavy", 100);
    }
    let mut hand = Hand::new();
    let mut frame = 0;
    c.bench_function(&format!("record/hand/chain/{N}"), |b| {
        b.iter(|| {
            frame += 1;
            hand.chain(frame)
        })
    });
    c.bench_function(&format!("record/hand/lanes/{N}"), |b| {
        b.iter(|| {
            frame += 1;
            hand.lanes(frame)
        })
    });
}

criterion_group!(benches, record);
criterion_main!(benches);
