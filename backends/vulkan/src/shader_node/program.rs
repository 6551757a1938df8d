//! One node's compiled shaders and the Vulkan objects made from them: shader modules, the
//! descriptor-set and pipeline layouts (from the [`BindingPlan`]) and its pipelines, cached by
//! the render-pass formats they were made for.

use std::collections::HashMap;
use std::ffi::CStr;
use std::path::Path;

use ash::vk;
use rpsl_runtime::NodeDeclDesc;
use rpsl_shaders::{
    stage_and_language_of, CompiledShader, DescriptorKind, ExecutionModel, ShaderCompiler,
    ShaderError, ShaderRequest, ShaderStage,
};

use super::files::{find_node_shaders, Watch};
use super::plan::{plan_bindings, BindingPlan, Mismatch, StageInfo};
use super::ShaderNodeErrorKind;
use crate::context::name_object;

const ENTRY: &CStr = c"main";

/// The built-in vertex shader of graphics nodes without one: a triangle covering the viewport,
/// with `uv` (0,0 top-left to 1,1 bottom-right) at location 0.
pub(crate) const FULLSCREEN_VERTEX_SHADER: &str = "#version 450
layout(location = 0) out vec2 uv;
void main() {
    uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
}
";

/// One compiled stage of a node.
pub(crate) struct CompiledStage {
    /// The stage.
    pub stage: ShaderStage,
    /// The file, as errors name it.
    pub file: String,
    /// Its source text.
    pub source: String,
    /// SPIR-V and reflection.
    pub shader: CompiledShader,
}

/// What a graphics pipeline depends on besides the shaders.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub(crate) struct PipelineKey {
    /// Color attachment formats in `SV_Target` order.
    pub colors: Vec<vk::Format>,
    /// Depth attachment format (UNDEFINED: none).
    pub depth: vk::Format,
    /// Stencil attachment format (UNDEFINED: none).
    pub stencil: vk::Format,
    /// Samples per pixel.
    pub samples: u32,
    /// Viewports (and scissors).
    pub viewports: u32,
    /// Depth writes (the depth attachment is not read-only).
    pub depth_write: bool,
}

/// A node's shaders, plan and Vulkan objects.
pub(crate) struct Program {
    /// The declaration the plan was made for.
    pub decl: NodeDeclDesc,
    /// Files to watch for changes.
    pub watch: Watch,
    /// The compiled stages (a graphics node without a vertex shader has only its fragment).
    pub stages: Vec<CompiledStage>,
    /// The binding plan.
    pub plan: BindingPlan,
    /// Modules, one per stage.
    pub modules: Vec<vk::ShaderModule>,
    /// Set 0's layout.
    pub set_layout: vk::DescriptorSetLayout,
    /// The pipeline layout.
    pub pipeline_layout: vk::PipelineLayout,
    /// Pipelines by key (compute nodes use the default key).
    pub pipelines: HashMap<PipelineKey, vk::Pipeline>,
}

fn vulkan(call: &'static str) -> impl Fn(vk::Result) -> ShaderNodeErrorKind {
    move |result| ShaderNodeErrorKind::Vulkan { call, result }
}

pub(crate) fn stage_flags(stages: &[ShaderStage]) -> vk::ShaderStageFlags {
    let mut flags = vk::ShaderStageFlags::empty();
    for stage in stages {
        flags |= match stage {
            ShaderStage::Vertex => vk::ShaderStageFlags::VERTEX,
            ShaderStage::Fragment => vk::ShaderStageFlags::FRAGMENT,
            ShaderStage::Compute => vk::ShaderStageFlags::COMPUTE,
            ShaderStage::Geometry => vk::ShaderStageFlags::GEOMETRY,
            ShaderStage::TessControl => vk::ShaderStageFlags::TESSELLATION_CONTROL,
            ShaderStage::TessEvaluation => vk::ShaderStageFlags::TESSELLATION_EVALUATION,
        };
    }
    flags
}

