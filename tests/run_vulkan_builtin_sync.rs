//! Every built-in node (every overload, buffer and texture, whole and region) between two
//! accesses of one access class on the same resource — `A(r); builtin(r); A(r)` — so both the
//! barrier into the built-in and the one out of it are exercised, for every access class that
//! fits the resource: copy source/destination, transfer and render-target clears, render
//! target, depth write and read, shader reads and writes in the vertex, pixel and compute
//! stages (real shaders in `tests/builtin_sync_shaders/`), resolve, and present. All triples run
//! in one generated script (one resource each), under the Khronos validation layer with
//! synchronization validation: any message fails the run (`rpsl run --validate`, exit 3).
//! Present gets one script per texture built-in (the entry's back buffer, two frames, so the
//! previous frame's present precedes the built-in); where the built-in writes the whole back
//! buffer from known values, its pixels are read back exactly. Skips without a Vulkan device unless
//! `RPSL_REQUIRE_VULKAN=1`.

mod run_vulkan_support;

use run_vulkan_support::{rpsl, scratch, scratch_dir, vulkan_available};

/// The kind of resource a built-in role and an access class work on.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Kind {
    /// `RGBA8_UNORM` 8x8.
    Color,
    /// `RGBA8_UNORM` 8x8, 4 samples.
    Msaa,
    /// `D32_FLOAT_S8X24_UINT` 8x8.
    Depth,
    /// `D32_FLOAT_S8X24_UINT` 8x8, 4 samples.
    DepthMsaa,
    /// 256 bytes.
    Buffer,
}

impl Kind {
    /// The statement creating a resource of this kind named `name`.
    fn create(self, name: &str) -> String {
        match self {
            Kind::Color => {
                format!("texture {name} = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8);")
            }
            Kind::Msaa => format!(
                "texture {name} = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 8, 8, 1, 1, 1, 4);"
            ),
            Kind::Depth => {
                format!("texture {name} = create_tex2d(RPS_FORMAT_D32_FLOAT_S8X24_UINT, 8, 8);")
            }
            Kind::DepthMsaa => format!(
                "texture {name} = create_tex2d(RPS_FORMAT_D32_FLOAT_S8X24_UINT, 8, 8, 1, 1, 1, 4);"
            ),
            Kind::Buffer => format!("buffer {name} = create_buffer(256);"),
        }
    }
}

/// One use of a resource: its name, the kind it needs, the helper resources it uses (name,
/// kind) and the statement (with `$R` for the resource and `$H0` for the helper).
struct Use {
    name: &'static str,
    kind: Kind,
    helpers: &'static [Kind],
    statement: &'static str,
}

const fn use_of(
    name: &'static str,
    kind: Kind,
    helpers: &'static [Kind],
    statement: &'static str,
) -> Use {
    Use {
        name,
        kind,
        helpers,
        statement,
    }
}

