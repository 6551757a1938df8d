//! Reflection of compiled shaders, asserted exactly: descriptors, push constants, local size,
//! fragment outputs.

use rpsl_shaders::*;

fn compile(source: &str, path: &str, optimize: bool) -> CompiledShader {
    let path = std::path::PathBuf::from(path);
    let (stage, language) = stage_and_language_of(&path).unwrap();
    let options = CompilerOptions {
        optimize,
        hlsl_shifts: HlslBindingShifts {
            texture: 0,
            sampler: 10,
            unordered_access: 20,
            constant_buffer: 30,
        },
        ..CompilerOptions::default()
    };
    ShaderCompiler::new(options)
        .compile(&ShaderRequest::new(source, path, language, stage))
        .unwrap()
}

const GLSL_COMPUTE: &str = r#"#version 450
layout(local_size_x = 8, local_size_y = 4, local_size_z = 2) in;
layout(set = 0, binding = 0) uniform texture2D src_tex;
layout(set = 0, binding = 1) uniform sampler samp;
layout(set = 0, binding = 2, rgba8) uniform writeonly image2D dst;
layout(set = 0, binding = 3) uniform sampler2D combined[4];
layout(set = 0, binding = 4, std140) uniform Params { vec4 tint; float scale; } params;
layout(set = 0, binding = 5, std430) readonly buffer Input { uint count; uint data[]; } input_buf;
layout(set = 1, binding = 0, std430) buffer Output { vec4 values[]; } out_buf;
layout(set = 0, binding = 6, r32f) uniform image2D rw_img;
layout(push_constant) uniform Push { mat4 transform; vec2 offset; uint frame; } push;
void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    vec4 c = texelFetch(sampler2D(src_tex, samp), p, 0) + texture(combined[2], vec2(push.offset));
    c *= params.tint * params.scale * float(input_buf.data[input_buf.count + push.frame]);
    c = push.transform * c + imageLoad(rw_img, p);
    imageStore(dst, p, c);
    imageStore(rw_img, p, c);
    out_buf.values[p.x] = c;
}
"#;

fn binding(
    set: u32,
    binding: u32,
    name: &str,
    kind: DescriptorKind,
    count: u32,
    writable: bool,
) -> DescriptorBinding {
    DescriptorBinding {
        set,
        binding,
        name: name.to_string(),
        kind,
        count,
        writable,
        image: None,
        block_size: None,
    }
}

fn image(dim: u32, format: u32) -> Option<ImageInfo> {
    Some(ImageInfo {
        dim,
        arrayed: false,
        multisampled: false,
        format,
    })
}

#[test]
fn glsl_compute_reflection_is_exact() {
    for optimize in [false, true] {
        let shader = compile(GLSL_COMPUTE, "all.comp", optimize);
        let reflection = &shader.reflection;
        assert_eq!(
            reflection.entry_points,
            vec![EntryPoint {
                name: "main".into(),
                model: ExecutionModel::GlCompute,
                local_size: Some([8, 4, 2])
            }]
        );
        let names_kept = !optimize || !reflection.descriptors[0].name.is_empty();
        let name = |n: &str| {
            if names_kept {
                n.to_string()
            } else {
                String::new()
            }
        };
        let expected = vec![
            DescriptorBinding {
                image: image(1, 0),
                ..binding(
                    0,
                    0,
                    &name("src_tex"),
                    DescriptorKind::SampledImage,
                    1,
                    false,
                )
            },
            binding(0, 1, &name("samp"), DescriptorKind::Sampler, 1, false),
            DescriptorBinding {
                image: image(1, 4),
                ..binding(0, 2, &name("dst"), DescriptorKind::StorageImage, 1, true)
            },
            // A combined image sampler reports its image's type too.
            DescriptorBinding {
                image: image(1, 0),
                ..binding(
                    0,
                    3,
                    &name("combined"),
                    DescriptorKind::CombinedImageSampler,
                    4,
                    false,
                )
            },
            DescriptorBinding {
                block_size: Some(20),
                ..binding(
                    0,
                    4,
                    &name("params"),
                    DescriptorKind::UniformBuffer,
                    1,
                    false,
                )
            },
            DescriptorBinding {
                block_size: Some(4),
                ..binding(
                    0,
                    5,
                    &name("input_buf"),
                    DescriptorKind::StorageBuffer,
                    1,
                    false,
                )
            },
            DescriptorBinding {
                image: image(1, 3),
                ..binding(0, 6, &name("rw_img"), DescriptorKind::StorageImage, 1, true)
            },
            DescriptorBinding {
                block_size: Some(0),
                ..binding(
                    1,
                    0,
                    &name("out_buf"),
                    DescriptorKind::StorageBuffer,
                    1,
                    true,
                )
            },
        ];
        assert_eq!(reflection.descriptors, expected, "optimize = {optimize}");
        let push = reflection.push_constants.as_ref().unwrap();
        assert_eq!(push.size, 76);
        let layout: Vec<(u32, u32)> = push.members.iter().map(|m| (m.offset, m.size)).collect();
        assert_eq!(layout, vec![(0, 64), (64, 8), (72, 4)]);
        if names_kept {
            assert_eq!(push.name, "Push");
            let names: Vec<&str> = push.members.iter().map(|m| m.name.as_str()).collect();
            assert_eq!(names, vec!["transform", "offset", "frame"]);
        }
        assert!(reflection.fragment_outputs.is_empty());
    }
}

