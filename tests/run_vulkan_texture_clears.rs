//! Texture clears on Vulkan (`clear_texture`, `clear_texture_regions`) read back byte-exactly:
//! each cleared texture is copied to a 64-byte buffer (`copy_texture_to_buffer`) and from there
//! into an RGBA8 `out` texture (`copy_buffer_to_texture`), all under `--validate`. A `uint4`
//! clear (`RPS_CLEAR_UAV_UINT`) writes the low bits of each component into its channel with no
//! format conversion, as D3D12's `ClearUnorderedAccessViewUint`; a float clear converts. The
//! same scripts record and compile on the null backend. Skips without a Vulkan device unless
//! `RPSL_REQUIRE_VULKAN=1`.

mod run_vulkan_support;

use run_vulkan_support::{rpsl, scratch, scratch_dir, validated_4x4_outputs, vulkan_available};

/// One cleared texture: its format (`RPS_FORMAT_` left out), bytes per texel (4, 8 or 16: the
/// texture is `16 / bytes` texels wide and 4 high, 64 bytes), and the statements clearing it
/// (`$T` is the texture); or another creation (`$F` the format) with the view and offset whose
/// 64 bytes are read back.
struct Case {
    format: &'static str,
    texel_bytes: u32,
    clear: &'static str,
    shape: Option<Shape>,
}

/// A texture of another shape than `16 / bytes` x 4.
struct Shape {
    create: &'static str,
    source: &'static str,
    source_offset: &'static str,
}

const fn case(format: &'static str, texel_bytes: u32, clear: &'static str) -> Case {
    Case {
        format,
        texel_bytes,
        clear,
        shape: None,
    }
}

/// The script clearing each case's texture and copying its 64 bytes into `out texture r{i}`.
fn script_of(cases: &[Case]) -> String {
    let params: Vec<String> = (0..cases.len())
        .map(|i| format!("out texture r{i}"))
        .collect();
    let mut body = String::new();
    for (i, case) in cases.iter().enumerate() {
        let width = 16 / case.texel_bytes;
        let texture = format!("t{i}");
        let default_create = format!("create_tex2d($F, {width}, 4)");
        let (create, source, offset) = match &case.shape {
            Some(shape) => (shape.create, shape.source, shape.source_offset),
            None => (default_create.as_str(), "$T", "uint3(0, 0, 0)"),
        };
        body.push_str(&format!(
            "    texture t{i} = {create};\n    \
             {clear}\n    \
             buffer b{i} = create_buffer(64);\n    \
             copy_texture_to_buffer(b{i}, 0, 16, uint3({width}, 4, 1), uint3(0, 0, 0), {source}, {offset}, uint3({width}, 4, 1));\n    \
             r{i} = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);\n    \
             copy_buffer_to_texture(r{i}, uint3(0, 0, 0), b{i}, 0, 16, uint3(4, 4, 1), uint3(0, 0, 0), uint3(4, 4, 1));\n",
            create = create.replace("$F", &format!("RPS_FORMAT_{}", case.format)),
            clear = case.clear.replace("$T", &texture),
            source = source.replace("$T", &texture),
        ));
    }
    format!("export void main({})\n{{\n{body}}}\n", params.join(", "))
}

/// Runs the cases under validation (no message may appear) and returns the 64 bytes of each
/// cleared texture.
fn cleared_bytes(name: &str, cases: &[Case]) -> Vec<Vec<u8>> {
    validated_4x4_outputs(name, &script_of(cases), cases.len())
}

/// `texel` repeated over 64 bytes.
fn repeated(texel: &[u8]) -> Vec<u8> {
    texel.iter().copied().cycle().take(64).collect()
}

