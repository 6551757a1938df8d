//! Random scripts through the whole pipeline (parse, check, JIT and interpreter, graph building,
//! frame compile): textures with mips, layers and temporal slices viewed by random ranges,
//! depth-stencil targets, buffers, `[relaxed]` and `discard_after` accesses, built-in clears and
//! copies, loops, `async` calls and `sch_barrier`. Every frame either compiles or fails with a
//! located error (`random.rpsl:LINE:COL: error: ...`), both engines agree, and the session runs
//! the next frame. Found this way: un-located render-pass errors and copies between
//! incompatible textures that reached the GPU. `RANDOM_SCRIPTS_SHOW=1` prints each frame's
//! outcome (`ok` or the error).

use rpsl::runtime::shapes::ShapeRng;
use rpsl::{EntryArgs, Mode, Program, Session, SessionOptions};

const DECLS: &str = "\
graphics node Draw([readonly(ps)] texture a, [writeonly(rendertarget)] texture rt : SV_Target0);
graphics node Draw2(rtv rt0 : SV_Target0, rtv rt1 : SV_Target1, srv s);
graphics node DepthPass([readwrite(depth, stencil)] texture ds : SV_DepthStencil, rtv c : SV_Target0);
compute node Blit([readonly(cs)] texture a, [writeonly(cs)] texture o);
compute node Touch([readwrite(cs)] texture t);
compute node RTouch([relaxed] [readwrite(cs)] texture t);
compute node Drop([readonly(cs)] texture a, [readwrite(cs, discard_after)] texture b);
compute node Buf([readonly(cs)] buffer a, [readwrite(cs)] buffer b);
compute node ReadAny([readonly(cs)] texture a);
";

struct Tex {
    name: String,
    mips: u64,
    layers: u64,
    temporal: u64,
}

/// `rng.below(n)` in `lo..=hi`.
fn range(rng: &mut ShapeRng, lo: u64, hi: u64) -> u64 {
    lo + rng.below(hi - lo + 1)
}

fn view(rng: &mut ShapeRng, textures: &[Tex]) -> String {
    let index = rng.below(textures.len() as u64 + 1) as usize;
    let Some(t) = textures.get(index) else {
        return "bb".into();
    };
    let mut v = t.name.clone();
    if t.temporal > 1 && rng.below(2) == 0 {
        v += &format!(".temporal({})", rng.below(t.temporal));
    }
    // Mostly in range; now and then one past the end (a located fault).
    let bad = rng.below(60) == 0;
    if rng.below(5) < 3 {
        let mip = range(rng, 0, t.mips - 1 + bad as u64);
        v += &format!(
            ".mips({mip}, {})",
            range(rng, 1, t.mips.saturating_sub(mip).max(1))
        );
    }
    if rng.below(5) < 2 {
        let layer = range(rng, 0, t.layers - 1);
        v += &format!(".array({layer}, {})", range(rng, 1, t.layers - layer));
    }
    v
}

/// A view of one mip (and sometimes one layer): a render target.
fn target(rng: &mut ShapeRng, textures: &[Tex]) -> String {
    let index = rng.below(textures.len() as u64 + 1) as usize;
    let Some(t) = textures.get(index) else {
        return "bb".into();
    };
    let mut v = t.name.clone();
    if t.temporal > 1 {
        v += &format!(".temporal({})", rng.below(t.temporal));
    }
    let mip = if rng.below(4) == 0 {
        rng.below(t.mips)
    } else {
        0
    };
    v += &format!(".mips({mip}, 1)");
    if rng.below(2) == 0 {
        v += &format!(".array({}, 1)", rng.below(t.layers));
    }
    v
}

