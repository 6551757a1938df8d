//! The min/max MSAA colour resolve (`resolve(..., RPS_RESOLVE_MODE_MIN | MAX)`), which Vulkan
//! has no fixed-function path for: a compute pass reads every sample of the source (a sampled
//! multisampled image) and writes the per-channel minimum or maximum into the destination (a
//! storage image). The GLSL is compiled once with rpsl-shaders when a frame first needs it;
//! descriptors are pushed (VK_KHR_push_descriptor). Around the dispatch the two images move from
//! the compiler's transfer layouts to shader layouts and back, chained to the compiler's
//! barriers through the transfer stages.
//!
//! The pass also owns the fragment-shader depth/stencil resolve
//! ([`crate::depth_resolve::ShaderDepthResolve`]), the fallback for min/max depth resolves the
//! device's render-pass resolve lacks.

use crate::context::{vk_error, Context};
use crate::record::FrameRecorder;
use ash::vk;
use rpsl_runtime::BackendError;

const SOURCE: &str = r#"#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 8, local_size_y = 8, local_size_z = 1) in;
layout(set = 0, binding = 0) uniform PREFIXtexture2DMSArray src;
layout(set = 0, binding = 1) uniform writeonly PREFIXimage2DArray dst;
layout(push_constant) uniform Params {
    ivec2 src_offset;
    ivec2 dst_offset;
    uvec2 extent;
    uint use_max;
    uint samples;
} params;
void main() {
    uvec3 id = gl_GlobalInvocationID;
    if (id.x >= params.extent.x || id.y >= params.extent.y) {
        return;
    }
    ivec3 at = ivec3(params.src_offset + ivec2(id.xy), int(id.z));
    PREFIXvec4 value = texelFetch(src, at, 0);
    for (int s = 1; s < int(params.samples); ++s) {
        PREFIXvec4 sample_value = texelFetch(src, at, s);
        value = params.use_max != 0u ? max(value, sample_value) : min(value, sample_value);
    }
    imageStore(dst, ivec3(params.dst_offset + ivec2(id.xy), int(id.z)), value);
}
"#;

/// The sample types of the shader's variants (GLSL type prefixes): float (and normalised),
/// unsigned and signed integer formats.
const VARIANTS: [&str; 3] = ["", "u", "i"];

/// Which variant resolves `format`: 1 for `*_UINT`, 2 for `*_SINT`, else 0.
fn variant_of(format: vk::Format) -> usize {
    let name = format!("{format:?}");
    if name.ends_with("_UINT") {
        1
    } else if name.ends_with("_SINT") {
        2
    } else {
        0
    }
}

/// The compute pipelines of the min/max resolve, one per sample type.
pub(crate) struct MinMaxResolve {
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipelines: [vk::Pipeline; 3],
    push: ash::khr::push_descriptor::Device,
    depth: Option<crate::depth_resolve::ShaderDepthResolve>,
}

/// What one min/max resolve does.
pub(crate) struct MinMaxJob {
    pub src_image: vk::Image,
    pub src_format: vk::Format,
    pub src_range: vk::ImageSubresourceRange,
    pub dst_image: vk::Image,
    pub dst_format: vk::Format,
    pub dst_range: vk::ImageSubresourceRange,
    pub src_offset: [i32; 2],
    pub dst_offset: [i32; 2],
    pub extent: [u32; 2],
    pub use_max: bool,
    pub samples: u32,
}

impl MinMaxResolve {
    /// Compiles the shaders and creates the pipelines (colour compute and depth/stencil
    /// graphics).
    pub fn new(context: &Context) -> Result<MinMaxResolve, BackendError> {
        let mut pass = MinMaxResolve::new_colour(context)?;
        match crate::depth_resolve::ShaderDepthResolve::new(context) {
            Ok(depth) => pass.depth = Some(depth),
            Err(error) => {
                // SAFETY: just created; nothing was recorded with it.
                unsafe { pass.destroy(context) };
                return Err(error);
            }
        }
        Ok(pass)
    }

    /// The fragment-shader depth/stencil resolve.
    pub fn depth_shaders(&self) -> Option<&crate::depth_resolve::ShaderDepthResolve> {
        self.depth.as_ref()
    }

