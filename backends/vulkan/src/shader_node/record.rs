//! The shared state of shader-bound nodes and the recording of one node call: frame tracking,
//! reloading changed shaders, descriptor sets (cached across frames), push constants and the
//! dispatch or draw.

use std::collections::{HashMap, HashSet};

use ash::vk;
use rpsl_runtime::{Format, NodeId, RenderPass};
use rpsl_shaders::{ShaderCompiler, ShaderLanguage, ShaderRequest, ShaderStage};

use super::descriptor_cache::{DescriptorCache, RING};
use super::descriptors::set_contents;
use super::plan::{DescriptorSource, DispatchSource, SamplerKind};
use super::program::{
    compile_program, create_module, stage_flags, PipelineKey, Program, FULLSCREEN_VERTEX_SHADER,
};
use super::push::apply_runs;
use super::{ShaderNodeError, ShaderNodeErrorKind, ShaderNodeOptions};
use crate::encoder::CommandEncoder;
use crate::node::{BoundResource, NodeContext};
use crate::vk_format;

/// A node's program, or the error of its last build (kept until its files change).
enum Entry {
    Ready(Box<Program>),
    Failed(
        ShaderNodeErrorKind,
        super::files::Watch,
        rpsl_runtime::NodeDeclDesc,
    ),
}

/// State shared by all shader-bound nodes of one backend.
pub(crate) struct ShaderNodeState {
    options: ShaderNodeOptions,
    compiler: ShaderCompiler,
    device: Option<ash::Device>,
    entries: HashMap<String, (Entry, u64)>,
    frame: u64,
    last_frame_index: Option<u64>,
    seen: HashSet<NodeId>,
    descriptors: DescriptorCache,
    samplers: HashMap<SamplerKind, vk::Sampler>,
    fullscreen: vk::ShaderModule,
    retired: Vec<(u64, Box<Program>)>,
}

impl ShaderNodeState {
    pub fn new(options: ShaderNodeOptions) -> ShaderNodeState {
        let mut compiler_options = options.compiler.clone();
        compiler_options
            .include_dirs
            .push(options.shader_dir.clone());
        ShaderNodeState {
            compiler: ShaderCompiler::new(compiler_options),
            options,
            device: None,
            entries: HashMap::new(),
            frame: 0,
            last_frame_index: None,
            seen: HashSet::new(),
            descriptors: DescriptorCache::default(),
            samplers: HashMap::new(),
            fullscreen: vk::ShaderModule::null(),
            retired: Vec::new(),
        }
    }

    /// Records node `name` into `context`'s command buffer.
    pub fn run(
        &mut self,
        name: &str,
        context: &mut NodeContext<'_>,
    ) -> Result<(), ShaderNodeError> {
        let fail = |kind| ShaderNodeError {
            node: name.to_string(),
            kind,
        };
        if self.device.is_none() {
            self.device = Some(context.device.clone());
        }
        self.track_frame(context).map_err(fail)?;
        self.ensure_program(name, context).map_err(fail)?;
        self.record(name, context).map_err(fail)
    }

    /// Starts a new frame when the frame index changes or a node repeats (each node runs once a
    /// frame): recycles descriptor sets unused for `RING` frames and destroys programs replaced
    /// `RING` frames ago.
    fn track_frame(&mut self, context: &NodeContext<'_>) -> Result<(), ShaderNodeErrorKind> {
        let index = context.graph.frame_index;
        let new_frame = self.last_frame_index != Some(index) || self.seen.contains(&context.node);
        if !new_frame {
            self.seen.insert(context.node);
            return Ok(());
        }
        self.frame += 1;
        self.last_frame_index = Some(index);
        self.seen.clear();
        self.seen.insert(context.node);
        let device = context.device;
        let frame = self.frame;
        self.descriptors.begin_frame(device, frame, context.counter);
        let (done, keep): (Vec<_>, Vec<_>) = self
            .retired
            .drain(..)
            .partition(|(at, _)| frame >= at + RING);
        self.retired = keep;
        for (_, program) in done {
            self.descriptors
                .forget_layout(device, program.set_layout, context.counter);
            // SAFETY: retired RING frames ago, more than can be in flight, so no pending
            // command buffer uses it; its layout's sets were just forgotten.
            unsafe { program.destroy(device) };
        }
        Ok(())
    }

