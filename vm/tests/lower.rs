//! End-to-end: RPSL source through the frontend, the lowering, the verifier and the interpreter.

use rpsl_vm::host::NULL_VIEW;
use rpsl_vm::lower::{lower_module, Lowered};
use rpsl_vm::{HostEvent, Interpreter, Limits, RecordingHost, RuntimeError, Value};

fn lower(source: &str) -> Lowered {
    let compilation = rpsl_frontend::check_source("test.rpsl", source);
    assert!(
        !compilation.has_errors(),
        "{}",
        compilation.render_diagnostics()
    );
    let module = compilation.module.expect("checked module");
    match lower_module(&module) {
        Ok(lowered) => lowered,
        Err(errors) => panic!("lowering failed: {errors:?}"),
    }
}

/// Runs entry `name` with an I/O block filled by `fill`; returns the outcome, host and I/O block.
fn run(
    source: &str,
    name: &str,
    fill: impl FnOnce(&mut [u8], &rpsl_vm::lower::EntryInfo),
) -> (Result<Vec<Value>, RuntimeError>, RecordingHost, Vec<u8>) {
    let lowered = lower(source);
    let entry = lowered
        .entries
        .iter()
        .find(|e| e.name == name)
        .expect("entry")
        .clone();
    let verified = match lowered.module.verify() {
        Ok(verified) => verified,
        Err(errors) => panic!("verification failed:\n{errors}"),
    };
    let mut io = vec![0u8; entry.io_size as usize];
    fill(&mut io, &entry);
    let mut interp = Interpreter::new(Limits::default());
    let mut host = RecordingHost::new();
    let result = interp.run(&verified, entry.func, &[Value::Addr(0)], &mut io, &mut host);
    (result, host, io)
}

fn put_u32(io: &mut [u8], offset: u32, value: u32) {
    io[offset as usize..offset as usize + 4].copy_from_slice(&value.to_le_bytes());
}

fn get_u32(io: &[u8], offset: u32) -> u32 {
    u32::from_le_bytes(io[offset as usize..offset as usize + 4].try_into().unwrap())
}

fn get_f32(io: &[u8], offset: u32) -> f32 {
    f32::from_bits(get_u32(io, offset))
}

#[test]
fn arithmetic_loops_helpers_and_out_params() {
    let source = r#"
struct Pair { uint a; float b; };

void divmod(uint x, uint y, out uint q, inout uint r) { q = x / y; r = r + x % y; }

Pair make(uint n) { Pair p; p.a = n * 2; p.b = 0.5; return p; }

export void main(uint n, out uint sum, out uint quotient, out uint rem, out float f)
{
    uint total = 0;
    for (uint i = 0; i < n; i++) {
        if (i == 3) continue;
        if (i > 7) break;
        total += i;
    }
    sum = total;
    uint r = 100;
    divmod(17, 5, quotient, r);
    rem = r;
    Pair p = make(n);
    Pair dup = p;
    dup.a = 1;
    f = p.b + (float)p.a + (float)dup.a;
}
"#;
    let (result, _, io) = run(source, "main", |io, entry| {
        put_u32(io, entry.params[0].offset, 10)
    });
    assert_eq!(result, Ok(vec![]));
    // 0+1+2+4+5+6+7 = 25 (3 skipped, stops after 7).
    assert_eq!(get_u32(&io, 4), 25);
    assert_eq!(get_u32(&io, 8), 3);
    assert_eq!(get_u32(&io, 12), 102);
    assert_eq!(get_f32(&io, 16), 21.5);
}

