//! The fragment-shader depth/stencil resolve, the fallback of `depth_resolve` where the device's
//! render-pass resolve lacks a mode (or a driver's scratch copy of one aspect would overwrite
//! the other, see `scratch.rs`): a full-screen triangle
//! over the destination region whose fragment shader fetches every sample of the source (a
//! sampled multisampled view of one aspect) and writes `gl_FragDepth`, or the stencil reference
//! through VK_EXT_shader_stencil_export, into the destination bound as an attachment (depth test
//! or stencil test `ALWAYS`, writes `REPLACE`). One render pass per layer.

use super::{destination_layout, frame_view, source_layout, DepthResolveJob, ShaderOp, ViewUse};
use crate::context::{vk_error, Context};
use crate::record::FrameRecorder;
use ash::vk;
use rpsl_runtime::BackendError;
use std::cell::RefCell;

impl FrameRecorder<'_> {
    /// The fragment-shader resolve of one aspect, one layer at a time.
    pub(super) fn shader_resolve(
        &mut self,
        job: &DepthResolveJob,
        aspect: vk::ImageAspectFlags,
        op: ShaderOp,
        (src_mip, src_layers): (u32, (u32, u32)),
        (dst_mip, dst_layers): (u32, (u32, u32)),
    ) -> Result<(), BackendError> {
        let Some(shaders) = self.minmax.and_then(|pass| pass.depth_shaders()) else {
            return Err(BackendError::Api(
                "the shader depth resolve was not created".into(),
            ));
        };
        let stencil = aspect == vk::ImageAspectFlags::STENCIL;
        let pipeline = shaders.pipeline(self.context, job.dst.format, stencil)?;
        let src_view = frame_view(
            self,
            ViewUse::Sampled,
            job.src_image,
            job.src.format,
            aspect,
            src_mip,
            src_layers,
            "depth resolve source (sampled)",
        )?;
        let full = aspect;
        let samples = self
            .context
            .sample_count(job.src.desc.sample_count)
            .as_raw();
        let image_info = [vk::DescriptorImageInfo::default()
            .image_view(src_view)
            .image_layout(source_layout(aspect))];
        let writes = [vk::WriteDescriptorSet::default()
            .dst_binding(0)
            .descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
            .image_info(&image_info)];
        let area = vk::Rect2D {
            offset: job.dst_offset,
            extent: job.extent,
        };
        let viewport = vk::Viewport {
            x: area.offset.x as f32,
            y: area.offset.y as f32,
            width: area.extent.width as f32,
            height: area.extent.height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        };
        for layer in 0..dst_layers.1 {
            let dst_view = frame_view(
                self,
                ViewUse::Attachment,
                job.dst_image,
                job.dst.format,
                full,
                dst_mip,
                (dst_layers.0 + layer, 1),
                "depth resolve destination (attachment)",
            )?;
            let target = vk::RenderingAttachmentInfo::default()
                .image_view(dst_view)
                .image_layout(destination_layout(aspect))
                .load_op(vk::AttachmentLoadOp::LOAD)
                .store_op(vk::AttachmentStoreOp::STORE);
            let targets = [target];
            let mut info = vk::RenderingInfo::default()
                .render_area(area)
                .layer_count(1);
            info = if stencil {
                info.stencil_attachment(&targets[0])
            } else {
                info.depth_attachment(&targets[0])
            };
            let mut constants = Vec::with_capacity(20);
            for word in [
                (job.src_offset.x - job.dst_offset.x) as u32,
                (job.src_offset.y - job.dst_offset.y) as u32,
                layer,
                op as u32,
                samples,
            ] {
                constants.extend_from_slice(&word.to_le_bytes());
            }
            // SAFETY: `cb` is the node's recording command buffer on the graphics queue,
            // outside any render pass; the views are live and in the layouts the barriers of
            // `record_depth_resolve` set; the pipeline (made for the attachment's format, with
            // dynamic viewport and scissor) and its layout (a push-descriptor set 0 and 20
            // bytes of fragment push constants) are the minmax pass's, destroyed only once the
            // device is idle; the push-descriptor functions were loaded for this device.
            unsafe {
                let encoder = self.encoder();
                encoder.begin_rendering(&info);
                encoder.bind_pipeline(vk::PipelineBindPoint::GRAPHICS, pipeline);
                encoder.push_descriptor_set(
                    &shaders.push,
                    vk::PipelineBindPoint::GRAPHICS,
                    shaders.layout,
                    0,
                    &writes,
                );
                encoder.push_constants(
                    shaders.layout,
                    vk::ShaderStageFlags::FRAGMENT,
                    0,
                    &constants,
                );
                encoder.set_viewport(0, &[viewport]);
                encoder.set_scissor(0, &[area]);
                encoder.draw(3, 1, 0, 0);
                encoder.end_rendering();
            }
        }
        Ok(())
    }
}