#[test]
fn glsl_fragment_outputs_and_depth() {
    let source = "#version 450\nlayout(location = 0) out vec4 albedo;\nlayout(location = 2) out uvec2 ids;\nlayout(location = 1) out float rough;\n\
                  void main() { albedo = vec4(1.0); ids = uvec2(3u); rough = 0.5; gl_FragDepth = 0.25; }\n";
    let shader = compile(source, "gbuf.frag", false);
    assert_eq!(
        shader.reflection.fragment_outputs,
        vec![
            FragmentOutput {
                location: 0,
                name: "albedo".into(),
                components: 4,
                scalar: ScalarType::Float(32)
            },
            FragmentOutput {
                location: 1,
                name: "rough".into(),
                components: 1,
                scalar: ScalarType::Float(32)
            },
            FragmentOutput {
                location: 2,
                name: "ids".into(),
                components: 2,
                scalar: ScalarType::Uint(32)
            },
        ]
    );
    assert!(shader.reflection.writes_frag_depth);
    assert!(shader.reflection.descriptors.is_empty());
    assert_eq!(shader.reflection.push_constants, None);
}

const HLSL_COMPUTE: &str = r#"
Texture2D<float4> src : register(t0);
Texture2D<float4> extra[3] : register(t1);
SamplerState linear_clamp : register(s0);
[[spv::format_rgba16f]] RWTexture2D<float4> dst : register(u0);
RWStructuredBuffer<uint> counters : register(u1);
StructuredBuffer<float4> palette : register(t4);
cbuffer Globals : register(b0) { float4x4 view; float2 size; uint frame; };
struct Push { float2 scale; int mode; };
[[vk::push_constant]] ConstantBuffer<Push> push;
[numthreads(16, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float2 uv = (id.xy + 0.5) / size * push.scale;
    float4 c = src.SampleLevel(linear_clamp, uv, 0) + extra[push.mode].SampleLevel(linear_clamp, uv, 0);
    c = mul(view, c) + palette[frame];
    InterlockedAdd(counters[0], 1);
    dst[id.xy] = c;
}
"#;

#[test]
fn hlsl_compute_reflection_with_register_shifts() {
    let shader = compile(HLSL_COMPUTE, "post.comp.hlsl", false);
    let reflection = &shader.reflection;
    assert_eq!(reflection.entry_points[0].local_size, Some([16, 8, 1]));
    let summary: Vec<(u32, u32, &str, DescriptorKind, u32, bool)> = reflection
        .descriptors
        .iter()
        .map(|d| {
            (
                d.set,
                d.binding,
                d.name.as_str(),
                d.kind,
                d.count,
                d.writable,
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (0, 0, "src", DescriptorKind::SampledImage, 1, false),
            (0, 1, "extra", DescriptorKind::SampledImage, 3, false),
            (0, 4, "palette", DescriptorKind::StorageBuffer, 1, false),
            (0, 10, "linear_clamp", DescriptorKind::Sampler, 1, false),
            (0, 20, "dst", DescriptorKind::StorageImage, 1, true),
            (0, 21, "counters", DescriptorKind::StorageBuffer, 1, true),
            (0, 30, "Globals", DescriptorKind::UniformBuffer, 1, false),
        ]
    );
    // Rgba16f is SPIR-V ImageFormat 2.
    assert_eq!(reflection.descriptor(0, 20).unwrap().image, image(1, 2));
    assert_eq!(reflection.descriptor(0, 30).unwrap().block_size, Some(76));
    let push = reflection.push_constants.as_ref().unwrap();
    assert_eq!((push.size, push.members.len()), (12, 2));
}

#[test]
fn hlsl_fragment_with_multiple_targets() {
    let source = "struct Out { float4 a : SV_Target0; float2 b : SV_Target3; };\nOut main(float4 pos : SV_Position) { Out o; o.a = pos; o.b = pos.xy; return o; }";
    let shader = compile(source, "mrt.frag.hlsl", false);
    let outputs: Vec<(u32, u32)> = shader
        .reflection
        .fragment_outputs
        .iter()
        .map(|o| (o.location, o.components))
        .collect();
    assert_eq!(outputs, vec![(0, 4), (3, 2)]);
    assert!(!shader.reflection.writes_frag_depth);
}

#[test]
fn bad_words_are_errors_not_panics() {
    assert_eq!(reflect(&[]), Err(ReflectError::TooShort));
    assert_eq!(reflect(&[1, 2, 3, 4, 5]), Err(ReflectError::BadMagic(1)));
    assert_eq!(
        reflect(&[0x0723_0203, 0, 0, 1, 0, 0]),
        Err(ReflectError::BadInstruction { offset: 5 })
    );
    assert_eq!(
        reflect(&[0x0723_0203, 0, 0, 1, 0, 0x0005_0000]),
        Err(ReflectError::BadInstruction { offset: 5 })
    );
    // An OpVariable whose pointer type does not exist.
    assert_eq!(
        reflect(&[0x0723_0203, 0, 0, 9, 0, (4 << 16) | 59, 7, 8, 0]),
        Err(ReflectError::BadReference {
            id: 7,
            expected: "a type"
        })
    );
    // Every truncation of a real module reflects or fails cleanly.
    let spirv = compile(GLSL_COMPUTE, "all.comp", false).spirv;
    for length in 0..spirv.len() {
        let _ = reflect(&spirv[..length]);
    }
    for index in 5..spirv.len() {
        let mut broken = spirv.clone();
        broken[index] ^= 0x0001_0003;
        let _ = reflect(&broken);
    }
}

#[test]
fn hlsl_push_constants_use_std430_offsets() {
    let source = "struct P { float radius; float2 direction; float3 v; float w; };\n\
                  [[vk::push_constant]] ConstantBuffer<P> p;\n\
                  [[spv::format_rgba8]] RWTexture2D<float4> o;\n\
                  [numthreads(1, 1, 1)] void main() { o[uint2(0, 0)] = float4(p.direction * p.radius, p.v.x, p.w); }";
    let shader = compile(source, "push.comp.hlsl", true);
    let push = shader.reflection.push_constants.unwrap();
    let layout: Vec<(&str, u32, u32)> = push
        .members
        .iter()
        .map(|m| (m.name.as_str(), m.offset, m.size))
        .collect();
    assert_eq!(
        layout,
        vec![
            ("radius", 0, 4),
            ("direction", 8, 8),
            ("v", 16, 12),
            ("w", 28, 4)
        ]
    );
    assert_eq!(push.size, 32);
}

/// A user variable as the interface tests compare it: location, semantic, slot types.
type UserVariable = (Option<u32>, String, Vec<(ScalarType, u32)>);

/// The locations, semantics and slot types of a stage's user variables.
fn user_io(variables: &[InterfaceVariable]) -> Vec<UserVariable> {
    variables
        .iter()
        .filter(|v| v.built_in.is_none())
        .map(|v| {
            let slots = v.slots.iter().map(|s| (s.scalar, s.components)).collect();
            (v.location, v.semantic.clone().unwrap_or_default(), slots)
        })
        .collect()
}

#[test]
fn hlsl_stage_interfaces_flatten_nested_structs_with_their_semantics() {
    let vertex = compile(
        "struct Inner { float4 tint : TINT; float2 uv : TexCoord0; };\n\
         struct VSOut { float4 pos : SV_Position; float4 color : COLOR0; Inner inner; float3 extra[2] : EXTRA; };\n\
         VSOut main(uint id : SV_VertexID) {\n\
             VSOut o; o.pos = float4(id, 0, 0, 1); o.color = 1; o.inner.tint = 2; o.inner.uv = 3;\n\
             o.extra[0] = 4; o.extra[1] = 5; return o; }\n",
        "io.vert.hlsl",
        true,
    );
    let f32x = |n| (ScalarType::Float(32), n);
    let interface = vertex.reflection.interface("main").unwrap();
    assert_eq!(
        user_io(&interface.outputs),
        vec![
            (Some(0), "COLOR0".to_string(), vec![f32x(4)]),
            (Some(1), "TINT".to_string(), vec![f32x(4)]),
            (Some(2), "TEXCOORD0".to_string(), vec![f32x(2)]),
            (Some(3), "EXTRA".to_string(), vec![f32x(3)]),
            (Some(4), "EXTRA".to_string(), vec![f32x(3)]),
        ]
    );
    let builtins: Vec<(Option<u32>, Option<String>)> = interface
        .inputs
        .iter()
        .chain(&interface.outputs)
        .filter(|v| v.built_in.is_some())
        .map(|v| (v.built_in, v.semantic.clone()))
        .collect();
    // VertexIndex (42) and Position (0).
    assert_eq!(
        builtins,
        vec![
            (Some(42), Some("SV_VERTEXID".to_string())),
            (Some(0), Some("SV_POSITION".to_string()))
        ]
    );
    let pixel = compile(
        "struct Inner { float2 uv : TEXCOORD0; float4 tint : tint; };\n\
         float4 main(float3 extra[2] : EXTRA, Inner inner, float4 color : COLOR0) : SV_Target0 {\n\
             return color * inner.tint + float4(inner.uv, extra[1].x, extra[0].y); }\n",
        "io.frag.hlsl",
        true,
    );
    let interface = pixel.reflection.interface("main").unwrap();
    assert_eq!(
        user_io(&interface.inputs),
        vec![
            (Some(0), "EXTRA".to_string(), vec![f32x(3), f32x(3)]),
            (Some(2), "TEXCOORD0".to_string(), vec![f32x(2)]),
            (Some(3), "TINT".to_string(), vec![f32x(4)]),
            (Some(4), "COLOR0".to_string(), vec![f32x(4)]),
        ]
    );
    // The module handed out carries no SPV_GOOGLE_hlsl_functionality1 (OpExtension is opcode 10,
    // OpDecorateString 5632): devices need not support it.
    let mut at = 5;
    while at < pixel.spirv.len() {
        let opcode = pixel.spirv[at] & 0xffff;
        assert!(opcode != 10 && opcode != 5632, "opcode {opcode} at {at}");
        at += (pixel.spirv[at] >> 16) as usize;
    }
}

#[test]
fn linking_moves_inputs_to_the_outputs_of_the_same_semantic_or_names_what_is_missing() {
    let vertex = compile(
        "struct O { float4 p : SV_Position; float4 c : COLOR0; float3 e0 : EXTRA0; float3 e1 : EXTRA1; float2 t : TEXCOORD0; };\n\
         O main() { O o; o.p = 0; o.c = 1; o.e0 = 2; o.e1 = 3; o.t = 4; return o; }\n",
        "l.vert.hlsl",
        true,
    );
    let upstream = vertex.reflection.interface("main").unwrap();
    let mut pixel = compile(
        "float4 main(float2 t : TEXCOORD0, float3 e[2] : EXTRA, float4 c : COLOR0) : SV_Target0 { return c + float4(e[1], t.x); }\n",
        "l.frag.hlsl",
        true,
    );
    let mut downstream = pixel.reflection.interface("main").unwrap().clone();
    // TEXCOORD0 moves from 0 to 3 and COLOR0 from 3 to 0; EXTRA0..1 stay at 1 and 2.
    assert_eq!(
        link_by_semantic(upstream, &mut downstream, &mut pixel.spirv),
        Ok(2)
    );
    let linked = reflect(&pixel.spirv).unwrap();
    let locations: Vec<Option<u32>> = linked.interfaces[0]
        .inputs
        .iter()
        .map(|v| v.location)
        .collect();
    assert_eq!(locations, vec![Some(0), Some(1), Some(3)]);

    let mut wrong = compile(
        "float4 main(float4 t : TEXCOORD0) : SV_Target0 { return t; }\n",
        "w.frag.hlsl",
        true,
    );
    let mut downstream = wrong.reflection.interface("main").unwrap().clone();
    let error = link_by_semantic(upstream, &mut downstream, &mut wrong.spirv).unwrap_err();
    assert_eq!(
        error.message("l.vert.hlsl"),
        "input `TEXCOORD0` is float4 but l.vert.hlsl writes it as float2"
    );
    let mut missing = compile(
        "float4 main(float4 n : NORMAL) : SV_Target0 { return n; }\n",
        "m.frag.hlsl",
        true,
    );
    let mut downstream = missing.reflection.interface("main").unwrap().clone();
    let error = link_by_semantic(upstream, &mut downstream, &mut missing.spirv).unwrap_err();
    assert_eq!(
        error.message("l.vert.hlsl"),
        "input `NORMAL0` is not written by l.vert.hlsl"
    );
    assert_eq!(error.written_as(), "NORMAL");
}
