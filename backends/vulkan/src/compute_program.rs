//! Compute nodes whose SPIR-V and binding table the caller gives (generated shaders, such as the
//! passes of a MagpieFX effect), rather than found by name in a shader directory: every binding
//! of set 0 is a uniform buffer, sampled image or storage image filled from one view parameter
//! of the node, or an immutable sampler. The set layout comes from this table, not from the
//! shader's reflection (an optimiser may drop bindings a shader never reads). The dispatch
//! covers the extent of one parameter's view in blocks of pixels, one thread group per block.
//!
//! Descriptor sets are cached across frames like those of shader-bound nodes
//! (`shader_node::descriptor_cache`); pipelines are made on a node's first call.
//!
//! ```no_run
//! use rpsl_vulkan::compute_program::{
//!     bind_compute_programs, ComputeBinding, ComputeProgram, SamplerDesc,
//! };
//! use rpsl_vulkan::{VulkanBackend, VulkanOptions};
//! # let spirv: Vec<u32> = Vec::new();
//! let mut backend = VulkanBackend::new(VulkanOptions::default()).unwrap();
//! let program = ComputeProgram {
//!     name: "Blur.Pass1".to_string(),
//!     spirv,
//!     entry_point: "main".to_string(),
//!     bindings: vec![
//!         (0, ComputeBinding::UniformBuffer { param: 0 }),
//!         (1, ComputeBinding::SampledImage { param: 1 }),
//!         (2, ComputeBinding::StorageImage { param: 2 }),
//!         (3, ComputeBinding::Sampler(SamplerDesc { linear: true, repeat: false })),
//!     ],
//!     dispatch_param: 2,
//!     block_size: [16, 16],
//! };
//! bind_compute_programs(&mut backend, vec![program]);
//! ```

use std::collections::{HashMap, HashSet};
use std::ffi::CString;
use std::sync::{Arc, Mutex};

use ash::vk;
use rpsl_runtime::NodeId;

use crate::encoder::CommandEncoder;
use crate::node::NodeContext;
use crate::shader_node::descriptor_cache::{DescriptorCache, RING};
use crate::shader_node::descriptors::{BindingContents, Descriptor};
use crate::VulkanBackend;

/// A sampler's filter and address mode.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SamplerDesc {
    /// Linear filtering (else nearest).
    pub linear: bool,
    /// Repeat addressing (else clamp to edge).
    pub repeat: bool,
}

/// What fills one binding of set 0.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ComputeBinding {
    /// A uniform buffer: the first view of buffer parameter `param`.
    UniformBuffer {
        /// The parameter.
        param: u16,
    },
    /// A sampled image: the first view of texture parameter `param`.
    SampledImage {
        /// The parameter.
        param: u16,
    },
    /// A storage image (GENERAL layout): the first view of written texture parameter `param`.
    StorageImage {
        /// The parameter.
        param: u16,
    },
    /// An immutable sampler.
    Sampler(SamplerDesc),
}

/// A compute node's shader and bindings.
#[derive(Clone, Debug)]
pub struct ComputeProgram {
    /// The node declaration's name the program is bound to.
    pub name: String,
    /// The SPIR-V words.
    pub spirv: Vec<u32>,
    /// The entry point.
    pub entry_point: String,
    /// `(binding, what fills it)` of every binding of set 0.
    pub bindings: Vec<(u32, ComputeBinding)>,
    /// The texture parameter whose view extent the dispatch covers.
    pub dispatch_param: u16,
    /// Pixels (width, height) one thread group covers.
    pub block_size: [u32; 2],
}

/// The Vulkan objects of one program, made on its first call.
struct Pipeline {
    module: vk::ShaderModule,
    set_layout: vk::DescriptorSetLayout,
    layout: vk::PipelineLayout,
    pipeline: vk::Pipeline,
}

/// State shared by the programs bound together: their pipelines, samplers and descriptor sets.
struct ProgramsState {
    device: Option<ash::Device>,
    programs: HashMap<String, ComputeProgram>,
    pipelines: HashMap<String, Pipeline>,
    samplers: HashMap<SamplerDesc, vk::Sampler>,
    descriptors: DescriptorCache,
    frame: u64,
    last_frame_index: Option<u64>,
    seen: HashSet<NodeId>,
}

fn vulkan_error(call: &'static str) -> impl Fn(vk::Result) -> String {
    move |result| format!("{call} failed: {result:?}")
}