const VERTEX_SOURCE: &str = r#"#version 450
void main() {
    vec2 corner = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
"#;

/// The fragment shader: `PREFIX` is the sample type (`""` depth, `"u"` stencil), `EXPORT` the
/// output statement.
const FRAGMENT_SOURCE: &str = r#"#version 450
#extension GL_EXT_samplerless_texture_functions : require
EXTENSION
layout(set = 0, binding = 0) uniform PREFIXtexture2DMSArray src;
layout(push_constant) uniform Params {
    ivec2 delta;
    int layer;
    uint op;
    uint samples;
} params;
void main() {
    ivec3 at = ivec3(ivec2(gl_FragCoord.xy) + params.delta, params.layer);
    TYPE first = texelFetch(src, at, 0).r;
    TYPE low = first;
    TYPE high = first;
    float sum = float(first);
    for (int s = 1; s < int(params.samples); ++s) {
        TYPE value = texelFetch(src, at, s).r;
        low = min(low, value);
        high = max(high, value);
        sum += float(value);
    }
    TYPE result = first;
    if (params.op == 1u) {
        result = TYPE(sum / float(params.samples));
    } else if (params.op == 2u) {
        result = low;
    } else if (params.op == 3u) {
        result = high;
    }
    OUTPUT;
}
"#;

/// The fragment-shader depth/stencil resolve: shader modules, layouts, and graphics pipelines
/// made on first use per (format, aspect).
pub(crate) struct ShaderDepthResolve {
    vertex: vk::ShaderModule,
    depth_fragment: vk::ShaderModule,
    /// `None` without VK_EXT_shader_stencil_export.
    stencil_fragment: Option<vk::ShaderModule>,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipelines: RefCell<Vec<((vk::Format, bool), vk::Pipeline)>>,
    push: ash::khr::push_descriptor::Device,
}

impl ShaderDepthResolve {
    /// Compiles the shaders and creates the layouts (pipelines come on first use).
    pub fn new(context: &Context) -> Result<ShaderDepthResolve, BackendError> {
        let compiler = rpsl_shaders::ShaderCompiler::new(rpsl_shaders::CompilerOptions::default());
        let compile = |source: &str, name: &str, stage| {
            let request = rpsl_shaders::ShaderRequest::new(
                source,
                name,
                rpsl_shaders::ShaderLanguage::Glsl,
                stage,
            );
            compiler
                .compile(&request)
                .map(|shader| shader.spirv)
                .map_err(|e| BackendError::Api(format!("depth resolve shader `{name}`: {e}")))
        };
        let depth_source = FRAGMENT_SOURCE
            .replace("EXTENSION", "")
            .replace("PREFIX", "")
            .replace("TYPE", "float")
            .replace("OUTPUT", "gl_FragDepth = result");
        let stencil_source = FRAGMENT_SOURCE
            .replace(
                "EXTENSION",
                "#extension GL_ARB_shader_stencil_export : require",
            )
            .replace("PREFIX", "u")
            .replace("TYPE", "uint")
            .replace("OUTPUT", "gl_FragStencilRefARB = int(result)");
        let vertex_code = compile(
            VERTEX_SOURCE,
            "rpsl_depth_resolve.vert",
            rpsl_shaders::ShaderStage::Vertex,
        )?;
        let depth_code = compile(
            &depth_source,
            "rpsl_depth_resolve.frag",
            rpsl_shaders::ShaderStage::Fragment,
        )?;
        let stencil_code = if context.features.shader_stencil_export {
            Some(compile(
                &stencil_source,
                "rpsl_stencil_resolve.frag",
                rpsl_shaders::ShaderStage::Fragment,
            )?)
        } else {
            None
        };
        let device = &context.device;
        let mut made = ShaderDepthResolve {
            vertex: vk::ShaderModule::null(),
            depth_fragment: vk::ShaderModule::null(),
            stencil_fragment: None,
            set_layout: vk::DescriptorSetLayout::null(),
            layout: vk::PipelineLayout::null(),
            pipelines: RefCell::new(Vec::new()),
            push: ash::khr::push_descriptor::Device::new(&context.instance, device),
        };
        // Every object is stored as soon as it exists, so `destroy` cleans up after a failure.
        let result = (|| {
            let module = |code: &[u32], name: &str| -> Result<vk::ShaderModule, BackendError> {
                // SAFETY: valid SPIR-V from the compiler, on a live device.
                let module = unsafe {
                    device.create_shader_module(
                        &vk::ShaderModuleCreateInfo::default().code(code),
                        None,
                    )
                }
                .map_err(|r| vk_error("vkCreateShaderModule", r))?;
                context.name(module, name);
                Ok(module)
            };
            made.vertex = module(&vertex_code, "rpsl depth resolve (vertex)")?;
            made.depth_fragment = module(&depth_code, "rpsl depth resolve (depth)")?;
            if let Some(code) = &stencil_code {
                made.stencil_fragment = Some(module(code, "rpsl depth resolve (stencil)")?);
            }
            let bindings = [vk::DescriptorSetLayoutBinding::default()
                .binding(0)
                .descriptor_type(vk::DescriptorType::SAMPLED_IMAGE)
                .descriptor_count(1)
                .stage_flags(vk::ShaderStageFlags::FRAGMENT)];
            let set_info = vk::DescriptorSetLayoutCreateInfo::default()
                .flags(vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR)
                .bindings(&bindings);
            // SAFETY: valid create info on a live device.
            made.set_layout = unsafe { device.create_descriptor_set_layout(&set_info, None) }
                .map_err(|r| vk_error("vkCreateDescriptorSetLayout", r))?;
            context.name(made.set_layout, "rpsl depth resolve descriptors");
            let ranges = [vk::PushConstantRange::default()
                .stage_flags(vk::ShaderStageFlags::FRAGMENT)
                .offset(0)
                .size(20)];
            let set_layouts = [made.set_layout];
            let info = vk::PipelineLayoutCreateInfo::default()
                .set_layouts(&set_layouts)
                .push_constant_ranges(&ranges);
            // SAFETY: as above.
            made.layout = unsafe { device.create_pipeline_layout(&info, None) }
                .map_err(|r| vk_error("vkCreatePipelineLayout", r))?;
            context.name(made.layout, "rpsl depth resolve layout");
            Ok(())
        })();
        match result {
            Ok(()) => Ok(made),
            Err(error) => {
                // SAFETY: made here and never recorded.
                unsafe { made.destroy(context) };
                Err(error)
            }
        }
    }

    /// The pipeline writing the depth (`stencil` false) or stencil aspect of `format`.
    fn pipeline(
        &self,
        context: &Context,
        format: vk::Format,
        stencil: bool,
    ) -> Result<vk::Pipeline, BackendError> {
        if let Some(&(_, pipeline)) = self
            .pipelines
            .borrow()
            .iter()
            .find(|(key, _)| *key == (format, stencil))
        {
            return Ok(pipeline);
        }
        let fragment = if stencil {
            self.stencil_fragment.ok_or_else(|| {
                BackendError::MissingFeature(
                    "the stencil resolve shader needs VK_EXT_shader_stencil_export".into(),
                )
            })?
        } else {
            self.depth_fragment
        };
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(self.vertex)
                .name(c"main"),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(fragment)
                .name(c"main"),
        ];
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default();
        let assembly = vk::PipelineInputAssemblyStateCreateInfo::default()
            .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewport = vk::PipelineViewportStateCreateInfo::default()
            .viewport_count(1)
            .scissor_count(1);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .line_width(1.0);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default()
            .rasterization_samples(vk::SampleCountFlags::TYPE_1);
        let replace = vk::StencilOpState {
            fail_op: vk::StencilOp::REPLACE,
            pass_op: vk::StencilOp::REPLACE,
            depth_fail_op: vk::StencilOp::REPLACE,
            compare_op: vk::CompareOp::ALWAYS,
            compare_mask: 0xFF,
            write_mask: 0xFF,
            reference: 0,
        };
        let depth_stencil = vk::PipelineDepthStencilStateCreateInfo::default()
            .depth_test_enable(!stencil)
            .depth_write_enable(!stencil)
            .depth_compare_op(vk::CompareOp::ALWAYS)
            .stencil_test_enable(stencil)
            .front(replace)
            .back(replace);
        let blend = vk::PipelineColorBlendStateCreateInfo::default();
        let dynamic_states = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic_states);
        let mut rendering = if stencil {
            vk::PipelineRenderingCreateInfo::default().stencil_attachment_format(format)
        } else {
            vk::PipelineRenderingCreateInfo::default().depth_attachment_format(format)
        };
        let info = vk::GraphicsPipelineCreateInfo::default()
            .push_next(&mut rendering)
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .depth_stencil_state(&depth_stencil)
            .color_blend_state(&blend)
            .dynamic_state(&dynamic)
            .layout(self.layout);
        // SAFETY: valid create info on a live device; the modules and layout are live.
        let pipeline = unsafe {
            context
                .device
                .create_graphics_pipelines(vk::PipelineCache::null(), &[info], None)
        }
        .map_err(|(_, r)| vk_error("vkCreateGraphicsPipelines", r))?[0];
        let what = if stencil { "stencil" } else { "depth" };
        context.name(pipeline, &format!("rpsl {what} resolve ({format:?})"));
        self.pipelines
            .borrow_mut()
            .push(((format, stencil), pipeline));
        Ok(pipeline)
    }

    /// Destroys its objects (pipelines, layouts, shader modules).
    ///
    /// # Safety
    ///
    /// No pending command buffer uses them (the device is idle, or they were never recorded),
    /// and `context` is the one they were created with.
    pub unsafe fn destroy(self, context: &Context) {
        let device = &context.device;
        // SAFETY: the caller guarantees no pending work uses them; each is destroyed once
        // (`self` is consumed); null handles (of a half-made resolve) are ignored.
        unsafe {
            for (_, pipeline) in self.pipelines.borrow_mut().drain(..) {
                device.destroy_pipeline(pipeline, None);
            }
            device.destroy_pipeline_layout(self.layout, None);
            device.destroy_descriptor_set_layout(self.set_layout, None);
            for module in [self.vertex, self.depth_fragment]
                .into_iter()
                .chain(self.stencil_fragment)
            {
                device.destroy_shader_module(module, None);
            }
        }
    }
}