fn script(seed: u64) -> String {
    let mut rng = ShapeRng(seed);
    let mut out =
        format!("{DECLS}\nexport void main([readonly(present)] texture bb, uint n)\n{{\n");
    let formats = [
        "RPS_FORMAT_R8G8B8A8_UNORM",
        "RPS_FORMAT_R16G16B16A16_FLOAT",
        "RPS_FORMAT_R32_FLOAT",
    ];
    let mut textures = Vec::new();
    for i in 0..range(&mut rng, 1, 4) {
        let t = Tex {
            name: format!("t{i}"),
            mips: range(&mut rng, 1, 4),
            layers: range(&mut rng, 1, 3),
            temporal: [1, 1, 2, 3][rng.below(4) as usize],
        };
        let format = formats[rng.below(3) as usize];
        out += &format!(
            "    texture {} = create_tex2d({format}, 64, 64, {}, {}, {});\n",
            t.name, t.mips, t.layers, t.temporal
        );
        textures.push(t);
    }
    let depth = rng.below(2) == 0;
    if depth {
        out += "    texture d0 = create_tex2d(RPS_FORMAT_D24_UNORM_S8_UINT, 64, 64, 1, 1);\n";
    }
    let buffers = rng.below(3);
    for i in 0..buffers {
        out += &format!(
            "    buffer b{i} = create_buffer({});\n",
            [16, 256, 4096][rng.below(3) as usize]
        );
    }
    for _ in 0..range(&mut rng, 1, 20) {
        if rng.below(10) == 0 {
            out += "    sch_barrier();\n";
        }
        let call = match rng.below(13) {
            0 | 1 => format!(
                "Draw({}, {});",
                view(&mut rng, &textures),
                target(&mut rng, &textures)
            ),
            2 => format!(
                "Draw2({}, {}, {});",
                target(&mut rng, &textures),
                target(&mut rng, &textures),
                view(&mut rng, &textures)
            ),
            3 if depth => format!("DepthPass(d0, {});", target(&mut rng, &textures)),
            4 | 5 => format!(
                "Blit({}, {});",
                view(&mut rng, &textures),
                view(&mut rng, &textures)
            ),
            6 => format!("Touch({});", view(&mut rng, &textures)),
            7 => format!("RTouch({});", view(&mut rng, &textures)),
            8 => format!(
                "Drop({}, {});",
                view(&mut rng, &textures),
                view(&mut rng, &textures)
            ),
            9 if buffers > 0 => format!("Buf(b{}, b{});", rng.below(buffers), rng.below(buffers)),
            10 => format!("clear({}, float4(0, 0, 0, 1));", view(&mut rng, &textures)),
            11 if rng.below(4) == 0 => format!(
                "copy_texture({}, {});",
                view(&mut rng, &textures),
                view(&mut rng, &textures)
            ),
            _ => format!(
                "for (uint i = 0; i < n; i++) {{ {}ReadAny({}); }}",
                if rng.below(2) == 0 { "async " } else { "" },
                view(&mut rng, &textures)
            ),
        };
        out += &format!("    {call}\n");
    }
    out + "}\n"
}

/// What a session made of three frames of the script: each frame's dump, or its error's first
/// line.
fn run(program: &Program, mode: Mode, n: u32) -> Vec<String> {
    let options = SessionOptions {
        mode,
        ..SessionOptions::default()
    };
    let mut session = Session::new(program, None, options).unwrap();
    let args = EntryArgs::parse(
        program,
        session.entry(),
        ["bb=64x64".to_string(), format!("n={n}")],
    )
    .unwrap();
    (0..3)
        .map(|_| match session.run_frame(&args) {
            Ok(frame) => format!(
                "{:?} {} {}",
                frame.compiled.order, frame.compiled.batches, frame.compiled.transitions
            ),
            Err(error) => {
                let rendered = error.render();
                let first = rendered.lines().next().unwrap_or("").to_string();
                assert!(
                    first.starts_with("random.rpsl:") && first.contains(": error: "),
                    "unlocated error: {rendered}"
                );
                first
            }
        })
        .collect()
}

#[test]
fn random_scripts_compile_or_fail_located_and_engines_agree() {
    let mut compiled = 0;
    for seed in 1..=120u64 {
        let text = script(seed * 0x9E37_79B9);
        let program = Program::from_source("random.rpsl", &text)
            .unwrap_or_else(|error| panic!("seed {seed}: {error}\n{text}"));
        let n = (seed % 4) as u32;
        let jit = run(&program, Mode::Jit, n);
        let interp = run(&program, Mode::Interp, n);
        assert_eq!(jit, interp, "seed {seed}\n{text}");
        if std::env::var_os("RANDOM_SCRIPTS_SHOW").is_some() {
            for frame in &jit {
                eprintln!("{}", frame.split(": error: ").nth(1).unwrap_or("ok"));
            }
        }
        compiled += jit.iter().filter(|frame| frame.starts_with('[')).count();
    }
    // The generator is not all faults: most frames compile.
    assert!(compiled > 200, "only {compiled} of 360 frames compiled");
}