    /// The colour compute pipelines.
    fn new_colour(context: &Context) -> Result<MinMaxResolve, BackendError> {
        if !context.features.push_descriptor || !context.features.storage_write_without_format {
            return Err(BackendError::MissingFeature(
                "min/max resolve needs VK_KHR_push_descriptor and shaderStorageImageWriteWithoutFormat"
                    .into(),
            ));
        }
        let compiler = rpsl_shaders::ShaderCompiler::new(rpsl_shaders::CompilerOptions::default());
        let mut spirv = Vec::new();
        for prefix in VARIANTS {
            let source = SOURCE.replace("PREFIX", prefix);
            let request = rpsl_shaders::ShaderRequest::new(
                &source,
                "rpsl_minmax_resolve.comp",
                rpsl_shaders::ShaderLanguage::Glsl,
                rpsl_shaders::ShaderStage::Compute,
            );
            let shader = compiler
                .compile(&request)
                .map_err(|e| BackendError::Api(format!("min/max resolve shader: {e}")))?;
            spirv.push(shader.spirv);
        }
        let device = &context.device;
        let bindings = [
            vk::DescriptorSetLayoutBinding::default()
                .binding(0)
                .descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE),
            vk::DescriptorSetLayoutBinding::default()
                .binding(1)
                .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::COMPUTE),
        ];
        let set_info = vk::DescriptorSetLayoutCreateInfo::default()
            .flags(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR)
            .bindings(&bindings);
        // SAFETY: valid create infos on a live device; objects are destroyed in `destroy`.
        unsafe {
            let set_layout = device
                .create_descriptor_set_layout(&set_info, None)
                .map_err(|r| vk_error("vkCreateDescriptorSetLayout", r))?;
            let ranges = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::COMPUTE)
                .offset(0)
                .size(32)];
            let set_layouts = [set_layout];
            let layout = device
                .create_pipeline_layout(
                    &vk::PipelineLayoutCreateInfo::default()
                        .set_layouts(&set_layouts)
                        .push_constant_ranges(&ranges),
                    None,
                )
                .map_err(|r| {
                    device.destroy_descriptor_set_layout(set_layout, None);
                    vk_error("vkCreatePipelineLayout", r)
                })?;
            let cleanup = || {
                device.destroy_pipeline_layout(layout, None);
                device.destroy_descriptor_set_layout(set_layout, None);
            };
            let mut pipelines = [vk::Pipeline::null(); 3];
            for (index, code) in spirv.iter().enumerate() {
                let release = |pipelines: &[vk::Pipeline]| {
                    for &pipeline in pipelines {
                        device.destroy_pipeline(pipeline, None);
                    }
                    cleanup();
                };
                let module = device
                    .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(code), None)
                    .map_err(|r| {
                        release(&pipelines[..index]);
                        vk_error("vkCreateShaderModule", r)
                    })?;
                let kind = ["float", "uint", "sint"][index];
                context.name(module, &format!("rpsl min/max resolve ({kind}): compute"));
                let stage = vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::COMPUTE)
                    .module(module)
                    .name(c"main");
                let info = vk::ComputePipelineCreateInfo::default()
                    .stage(stage)
                    .layout(layout);
                let created =
                    device.create_compute_pipelines(vk::PipelineCache::null(), &[info], None);
                device.destroy_shader_module(module, None);
                match created {
                    Ok(created) => pipelines[index] = created[0],
                    Err((_, r)) => {
                        release(&pipelines[..index]);
                        return Err(vk_error("vkCreateComputePipelines", r));
                    }
                }
                context.name(pipelines[index], &format!("rpsl min/max resolve ({kind})"));
            }
            context.name(layout, "rpsl min/max resolve layout");
            context.name(set_layout, "rpsl min/max resolve descriptors");
            Ok(MinMaxResolve {
                set_layout,
                layout,
                pipelines,
                push: ash::khr::push_descriptor::Device::new(&context.instance, device),
                depth: None,
            })
        }
    }

    /// Destroys the pipeline objects (and the depth/stencil resolve's).
    ///
    /// # Safety
    ///
    /// No pending command buffer uses them (the device is idle, or they were never recorded),
    /// and `context` is the one they were created with.
    pub unsafe fn destroy(self, context: &Context) {
        if let Some(depth) = self.depth {
            // SAFETY: the caller's contract covers the depth/stencil resolve's objects.
            unsafe { depth.destroy(context) };
        }
        // SAFETY: the caller guarantees no pending work uses them; each is destroyed once
        // (`self` is consumed).
        unsafe {
            for &pipeline in &self.pipelines {
                context.device.destroy_pipeline(pipeline, None);
            }
            context.device.destroy_pipeline_layout(self.layout, None);
            context
                .device
                .destroy_descriptor_set_layout(self.set_layout, None);
        }
    }

    /// Records one resolve: layout changes, the dispatch, layouts back.
    pub fn record(
        &self,
        recorder: &mut FrameRecorder<'_>,
        job: &MinMaxJob,
    ) -> Result<(), BackendError> {
        let view = |recorder: &mut FrameRecorder<'_>,
                    image: vk::Image,
                    format: vk::Format,
                    range: vk::ImageSubresourceRange|
         -> Result<vk::ImageView, BackendError> {
            let range = vk::ImageSubresourceRange {
                level_count: 1,
                ..range
            };
            let key = crate::view_cache::ViewKey::new(
                image,
                vk::ImageViewType::TYPE_2D_ARRAY,
                format,
                &range,
            );
            let (view, _) = recorder
                .view_cache
                .view(recorder.context, key, || "min/max resolve view".to_string())?;
            Ok(view)
        };
        let src_view = view(recorder, job.src_image, job.src_format, job.src_range)?;
        let dst_view = view(recorder, job.dst_image, job.dst_format, job.dst_range)?;
        let transfer = vk::PipelineStageFlags2::ALL_TRANSFER;
        let compute = vk::PipelineStageFlags2::COMPUTE_SHADER;
        let barrier = |image,
                       range,
                       old,
                       new,
                       stages: [vk::PipelineStageFlags2; 2],
                       accesses: [vk::AccessFlags2; 2]| {
            vk::ImageMemoryBarrier2::default()
                .src_stage_mask(stages[0])
                .src_access_mask(accesses[0])
                .dst_stage_mask(stages[1])
                .dst_access_mask(accesses[1])
                .old_layout(old)
                .new_layout(new)
                .image(image)
                .subresource_range(range)
        };
        // The compiler's barriers leave both images as a resolve access (RESOLVE stage,
        // TRANSFER_READ / TRANSFER_WRITE): the barriers into the shader start from exactly
        // that scope, so the earlier writes they made visible chain into the layout changes.
        let before = [
            barrier(
                job.src_image,
                job.src_range,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                [vk::PipelineStageFlags2::RESOLVE, compute],
                [
                    vk::AccessFlags2::TRANSFER_READ,
                    vk::AccessFlags2::SHADER_SAMPLED_READ,
                ],
            ),
            barrier(
                job.dst_image,
                job.dst_range,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                vk::ImageLayout::GENERAL,
                [vk::PipelineStageFlags2::RESOLVE, compute],
                [
                    vk::AccessFlags2::TRANSFER_WRITE,
                    vk::AccessFlags2::SHADER_STORAGE_WRITE,
                ],
            ),
        ];
        let after = [
            barrier(
                job.src_image,
                job.src_range,
                vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                [compute, transfer],
                // Later reads of the source that the compiler sees as the same resolve read
                // (no barrier of its own) wait for this layout change.
                [vk::AccessFlags2::NONE, vk::AccessFlags2::TRANSFER_READ],
            ),
            barrier(
                job.dst_image,
                job.dst_range,
                vk::ImageLayout::GENERAL,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                [compute, transfer],
                [
                    vk::AccessFlags2::SHADER_STORAGE_WRITE,
                    vk::AccessFlags2::TRANSFER_READ | vk::AccessFlags2::TRANSFER_WRITE,
                ],
            ),
        ];
        let src_info = [vk::DescriptorImageInfo::default()
            .image_view(src_view)
            .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)];
        let dst_info = [vk::DescriptorImageInfo::default()
            .image_view(dst_view)
            .image_layout(vk::ImageLayout::GENERAL)];
        let writes = [
            vk::WriteDescriptorSet::default()
                .dst_binding(0)
                .descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
                .image_info(&src_info),
            vk::WriteDescriptorSet::default()
                .dst_binding(1)
                .descriptor_type(vk::DescriptorType::STORAGE_IMAGE)
                .image_info(&dst_info),
        ];
        let mut constants = Vec::with_capacity(32);
        for word in [
            job.src_offset[0] as u32,
            job.src_offset[1] as u32,
            job.dst_offset[0] as u32,
            job.dst_offset[1] as u32,
            job.extent[0],
            job.extent[1],
            job.use_max as u32,
            job.samples,
        ] {
            constants.extend_from_slice(&word.to_le_bytes());
        }
        let layers = job
            .src_range
            .layer_count
            .min(job.dst_range.layer_count)
            .max(1);
        let pipeline = self.pipelines[variant_of(job.dst_format)];
        // SAFETY: `cb` is the node's recording command buffer, outside any render pass; the
        // images are live until the frame completes and in the layouts the compiler planned
        // for the resolve, which the barriers above and below bridge to the ones the
        // descriptors name; the pipelines, layout and push-descriptor functions are this
        // pass's (created on this device, with push descriptors enabled, and destroyed only
        // once the device is idle); the push constants are the layout's 32 bytes; the views
        // live in the view cache as long as their images.
        unsafe {
            let encoder = recorder.encoder();
            encoder.pipeline_barrier(&vk::DependencyInfo::default().image_memory_barriers(&before));
            encoder.bind_pipeline(vk::PipelineBindPoint::COMPUTE, pipeline);
            encoder.push_descriptor_set(
                &self.push,
                vk::PipelineBindPoint::COMPUTE,
                self.layout,
                0,
                &writes,
            );
            encoder.push_constants(self.layout, vk::ShaderStageFlags::COMPUTE, 0, &constants);
            encoder.dispatch(job.extent[0].div_ceil(8), job.extent[1].div_ceil(8), layers);
            encoder.pipeline_barrier(&vk::DependencyInfo::default().image_memory_barriers(&after));
        }
        Ok(())
    }
}