/// Every built-in node in every role: each overload, on buffers and textures, whole and
/// region, as destination and as source.
fn builtin_roles() -> Vec<Use> {
    use Kind::*;
    vec![
        use_of("clear float4 (render target)", Color, &[], "clear($R, float4(0.5, 0, 0, 1));"),
        use_of("clear uint4 (render target)", Color, &[], "clear($R, uint4(1, 2, 3, 4));"),
        use_of("clear_color_regions", Color, &[], "clear_color_regions($R, float4(1, 0, 0, 1), 1, rects);"),
        use_of("clear_texture", Color, &[], "clear_texture($R, RPS_CLEAR_UAV_UINT, uint4(1, 2, 3, 4));"),
        use_of("clear_texture_regions", Color, &[], "clear_texture_regions($R, uint4(1, 2, 3, 4), 1, rects);"),
        use_of("copy_texture whole (dst)", Color, &[Color], "copy_texture($R, $H0);"),
        use_of("copy_texture whole (src)", Color, &[Color], "copy_texture($H0, $R);"),
        use_of("copy_texture region (dst)", Color, &[Color], "copy_texture($R, uint3(1, 1, 0), $H0, uint3(0, 0, 0), uint3(4, 4, 1));"),
        use_of("copy_texture region (src)", Color, &[Color], "copy_texture($H0, uint3(0, 0, 0), $R, uint3(2, 2, 0), uint3(4, 4, 1));"),
        use_of("copy_buffer_to_texture (texture)", Color, &[Buffer], "copy_buffer_to_texture($R, uint3(0, 0, 0), $H0, 0, 32, uint3(8, 8, 1), uint3(0, 0, 0), uint3(8, 8, 1));"),
        use_of("copy_texture_to_buffer (texture)", Color, &[Buffer], "copy_texture_to_buffer($H0, 0, 32, uint3(8, 8, 1), uint3(0, 0, 0), $R, uint3(0, 0, 0), uint3(8, 8, 1));"),
        use_of("resolve average (dst)", Color, &[Msaa], "resolve($R, uint2(0, 0), $H0, uint2(0, 0), uint2(8, 8), 0);"),
        use_of("resolve min (dst)", Color, &[Msaa], "resolve($R, uint2(0, 0), $H0, uint2(0, 0), uint2(8, 8), 1);"),
        use_of("resolve average (src)", Msaa, &[Color], "resolve($H0, uint2(0, 0), $R, uint2(0, 0), uint2(8, 8), 0);"),
        use_of("resolve max (src)", Msaa, &[Color], "resolve($H0, uint2(0, 0), $R, uint2(0, 0), uint2(8, 8), 2);"),
        use_of("clear depth+stencil", Depth, &[], "clear($R, 1.0, 7);"),
        use_of("clear_depth", Depth, &[], "clear_depth($R, 0.5);"),
        use_of("clear_stencil", Depth, &[], "clear_stencil($R, 3);"),
        use_of("clear_depth_stencil_regions", Depth, &[], "clear_depth_stencil_regions($R, RPS_CLEAR_DEPTHSTENCIL, 0.5, 3, 1, rects);"),
        use_of("copy_texture depth (dst)", Depth, &[Depth], "copy_texture($R, $H0);"),
        use_of("copy_texture depth (src)", Depth, &[Depth], "copy_texture($H0, $R);"),
        use_of("resolve depth (dst)", Depth, &[DepthMsaa], "resolve($R, uint2(0, 0), $H0, uint2(0, 0), uint2(8, 8), 0);"),
        use_of("resolve depth (src)", DepthMsaa, &[Depth], "resolve($H0, uint2(0, 0), $R, uint2(0, 0), uint2(8, 8), 0);"),
        use_of("clear buffer float4 (R32_FLOAT view, a fill)", Buffer, &[], "clear($R.format(RPS_FORMAT_R32_FLOAT), float4(1, 2, 3, 4));"),
        use_of("clear buffer float4 (R32G32B32_FLOAT view, a pattern copy)", Buffer, &[], "clear($R.format(RPS_FORMAT_R32G32B32_FLOAT), float4(1, 2, 3, 4));"),
        use_of("clear buffer uint4 (R32_UINT view, a fill)", Buffer, &[], "clear($R.format(RPS_FORMAT_R32_UINT), uint4(7, 7, 7, 7));"),
        use_of("clear buffer uint4 (raw, four words)", Buffer, &[], "clear($R, uint4(1, 2, 3, 4));"),
        use_of("clear buffer uint4 (odd range)", Buffer, &[], "clear(create_buffer_view($R, 3, 250).format(RPS_FORMAT_R8_UINT), uint4(9, 0, 0, 0));"),
        use_of("clear_buffer", Buffer, &[], "clear_buffer($R, RPS_CLEAR_UAV_UINT, uint4(5, 5, 5, 5));"),
        use_of("copy_buffer whole (dst)", Buffer, &[Buffer], "copy_buffer($R, $H0);"),
        use_of("copy_buffer whole (src)", Buffer, &[Buffer], "copy_buffer($H0, $R);"),
        use_of("copy_buffer region (dst)", Buffer, &[Buffer], "copy_buffer($R, 16, $H0, 0, 64);"),
        use_of("copy_buffer region (src)", Buffer, &[Buffer], "copy_buffer($H0, 0, $R, 32, 64);"),
        use_of("copy_buffer_to_texture (buffer)", Buffer, &[Color], "copy_buffer_to_texture($H0, uint3(0, 0, 0), $R, 0, 32, uint3(8, 8, 1), uint3(0, 0, 0), uint3(8, 8, 1));"),
        use_of("copy_texture_to_buffer (buffer)", Buffer, &[Color], "copy_texture_to_buffer($R, 0, 32, uint3(8, 8, 1), uint3(0, 0, 0), $H0, uint3(0, 0, 0), uint3(8, 8, 1));"),
    ]
}