pub(crate) fn descriptor_type(kind: DescriptorKind) -> vk::DescriptorType {
    match kind {
        DescriptorKind::Sampler => vk::DescriptorType::SAMPLER,
        DescriptorKind::CombinedImageSampler => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        DescriptorKind::SampledImage => vk::DescriptorType::SAMPLED_IMAGE,
        DescriptorKind::StorageImage => vk::DescriptorType::STORAGE_IMAGE,
        DescriptorKind::UniformTexelBuffer => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
        DescriptorKind::StorageTexelBuffer => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
        DescriptorKind::UniformBuffer => vk::DescriptorType::UNIFORM_BUFFER,
        DescriptorKind::StorageBuffer => vk::DescriptorType::STORAGE_BUFFER,
        DescriptorKind::InputAttachment => vk::DescriptorType::INPUT_ATTACHMENT,
        DescriptorKind::AccelerationStructure => vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
    }
}

fn mismatch(error: Mismatch) -> ShaderNodeErrorKind {
    ShaderNodeErrorKind::Mismatch {
        file: error.file,
        line: error.line,
        message: error.message,
    }
}

/// A node's compiled stages, binding plan and the files to watch.
pub(crate) type CompiledProgram = (Vec<CompiledStage>, BindingPlan, Watch);

/// Compiles the shaders of `name` and plans its bindings (no Vulkan objects yet); a failure
/// comes with the files to watch for a retry.
pub(crate) fn compile_program(
    compiler: &ShaderCompiler,
    dir: &Path,
    name: &str,
    decl: &NodeDeclDesc,
    features: &crate::EnabledFeatures,
) -> Result<CompiledProgram, Box<(ShaderNodeErrorKind, Watch)>> {
    let fail_watch = || Watch::new(dir, name, Vec::new());
    let files = find_node_shaders(dir, name)
        .map_err(|message| Box::new((ShaderNodeErrorKind::Files(message), fail_watch())))?;
    let mut watched: Vec<std::path::PathBuf> = files
        .stages()
        .iter()
        .map(|(_, path)| path.to_path_buf())
        .collect();
    let mut stages = Vec::new();
    for (stage, path) in files.stages() {
        let file = path.display().to_string();
        let source = match std::fs::read_to_string(path) {
            Ok(source) => source,
            Err(error) => {
                let error = ShaderError::Io {
                    path: path.to_path_buf(),
                    message: error.to_string(),
                };
                return Err(Box::new((
                    ShaderNodeErrorKind::Compile(error),
                    Watch::new(dir, name, watched),
                )));
            }
        };
        let language = stage_and_language_of(path)
            .map_or(rpsl_shaders::ShaderLanguage::Glsl, |(_, language)| language);
        let request = ShaderRequest::new(source.clone(), path, language, stage);
        let shader = match compiler.compile(&request) {
            Ok(shader) => shader,
            Err(error) => {
                // The includes of a failed compile are found by scanning, so editing one retries.
                watched.extend(rpsl_shaders::scan_include_files(
                    &request.source,
                    path,
                    &compiler.options().include_dirs,
                ));
                return Err(Box::new((
                    ShaderNodeErrorKind::Compile(error),
                    Watch::new(dir, name, watched),
                )));
            }
        };
        watched.extend(shader.includes.iter().cloned());
        let wanted = match stage {
            ShaderStage::Vertex => ExecutionModel::Vertex,
            ShaderStage::Fragment => ExecutionModel::Fragment,
            ShaderStage::Compute => ExecutionModel::GlCompute,
            ShaderStage::Geometry => ExecutionModel::Geometry,
            ShaderStage::TessControl => ExecutionModel::TessellationControl,
            ShaderStage::TessEvaluation => ExecutionModel::TessellationEvaluation,
        };
        if !shader
            .reflection
            .entry_points
            .iter()
            .any(|e| e.name == "main" && e.model == wanted)
        {
            let error = Mismatch {
                file,
                line: None,
                message: "has no `main` entry point of its stage".to_string(),
            };
            return Err(Box::new((mismatch(error), Watch::new(dir, name, watched))));
        }
        stages.push(CompiledStage {
            stage,
            file,
            source,
            shader,
        });
    }
    let files: Vec<(ShaderStage, &str)> =
        stages.iter().map(|s| (s.stage, s.file.as_str())).collect();
    if let Some(error) = missing_feature(&files, features) {
        return Err(Box::new((mismatch(error), Watch::new(dir, name, watched))));
    }
    let is_graphics = !stages.iter().any(|s| s.stage == ShaderStage::Compute);
    if is_graphics {
        if let Err(error) = super::link::link_stages(&mut stages) {
            return Err(Box::new((mismatch(error), Watch::new(dir, name, watched))));
        }
    }
    let infos: Vec<StageInfo<'_>> = stages
        .iter()
        .map(|s| StageInfo {
            stage: s.stage,
            file: &s.file,
            source: &s.source,
            reflection: &s.shader.reflection,
        })
        .collect();
    let watch = Watch::new(dir, name, watched);
    match plan_bindings(decl, &infos) {
        Ok(plan) => Ok((stages, plan, watch)),
        Err(error) => Err(Box::new((mismatch(error), watch))),
    }
}