    fn sampler(
        &mut self,
        device: &ash::Device,
        kind: SamplerKind,
    ) -> Result<vk::Sampler, ShaderNodeErrorKind> {
        if let Some(sampler) = self.samplers.get(&kind) {
            return Ok(*sampler);
        }
        let (filter, mode) = match kind {
            SamplerKind::LinearClamp => (vk::Filter::LINEAR, vk::SamplerAddressMode::CLAMP_TO_EDGE),
            SamplerKind::NearestClamp => {
                (vk::Filter::NEAREST, vk::SamplerAddressMode::CLAMP_TO_EDGE)
            }
            SamplerKind::LinearRepeat => (vk::Filter::LINEAR, vk::SamplerAddressMode::REPEAT),
            SamplerKind::NearestRepeat => (vk::Filter::NEAREST, vk::SamplerAddressMode::REPEAT),
        };
        let mipmap = if filter == vk::Filter::LINEAR {
            vk::SamplerMipmapMode::LINEAR
        } else {
            vk::SamplerMipmapMode::NEAREST
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
        let sampler = unsafe { device.create_sampler(&info, None) }.map_err(|result| {
            ShaderNodeErrorKind::Vulkan {
                call: "vkCreateSampler",
                result,
            }
        })?;
        self.samplers.insert(kind, sampler);
        Ok(sampler)
    }

    /// Builds the node's program, or rebuilds it when its files or declaration changed (checked
    /// once a frame).
    fn ensure_program(
        &mut self,
        name: &str,
        context: &NodeContext<'_>,
    ) -> Result<(), ShaderNodeErrorKind> {
        let decl = context.graph.decl_of(context.node);
        let frame = self.frame;
        if let Some((entry, checked)) = self.entries.get_mut(name) {
            let (watch, entry_decl) = match entry {
                Entry::Ready(program) => (&program.watch, &program.decl),
                Entry::Failed(_, watch, decl) => (&*watch, &*decl),
            };
            let fresh = *checked == frame || (!watch.changed() && entry_decl == decl);
            *checked = frame;
            if fresh {
                return match entry {
                    Entry::Ready(_) => Ok(()),
                    Entry::Failed(kind, _, _) => Err(kind.clone()),
                };
            }
        }
        if let Some((Entry::Ready(old), _)) = self.entries.remove(name) {
            self.retired.push((frame, old));
        }
        let device = context.device.clone();
        let built = match compile_program(
            &self.compiler,
            &self.options.shader_dir,
            name,
            decl,
            context.features,
        ) {
            Ok((stages, plan, watch)) => {
                let mut samplers = HashMap::new();
                for descriptor in &plan.descriptors {
                    if let DescriptorSource::Sampler(kind) = descriptor.source {
                        samplers.insert(kind, self.sampler(&device, kind)?);
                    }
                    if descriptor.kind == rpsl_shaders::DescriptorKind::CombinedImageSampler {
                        self.sampler(&device, SamplerKind::LinearClamp)?;
                    }
                }
                let lookup = |kind: SamplerKind| samplers.get(&kind).copied().unwrap_or_default();
                let program = Program::new(
                    &device,
                    decl.clone(),
                    stages,
                    plan,
                    watch.clone(),
                    &lookup,
                    context.debug_utils,
                );
                match program {
                    Ok(program) => Entry::Ready(Box::new(program)),
                    Err(kind) => Entry::Failed(kind, watch, decl.clone()),
                }
            }
            Err(failure) => {
                let (kind, watch) = *failure;
                Entry::Failed(kind, watch, decl.clone())
            }
        };
        let result = match &built {
            Entry::Ready(_) => Ok(()),
            Entry::Failed(kind, _, _) => Err(kind.clone()),
        };
        self.entries.insert(name.to_string(), (built, frame));
        result
    }

    fn fullscreen_module(
        &mut self,
        device: &ash::Device,
        debug: super::program::DebugUtils<'_>,
    ) -> Result<vk::ShaderModule, ShaderNodeErrorKind> {
        if self.fullscreen == vk::ShaderModule::null() {
            let request = ShaderRequest::new(
                FULLSCREEN_VERTEX_SHADER,
                "rpsl-fullscreen.vert",
                ShaderLanguage::Glsl,
                ShaderStage::Vertex,
            );
            let shader = ShaderCompiler::new(Default::default())
                .compile(&request)
                .map_err(ShaderNodeErrorKind::Compile)?;
            self.fullscreen = create_module(
                device,
                debug,
                &shader.spirv,
                "rpsl-fullscreen.vert (built-in full-screen triangle: vertex)",
            )?;
        }
        Ok(self.fullscreen)
    }

    fn record(
        &mut self,
        name: &str,
        context: &mut NodeContext<'_>,
    ) -> Result<(), ShaderNodeErrorKind> {
        let device = context.device.clone();
        let is_compute = match self.entries.get(name) {
            Some((Entry::Ready(program), _)) => program
                .stages
                .iter()
                .any(|s| s.stage == ShaderStage::Compute),
            _ => return Err(ShaderNodeErrorKind::Arguments("no program".to_string())),
        };
        let fullscreen = if is_compute {
            vk::ShaderModule::null()
        } else {
            self.fullscreen_module(&device, context.debug_utils)?
        };
        let set_layout = match self.entries.get(name) {
            Some((Entry::Ready(program), _)) => program.set_layout,
            _ => unreachable!("checked above"),
        };
        let Some((Entry::Ready(program), _)) = self.entries.get_mut(name) else {
            unreachable!("checked above")
        };
        let set = if program.plan.descriptors.is_empty() {
            None
        } else {
            let contents = set_contents(program, context, &self.samplers)?;
            Some(self.descriptors.set_for(
                &device,
                set_layout,
                contents,
                self.frame,
                context.counter,
            )?)
        };
        let pipelines_before = program.pipelines.len();
        let (bind_point, pipeline) = if is_compute {
            (
                vk::PipelineBindPoint::COMPUTE,
                program.compute_pipeline(&device, context.debug_utils)?,
            )
        } else {
            let pass = context.render_pass.ok_or_else(|| {
                ShaderNodeErrorKind::Arguments("a graphics shader node needs a render target (an SV_Target or SV_DepthStencil parameter)".to_string())
            })?;
            let key = pipeline_key(context, pass)?;
            check_outputs(program, &key)?;
            (
                vk::PipelineBindPoint::GRAPHICS,
                program.graphics_pipeline(&device, &key, fullscreen, context.debug_utils)?,
            )
        };
        let made = program.pipelines.len().saturating_sub(pipelines_before) as u64;
        if made > 0 {
            context.count(|c| c.pipelines_created += made);
        }
        // SAFETY: the node's command buffer is recording while the node runs, and only this
        // encoder records into it meanwhile; `debug_utils` belongs to `device`.
        let encoder =
            unsafe { CommandEncoder::new(&device, context.debug_utils, context.command_buffer) };
        // SAFETY: the pipeline, layout and set are live and belong to this program; the set holds
        // this call's contents and the push bytes match the pipeline layout's range.
        unsafe {
            encoder.bind_pipeline(bind_point, pipeline);
            if let Some(set) = set {
                encoder.bind_descriptor_sets(bind_point, program.pipeline_layout, 0, &[set], &[]);
            }
            if program.plan.push_size > 0 {
                let mut bytes = vec![0u8; program.plan.push_size as usize];
                apply_runs(&program.plan.push_runs, context.args, &mut bytes);
                encoder.push_constants(
                    program.pipeline_layout,
                    stage_flags(&program.plan.push_stages),
                    0,
                    &bytes,
                );
            }
        }
        if is_compute {
            let groups = dispatch_size(program, context)?;
            // SAFETY: a compute pipeline is bound, outside a render pass.
            unsafe { encoder.dispatch(groups[0], groups[1], groups[2]) };
        } else {
            let read = |offset: Option<u32>, default: u32| {
                offset
                    .and_then(|at| context.args.get(at as usize..at as usize + 4))
                    .map_or(default, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            };
            let (vertices, instances) = (
                read(program.plan.draw_counts.0, 3),
                read(program.plan.draw_counts.1, 1),
            );
            // SAFETY: a graphics pipeline is bound inside the node's render pass.
            unsafe { encoder.draw(vertices, instances, 0, 0) };
        }
        Ok(())
    }
}

impl Drop for ShaderNodeState {
    fn drop(&mut self) {
        let Some(device) = self.device.take() else {
            return;
        };
        // SAFETY: the backend drops its node callbacks after waiting for the device to be idle,
        // and before it destroys the device; these objects are ours.
        unsafe {
            let _ = device.device_wait_idle();
            for (_, (entry, _)) in self.entries.drain() {
                if let Entry::Ready(program) = entry {
                    program.destroy(&device);
                }
            }
            for (_, program) in self.retired.drain(..) {
                program.destroy(&device);
            }
            self.descriptors.destroy(&device);
            for (_, sampler) in self.samplers.drain() {
                device.destroy_sampler(sampler, None);
            }
            device.destroy_shader_module(self.fullscreen, None);
        }
    }
}

/// The format an access's view has (its view format, else the resource's).
fn access_format(
    context: &NodeContext<'_>,
    access: u32,
) -> Result<(Format, vk::Format), ShaderNodeErrorKind> {
    let graph = context.graph;
    let record = graph
        .accesses
        .get(access as usize)
        .ok_or_else(|| ShaderNodeErrorKind::Arguments(format!("access {access} out of range")))?;
    let desc = &graph.resources[record.resource.index()].desc;
    let format = if record.view_format != Format::UNKNOWN {
        record.view_format
    } else {
        desc.format
    };
    let vk_format = vk_format(format).ok_or_else(|| {
        ShaderNodeErrorKind::Arguments(format!("attachment format {format:?} has no Vulkan format"))
    })?;
    Ok((desc.format, vk_format))
}

/// The pipeline key of the node's render pass (formats as the backend's views have them).
fn pipeline_key(
    context: &NodeContext<'_>,
    pass: &RenderPass,
) -> Result<PipelineKey, ShaderNodeErrorKind> {
    let mut key = PipelineKey {
        samples: pass.samples.max(1),
        viewports: pass.viewports.len().max(1) as u32,
        ..PipelineKey::default()
    };
    let mut colors = pass.colors.clone();
    colors.sort_by_key(|c| c.slot);
    for color in &colors {
        key.colors.push(access_format(context, color.access)?.1);
    }
    if let Some(ds) = &pass.depth_stencil {
        let record = &context.graph.accesses[ds.access as usize];
        let desc = &context.graph.resources[record.resource.index()].desc;
        let (resource_format, format) = access_format(context, ds.access)?;
        let sub = record.subresource_box(desc);
        let covers = |plane: u64| sub.lo[2] <= plane && plane < sub.hi[2];
        if resource_format.has_depth() && covers(0) {
            key.depth = format;
            key.depth_write = !ds.depth_read_only;
        }
        if resource_format.has_stencil() && covers(1) {
            key.stencil = format;
        }
    }
    Ok(key)
}

/// Every fragment output location must have a color attachment.
fn check_outputs(program: &Program, key: &PipelineKey) -> Result<(), ShaderNodeErrorKind> {
    let Some(fragment) = program
        .stages
        .iter()
        .find(|s| s.stage == ShaderStage::Fragment)
    else {
        return Ok(());
    };
    for output in &fragment.shader.reflection.fragment_outputs {
        if output.location as usize >= key.colors.len() {
            let targets = match key.colors.len() {
                0 => "the node has no SV_Target parameter".to_string(),
                1 => "the node's render target is SV_Target0".to_string(),
                n => format!(
                    "the node's render targets are SV_Target0 to SV_Target{}",
                    n - 1
                ),
            };
            let label = if output.name.is_empty() {
                String::new()
            } else {
                format!(" (`{}`)", output.name)
            };
            return Err(ShaderNodeErrorKind::Mismatch {
                file: fragment.file.clone(),
                line: super::plan::line_of(&fragment.source, &output.name),
                message: format!(
                    "output location {}{label} has no render target: {targets}",
                    output.location
                ),
            });
        }
    }
    Ok(())
}

/// The dispatch's group counts.
fn dispatch_size(
    program: &Program,
    context: &NodeContext<'_>,
) -> Result<[u32; 3], ShaderNodeErrorKind> {
    let local = program
        .plan
        .local_size
        .unwrap_or([1, 1, 1])
        .map(|n| n.max(1));
    let read = |offset: u32, components: u32| -> Result<[u32; 3], ShaderNodeErrorKind> {
        let mut out = [1u32; 3];
        for (index, value) in out.iter_mut().enumerate().take(components as usize) {
            let at = offset as usize + index * 4;
            let bytes = context.args.get(at..at + 4).ok_or_else(|| {
                ShaderNodeErrorKind::Arguments("argument block too short".to_string())
            })?;
            *value = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        }
        Ok(out)
    };
    match program.plan.dispatch.clone() {
        Some(DispatchSource::Groups { offset, components }) => read(offset, components),
        Some(DispatchSource::Threads { offset, components }) => {
            let threads = read(offset, components)?;
            Ok([0, 1, 2].map(|axis| threads[axis].div_ceil(local[axis])))
        }
        Some(DispatchSource::View { param }) => {
            let graph = context.graph;
            let accesses = graph.node_accesses(context.node);
            let (view, access) = context
                .views
                .iter()
                .zip(accesses)
                .find(|(view, _)| view.param == param)
                .ok_or_else(|| {
                    ShaderNodeErrorKind::Arguments(format!("parameter {param} has no view"))
                })?;
            let desc = &graph.resources[access.resource.index()].desc;
            let extent = match &view.resource {
                BoundResource::Buffer(bytes) => {
                    [(bytes.size / 4).max(1).min(u32::MAX as u64) as u32, 1, 1]
                }
                BoundResource::Texture(texture) => {
                    let mip = texture.range.base_mip_level;
                    let depth = if desc.kind == rpsl_runtime::ResourceKind::Tex3d {
                        (desc.depth_or_array_size >> mip).max(1)
                    } else {
                        texture.range.layer_count.max(1)
                    };
                    [
                        ((desc.width >> mip).max(1)).min(u32::MAX as u64) as u32,
                        (desc.height >> mip).max(1),
                        depth,
                    ]
                }
            };
            Ok([0, 1, 2].map(|axis| extent[axis].div_ceil(local[axis])))
        }
        None => Ok([1, 1, 1]),
    }
}