/// Every access class, per resource kind (present has its own scripts).
fn access_classes() -> Vec<Use> {
    use Kind::*;
    vec![
        use_of("copy src", Color, &[Color], "copy_texture($H0, $R);"),
        use_of("copy dst", Color, &[Color], "copy_texture($R, $H0);"),
        use_of(
            "clear (render target)",
            Color,
            &[],
            "clear($R, float4(0, 0, 1, 1));",
        ),
        use_of(
            "clear (transfer)",
            Color,
            &[],
            "clear_texture($R, RPS_CLEAR_UAV_UINT, uint4(9, 9, 9, 9));",
        ),
        use_of("render target", Color, &[], "RtWrite($R);"),
        use_of("vertex shader read", Color, &[Color], "VsReadTex($R, $H0);"),
        use_of(
            "vertex shader write",
            Color,
            &[Color],
            "VsWriteTex($R, $H0);",
        ),
        use_of("pixel shader read", Color, &[Color], "PsReadTex($R, $H0);"),
        use_of(
            "pixel shader write",
            Color,
            &[Color],
            "PsWriteTex($R, $H0);",
        ),
        use_of(
            "compute shader read",
            Color,
            &[Color],
            "CsReadTex($R, $H0);",
        ),
        use_of("compute shader write", Color, &[], "CsWriteTex($R);"),
        use_of(
            "resolve dst",
            Color,
            &[Msaa],
            "resolve($R, uint2(0, 0), $H0, uint2(0, 0), uint2(8, 8), 0);",
        ),
        use_of("copy src", Msaa, &[Msaa], "copy_texture($H0, $R);"),
        use_of("copy dst", Msaa, &[Msaa], "copy_texture($R, $H0);"),
        use_of(
            "clear (render target)",
            Msaa,
            &[],
            "clear($R, float4(0, 0, 1, 1));",
        ),
        use_of("render target", Msaa, &[], "RtWrite($R);"),
        use_of(
            "resolve src",
            Msaa,
            &[Color],
            "resolve($H0, uint2(0, 0), $R, uint2(0, 0), uint2(8, 8), 0);",
        ),
        use_of("copy src", Depth, &[Depth], "copy_texture($H0, $R);"),
        use_of("copy dst", Depth, &[Depth], "copy_texture($R, $H0);"),
        use_of("clear (depth)", Depth, &[], "clear($R, 0.75, 1);"),
        use_of("depth write", Depth, &[], "DepthWrite($R);"),
        use_of("depth read", Depth, &[], "DepthRead($R);"),
        use_of(
            "resolve dst",
            Depth,
            &[DepthMsaa],
            "resolve($R, uint2(0, 0), $H0, uint2(0, 0), uint2(8, 8), 0);",
        ),
        use_of("clear (depth)", DepthMsaa, &[], "clear($R, 0.75, 1);"),
        use_of("depth write", DepthMsaa, &[], "DepthWrite($R);"),
        use_of("depth read", DepthMsaa, &[], "DepthRead($R);"),
        use_of(
            "copy src",
            DepthMsaa,
            &[DepthMsaa],
            "copy_texture($H0, $R);",
        ),
        use_of(
            "resolve src",
            DepthMsaa,
            &[Depth],
            "resolve($H0, uint2(0, 0), $R, uint2(0, 0), uint2(8, 8), 0);",
        ),
        use_of("copy src", Buffer, &[Buffer], "copy_buffer($H0, $R);"),
        use_of("copy dst", Buffer, &[Buffer], "copy_buffer($R, $H0);"),
        use_of("clear", Buffer, &[], "clear($R, uint4(9, 9, 9, 9));"),
        use_of(
            "vertex shader read",
            Buffer,
            &[Color],
            "VsReadBuf($R, $H0);",
        ),
        use_of(
            "vertex shader write",
            Buffer,
            &[Color],
            "VsWriteBuf($R, $H0);",
        ),
        use_of("pixel shader read", Buffer, &[Color], "PsReadBuf($R, $H0);"),
        use_of(
            "pixel shader write",
            Buffer,
            &[Color],
            "PsWriteBuf($R, $H0);",
        ),
        use_of(
            "compute shader read",
            Buffer,
            &[Buffer],
            "CsReadBuf($R, $H0);",
        ),
        use_of("compute shader write", Buffer, &[], "CsWriteBuf($R);"),
    ]
}