/// The debug-utils device that names objects (`None`: naming is off).
pub(crate) type DebugUtils<'a> = Option<&'a ash::ext::debug_utils::Device>;

/// The first of `stages` (stage and file) that `features` cannot run: geometry shaders need
/// `geometryShader`, tessellation shaders `tessellationShader`.
pub(crate) fn missing_feature(
    stages: &[(ShaderStage, &str)],
    features: &crate::EnabledFeatures,
) -> Option<Mismatch> {
    stages.iter().find_map(|&(stage, file)| {
        let feature = match stage {
            ShaderStage::Geometry if !features.geometry_shader => "geometryShader",
            ShaderStage::TessControl | ShaderStage::TessEvaluation
                if !features.tessellation_shader =>
            {
                "tessellationShader"
            }
            _ => return None,
        };
        Some(Mismatch {
            file: file.to_string(),
            line: None,
            message: format!(
                "this device lacks the `{feature}` feature, which {} shaders need",
                stage_name(stage)
            ),
        })
    })
}

/// Creates a shader module called `name` (in validation messages and tools).
pub(crate) fn create_module(
    device: &ash::Device,
    debug: DebugUtils<'_>,
    spirv: &[u32],
    name: &str,
) -> Result<vk::ShaderModule, ShaderNodeErrorKind> {
    let info = vk::ShaderModuleCreateInfo::default().code(spirv);
    // SAFETY: valid SPIR-V words from the compiler on a live device.
    let module = unsafe { device.create_shader_module(&info, None) }
        .map_err(vulkan("vkCreateShaderModule"))?;
    name_object(debug, module, name);
    Ok(module)
}

/// The debug name of a node's module: its file name, node and stage
/// (`Foo.frag.hlsl (node Foo: fragment)`).
fn module_name(node: &str, stage: &CompiledStage) -> String {
    let file = Path::new(&stage.file)
        .file_name()
        .map_or(stage.file.clone(), |name| {
            name.to_string_lossy().into_owned()
        });
    format!("{file} (node {node}: {})", stage_name(stage.stage))
}

/// A stage as debug names and messages call it.
pub(crate) fn stage_name(stage: ShaderStage) -> &'static str {
    match stage {
        ShaderStage::Vertex => "vertex",
        ShaderStage::Fragment => "fragment",
        ShaderStage::Compute => "compute",
        ShaderStage::Geometry => "geometry",
        ShaderStage::TessControl => "tessellation control",
        ShaderStage::TessEvaluation => "tessellation evaluation",
    }
}