impl ProgramsState {
    /// Counts a new frame when the graph's frame index changes or a node runs again (as
    /// shader-bound nodes do), so that descriptor sets unused for [`RING`] frames are recycled.
    fn track_frame(&mut self, context: &NodeContext<'_>) {
        let index = context.graph.frame_index;
        if self.last_frame_index == Some(index) && !self.seen.contains(&context.node) {
            self.seen.insert(context.node);
            return;
        }
        self.frame += 1;
        self.last_frame_index = Some(index);
        self.seen.clear();
        self.seen.insert(context.node);
        self.descriptors
            .begin_frame(context.device, self.frame, context.counter);
    }

    fn sampler(&mut self, device: &ash::Device, desc: SamplerDesc) -> Result<vk::Sampler, String> {
        if let Some(&sampler) = self.samplers.get(&desc) {
            return Ok(sampler);
        }
        let (filter, mipmap) = if desc.linear {
            (vk::Filter::LINEAR, vk::SamplerMipmapMode::LINEAR)
        } else {
            (vk::Filter::NEAREST, vk::SamplerMipmapMode::NEAREST)
        };
        let mode = if desc.repeat {
            vk::SamplerAddressMode::REPEAT
        } else {
            vk::SamplerAddressMode::CLAMP_TO_EDGE
        };
        let info = vk::SamplerCreateInfo::default()
            .mag_filter(filter)
            .min_filter(filter)
            .mipmap_mode(mipmap)
            .address_mode_u(mode)
            .address_mode_v(mode)
            .address_mode_w(mode)
            .max_lod(vk::LOD_CLAMP_NONE);
        // SAFETY: valid create info on a live device.
        let sampler = unsafe { device.create_sampler(&info, None) }
            .map_err(vulkan_error("vkCreateSampler"))?;
        self.samplers.insert(desc, sampler);
        Ok(sampler)
    }

    /// The pipeline of program `name`, made on first use.
    fn pipeline(&mut self, name: &str, context: &NodeContext<'_>) -> Result<&Pipeline, String> {
        if !self.pipelines.contains_key(name) {
            let program = self
                .programs
                .get(name)
                .cloned()
                .ok_or_else(|| format!("no compute program is bound to `{name}`"))?;
            let pipeline = self.create_pipeline(&program, context)?;
            self.pipelines.insert(name.to_string(), pipeline);
        }
        Ok(&self.pipelines[name])
    }