/// The little-endian bytes of `words`.
fn words(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Whole-texture clears of each kind of format.
const WHOLE_CLEARS: [Case; 14] = [
    // 0: the issue: the raw words are not read as floats.
    case(
        "R8G8B8A8_UNORM",
        4,
        "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(1, 2, 3, 4));",
    ),
    // 1: 0x80 (-128) is no float clear's result (-1.0 gives 0x81); 0x1ff keeps 0xff.
    case(
        "R8G8B8A8_SNORM",
        4,
        "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(0x80, 0x7f, 0x81, 0x1ff));",
    ),
    // 2: no sRGB encoding of the bits.
    case(
        "R8G8B8A8_UNORM_SRGB",
        4,
        "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(0x180, 0x40, 0xbc, 0x7f));",
    ),
    // 3: half bit patterns: 1.0, a NaN with a payload, the smallest subnormal (a float32
    // conversion would flush it), -65504 (from the low 16 bits of 0x1fbff).
    case(
        "R16G16B16A16_FLOAT",
        8,
        "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(0x3c00, 0x7e01, 0x0001, 0x1fbff));",
    ),
    // 4: a signalling NaN with a payload, bit for bit.
    case(
        "R32_FLOAT",
        4,
        "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(0x7fa00001, 1, 2, 3));",
    ),
    // 5, 6: 32-bit integer channels take the words as they are.
    case(
        "R32G32B32A32_UINT",
        16,
        "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(0xffffffff, 0, 0x80000000, 0x12345678));",
    ),
    case(
        "R32G32B32A32_SINT",
        16,
        "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(0xffffffff, 0, 0x80000000, 0x12345678));",
    ),
    // 7, 8: 8-bit integer channels keep the low bits (SINT: sign from the channel's top bit).
    case(
        "R8G8B8A8_UINT",
        4,
        "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(0x1ff, 2, 0x300, 4));",
    ),
    case(
        "R8G8B8A8_SINT",
        4,
        "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(0x80, 0x17f, 0xff, 0x100));",
    ),
    // 9: 10- and 2-bit channels.
    case(
        "R10G10B10A2_UNORM",
        4,
        "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(0x7ff, 1, 0x3ff, 6));",
    ),
    // 10: x goes to R, which is the third byte of B8G8R8A8.
    case(
        "B8G8R8A8_UNORM",
        4,
        "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(1, 2, 3, 4));",
    ),
    // 11: a float clear converts (0.6 -> 153, 0.2 -> 51; the device converts, and Vulkan lets
    // it round a value halfway between two codes either way, so none is used here).
    case(
        "R8G8B8A8_UNORM",
        4,
        "clear_texture($T, RPS_CLEAR_UAV_FLOAT, asuint(float4(1, 0.6, 0, 0.2)));",
    ),
    // 12: a float clear of an integer format truncates and saturates.
    case(
        "R8G8B8A8_UINT",
        4,
        "clear_texture($T, RPS_CLEAR_UAV_FLOAT, asuint(float4(300, 2.9, -1, 4)));",
    ),
    // 13: a float clear of a half format.
    case(
        "R16G16B16A16_FLOAT",
        8,
        "clear_texture($T, RPS_CLEAR_UAV_FLOAT, asuint(float4(1, -2, 0.5, 0)));",
    ),
];

#[test]
fn uint_texture_clears_write_the_low_bits_of_each_channel() {
    if !vulkan_available() {
        return;
    }
    let bytes = cleared_bytes("whole", &WHOLE_CLEARS);
    let expected: [Vec<u8>; 14] = [
        repeated(&[1, 2, 3, 4]),
        repeated(&[0x80, 0x7f, 0x81, 0xff]),
        repeated(&[0x80, 0x40, 0xbc, 0x7f]),
        repeated(&[0x00, 0x3c, 0x01, 0x7e, 0x01, 0x00, 0xff, 0xfb]),
        repeated(&[0x01, 0x00, 0xa0, 0x7f]),
        repeated(&words(&[0xffff_ffff, 0, 0x8000_0000, 0x1234_5678])),
        repeated(&words(&[0xffff_ffff, 0, 0x8000_0000, 0x1234_5678])),
        repeated(&[0xff, 2, 0, 4]),
        repeated(&[0x80, 0x7f, 0xff, 0]),
        repeated(&words(&[0x3ff | 1 << 10 | 0x3ff << 20 | 2 << 30])),
        repeated(&[3, 2, 1, 4]),
        repeated(&[255, 153, 0, 51]),
        repeated(&[255, 2, 0, 4]),
        repeated(&[0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38, 0x00, 0x00]),
    ];
    for (index, (got, want)) in bytes.iter().zip(&expected).enumerate() {
        assert_eq!(got, want, "case {index}: {}", WHOLE_CLEARS[index].format);
    }
}

/// `clear_texture` with neither `RPS_CLEAR_UAV_FLOAT` nor `RPS_CLEAR_UAV_UINT`: rpsl.h's rule
/// for the data decides, the bits of floats for a float, unorm, snorm or sRGB view, the low bits
/// for an integer one.
const OPTIONLESS_CLEARS: [Case; 2] = [
    case(
        "R8G8B8A8_UNORM",
        4,
        "clear_texture($T, 0, asuint(float4(1, 0.6, 0, 0.2)));",
    ),
    case(
        "R8G8B8A8_UINT",
        4,
        "clear_texture($T, 0, uint4(1, 2, 0x103, 4));",
    ),
];

#[test]
fn texture_clears_without_an_option_follow_the_view_format() {
    if !vulkan_available() {
        return;
    }
    let bytes = cleared_bytes("optionless", &OPTIONLESS_CLEARS);
    assert_eq!(bytes[0], repeated(&[255, 153, 0, 51]));
    assert_eq!(bytes[1], repeated(&[1, 2, 3, 4]));
}

/// Region clears over a whole clear: `rects` (x, y, width, height) of a 4x4 texture of 4-byte
/// texels get the region's value, the rest keeps the first.
const REGION_CLEARS: [Case; 4] = [
    // A unorm format takes the bits of a float4 (rpsl.h): 1.0 -> 0xff.
    case(
        "R8G8B8A8_UNORM",
        4,
        "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(1, 2, 3, 4));\n    \
         int4 rects0[2] = { int4(1, 1, 2, 2), int4(3, 3, 9, 9) };\n    \
         clear_texture_regions($T, asuint(float4(1, 0, 1, 0)), 2, rects0);",
    ),
    // An integer format: the low bits.
    case(
        "R8G8B8A8_UINT",
        4,
        "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(1, 2, 3, 4));\n    \
         int4 rects1[2] = { int4(1, 1, 2, 2), int4(3, 3, 9, 9) };\n    \
         clear_texture_regions($T, uint4(0x1ff, 0x100, 0x80, 7), 2, rects1);",
    ),
    // A typeless format: the low bits, copied as texel bytes.
    case(
        "R8G8B8A8_TYPELESS",
        4,
        "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(1, 2, 3, 4));\n    \
         int4 rects2[2] = { int4(1, 1, 2, 2), int4(3, 3, 9, 9) };\n    \
         clear_texture_regions($T, uint4(0x1ff, 0x100, 0x80, 7), 2, rects2);",
    ),
    // Both clears on the async compute queue (the texel copies run there too).
    case(
        "R8G8B8A8_UNORM",
        4,
        "async clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(1, 2, 3, 4));\n    \
         int4 rects3[2] = { int4(1, 1, 2, 2), int4(3, 3, 9, 9) };\n    \
         async clear_texture_regions($T, asuint(float4(0, 1, 1, 1)), 2, rects3);",
    ),
];

#[test]
fn region_texture_clears_write_only_their_rectangles() {
    if !vulkan_available() {
        return;
    }
    let bytes = cleared_bytes("regions", &REGION_CLEARS);
    let inside = [
        [0xff, 0, 0xff, 0],
        [0xff, 0, 0x80, 7],
        [0xff, 0, 0x80, 7],
        [0, 0xff, 0xff, 0xff],
    ];
    for (index, got) in bytes.iter().enumerate() {
        let want: Vec<u8> = (0..16)
            .flat_map(|texel| {
                let (x, y) = (texel % 4, texel / 4);
                let first = (1..3).contains(&x) && (1..3).contains(&y);
                let second = x == 3 && y == 3; // clipped at the right and bottom edges
                if first || second {
                    inside[index]
                } else {
                    [1, 2, 3, 4]
                }
            })
            .collect();
        assert_eq!(got, &want, "case {index}: {}", REGION_CLEARS[index].format);
    }
}

/// Texel-copy clears of every subresource of the cleared view: mip 1 of layer 1 of a 2-mip,
/// 2-layer texture; the last depth slice of a 3D texture; a view of mip 1 only, whose mip 0
/// keeps an earlier clear; and the last rows of a 2 MiB texture, copied in bands of 1 MiB.
const SHAPED_CLEARS: [Case; 4] = [
    Case {
        format: "R8G8B8A8_UNORM",
        texel_bytes: 4,
        clear: "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(5, 6, 7, 8));",
        shape: Some(Shape {
            create: "create_tex2d($F, 8, 8, 2, 2)",
            source: "$T.mips(1, 1).array(1, 1)",
            source_offset: "uint3(0, 0, 0)",
        }),
    },
    Case {
        format: "R8G8B8A8_SNORM",
        texel_bytes: 4,
        clear: "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(0x80, 1, 0xfe, 0x7f));",
        shape: Some(Shape {
            create: "create_tex3d($F, 4, 4, 3)",
            source: "$T",
            source_offset: "uint3(0, 0, 2)",
        }),
    },
    Case {
        format: "R8G8B8A8_UNORM",
        texel_bytes: 4,
        clear: "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(1, 1, 1, 1));\n    \
                clear_texture($T.mips(1, 1), RPS_CLEAR_UAV_UINT, uint4(9, 9, 9, 9));",
        shape: Some(Shape {
            create: "create_tex2d($F, 4, 4, 2)",
            source: "$T.mips(0, 1)",
            source_offset: "uint3(0, 0, 0)",
        }),
    },
    Case {
        format: "R32G32B32A32_FLOAT",
        texel_bytes: 16,
        clear: "clear_texture($T, RPS_CLEAR_UAV_UINT, uint4(0x7f800001, 0xffffffff, 0x00000001, 0x80000000));",
        shape: Some(Shape {
            create: "create_tex2d($F, 512, 256)",
            source: "$T",
            source_offset: "uint3(511, 252, 0)",
        }),
    },
];

#[test]
fn uint_texture_clears_reach_every_mip_layer_and_slice_of_the_view() {
    if !vulkan_available() {
        return;
    }
    let bytes = cleared_bytes("shapes", &SHAPED_CLEARS);
    assert_eq!(bytes[0], repeated(&[5, 6, 7, 8]));
    assert_eq!(bytes[1], repeated(&[0x80, 1, 0xfe, 0x7f]));
    assert_eq!(bytes[2], repeated(&[1, 1, 1, 1]));
    assert_eq!(
        bytes[3],
        repeated(&words(&[0x7f80_0001, 0xffff_ffff, 1, 0x8000_0000]))
    );
}

/// Typed views of typeless textures (whose Vulkan image has the typeless format's stand-in,
/// `R8G8B8A8_UNORM`): the value is written as the view's format says.
const TYPED_VIEW_CLEARS: [Case; 3] = [
    case(
        "R8G8B8A8_TYPELESS",
        4,
        "clear_texture($T.format(RPS_FORMAT_R8G8B8A8_UINT), RPS_CLEAR_UAV_UINT, uint4(0x1ff, 2, 3, 4));",
    ),
    // -1 -> 0x81, 0.5 -> 63.5 rounded to even 64.
    case(
        "R8G8B8A8_TYPELESS",
        4,
        "clear_texture($T.format(RPS_FORMAT_R8G8B8A8_SNORM), RPS_CLEAR_UAV_FLOAT, asuint(float4(-1, 0.5, 0, 1)));",
    ),
    case(
        "R8G8B8A8_TYPELESS",
        4,
        "int4 rects5[1] = { int4(0, 0, 4, 4) };\n    \
         clear_texture_regions($T.format(RPS_FORMAT_R8G8B8A8_UNORM), asuint(float4(1, 0.6, 0, 1)), 1, rects5);",
    ),
];

#[test]
fn typed_views_of_typeless_textures_clear_in_the_view_format() {
    if !vulkan_available() {
        return;
    }
    let bytes = cleared_bytes("typed_views", &TYPED_VIEW_CLEARS);
    assert_eq!(bytes[0], repeated(&[0xff, 2, 3, 4]));
    assert_eq!(bytes[1], repeated(&[0x81, 0x40, 0, 0x7f]));
    assert_eq!(bytes[2], repeated(&[0xff, 153, 0, 0xff]));
}

#[test]
fn texture_clear_scripts_record_and_compile_on_the_null_backend() {
    let cases: Vec<Case> = WHOLE_CLEARS
        .into_iter()
        .chain(REGION_CLEARS)
        .chain(SHAPED_CLEARS)
        .chain(TYPED_VIEW_CLEARS)
        .collect();
    let script = scratch("null_clears.rpsl", &script_of(&cases));
    let output = rpsl(&["run", script.to_str().unwrap(), "--backend", "null"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs `clear` on a 4x4 texture of `format` (a script of that one node) on Vulkan; returns the
/// exit code and stderr.
fn run_one_clear(name: &str, format: &str, clear: &str) -> (Option<i32>, String) {
    let script = scratch(
        &format!("{name}.rpsl"),
        &format!(
            "export void main()\n{{\n    texture t = create_tex2d(RPS_FORMAT_{format}, 4, 4);\n    {clear}\n}}\n"
        ),
    );
    let output = rpsl(&["run", script.to_str().unwrap(), "--no-cull", "--validate"]);
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).to_string(),
    )
}

#[test]
fn texture_clears_of_depth_and_typeless_float_clears_fail_the_node() {
    if !vulkan_available() {
        return;
    }
    // A depth format is refused at the call already, on every backend (view-format check).
    let (code, stderr) = run_one_clear(
        "depth",
        "D32_FLOAT",
        "clear_texture(t, RPS_CLEAR_UAV_FLOAT, asuint(float4(1, 0, 0, 0)));",
    );
    assert_eq!(code, Some(3));
    assert_eq!(
        stderr.lines().next(),
        Some(
            format!(
                "{}:4:5: error: clear_texture: argument `t`: a render target or colour clear \
                 needs an uncompressed colour format; view format D32_FLOAT (the resource's) is \
                 not one",
                scratch_dir().join("depth.rpsl").display()
            )
            .as_str()
        ),
        "{stderr}"
    );
    assert_eq!(
        run_one_clear(
            "typeless",
            "R8G8B8A8_TYPELESS",
            "clear_texture(t, RPS_CLEAR_UAV_FLOAT, asuint(float4(1, 0, 0, 0)));"
        ),
        (
            Some(3),
            "error: vulkan: node 0 (`clear_texture`): a float clear of a texture view of format R8G8B8A8_TYPELESS is ambiguous (typeless): clear it with a uint4 or view it with a typed format\n".to_string()
        )
    );
}