impl Program {
    /// Creates the modules and layouts of compiled `stages`; destroys what it made on failure.
    pub fn new(
        device: &ash::Device,
        decl: NodeDeclDesc,
        stages: Vec<CompiledStage>,
        plan: BindingPlan,
        watch: Watch,
        samplers: &dyn Fn(super::plan::SamplerKind) -> vk::Sampler,
        debug: DebugUtils<'_>,
    ) -> Result<Program, ShaderNodeErrorKind> {
        let mut program = Program {
            decl,
            watch,
            stages,
            plan,
            modules: Vec::new(),
            set_layout: vk::DescriptorSetLayout::null(),
            pipeline_layout: vk::PipelineLayout::null(),
            pipelines: HashMap::new(),
        };
        match program.create_objects(device, samplers, debug) {
            Ok(()) => Ok(program),
            Err(error) => {
                // SAFETY: made here and never recorded.
                unsafe { program.destroy(device) };
                Err(error)
            }
        }
    }

    fn create_objects(
        &mut self,
        device: &ash::Device,
        samplers: &dyn Fn(super::plan::SamplerKind) -> vk::Sampler,
        debug: DebugUtils<'_>,
    ) -> Result<(), ShaderNodeErrorKind> {
        let node = self.decl.name.clone();
        for stage in &self.stages {
            let name = module_name(&node, stage);
            let module = create_module(device, debug, &stage.shader.spirv, &name)?;
            self.modules.push(module);
        }
        let immutable: Vec<Vec<vk::Sampler>> = self
            .plan
            .descriptors
            .iter()
            .map(|d| match d.source {
                super::plan::DescriptorSource::Sampler(kind) => {
                    vec![samplers(kind); d.count as usize]
                }
                super::plan::DescriptorSource::Param(_) => Vec::new(),
            })
            .collect();
        let bindings: Vec<vk::DescriptorSetLayoutBinding<'_>> = self
            .plan
            .descriptors
            .iter()
            .zip(&immutable)
            .map(|(d, immutable)| {
                let binding = vk::DescriptorSetLayoutBinding::default()
                    .binding(d.binding)
                    .descriptor_type(descriptor_type(d.kind))
                    .descriptor_count(d.count)
                    .stage_flags(stage_flags(&d.stages));
                if immutable.is_empty() {
                    binding
                } else {
                    binding.immutable_samplers(immutable)
                }
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: valid create info; the immutable samplers are live.
        self.set_layout = unsafe { device.create_descriptor_set_layout(&info, None) }
            .map_err(vulkan("vkCreateDescriptorSetLayout"))?;
        name_object(
            debug,
            self.set_layout,
            &format!("node {node}: descriptor set layout"),
        );
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(stage_flags(&self.plan.push_stages))
            .offset(0)
            .size(self.plan.push_size)];
        let set_layouts = [self.set_layout];
        let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        if self.plan.push_size > 0 {
            info = info.push_constant_ranges(&ranges);
        }
        // SAFETY: valid create info with a live set layout.
        self.pipeline_layout = unsafe { device.create_pipeline_layout(&info, None) }
            .map_err(vulkan("vkCreatePipelineLayout"))?;
        name_object(
            debug,
            self.pipeline_layout,
            &format!("node {node}: pipeline layout"),
        );
        Ok(())
    }

    /// The compute pipeline (made on first use).
    pub fn compute_pipeline(
        &mut self,
        device: &ash::Device,
        debug: DebugUtils<'_>,
    ) -> Result<vk::Pipeline, ShaderNodeErrorKind> {
        if let Some(pipeline) = self.pipelines.get(&PipelineKey::default()) {
            return Ok(*pipeline);
        }
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(self.modules[0])
            .name(ENTRY);
        let info = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(self.pipeline_layout);
        // SAFETY: valid create info; module and layout are live.
        let pipelines =
            unsafe { device.create_compute_pipelines(vk::PipelineCache::null(), &[info], None) }
                .map_err(|(_, result)| ShaderNodeErrorKind::Vulkan {
                    call: "vkCreateComputePipelines",
                    result,
                })?;
        let name = format!("node {}: compute pipeline", self.decl.name);
        name_object(debug, pipelines[0], &name);
        self.pipelines.insert(PipelineKey::default(), pipelines[0]);
        Ok(pipelines[0])
    }

    /// The graphics pipeline for `key` (made on first use); `fullscreen` is the built-in vertex
    /// module, used when the node has no vertex shader.
    pub fn graphics_pipeline(
        &mut self,
        device: &ash::Device,
        key: &PipelineKey,
        fullscreen: vk::ShaderModule,
        debug: DebugUtils<'_>,
    ) -> Result<vk::Pipeline, ShaderNodeErrorKind> {
        if let Some(pipeline) = self.pipelines.get(key) {
            return Ok(*pipeline);
        }
        let mut stages = Vec::new();
        if !self.stages.iter().any(|s| s.stage == ShaderStage::Vertex) {
            stages.push(
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::VERTEX)
                    .module(fullscreen)
                    .name(ENTRY),
            );
        }
        for (stage, module) in self.stages.iter().zip(&self.modules) {
            stages.push(
                vk::PipelineShaderStageCreateInfo::default()
                    .stage(stage_flags(&[stage.stage]))
                    .module(*module)
                    .name(ENTRY),
            );
        }
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        let input_assembly =
            vk::PipelineInputAssemblyStateCreateInfo::default().topology(self.topology());
        let tessellation = vk::PipelineTessellationStateCreateInfo::default()
            .patch_control_points(self.patch_control_points().unwrap_or(0));
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(key.viewports.max(1))
            .scissor_count(key.viewports.max(1));
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
            .line_width(1.0);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::from_raw(key.samples.max(1)));
        let has_depth = key.depth != vk::Format::UNDEFINED;
        let depth = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(has_depth)
            .depth_write_enable(has_depth && key.depth_write)
            .depth_compare_op(vk::CompareOp::LESS_OR_EQUAL);
        let attachments: Vec<vk::PipelineColorBlendAttachmentState> = key
            .colors
            .iter()
            .map(|_| {
                vk::PipelineColorBlendAttachmentState::default()
                    .color_write_mask(vk::ColorComponentFlags::RGBA)
            })
            .collect();
        let blend = vk::PipelineColorBlendStateCreateInfo::default().attachments(&attachments);
        let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
        let mut rendering = vk::PipelineRenderingCreateInfo::default()
            .color_attachment_formats(&key.colors)
            .depth_attachment_format(key.depth)
            .stencil_attachment_format(key.stencil);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&input_assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .depth_stencil_state(&depth)
            .color_blend_state(&blend)
            .dynamic_state(&dynamic)
            .layout(self.pipeline_layout)
            .push_next(&mut rendering);
        let info = if self.patch_control_points().is_some() {
            info.tessellation_state(&tessellation)
        } else {
            info
        };
        // SAFETY: valid create info for dynamic rendering; modules and layout are live.
        let pipelines =
            unsafe { device.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }
                .map_err(|(_, result)| ShaderNodeErrorKind::Vulkan {
                call: "vkCreateGraphicsPipelines",
                result,
            })?;
        let name = format!("node {}: graphics pipeline", self.decl.name);
        name_object(debug, pipelines[0], &name);
        self.pipelines.insert(key.clone(), pipelines[0]);
        Ok(pipelines[0])
    }

    /// The interface of the compiled `stage`, if the node has it.
    fn interface(&self, stage: ShaderStage) -> Option<&rpsl_shaders::StageInterface> {
        let compiled = self.stages.iter().find(|s| s.stage == stage)?;
        compiled.shader.reflection.interface("main")
    }

    /// The vertices of a patch, for a node with tessellation shaders: the hull shader's input
    /// patch size (HLSL `InputPatch<T, n>`), else its output control points (GLSL
    /// `layout(vertices = n) out`; GLSL inputs are sized `gl_MaxPatchVertices`).
    pub fn patch_control_points(&self) -> Option<u32> {
        let hull = self
            .stages
            .iter()
            .find(|s| s.stage == ShaderStage::TessControl)?;
        let interface = hull.shader.reflection.interface("main")?;
        let hlsl = hull.file.ends_with(".hlsl");
        hlsl.then(|| interface.input_vertices())
            .flatten()
            .or(interface.output_vertices)
            .filter(|&points| points > 0)
    }

    /// The primitive topology of the draw: patches with tessellation, the geometry shader's
    /// input primitive, else triangles.
    fn topology(&self) -> vk::PrimitiveTopology {
        if self.patch_control_points().is_some() {
            return vk::PrimitiveTopology::PATCH_LIST;
        }
        let modes = self
            .interface(ShaderStage::Geometry)
            .map(|interface| interface.execution_modes.as_slice())
            .unwrap_or_default();
        let topology = modes.iter().find_map(|mode| match mode {
            19 => Some(vk::PrimitiveTopology::POINT_LIST),
            20 => Some(vk::PrimitiveTopology::LINE_LIST),
            21 => Some(vk::PrimitiveTopology::LINE_LIST_WITH_ADJACENCY),
            22 => Some(vk::PrimitiveTopology::TRIANGLE_LIST),
            23 => Some(vk::PrimitiveTopology::TRIANGLE_LIST_WITH_ADJACENCY),
            _ => None,
        });
        topology.unwrap_or(vk::PrimitiveTopology::TRIANGLE_LIST)
    }

    /// Destroys the Vulkan objects (pipelines, layouts, shader modules).
    ///
    /// # Safety
    ///
    /// No pending command buffer uses them (the device is idle, more frames than can be in
    /// flight have begun since the program was last recorded, or it never was), `device` is
    /// the one they were created on, and no descriptor set of its set layout is used again.
    pub unsafe fn destroy(mut self, device: &ash::Device) {
        // SAFETY: the caller guarantees the GPU no longer uses these objects; each is
        // destroyed once (`self` is consumed); null handles (of a half-made program) are
        // ignored.
        unsafe {
            for (_, pipeline) in self.pipelines.drain() {
                device.destroy_pipeline(pipeline, None);
            }
            device.destroy_pipeline_layout(self.pipeline_layout, None);
            device.destroy_descriptor_set_layout(self.set_layout, None);
            for module in self.modules.drain(..) {
                device.destroy_shader_module(module, None);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rpsl_shaders::ShaderStage;

    use super::missing_feature;

    #[test]
    fn geometry_and_tessellation_shaders_need_their_device_features() {
        let mut features = crate::EnabledFeatures {
            timeline_semaphore: true,
            robust_image_access2: false,
            separate_depth_stencil_layouts: true,
            debug_utils: false,
            host_query_reset: false,
            push_descriptor: false,
            storage_write_without_format: false,
            depth_resolve_modes: ash::vk::ResolveModeFlags::SAMPLE_ZERO,
            stencil_resolve_modes: ash::vk::ResolveModeFlags::SAMPLE_ZERO,
            independent_resolve: false,
            independent_resolve_none: false,
            shader_stencil_export: false,
            geometry_shader: false,
            tessellation_shader: false,
            texture_compression_bc: false,
        };
        let stages = [
            (ShaderStage::Vertex, "T.vert.hlsl"),
            (ShaderStage::TessControl, "T.hull.hlsl"),
            (ShaderStage::TessEvaluation, "T.domain.hlsl"),
            (ShaderStage::Geometry, "T.geom.hlsl"),
            (ShaderStage::Fragment, "T.frag.hlsl"),
        ];
        let error = missing_feature(&stages, &features).unwrap();
        assert_eq!(
            (error.file.as_str(), error.line, error.message.as_str()),
            (
                "T.hull.hlsl",
                None,
                "this device lacks the `tessellationShader` feature, which tessellation control shaders need"
            )
        );
        features.tessellation_shader = true;
        let error = missing_feature(&stages, &features).unwrap();
        assert_eq!(
            (error.file.as_str(), error.message.as_str()),
            (
                "T.geom.hlsl",
                "this device lacks the `geometryShader` feature, which geometry shaders need"
            )
        );
        features.geometry_shader = true;
        assert_eq!(missing_feature(&stages, &features), None);
    }
}