const NODES: &str = "\
graphics node RtWrite([readwrite(rendertarget)] texture rt : SV_Target0);
graphics node VsReadTex([readonly(vs)] texture src, [readwrite(rendertarget)] texture rt : SV_Target0);
graphics node VsWriteTex([readwrite(vs)] texture dst, [readwrite(rendertarget)] texture rt : SV_Target0);
graphics node VsReadBuf([readonly(vs)] buffer src, [readwrite(rendertarget)] texture rt : SV_Target0);
graphics node VsWriteBuf([readwrite(vs)] buffer dst, [readwrite(rendertarget)] texture rt : SV_Target0);
graphics node PsReadTex([readonly(ps)] texture src, [readwrite(rendertarget)] texture rt : SV_Target0);
graphics node PsWriteTex([readwrite(ps)] texture dst, [readwrite(rendertarget)] texture rt : SV_Target0);
graphics node PsReadBuf([readonly(ps)] buffer src, [readwrite(rendertarget)] texture rt : SV_Target0);
graphics node PsWriteBuf([readwrite(ps)] buffer dst, [readwrite(rendertarget)] texture rt : SV_Target0);
graphics node DepthWrite([readwrite(depth, stencil)] texture ds : SV_DepthStencil);
graphics node DepthRead([readonly(depth, stencil)] texture ds : SV_DepthStencil);
compute node CsReadTex([readonly(cs)] texture src, [readwrite(cs)] texture dst);
compute node CsWriteTex([readwrite(cs)] texture dst);
compute node CsReadBuf([readonly(cs)] buffer src, [readwrite(cs)] buffer dst);
compute node CsWriteBuf([readwrite(cs)] buffer dst);
";

/// `statement` with `R` and the helpers renamed for pair `pair`, creating the helpers first.
fn instantiate(body: &mut String, pair: usize, step: &str, use_: &Use) {
    let mut statement = use_.statement.replace("$R", &format!("r{pair}"));
    for (index, kind) in use_.helpers.iter().enumerate() {
        let helper = format!("h{pair}{step}{index}");
        body.push_str("    ");
        body.push_str(&kind.create(&helper));
        body.push('\n');
        statement = statement.replace(&format!("$H{index}"), &helper);
    }
    body.push_str("    ");
    body.push_str(&statement);
    body.push('\n');
}