#[test]
fn graph_building_records_host_calls() {
    let source = r#"
graphics node Draw([readwrite(rendertarget)] texture rt : SV_Target0, float scale);
compute node Blur([readonly(cs)] texture src, [writeonly(cs)] texture dst);

export void main([readonly(present)] texture backbuffer, uint count)
{
    ResourceDesc desc = backbuffer.desc();
    texture tmp = create_tex2d(desc.Format, desc.Width / 2, desc.Height / 2);
    for (uint i = 0; i < count; i++) {
        Draw(tmp, 0.5 * (float)i);
    }
    sch_barrier();
    async Blur(tmp, backbuffer.mips(0));
}
"#;
    let lowered = lower(source);
    assert!(lowered.module.to_string().contains("call_node"));
    let (result, host, _) = run(source, "main", |io, entry| {
        io[..40].copy_from_slice(&NULL_VIEW);
        put_u32(io, entry.params[1].offset, 2);
    });
    // The backbuffer is not a resource the recording host knows: describing it fails, located.
    let err = result.unwrap_err();
    assert_eq!(err.to_string(), "invalid resource id 4294967295");
    assert!(err.loc.is_some());
    assert!(host.events.is_empty());

    // With resource 0 created up front by a host that knows it, the graph records fully.
    let verified = lowered.module.verify().expect("verifies");
    let entry = &lowered.entries[0];
    let mut host = RecordingHost::new();
    host.resources.push(rpsl_vm::RpslResourceDesc {
        ty: 2,
        temporal_layers: 1,
        width: 1280,
        height: 720,
        depth_or_array_size: 1,
        mip_levels: 1,
        format: 28,
        sample_count: 1,
        flags: 0,
    });
    let mut io = vec![0u8; entry.io_size as usize];
    io[..40].copy_from_slice(&[0u8; 40]);
    put_u32(&mut io, 20, 1);
    put_u32(&mut io, 28, 1);
    put_u32(&mut io, entry.params[1].offset, 2);
    let mut interp = Interpreter::new(Limits::default());
    let result = interp.run(&verified, entry.func, &[Value::Addr(0)], &mut io, &mut host);
    assert_eq!(result, Ok(vec![]));
    let kinds: Vec<&str> = host
        .events
        .iter()
        .map(|e| match e {
            HostEvent::CreateResource { .. } => "create",
            HostEvent::DescribeResource { .. } => "describe",
            HostEvent::CallNode { flags: 1, .. } => "async-node",
            HostEvent::CallNode { .. } => "node",
            HostEvent::Marker { .. } => "marker",
        })
        .collect();
    assert_eq!(
        kinds,
        ["describe", "create", "node", "node", "marker", "async-node"]
    );
    match &host.events[1] {
        HostEvent::CreateResource { desc, .. } => {
            assert_eq!(
                (
                    desc.ty,
                    desc.width,
                    desc.height,
                    desc.format,
                    desc.mip_levels
                ),
                (2, 640, 360, 28, 1)
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    match &host.events[3] {
        HostEvent::CallNode { args, .. } => {
            assert_eq!(
                &args[0..4],
                &1u32.to_le_bytes(),
                "the new texture is resource 1"
            );
            assert_eq!(&args[40..44], &0.5f32.to_le_bytes());
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn runtime_faults_point_at_the_source() {
    let source = "export void main(uint i, out uint r)\n{\n    uint a[4] = { 1, 2, 3, 4 };\n    r = a[i];\n}\n";
    let (result, _, io) = run(source, "main", |io, _| put_u32(io, 0, 2));
    assert_eq!(result, Ok(vec![]));
    assert_eq!(get_u32(&io, 4), 3);
    let lowered = lower(source);
    let (result, _, _) = run(source, "main", |io, _| put_u32(io, 0, 9));
    let err = result.unwrap_err();
    assert_eq!(
        err.to_string(),
        "array index 9 is out of bounds for length 4"
    );
    let span = lowered.locs[err.loc.unwrap().index()];
    assert_eq!(&source[span.start as usize..span.end as usize], "a[i]");
}

/// Every script of the corpus and the benchmark shapes lowers to bytecode that verifies, and every
/// entry point runs (texture parameters are 1280x720 resources the host knows; other parameters
/// are zero, `uint` parameters 4).
#[test]
fn corpus_lowers_verifies_and_runs() {
    let mut paths: Vec<std::path::PathBuf> = std::fs::read_dir("../../shared/corpus/rps-sdk")
        .map(|dir| dir.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    paths.push("../../shared/bench/rps_shapes.rpsl".into());
    paths.retain(|p| p.extension().is_some_and(|e| e == "rpsl"));
    paths.sort();
    if paths.len() < 2 {
        eprintln!("corpus not found next to the repository; skipping");
        return;
    }
    let mut failures = Vec::new();
    for path in &paths {
        let compilation = rpsl_frontend::check_file(path);
        let Some(module) = compilation.module else {
            // Frontend gaps are the frontend's tests' business; report them here without failing.
            eprintln!(
                "skipping {}: frontend errors:\n{}",
                path.display(),
                compilation.render_diagnostics()
            );
            continue;
        };
        let lowered = match lower_module(&module) {
            Ok(lowered) => lowered,
            Err(errors) => {
                failures.push(format!("{}: {}", path.display(), errors[0].message));
                continue;
            }
        };
        let entries = lowered.entries.clone();
        let verified = match lowered.module.verify() {
            Ok(verified) => verified,
            Err(errors) => {
                failures.push(format!("{}: verify: {}", path.display(), errors.0[0]));
                continue;
            }
        };
        for entry in &entries {
            let mut host = RecordingHost::new();
            let mut io = vec![0u8; entry.io_size as usize];
            for param in &entry.params {
                match param.ty {
                    rpsl_frontend::types::Type::Texture | rpsl_frontend::types::Type::Buffer => {
                        let id = host.resources.len() as u32;
                        host.resources.push(rpsl_vm::RpslResourceDesc {
                            ty: 2,
                            temporal_layers: 1,
                            width: 1280,
                            height: 720,
                            depth_or_array_size: 1,
                            mip_levels: 1,
                            format: 28,
                            sample_count: 1,
                            flags: 0,
                        });
                        put_u32(&mut io, param.offset, id);
                        put_u32(&mut io, param.offset + 20, 1);
                        put_u32(&mut io, param.offset + 28, 1);
                    }
                    rpsl_frontend::types::Type::Scalar(rpsl_frontend::types::ScalarKind::Uint) => {
                        put_u32(&mut io, param.offset, 4)
                    }
                    _ => {}
                }
            }
            let mut interp = Interpreter::new(Limits::default());
            if let Err(error) =
                interp.run(&verified, entry.func, &[Value::Addr(0)], &mut io, &mut host)
            {
                failures.push(format!("{} `{}`: run: {error}", path.display(), entry.name));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} scripts failed:\n{}",
        failures.len(),
        paths.len(),
        failures.join("\n")
    );
}

/// The SDK's HLSL intrinsics test: the node's argument block holds hand-computed results.
#[test]
fn hlsl_intrinsics_script_computes_exact_results() {
    let path = "../../shared/corpus/rps-sdk/tests_console_test_hlsl_intrinsics.rpsl";
    let Ok(source) = std::fs::read_to_string(path) else {
        eprintln!("corpus not found; skipping");
        return;
    };
    let (result, host, _) = run(&source, "rps_main", |io, entry| {
        let offset = |name: &str| entry.params.iter().find(|p| p.name == name).unwrap().offset;
        put_u32(io, offset("i1"), (-13i32) as u32);
        put_u32(io, offset("u1"), 0x4049_0FDB);
        put_u32(io, offset("i2"), 1);
        put_u32(io, offset("i2") + 4, 2);
        for (i, v) in [100u32, 7, 5].into_iter().enumerate() {
            put_u32(io, offset("u3") + 4 * i as u32, v);
        }
        put_u32(io, offset("f1"), 0.25f32.to_bits());
        for (i, v) in [1.5f32, -2.0, 2.5, 4.0].into_iter().enumerate() {
            put_u32(io, offset("f4") + 4 * i as u32, v.to_bits());
        }
    });
    assert_eq!(result, Ok(vec![]));
    let HostEvent::CallNode { args, .. } = &host.events[0] else {
        panic!("expected a node call")
    };
    let ia: Vec<u32> = (0..10).map(|i| get_u32(args, 4 * i)).collect();
    assert_eq!(
        ia,
        [13, 254, 0x4080_0000, 705, 3, 5, 15, 0x6000_000C, 2, 12]
    );
    let fa: Vec<f32> = (0..16).map(|i| get_f32(args, 40 + 4 * i)).collect();
    let expected = [
        1.75f32.atan2(-2.0),
        std::f32::consts::PI,
        -13.0,
        1.5,
        1.5,
        -7.25,
        1.0,
        -2.0,
        2.0,
        4.0,
        2.0,
        -3.5,
        1.5f32.cos(),
        1.0 / 2.0001f32.sqrt(),
        1.0,
        1.0f32.exp(),
    ];
    assert_eq!(fa, expected);
}

#[test]
fn switch_do_while_short_circuit_and_vectors() {
    let source = r#"
uint pick(uint k) {
    switch (k) {
    case 0: return 10;
    case 1:
    case 2: k = k + 20; break;
    default: return 99;
    }
    return k;
}

export void main(out uint a, out uint b, out uint c, out uint d, out float e, out uint calls)
{
    a = pick(0) + pick(1) * 1000;
    b = pick(7);
    uint n = 0;
    do { n += 3; } while (n < 10);
    c = n;
    uint touched = 0;
    bool t = (n > 100) && ((touched = 1) == 1);
    bool u = (n < 100) || ((touched = 2) == 2);
    d = touched + (t ? 10 : 0) + (u ? 100 : 0);
    float3 v = float3(1.0, 2.0, 3.0);
    v.zx = v.xz;
    v *= 2.0;
    e = dot(v, float3(1.0, 0.0, 0.0)) + v.y;
    calls = pick(2);
}
"#;
    let (result, _, io) = run(source, "main", |_, _| {});
    assert_eq!(result, Ok(vec![]));
    let words: Vec<u32> = (0..6).map(|i| get_u32(&io, 4 * i)).collect();
    assert_eq!(&words[..4], &[10 + 21 * 1000, 99, 12, 100]);
    // v = (3, 2, 1) * 2 = (6, 4, 2): 6 + 4.
    assert_eq!(get_f32(&io, 16), 10.0);
    assert_eq!(words[5], 22);
}

#[test]
fn globals_intrinsics_on_vectors_and_matrices() {
    let source = r#"
static const float SCALE = sqrt(4.0);
static const uint COUNT = 3;

export void main(out float a, out float b, out uint c, out float d, out float e)
{
    float3 v = normalize(float3(3.0, 0.0, 4.0));
    a = v.x * SCALE + max(float2(1.0, 5.0), float2(2.0, 3.0)).y;
    b = length(float2(6.0, 8.0)) + distance(float2(0.0, 0.0), float2(3.0, 4.0));
    bool3 flags = bool3(false, true, false);
    c = (any(flags) ? 10 : 0) + (all(flags) ? 100 : 0) + COUNT;
    float2x2 m = float2x2(1.0, 2.0, 3.0, 4.0);
    d = m[1].x + m[0][1];
    float3 x = cross(float3(1.0, 0.0, 0.0), float3(0.0, 1.0, 0.0));
    e = x.z + dot(float4(1.0, 2.0, 3.0, 4.0), float4(1.0, 1.0, 1.0, 1.0));
}
"#;
    let (result, _, io) = run(source, "main", |_, _| {});
    assert_eq!(result, Ok(vec![]));
    // normalize((3,0,4)).x = 3 * rsqrt(25) = 0.6; * 2 + 5.
    assert_eq!(get_f32(&io, 0), 0.6 * 2.0 + 5.0);
    assert_eq!(get_f32(&io, 4), 15.0);
    assert_eq!(get_u32(&io, 8), 13);
    assert_eq!(get_f32(&io, 12), 5.0);
    assert_eq!(get_f32(&io, 16), 11.0);
}

/// Prints the bytecode of a small script: `cargo test -p rpsl-vm --test lower show -- --nocapture`.
#[test]
fn show_lowered_bytecode() {
    let lowered = lower(
        "node Draw(texture t);\nexport void main(texture t, uint n)\n{\n    for (uint i = 0; i < n; i++)\n        Draw(t.mips(i));\n}\n",
    );
    let text = lowered.module.to_string();
    assert!(text.contains("jump.loop"));
    assert!(text.contains("call_node decl"));
    println!("{text}");
}

#[test]
fn view_methods_edit_view_bytes() {
    let source = r#"
node Use(texture a, texture b, buffer c, buffer d, texture e);

export void main(texture t, buffer buf)
{
    texture derived = t.array(1, 2).mips(1).format(5).temporal(1);
    texture cube = create_texture_view(t, 2, 3, 0, 6, 0, 7).cubemap();
    Use(derived, cube, buf.bytes(16, 32).stride(4), buf.bytes(8, 8).base(), derived.base());
}
"#;
    let lowered = lower(source);
    let entry = lowered.entries[0].clone();
    let verified = lowered.module.verify().expect("verifies");
    let mut host = RecordingHost::new();
    let desc = |ty, width, height, mips, layers| rpsl_vm::RpslResourceDesc {
        ty,
        temporal_layers: 2,
        flags: 0,
        width,
        height,
        depth_or_array_size: layers,
        mip_levels: mips,
        format: 28,
        sample_count: 1,
    };
    host.resources.push(desc(2, 256, 256, 4, 8));
    host.resources.push(desc(0, 1024, 0, 1, 1));
    let mut io = vec![0u8; entry.io_size as usize];
    let (t, b) = (entry.params[0].offset, entry.params[1].offset);
    put_u32(&mut io, t, 0);
    put_u32(&mut io, t + 20, 4);
    put_u32(&mut io, t + 28, 8);
    put_u32(&mut io, b, 1);
    io[(b + 24) as usize..(b + 32) as usize].copy_from_slice(&1024u64.to_le_bytes());
    let mut interp = Interpreter::new(Limits::default());
    let result = interp.run(&verified, entry.func, &[Value::Addr(0)], &mut io, &mut host);
    assert_eq!(result, Ok(vec![]));
    let HostEvent::CallNode { args, .. } = host.events.last().unwrap() else {
        panic!("no node call")
    };
    let words = |at: u32| -> Vec<u32> { (0..10).map(|i| get_u32(args, at + 4 * i)).collect() };
    // derived: resource 0, format 5, temporal 1, flags 0, one mip from 1, two layers from 1.
    assert_eq!(words(0), [0, 5, 1, 0, 1, 1, 1, 2, 0, 0]);
    // cube: mips 2..+3, layers 0..+6, format 7, cubemap flag.
    assert_eq!(words(40), [0, 7, 0, 1, 2, 3, 0, 6, 0, 0]);
    // c: offset 16, size 32, stride 4.
    let c = 80;
    assert_eq!(get_u32(args, c), 1);
    assert_eq!(
        u64::from_le_bytes(args[c as usize + 16..c as usize + 24].try_into().unwrap()),
        16
    );
    assert_eq!(
        u64::from_le_bytes(args[c as usize + 24..c as usize + 32].try_into().unwrap()),
        32
    );
    assert_eq!(get_u32(args, c + 32), 4);
    // d = base(): the whole 1024-byte buffer.
    let d = 120;
    assert_eq!(
        u64::from_le_bytes(args[d as usize + 16..d as usize + 24].try_into().unwrap()),
        0
    );
    assert_eq!(
        u64::from_le_bytes(args[d as usize + 24..d as usize + 32].try_into().unwrap()),
        1024
    );
    // e = derived.base(): all 4 mips and 8 layers of resource 0, default format and layer,
    // the identity component mapping of a default view.
    assert_eq!(words(160), [0, 0, 0, 0, 0, 4, 0, 8, 0, 0x0302_0100]);
}