    fn create_pipeline(
        &mut self,
        program: &ComputeProgram,
        context: &NodeContext<'_>,
    ) -> Result<Pipeline, String> {
        let device = context.device;
        let mut samplers = Vec::with_capacity(program.bindings.len());
        for (_, binding) in &program.bindings {
            samplers.push(match *binding {
                ComputeBinding::Sampler(desc) => [self.sampler(device, desc)?],
                _ => [vk::Sampler::null()],
            });
        }
        let layout_bindings: Vec<vk::DescriptorSetLayoutBinding<'_>> = program
            .bindings
            .iter()
            .zip(&samplers)
            .map(|(&(binding, kind), sampler)| {
                let layout = vk::DescriptorSetLayoutBinding::default()
                    .binding(binding)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
                    .descriptor_type(descriptor_type(kind));
                match kind {
                    ComputeBinding::Sampler(_) => layout.immutable_samplers(sampler),
                    _ => layout,
                }
            })
            .collect();
        let mut pipeline = Pipeline {
            module: vk::ShaderModule::null(),
            set_layout: vk::DescriptorSetLayout::null(),
            layout: vk::PipelineLayout::null(),
            pipeline: vk::Pipeline::null(),
        };
        let result = (|| {
            let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings);
            // SAFETY: valid create info (its samplers are live) on a live device.
            pipeline.set_layout = unsafe { device.create_descriptor_set_layout(&info, None) }
                .map_err(vulkan_error("vkCreateDescriptorSetLayout"))?;
            let set_layouts = [pipeline.set_layout];
            let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
            // SAFETY: as above.
            pipeline.layout = unsafe { device.create_pipeline_layout(&info, None) }
                .map_err(vulkan_error("vkCreatePipelineLayout"))?;
            let info = vk::ShaderModuleCreateInfo::default().code(&program.spirv);
            // SAFETY: SPIR-V words from the compiler, on a live device.
            pipeline.module = unsafe { device.create_shader_module(&info, None) }
                .map_err(vulkan_error("vkCreateShaderModule"))?;
            context.name(pipeline.module, &program.name);
            let entry = CString::new(program.entry_point.as_str())
                .map_err(|_| "the entry point name holds a NUL character".to_string())?;
            let stage = vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::COMPUTE)
                .module(pipeline.module)
                .name(&entry);
            let info = vk::ComputePipelineCreateInfo::default()
                .stage(stage)
                .layout(pipeline.layout);
            // SAFETY: valid create info; the module and layout are live.
            let made = unsafe {
                device.create_compute_pipelines(vk::PipelineCache::null(), &[info], None)
            }
            .map_err(|(_, result)| vulkan_error("vkCreateComputePipelines")(result))?;
            pipeline.pipeline = made[0];
            context.name(pipeline.pipeline, &program.name);
            context.count(|counts| counts.pipelines_created += 1);
            Ok(())
        })();
        match result {
            Ok(()) => Ok(pipeline),
            Err(message) => {
                // SAFETY: nothing recorded uses these objects yet; null handles are ignored.
                unsafe { destroy_pipeline(device, &pipeline) };
                Err(message)
            }
        }
    }

    /// Records program `name` for the node of `context`.
    fn run(&mut self, name: &str, context: &mut NodeContext<'_>) -> Result<(), String> {
        if self.device.is_none() {
            self.device = Some(context.device.clone());
        }
        self.track_frame(context);
        let program = self
            .programs
            .get(name)
            .cloned()
            .ok_or_else(|| format!("no compute program is bound to `{name}`"))?;
        let contents = set_contents(&program, context)?;
        let (set_layout, layout, vk_pipeline) = {
            let pipeline = self.pipeline(name, context)?;
            (pipeline.set_layout, pipeline.layout, pipeline.pipeline)
        };
        let set = self
            .descriptors
            .set_for(
                context.device,
                set_layout,
                contents,
                self.frame,
                context.counter,
            )
            .map_err(|error| error.to_string())?;
        let groups = dispatch_groups(&program, context)?;
        let device = context.device.clone();
        // SAFETY: the node's command buffer is recording while the node runs, and only this
        // encoder records into it meanwhile; `debug_utils` belongs to `device`.
        let encoder =
            unsafe { CommandEncoder::new(&device, context.debug_utils, context.command_buffer) };
        // SAFETY: pipeline, layout and set are live and ours; the set holds this call's views in
        // the layouts the frame compiler put them in; no render pass is open (compute node).
        unsafe {
            encoder.bind_pipeline(vk::PipelineBindPoint::COMPUTE, vk_pipeline);
            encoder.bind_descriptor_sets(vk::PipelineBindPoint::COMPUTE, layout, 0, &[set], &[]);
            encoder.dispatch(groups[0], groups[1], 1);
        }
        Ok(())
    }
}

fn descriptor_type(binding: ComputeBinding) -> vk::DescriptorType {
    match binding {
        ComputeBinding::UniformBuffer { .. } => vk::DescriptorType::UNIFORM_BUFFER,
        ComputeBinding::SampledImage { .. } => vk::DescriptorType::SAMPLED_IMAGE,
        ComputeBinding::StorageImage { .. } => vk::DescriptorType::STORAGE_IMAGE,
        ComputeBinding::Sampler(_) => vk::DescriptorType::SAMPLER,
    }
}

/// # Safety
///
/// No pending command buffer uses the objects; they belong to `device` (null ones are skipped).
unsafe fn destroy_pipeline(device: &ash::Device, pipeline: &Pipeline) {
    // SAFETY: the caller's contract; destroying a null handle is a no-op.
    unsafe {
        device.destroy_pipeline(pipeline.pipeline, None);
        device.destroy_pipeline_layout(pipeline.layout, None);
        device.destroy_descriptor_set_layout(pipeline.set_layout, None);
        device.destroy_shader_module(pipeline.module, None);
    }
}