fn run_validated(script: &std::path::Path, args: &[&str]) {
    let shaders = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/builtin_sync_shaders");
    let mut all = vec![
        "run",
        script.to_str().unwrap(),
        "--validate",
        "--no-cull",
        "--shaders",
        shaders,
    ];
    all.extend_from_slice(args);
    let output = rpsl(&all);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}: {stderr}",
        script.display()
    );
    assert_eq!(stderr, "", "{}", script.display());
}

#[test]
fn every_builtin_between_every_access_class_is_synchronized() {
    if !vulkan_available() {
        return;
    }
    let roles = builtin_roles();
    let classes = access_classes();
    let mut body = String::from("    int4 rects[1] = { int4(1, 1, 4, 4) };\n");
    let mut pairs = Vec::new();
    for role in &roles {
        for class in classes.iter().filter(|class| class.kind == role.kind) {
            let pair = pairs.len();
            body.push_str(&format!("    // {} around {}\n", class.name, role.name));
            body.push_str("    ");
            body.push_str(&role.kind.create(&format!("r{pair}")));
            body.push('\n');
            instantiate(&mut body, pair, "a", class);
            instantiate(&mut body, pair, "b", role);
            instantiate(&mut body, pair, "c", class);
            pairs.push((role.name, class.name));
        }
    }
    // Every role meets at least four classes, every class at least one role.
    for role in &roles {
        assert!(
            pairs.iter().filter(|(r, _)| *r == role.name).count() >= 4,
            "{}",
            role.name
        );
    }
    assert_eq!(pairs.len(), 321);
    let script = scratch(
        "builtin_sync.rpsl",
        &format!("{NODES}\nexport void main()\n{{\n{body}}}\n"),
    );
    run_validated(&script, &["--frames", "2"]);
}

/// The colour every pixel of the back buffer has after `role` (helpers cleared to green or to
/// the bytes 1, 2, 3, 4), for the roles that write all of it.
fn whole_result(role: &str) -> Option<[u8; 4]> {
    match role {
        "clear float4 (render target)" => Some([128, 0, 0, 255]),
        "copy_buffer_to_texture (texture)" => Some([1, 2, 3, 4]),
        "copy_texture whole (dst)" | "resolve average (dst)" | "resolve min (dst)" => {
            Some([0, 255, 0, 255])
        }
        _ => None,
    }
}

#[test]
fn every_texture_builtin_before_present_is_synchronized() {
    if !vulkan_available() {
        return;
    }
    let mut exact = 0;
    for role in builtin_roles()
        .iter()
        .filter(|role| role.kind == Kind::Color)
    {
        let mut body = String::from("    int4 rects[1] = { int4(1, 1, 4, 4) };\n");
        let mut statement = role.statement.replace("$R", "bb");
        for (index, kind) in role.helpers.iter().enumerate() {
            let helper = format!("h{index}");
            body.push_str(&format!("    {}\n", kind.create(&helper)));
            body.push_str(&match kind {
                Kind::Buffer => format!(
                    "    clear({helper}, uint4(0x04030201, 0x04030201, 0x04030201, 0x04030201));\n"
                ),
                _ => format!("    clear({helper}, float4(0, 1, 0, 1));\n"),
            });
            statement = statement.replace(&format!("$H{index}"), &helper);
        }
        body.push_str(&format!("    {statement}\n"));
        let script = scratch(
            "builtin_present.rpsl",
            &format!("{NODES}\nexport void main([readonly(present)] texture bb)\n{{\n{body}}}\n"),
        );
        let dir = scratch_dir().join("present");
        let _ = std::fs::remove_dir_all(&dir);
        run_validated(
            &script,
            &[
                "--frames",
                "2",
                "--arg",
                "bb=8x8",
                "--out",
                dir.to_str().unwrap(),
            ],
        );
        if let Some(pixel) = whole_result(role.name) {
            let image = rpsl_vulkan::read_png(&dir.join("bb.png")).unwrap();
            assert_eq!(image, (8, 8, pixel.repeat(64)), "{}", role.name);
            exact += 1;
        }
    }
    assert_eq!(exact, 5);
}
