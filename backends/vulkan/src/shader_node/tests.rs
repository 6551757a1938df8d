//! Tests of shader-bound nodes: the binding plan's exact error messages, and frames run on the
//! Vulkan driver present (lavapipe in CI; skipped with a message where there is none).

use std::path::{Path, PathBuf};

/// A temporary directory removed on drop.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> TempDir {
        use std::sync::atomic::{AtomicU32, Ordering};
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let path = std::env::temp_dir().join(format!(
            "rpsl-shader-node-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

mod plan_errors {
    use rpsl_runtime::*;
    use rpsl_shaders::{stage_and_language_of, CompilerOptions, ShaderCompiler, ShaderRequest};

    use crate::shader_node::plan::{plan_bindings, StageInfo};
    use crate::shader_node::{ShaderNodeError, ShaderNodeErrorKind};

    fn texture(name: &str, access: AccessDesc) -> ParamDesc {
        ParamDesc::new(name, ValueType::Texture).with_access(access)
    }

    fn plain(name: &str, ty: ValueType) -> ParamDesc {
        ParamDesc::new(name, ty)
    }

    /// Plans `decl` against one shader; returns the error text as the node reports it.
    fn plan(decl: &NodeDeclDesc, file: &str, source: &str) -> Result<(), String> {
        let (stage, language) = stage_and_language_of(file.as_ref()).unwrap();
        let compiled = ShaderCompiler::new(CompilerOptions::default())
            .compile(&ShaderRequest::new(source, file, language, stage))
            .map_err(|e| e.to_string())?;
        let info = StageInfo {
            stage,
            file,
            source,
            reflection: &compiled.reflection,
        };
        plan_bindings(decl, &[info]).map(|_| ()).map_err(|m| {
            ShaderNodeError {
                node: decl.name.clone(),
                kind: ShaderNodeErrorKind::Mismatch {
                    file: m.file,
                    line: m.line,
                    message: m.message,
                },
            }
            .to_string()
        })
    }

    fn blur_decl() -> NodeDeclDesc {
        NodeDeclDesc::new(
            "Blur",
            QueueClass::Compute,
            vec![
                texture("src", AccessDesc::readonly(AccessFlags::CS)),
                texture("dst", AccessDesc::writeonly(AccessFlags::CS)),
                plain("radius", ValueType::Scalar(ScalarType::F32)),
                plain("direction", ValueType::Vector(ScalarType::F32, 2)),
            ],
        )
    }

    const BLUR_HEAD: &str = "#version 450\n#extension GL_EXT_samplerless_texture_functions : require\nlayout(local_size_x = 8, local_size_y = 8) in;\n\
        layout(binding = 0) uniform texture2D src;\nlayout(binding = 1, rgba8) uniform writeonly image2D dst;\n";

    #[test]
    fn a_matching_shader_plans() {
        let source = format!("{BLUR_HEAD}layout(push_constant) uniform P {{ float radius; vec2 direction; }} p;\n\
            void main() {{ imageStore(dst, ivec2(gl_GlobalInvocationID.xy), texelFetch(src, ivec2(p.direction * p.radius), 0)); }}\n");
        assert_eq!(plan(&blur_decl(), "shaders/Blur.comp", &source), Ok(()));
    }

    #[test]
    fn row_major_matrices_pack_like_the_shader() {
        let decl = NodeDeclDesc::new(
            "Xform",
            QueueClass::Compute,
            vec![
                texture("dst", AccessDesc::writeonly(AccessFlags::CS)),
                plain("transform", ValueType::Matrix(ScalarType::F32, 4, 4)),
                plain("basis", ValueType::Matrix(ScalarType::F32, 3, 3)),
            ],
        );
        let source = "#version 450\nlayout(local_size_x = 8) in;\nlayout(binding = 0, rgba8) uniform writeonly image2D dst;\n\
            layout(push_constant) uniform P { layout(row_major) mat4 transform; layout(row_major) mat3 basis; } p;\n\
            void main() { imageStore(dst, ivec2(0), p.transform * vec4(p.basis * vec3(1.0), 1.0)); }\n";
        assert_eq!(plan(&decl, "Xform.comp", source), Ok(()));
    }

    #[test]
    fn a_binding_without_a_parameter_names_file_and_line() {
        let source = format!("{BLUR_HEAD}layout(binding = 2) uniform texture2D extra;\n\
            void main() {{ imageStore(dst, ivec2(0), texelFetch(src, ivec2(0), 0) + texelFetch(extra, ivec2(0), 0)); }}\n");
        assert_eq!(
            plan(&blur_decl(), "shaders/Blur.comp", &source),
            Err("node `Blur`: shaders/Blur.comp:6: binding 2 (`extra`) has no matching view parameter: the node's view parameters take bindings 0 to 1 (src, dst)".to_string())
        );
    }

    #[test]
    fn a_push_constant_block_larger_than_the_parameters() {
        let source = format!("{BLUR_HEAD}layout(push_constant) uniform P {{\n  float radius;\n  vec2 direction;\n  vec4 extra;\n}} p;\n\
            void main() {{ imageStore(dst, ivec2(0), texelFetch(src, ivec2(p.direction * p.radius), 0) + p.extra); }}\n");
        assert_eq!(
            plan(&blur_decl(), "shaders/Blur.comp", &source),
            Err("node `Blur`: shaders/Blur.comp:7: the push-constant block `P` is 32 bytes but the node's plain parameters (radius, direction) pack into 16 bytes".to_string())
        );
    }

    #[test]
    fn a_push_constant_block_over_the_limit() {
        let decl = NodeDeclDesc::new(
            "Big",
            QueueClass::Compute,
            vec![
                texture("dst", AccessDesc::writeonly(AccessFlags::CS)),
                plain(
                    "weights",
                    ValueType::Array(Box::new(ValueType::Vector(ScalarType::F32, 4)), 12),
                ),
            ],
        );
        let source = "#version 450\nlayout(local_size_x = 8) in;\nlayout(binding = 0, rgba8) uniform writeonly image2D dst;\n\
            layout(push_constant) uniform Weights {\n  vec4 weights[12];\n} w;\n\
            void main() { imageStore(dst, ivec2(0), w.weights[gl_LocalInvocationID.x]); }\n";
        assert_eq!(
            plan(&decl, "Big.comp", source),
            Err("node `Big`: Big.comp:5: the push-constant block `Weights` is 192 bytes; shader nodes push at most 128 bytes (Vulkan's guaranteed minimum): pass large data in a buffer".to_string())
        );
    }

    #[test]
    fn push_constant_members_follow_the_parameters() {
        let swapped = format!("{BLUR_HEAD}layout(push_constant) uniform P {{\n  vec2 direction;\n  float radius;\n}} p;\n\
            void main() {{ imageStore(dst, ivec2(0), texelFetch(src, ivec2(p.direction * p.radius), 0)); }}\n");
        assert_eq!(
            plan(&blur_decl(), "Blur.comp", &swapped),
            Err("node `Blur`: Blur.comp:7: push-constant member `direction` is where the node packs parameter `radius` (byte 0): declare the members in the order of the node's plain parameters".to_string())
        );
        let misplaced = format!("{BLUR_HEAD}layout(push_constant) uniform P {{\n  float radius;\n  layout(offset = 16) vec2 direction;\n}} p;\n\
            void main() {{ imageStore(dst, ivec2(0), texelFetch(src, ivec2(p.direction * p.radius), 0)); }}\n");
        assert_eq!(
            plan(&blur_decl(), "Blur.comp", &misplaced),
            Err("node `Blur`: Blur.comp:8: push-constant member `direction` is at byte 16 but parameter `direction` packs at byte 8 (std430 layout of the node's plain parameters)".to_string())
        );
    }

    #[test]
    fn a_storage_image_for_a_read_only_parameter() {
        let source = "#version 450\nlayout(local_size_x = 8) in;\nlayout(binding = 0, rgba8) uniform image2D src;\n\
            layout(binding = 1, rgba8) uniform writeonly image2D dst;\n\
            void main() { imageStore(dst, ivec2(0), imageLoad(src, ivec2(0))); }\n";
        assert_eq!(
            plan(&blur_decl(), "Blur.comp", source),
            Err("node `Blur`: Blur.comp:3: binding 0 (`src`) is a storage image but parameter `src` is read-only: declare it [readwrite(cs)] or [writeonly(cs)], or sample it in the shader".to_string())
        );
    }

    #[test]
    fn a_dispatch_needs_a_written_view_or_a_count() {
        let decl = NodeDeclDesc::new(
            "Sum",
            QueueClass::Compute,
            vec![texture("src", AccessDesc::readonly(AccessFlags::CS))],
        );
        let source = "#version 450\nlayout(local_size_x = 8) in;\nlayout(binding = 0) uniform texture2D src;\nvoid main() { }\n";
        assert_eq!(
            plan(&decl, "Sum.comp", source),
            Err("node `Sum`: Sum.comp: cannot size the dispatch: the node writes no texture or buffer and has no `group_count` or `thread_count` parameter".to_string())
        );
    }

    #[test]
    fn a_descriptor_array_must_match_the_view_array() {
        let decl = NodeDeclDesc::new(
            "Mix",
            QueueClass::Compute,
            vec![
                ParamDesc::new("layers", ValueType::Array(Box::new(ValueType::Texture), 3))
                    .with_access(AccessDesc::readonly(AccessFlags::CS)),
                texture("dst", AccessDesc::writeonly(AccessFlags::CS)),
            ],
        );
        let source = "#version 450\n#extension GL_EXT_samplerless_texture_functions : require\nlayout(local_size_x = 8) in;\nlayout(binding = 0) uniform texture2D layers[4];\n\
            layout(binding = 1, rgba8) uniform writeonly image2D dst;\n\
            void main() { imageStore(dst, ivec2(0), texelFetch(layers[gl_LocalInvocationID.x], ivec2(0), 0)); }\n";
        assert_eq!(
            plan(&decl, "Mix.comp", source),
            Err("node `Mix`: Mix.comp:4: binding 0 (`layers`) is an array of 4 but parameter `layers` has 3 views".to_string())
        );
    }
}

mod frames {
    use rpsl_runtime::*;
    use rpsl_shaders::CompilerOptions;

    use super::TempDir;
    use crate::shader_node::{bind_shader_nodes, ShaderNodeOptions};
    use crate::{VulkanBackend, VulkanOptions};

    fn backend() -> Option<VulkanBackend> {
        match VulkanBackend::new(VulkanOptions {
            validate: true,
            ..VulkanOptions::default()
        }) {
            Ok(backend) => Some(backend),
            Err(BackendError::NoDevice(message)) => {
                eprintln!("skipping: no Vulkan driver on this machine ({message})");
                None
            }
            Err(error) => panic!("cannot create the Vulkan backend: {error}"),
        }
    }

    fn bind(backend: &mut VulkanBackend, dir: &TempDir, names: &[&str]) {
        let options = ShaderNodeOptions {
            shader_dir: dir.path().to_path_buf(),
            compiler: CompilerOptions::default(),
        };
        let bound = bind_shader_nodes(backend, options, names.iter().map(|n| n.to_string()));
        assert_eq!(
            bound,
            names.iter().map(|n| n.to_string()).collect::<Vec<_>>()
        );
    }

    fn rgba8(size: u32) -> ResourceDesc {
        ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, size, size)
    }

    fn texture(name: &str, access: AccessDesc) -> ParamDesc {
        ParamDesc::new(name, ValueType::Texture).with_access(access)
    }

    fn color_param() -> ParamDesc {
        ParamDesc::new("color", ValueType::Vector(ScalarType::F32, 4))
    }

    fn write_color(args: &mut ArgsWriter, param: usize, value: [f32; 4]) {
        for (index, v) in value.iter().enumerate() {
            args.write_f32(param, index as u32 * 4, *v);
        }
    }

    /// Builds one frame with `record`, compiles and executes it.
    fn run_frame(
        backend: &mut VulkanBackend,
        builder: &mut GraphBuilder,
        frame_index: u64,
        record: impl FnOnce(&mut GraphBuilder),
    ) -> Result<(), BackendError> {
        builder.begin_frame(frame_index);
        record(builder);
        let graph = builder.finish().unwrap().clone();
        let mut compiler = FrameCompiler::new(CompileOptions::default());
        let frame = compiler.compile(&graph).unwrap().clone();
        backend.execute_frame(&graph, &frame)
    }

    fn call(
        builder: &mut GraphBuilder,
        decl: DeclId,
        key: u64,
        fill: impl FnOnce(&mut ArgsWriter),
    ) {
        let mut args = ArgsWriter::new(builder.decl(decl).unwrap());
        fill(&mut args);
        builder
            .call_node(decl, args.bytes(), CallFlags::default(), key)
            .unwrap();
    }

    fn external(builder: &mut GraphBuilder, name: &str, size: u32) -> TextureView {
        let id = builder.import_external(name, rgba8(size)).unwrap();
        builder.default_texture_view(id).unwrap()
    }

    const GRADIENT: &str = "#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(binding = 0, rgba8) uniform writeonly image2D dst;
layout(push_constant) uniform P { vec4 color; } p;
void main() {
    ivec2 at = ivec2(gl_GlobalInvocationID.xy);
    imageStore(dst, at, vec4(float(at.x * 16) / 255.0, float(at.y * 16) / 255.0, p.color.b, 1.0));
}
";

    const INVERT_HLSL: &str = "Texture2D<float4> src : register(t0);
[[spv::format_rgba8]] RWTexture2D<float4> dst : register(u1);
[numthreads(8, 8, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    dst[id.xy] = float4(1.0 - src.Load(int3(id.xy, 0)).rgb, 1.0);
}
";

    const FILL: &str = "#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 result;
layout(push_constant) uniform P { vec4 color; } p;
void main() { result = p.color; }
";

    #[test]
    fn compute_hlsl_and_graphics_nodes_render_and_reload() {
        let Some(mut backend) = backend() else { return };
        let dir = TempDir::new();
        std::fs::write(dir.path().join("Gradient.comp"), GRADIENT).unwrap();
        std::fs::write(dir.path().join("Invert.comp.hlsl"), INVERT_HLSL).unwrap();
        std::fs::write(dir.path().join("Fill.frag"), FILL).unwrap();
        bind(&mut backend, &dir, &["Gradient", "Invert", "Fill"]);
        let mut builder = GraphBuilder::new();
        let gradient = builder.declare_node(NodeDeclDesc::new(
            "Gradient",
            QueueClass::Compute,
            vec![
                texture("dst", AccessDesc::writeonly(AccessFlags::CS)),
                color_param(),
            ],
        ));
        let invert = builder.declare_node(NodeDeclDesc::new(
            "Invert",
            QueueClass::Compute,
            vec![
                texture("src", AccessDesc::readonly(AccessFlags::CS)),
                texture("dst", AccessDesc::writeonly(AccessFlags::CS)),
            ],
        ));
        let fill = builder.declare_node(NodeDeclDesc::new(
            "Fill",
            QueueClass::Graphics,
            vec![
                texture("rt", AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
                    .with_semantic(SemanticKind::Target, 0),
                color_param(),
            ],
        ));
        let record = |builder: &mut GraphBuilder| {
            let grad = external(builder, "grad", 8);
            let out = external(builder, "out", 8);
            let flat = external(builder, "flat", 4);
            call(builder, gradient, 1, |a| {
                a.write_texture(0, &grad);
                write_color(a, 1, [0.0, 0.0, 200.0 / 255.0, 1.0]);
            });
            call(builder, invert, 2, |a| {
                a.write_texture(0, &grad);
                a.write_texture(1, &out);
            });
            call(builder, fill, 3, |a| {
                a.write_texture(0, &flat);
                write_color(a, 1, [1.0, 0.5, 0.0, 1.0]);
            });
        };
        run_frame(&mut backend, &mut builder, 0, record).unwrap_or_else(|e| panic!("{e}"));
        let (width, height, pixels) = backend.read_rgba8("grad").unwrap();
        assert_eq!((width, height), (8, 8));
        let expected: Vec<u8> = (0..8u8)
            .flat_map(|y| (0..8u8).flat_map(move |x| [16 * x, 16 * y, 200, 255]))
            .collect();
        assert_eq!(pixels, expected);
        let inverted: Vec<u8> = expected
            .chunks(4)
            .flat_map(|p| [255 - p[0], 255 - p[1], 255 - p[2], 255])
            .collect();
        assert_eq!(backend.read_rgba8("out").unwrap().2, inverted);
        let flat: Vec<u8> = (0..16).flat_map(|_| [255, 128, 0, 255]).collect();
        assert_eq!(backend.read_rgba8("flat").unwrap().2, flat);

        // Same frame again: everything cached; then an edited shader is picked up.
        run_frame(&mut backend, &mut builder, 1, record).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            dir.path().join("Fill.frag"),
            FILL.replace("result = p.color;", "result = p.color.bgra;"),
        )
        .unwrap();
        run_frame(&mut backend, &mut builder, 2, record).unwrap_or_else(|e| panic!("{e}"));
        let swapped: Vec<u8> = (0..16).flat_map(|_| [0, 128, 255, 255]).collect();
        assert_eq!(backend.read_rgba8("flat").unwrap().2, swapped);
    }

    #[test]
    fn the_full_screen_triangle_passes_uv() {
        let Some(mut backend) = backend() else { return };
        let dir = TempDir::new();
        std::fs::write(
            dir.path().join("Uv.frag"),
            "#version 450\nlayout(location = 0) in vec2 uv;\nlayout(location = 0) out vec4 result;\nvoid main() { result = vec4(uv, 0.0, 1.0); }\n",
        )
        .unwrap();
        bind(&mut backend, &dir, &["Uv"]);
        let mut builder = GraphBuilder::new();
        let uv = builder.declare_node(NodeDeclDesc::new(
            "Uv",
            QueueClass::Graphics,
            vec![
                texture("rt", AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
                    .with_semantic(SemanticKind::Target, 0),
            ],
        ));
        run_frame(&mut backend, &mut builder, 0, |builder| {
            let out = external(builder, "uv", 4);
            call(builder, uv, 1, |a| {
                a.write_texture(0, &out);
            });
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let (_, _, pixels) = backend.read_rgba8("uv").unwrap();
        for y in 0..4usize {
            for x in 0..4usize {
                let pixel = &pixels[(y * 4 + x) * 4..][..4];
                let want = |i: usize| ((i as f32 + 0.5) / 4.0 * 255.0).round() as i32;
                assert!(
                    (pixel[0] as i32 - want(x)).abs() <= 1
                        && (pixel[1] as i32 - want(y)).abs() <= 1,
                    "pixel {x},{y} = {pixel:?}"
                );
                assert_eq!((pixel[2], pixel[3]), (0, 255));
            }
        }
    }

    #[test]
    fn shader_errors_fail_the_frame_naming_node_file_and_line() {
        let Some(mut backend) = backend() else { return };
        let dir = TempDir::new();
        std::fs::write(
            dir.path().join("Broken.comp"),
            "#version 450\nlayout(local_size_x = 8) in;\nlayout(binding = 0, rgba8) uniform writeonly image2D dst;\nvoid main() { imageStore(dst, ivec2(0), nope); }\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("Extra.comp"),
            "#version 450\nlayout(local_size_x = 8) in;\nlayout(binding = 0, rgba8) uniform writeonly image2D dst;\n\
             layout(binding = 1, rgba8) uniform readonly image2D more;\nvoid main() { imageStore(dst, ivec2(0), imageLoad(more, ivec2(0))); }\n",
        )
        .unwrap();
        bind(&mut backend, &dir, &["Broken", "Extra"]);
        for (name, expected) in [
            ("Broken", {
                let file = dir.path().join("Broken.comp").display().to_string();
                format!("node 0 (`Broken`): {file}:4: 'nope' : undeclared identifier\n{file}:4: 'imageStore' : no matching overloaded function found")
            }),
            (
                "Extra",
                format!(
                    "node 0 (`Extra`): {}:4: binding 1 (`more`) has no matching view parameter: the node's view parameter takes binding 0 (dst)",
                    dir.path().join("Extra.comp").display()
                ),
            ),
        ] {
            let mut builder = GraphBuilder::new();
            let decl = builder.declare_node(NodeDeclDesc::new(name, QueueClass::Compute, vec![texture("dst", AccessDesc::writeonly(AccessFlags::CS))]));
            let result = run_frame(&mut backend, &mut builder, 0, |builder| {
                let out = external(builder, "e", 8);
                call(builder, decl, 1, |a| {
                    a.write_texture(0, &out);
                });
            });
            match result {
                Err(error @ BackendError::Node { .. }) => assert_eq!(error.to_string(), expected),
                other => panic!("expected a node error, got {other:?}"),
            }
        }
    }

    #[test]
    fn descriptor_arrays_buffers_samplers_and_group_counts() {
        let Some(mut backend) = backend() else { return };
        let dir = TempDir::new();
        std::fs::write(dir.path().join("Gradient.comp"), GRADIENT).unwrap();
        std::fs::write(
            dir.path().join("Probe.comp"),
            "#version 450
layout(local_size_x = 4) in;
layout(binding = 0) uniform sampler2D srcs[2];
layout(binding = 1, std430) buffer Out { uint values[]; } result;
layout(push_constant) uniform P { uint scale; } p;
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 c = texelFetch(srcs[i & 1u], ivec2(i, 1), 0);
    result.values[i] = (uint(c.r * 255.0 + 0.5) + uint(c.g * 255.0 + 0.5)) * p.scale;
}
",
        )
        .unwrap();
        bind(&mut backend, &dir, &["Gradient", "Probe"]);
        let mut builder = GraphBuilder::new();
        let gradient = builder.declare_node(NodeDeclDesc::new(
            "Gradient",
            QueueClass::Compute,
            vec![
                texture("dst", AccessDesc::writeonly(AccessFlags::CS)),
                color_param(),
            ],
        ));
        let probe = builder.declare_node(NodeDeclDesc::new(
            "Probe",
            QueueClass::Compute,
            vec![
                ParamDesc::new("srcs", ValueType::Array(Box::new(ValueType::Texture), 2))
                    .with_access(AccessDesc::readonly(AccessFlags::CS)),
                ParamDesc::new("out", ValueType::Buffer)
                    .with_access(AccessDesc::readwrite(AccessFlags::CS)),
                ParamDesc::new("group_count", ValueType::Scalar(ScalarType::U32)),
                ParamDesc::new("scale", ValueType::Scalar(ScalarType::U32)),
            ],
        ));
        run_frame(&mut backend, &mut builder, 0, |builder| {
            let grad = external(builder, "grad", 8);
            let buffer = builder
                .import_external("values", ResourceDesc::buffer(32))
                .unwrap();
            let values = builder.default_buffer_view(buffer).unwrap();
            call(builder, gradient, 1, |a| {
                a.write_texture(0, &grad);
            });
            call(builder, probe, 2, |a| {
                a.write_texture_at(0, 0, &grad);
                a.write_texture_at(0, 1, &grad);
                a.write_buffer(1, &values);
                a.write_u32(2, 2);
                a.write_u32(3, 3);
            });
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let bytes = backend.read_external("values").unwrap();
        let values: Vec<u32> = bytes
            .chunks(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        // Texel (i, 1) of the gradient is (16 i, 16, ..): (16 i + 16) * 3.
        assert_eq!(
            values,
            (0..8u32).map(|i| (16 * i + 16) * 3).collect::<Vec<_>>()
        );
    }

    #[test]
    fn vertex_shader_multiple_targets_and_depth() {
        let Some(mut backend) = backend() else { return };
        let dir = TempDir::new();
        std::fs::write(
            dir.path().join("Quad.vert"),
            "#version 450
layout(push_constant) uniform P { float depth; } p;
void main() {
    vec2 corners[6] = vec2[](vec2(-1, -1), vec2(1, -1), vec2(-1, 1), vec2(-1, 1), vec2(1, -1), vec2(1, 1));
    gl_Position = vec4(corners[gl_VertexIndex], p.depth, 1.0);
}
",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("Quad.frag"),
            "#version 450
layout(location = 0) out vec4 albedo;
layout(location = 1) out vec4 normal;
void main() { albedo = vec4(1.0, 0.0, 0.0, 1.0); normal = vec4(0.0, 0.0, 1.0, 1.0); }
",
        )
        .unwrap();
        bind(&mut backend, &dir, &["Quad"]);
        let mut builder = GraphBuilder::new();
        let quad = builder.declare_node(NodeDeclDesc::new(
            "Quad",
            QueueClass::Graphics,
            vec![
                texture("albedo", AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
                    .with_semantic(SemanticKind::Target, 0),
                texture("normal", AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
                    .with_semantic(SemanticKind::Target, 1),
                texture(
                    "depth",
                    AccessDesc::readwrite(AccessFlags::DEPTH | AccessFlags::CLEAR),
                )
                .with_semantic(SemanticKind::DepthStencil, 0),
                ParamDesc::new("clear_depth", ValueType::Scalar(ScalarType::F32))
                    .with_semantic(SemanticKind::ClearDepth, 0),
                ParamDesc::new("depth_value", ValueType::Scalar(ScalarType::F32)),
                ParamDesc::new("vertex_count", ValueType::Scalar(ScalarType::U32)),
            ],
        ));
        run_frame(&mut backend, &mut builder, 0, |builder| {
            let albedo = external(builder, "albedo", 4);
            let normal = external(builder, "normal", 4);
            let depth_id = builder
                .import_external("depth", ResourceDesc::tex2d(Format::D32_FLOAT, 4, 4))
                .unwrap();
            let depth = builder.default_texture_view(depth_id).unwrap();
            call(builder, quad, 1, |a| {
                a.write_texture(0, &albedo);
                a.write_texture(1, &normal);
                a.write_texture(2, &depth);
                a.write_f32(3, 0, 1.0);
                a.write_f32(4, 0, 0.5);
                a.write_u32(5, 6);
            });
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            backend.read_rgba8("albedo").unwrap().2,
            (0..16).flat_map(|_| [255, 0, 0, 255]).collect::<Vec<u8>>()
        );
        assert_eq!(
            backend.read_rgba8("normal").unwrap().2,
            (0..16).flat_map(|_| [0, 0, 255, 255]).collect::<Vec<u8>>()
        );
        let depth = backend.read_external("depth").unwrap();
        assert_eq!(
            f32::from_le_bytes([depth[0], depth[1], depth[2], depth[3]]),
            0.5
        );
    }

    const TONEMAP: &str = "#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(binding = 0) uniform texture2D src;
layout(binding = 1) uniform sampler linear_clamp;
layout(push_constant) uniform Params { float exposure; } params;
void main() {
    vec3 hdr = texture(sampler2D(src, linear_clamp), uv).rgb * params.exposure;
    color = vec4(hdr / (1.0 + hdr), 1.0);
}
";

    const COPY_HLSL: &str = "Texture2D<float4> src : register(t0);
SamplerState point_clamp : register(s1);
float4 main(float2 uv : TEXCOORD0) : SV_Target0 { return src.Sample(point_clamp, uv); }
";

    #[test]
    fn sampled_textures_with_backend_samplers_in_glsl_and_hlsl() {
        let Some(mut backend) = backend() else { return };
        let dir = TempDir::new();
        std::fs::write(dir.path().join("Gradient.comp"), GRADIENT).unwrap();
        std::fs::write(dir.path().join("Tonemap.frag"), TONEMAP).unwrap();
        std::fs::write(dir.path().join("Copy.frag.hlsl"), COPY_HLSL).unwrap();
        bind(&mut backend, &dir, &["Gradient", "Tonemap", "Copy"]);
        let mut builder = GraphBuilder::new();
        let gradient = builder.declare_node(NodeDeclDesc::new(
            "Gradient",
            QueueClass::Compute,
            vec![
                texture("dst", AccessDesc::writeonly(AccessFlags::CS)),
                color_param(),
            ],
        ));
        let target = || {
            texture("rt", AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
                .with_semantic(SemanticKind::Target, 0)
        };
        let tonemap = builder.declare_node(NodeDeclDesc::new(
            "Tonemap",
            QueueClass::Graphics,
            vec![
                texture("src", AccessDesc::readonly(AccessFlags::PS)),
                target(),
                ParamDesc::new("exposure", ValueType::Scalar(ScalarType::F32)),
            ],
        ));
        let copy = builder.declare_node(NodeDeclDesc::new(
            "Copy",
            QueueClass::Graphics,
            vec![
                texture("src", AccessDesc::readonly(AccessFlags::PS)),
                target(),
            ],
        ));
        run_frame(&mut backend, &mut builder, 0, |builder| {
            let grad = external(builder, "grad", 8);
            let toned = external(builder, "toned", 8);
            let copied = external(builder, "copied", 8);
            call(builder, gradient, 1, |a| {
                a.write_texture(0, &grad);
                write_color(a, 1, [0.0, 0.0, 1.0, 1.0]);
            });
            call(builder, tonemap, 2, |a| {
                a.write_texture(0, &grad);
                a.write_texture(1, &toned);
                a.write_f32(2, 0, 2.0);
            });
            call(builder, copy, 3, |a| {
                a.write_texture(0, &grad);
                a.write_texture(1, &copied);
            });
        })
        .unwrap_or_else(|e| panic!("{e}"));
        let grad = backend.read_rgba8("grad").unwrap().2;
        assert_eq!(backend.read_rgba8("copied").unwrap().2, grad);
        let toned = backend.read_rgba8("toned").unwrap().2;
        for (index, (got, source)) in toned.iter().zip(&grad).enumerate() {
            let want = if index % 4 == 3 {
                255.0
            } else {
                let hdr = *source as f32 / 255.0 * 2.0;
                (hdr / (1.0 + hdr) * 255.0).round()
            };
            assert!(
                (*got as f32 - want).abs() <= 1.0,
                "byte {index}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn a_fragment_output_without_a_target_is_an_error() {
        let Some(mut backend) = backend() else { return };
        let dir = TempDir::new();
        std::fs::write(
            dir.path().join("Two.frag"),
            "#version 450\nlayout(location = 0) out vec4 first;\nlayout(location = 1) out vec4 second;\nvoid main() { first = vec4(1.0); second = vec4(0.5); }\n",
        )
        .unwrap();
        bind(&mut backend, &dir, &["Two"]);
        let mut builder = GraphBuilder::new();
        let two = builder.declare_node(NodeDeclDesc::new(
            "Two",
            QueueClass::Graphics,
            vec![
                texture("rt", AccessDesc::readwrite(AccessFlags::RENDER_TARGET))
                    .with_semantic(SemanticKind::Target, 0),
            ],
        ));
        let result = run_frame(&mut backend, &mut builder, 0, |builder| {
            let out = external(builder, "two", 4);
            call(builder, two, 1, |a| {
                a.write_texture(0, &out);
            });
        });
        match result {
            Err(error @ BackendError::Node { .. }) => assert_eq!(
                error.to_string(),
                format!(
                    "node 0 (`Two`): {}:3: output location 1 (`second`) has no render target: the node's render target is SV_Target0",
                    dir.path().join("Two.frag").display()
                )
            ),
            other => panic!("expected a node error, got {other:?}"),
        }
    }
}