/// The descriptors of one call: each view binding gets its parameter's first view; a sampled
/// image is in SHADER_READ_ONLY_OPTIMAL unless the node also writes that image (GENERAL).
fn set_contents(
    program: &ComputeProgram,
    context: &NodeContext<'_>,
) -> Result<Vec<BindingContents>, String> {
    let view_of = |param: u16| {
        context.param_views(param).next().ok_or_else(|| {
            format!(
                "program `{}` binds parameter {param}, which has no view",
                program.name
            )
        })
    };
    let written: HashSet<vk::Image> = program
        .bindings
        .iter()
        .filter_map(|(_, binding)| match *binding {
            ComputeBinding::StorageImage { param } => Some(param),
            _ => None,
        })
        .filter_map(|param| {
            let texture = context.param_views(param).next()?.texture()?;
            Some(texture.image)
        })
        .collect();
    let mut contents = Vec::with_capacity(program.bindings.len());
    for &(binding, kind) in &program.bindings {
        let descriptor = match kind {
            ComputeBinding::Sampler(_) => continue,
            ComputeBinding::UniformBuffer { param } => {
                let view = view_of(param)?;
                let Some(buffer) = view.buffer() else {
                    return Err(format!("parameter {param} is not a buffer"));
                };
                Descriptor::Buffer {
                    id: view.id,
                    buffer: buffer.buffer,
                    offset: buffer.offset,
                    range: buffer.size.max(1),
                }
            }
            ComputeBinding::SampledImage { param } | ComputeBinding::StorageImage { param } => {
                let view = view_of(param)?;
                let Some(texture) = view.texture() else {
                    return Err(format!("parameter {param} is not a texture"));
                };
                let storage = matches!(kind, ComputeBinding::StorageImage { .. });
                let layout = if storage || written.contains(&texture.image) {
                    vk::ImageLayout::GENERAL
                } else {
                    vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL
                };
                Descriptor::Image {
                    id: view.id,
                    view: texture.image_view,
                    layout,
                    sampler: vk::Sampler::null(),
                }
            }
        };
        contents.push(BindingContents {
            binding,
            ty: descriptor_type(kind),
            descriptors: vec![descriptor],
        });
    }
    Ok(contents)
}

/// Thread groups covering the dispatch parameter's view (mip level of the view) in blocks.
fn dispatch_groups(
    program: &ComputeProgram,
    context: &NodeContext<'_>,
) -> Result<[u32; 2], String> {
    let accesses = context.graph.node_accesses(context.node);
    let (index, _) = context
        .views
        .iter()
        .enumerate()
        .find(|(_, view)| view.param == program.dispatch_param)
        .ok_or_else(|| {
            format!(
                "program `{}` dispatches over parameter {}, which has no view",
                program.name, program.dispatch_param
            )
        })?;
    let resource = &context.graph.resources[accesses[index].resource.index()];
    let Some(texture) = context.views[index].texture() else {
        return Err(format!(
            "program `{}` dispatches over parameter {}, which is not a texture",
            program.name, program.dispatch_param
        ));
    };
    let mip = texture.range.base_mip_level;
    let width = ((resource.desc.width >> mip).max(1)) as u32;
    let height = (resource.desc.height >> mip).max(1);
    let [block_width, block_height] = program.block_size;
    if block_width == 0 || block_height == 0 {
        return Err(format!(
            "program `{}` has an empty block size",
            program.name
        ));
    }
    Ok([width.div_ceil(block_width), height.div_ceil(block_height)])
}

impl Drop for ProgramsState {
    fn drop(&mut self) {
        let Some(device) = self.device.take() else {
            return;
        };
        // SAFETY: the backend drops its node callbacks after waiting for the device to be idle
        // and before it destroys the device (and the wait below covers a rebinding); these
        // objects are ours.
        unsafe {
            let _ = device.device_wait_idle();
            for (_, pipeline) in self.pipelines.drain() {
                destroy_pipeline(&device, &pipeline);
            }
            self.descriptors.destroy(&device);
            for (_, sampler) in self.samplers.drain() {
                device.destroy_sampler(sampler, None);
            }
        }
    }
}

/// Binds each program to the nodes declared with its name, replacing earlier bindings of those
/// names. The programs share their samplers and descriptor-set cache; their Vulkan objects are
/// released when the backend drops the last of their callbacks. A node whose views do not fit
/// its program fails the frame with [`rpsl_runtime::BackendError::Node`].
pub fn bind_compute_programs(backend: &mut VulkanBackend, programs: Vec<ComputeProgram>) {
    let names: Vec<String> = programs.iter().map(|p| p.name.clone()).collect();
    let state = Arc::new(Mutex::new(ProgramsState {
        device: None,
        programs: programs.into_iter().map(|p| (p.name.clone(), p)).collect(),
        pipelines: HashMap::new(),
        samplers: HashMap::new(),
        descriptors: DescriptorCache::default(),
        frame: RING,
        last_frame_index: None,
        seen: HashSet::new(),
    }));
    for name in names {
        let state = Arc::clone(&state);
        let node_name = name.clone();
        backend.bind_node(&name, move |context| {
            state
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .run(&node_name, context)
        });
    }
}
