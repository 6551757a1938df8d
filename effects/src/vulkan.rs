//! Running effects on the Vulkan backend: an [`EffectRunner`] holds a chain of prepared effects
//! ([`EffectLink`]: parsed, parameters checked, passes compiled, `//!SOURCE` images loaded) and
//! applies it to RGBA8 images. Each pass node is bound to its generated compute shader
//! (`rpsl_vulkan::compute_program`: the constant buffer, inputs as sampled images, outputs as
//! storage images, the effect's samplers); source textures are uploaded once and kept; the
//! recorded and compiled frame is kept and executed again for further images of the same size.

use std::fmt;
use std::path::Path;

use rpsl_runtime::{
    mix_key, Backend, CompileOptions, CompiledFrame, DeclId, Format, FrameCompiler, GraphBuilder,
    RecordedGraph, ResourceDesc,
};
use rpsl_shaders::ShaderCompiler;
use rpsl_vulkan::compute_program::{
    bind_buffer_updates, bind_compute_programs, ComputeBinding, ComputeProgram, SamplerDesc,
};
use rpsl_vulkan::texture_upload::bind_texture_uploads;
use rpsl_vulkan::{FrameTimings, VulkanBackend};

use crate::compile::{compile_effect, CompiledPass};
use crate::constants::ConstantLayout;
use crate::graph::{pass_declarations, record_effect, runtime_format, EffectBindings};
use crate::hlsl::PassVariant;
use crate::model::{AddressMode, Effect, Filter, ParamType, OUTPUT_TEXTURE};
use crate::node_effect::{constants_node_name, pass_node_name, EffectNode};
use crate::output_image::EffectImage;
use crate::parse::parse_effect_file;
use crate::sizes::{resolve_sizes, EffectSizes};
use crate::source_image::{load_source_image, SourceImage};

/// Why an effect could not be prepared or run; the text says what and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EffectRunError(pub String);

impl fmt::Display for EffectRunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EffectRunError {}

fn fail(message: impl fmt::Display) -> EffectRunError {
    EffectRunError(message.to_string())
}

/// Why a chain sized `sizes` cannot produce the requested output size `wanted`.
fn unreachable_size_message(
    links: &[EffectLink],
    sizes: &[EffectSizes],
    scaler: Option<usize>,
    wanted: [u32; 2],
) -> String {
    let got = sizes.last().map_or([0, 0], |size| size.output);
    let name = |index: usize| {
        let path = &links[index].effect.path;
        path.file_name()
            .unwrap_or(path.as_os_str())
            .to_string_lossy()
            .into_owned()
    };
    let reason = match scaler {
        None => "every effect of the chain fixes its output size".to_string(),
        Some(scaler) => {
            let resizing: Vec<String> = (scaler + 1..links.len())
                .filter(|&index| sizes[index].output != sizes[index].input)
                .map(name)
                .collect();
            format!(
                "{} after {} (the last effect without a fixed output size) changes the size",
                resizing.join(", "),
                name(scaler)
            )
        }
    };
    format!(
        "the chain produces {}x{}, not the requested {}x{}: {reason}",
        got[0], got[1], wanted[0], wanted[1]
    )
}

/// An RGBA8 image, rows tightly packed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RgbaImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 4` bytes.
    pub pixels: Vec<u8>,
}

/// One effect of a chain, ready to run.
#[derive(Clone, Debug)]
pub struct EffectLink {
    /// The parsed effect.
    pub effect: Effect,
    /// Its compiled passes.
    pub passes: Vec<CompiledPass>,
    /// The value of each parameter (defaults where not set).
    pub params: Vec<f64>,
    /// `(texture index, image)` of each `//!SOURCE` texture.
    pub sources: Vec<(usize, SourceImage)>,
}

/// Parses the effect at `path`, sets `params` (`(name, value)`, each checked against the
/// parameter's bounds; an `int` parameter takes whole numbers only), compiles its passes (the
/// FP16 variant when `fp16` and the effect supports it) and loads its source textures.
///
/// ```no_run
/// let compiler = rpsl_shaders::ShaderCompiler::new(Default::default());
/// let link = rpsl_effects::prepare_effect(
///     "Sharpen.hlsl".as_ref(),
///     &[("sharpness".to_string(), 0.8)],
///     false,
///     &compiler,
/// )
/// .unwrap();
/// ```
pub fn prepare_effect(
    path: &Path,
    params: &[(String, f64)],
    fp16: bool,
    compiler: &ShaderCompiler,
) -> Result<EffectLink, EffectRunError> {
    let effect = parse_effect_file(path).map_err(fail)?;
    let values = parameter_values(&effect, params)?;
    let variant = PassVariant {
        fp16,
        inline_params: None,
        debug: false,
    };
    let passes = compile_effect(&effect, &variant, compiler).map_err(fail)?;
    let mut sources = Vec::new();
    for (index, texture) in effect.textures.iter().enumerate() {
        if let Some(file) = &texture.source {
            sources.push((index, load_source_image(file).map_err(fail)?));
        }
    }
    Ok(EffectLink {
        effect,
        passes,
        params: values,
        sources,
    })
}

/// Every parameter's value: its default, or the value set in `params` (checked).
fn parameter_values(effect: &Effect, params: &[(String, f64)]) -> Result<Vec<f64>, EffectRunError> {
    let mut values: Vec<f64> = effect.params.iter().map(|param| param.default).collect();
    for (name, value) in params {
        let Some((index, param)) = effect.param(name) else {
            let known: Vec<&str> = effect.params.iter().map(|p| p.name.as_str()).collect();
            let known = if known.is_empty() {
                "it has none".to_string()
            } else {
                format!("it has {}", known.join(", "))
            };
            return Err(fail(format!(
                "{}: no parameter named `{name}` ({known})",
                effect.path.display()
            )));
        };
        if !(param.min..=param.max).contains(value) {
            return Err(fail(format!(
                "{}: parameter `{name}` must be between {} and {} (got {value})",
                effect.path.display(),
                param.min,
                param.max
            )));
        }
        if param.ty == ParamType::Int && value.fract() != 0.0 {
            return Err(fail(format!(
                "{}: parameter `{name}` is an int (got {value})",
                effect.path.display()
            )));
        }
        values[index] = *value;
    }
    Ok(values)
}

/// The compute program of each pass of a link, bound to the pass's node name.
fn pass_programs(
    effect: &Effect,
    passes: &[CompiledPass],
    decl_names: &[String],
) -> Vec<ComputeProgram> {
    passes
        .iter()
        .zip(decl_names)
        .map(|(pass, name)| {
            let bindings = &pass.source.bindings;
            let inputs = bindings.inputs.len() as u16;
            let mut table = vec![(
                bindings.constants,
                ComputeBinding::UniformBuffer { param: 0 },
            )];
            table.extend(bindings.inputs.iter().enumerate().map(|(i, &binding)| {
                (
                    binding,
                    ComputeBinding::SampledImage {
                        param: 1 + i as u16,
                    },
                )
            }));
            table.extend(bindings.outputs.iter().enumerate().map(|(i, &binding)| {
                (
                    binding,
                    ComputeBinding::StorageImage {
                        param: 1 + inputs + i as u16,
                    },
                )
            }));
            table.extend(bindings.samplers.iter().zip(&effect.samplers).map(
                |(&binding, sampler)| {
                    let desc = SamplerDesc {
                        linear: sampler.filter == Filter::Linear,
                        repeat: sampler.address == AddressMode::Wrap,
                    };
                    (binding, ComputeBinding::Sampler(desc))
                },
            ));
            ComputeProgram {
                name: name.clone(),
                spirv: pass.shader.spirv.clone(),
                entry_point: pass.source.entry_point.clone(),
                bindings: table,
                dispatch_param: 1 + inputs,
                block_size: pass.source.block_size,
            }
        })
        .collect()
}

/// Binds the nodes an [`EffectNode`] records on `backend`: each pass's node
/// (`<node>.Pass<N>`) to its compiled shader in `passes` ([`compile_effect`] of the node's
/// effect), `<node>.constants` to the constant-buffer update
/// ([`rpsl_vulkan::compute_program::bind_buffer_updates`]) and each source texture's
/// `<node>.<texture>.upload` to the copy of its loaded texels
/// ([`rpsl_vulkan::texture_upload::bind_texture_uploads`]).
pub fn bind_effect_node(backend: &mut VulkanBackend, node: &EffectNode, passes: &[CompiledPass]) {
    let names: Vec<String> = node
        .effect()
        .passes
        .iter()
        .map(|pass| pass_node_name(node.node(), pass.number))
        .collect();
    bind_compute_programs(backend, pass_programs(node.effect(), passes, &names));
    bind_buffer_updates(backend, [constants_node_name(node.node())]);
    bind_texture_uploads(backend, node.source_uploads());
}

/// A link's node declarations, named `<stem>.Pass<N>` (`<stem>#<k>.Pass<N>` for the k-th use of
/// a stem in the chain, from 2).
fn link_declarations(link: &EffectLink, index_of_stem: usize) -> Vec<rpsl_runtime::NodeDeclDesc> {
    let mut decls = pass_declarations(&link.effect);
    if index_of_stem > 1 {
        for decl in &mut decls {
            if let Some((stem, pass)) = decl.name.rsplit_once('.') {
                decl.name = format!("{stem}#{index_of_stem}.{pass}");
            }
        }
    }
    decls
}

/// A chain's node declarations and its graph builder and frame compiler.
struct ChainGraph {
    builder: GraphBuilder,
    decls: Vec<Vec<DeclId>>,
    frame_compiler: FrameCompiler,
}

impl ChainGraph {
    /// Declares the passes of every link; returns the compute program of each pass.
    fn new(links: &[EffectLink]) -> (ChainGraph, Vec<ComputeProgram>) {
        let mut builder = GraphBuilder::new();
        let mut decls = Vec::with_capacity(links.len());
        let mut programs = Vec::new();
        let mut stems: Vec<String> = Vec::new();
        for link in links {
            let stem = link
                .effect
                .path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            stems.push(stem.clone());
            let uses = stems.iter().filter(|s| **s == stem).count();
            let link_decls = link_declarations(link, uses);
            let names: Vec<String> = link_decls.iter().map(|d| d.name.clone()).collect();
            programs.extend(pass_programs(&link.effect, &link.passes, &names));
            decls.push(
                link_decls
                    .into_iter()
                    .map(|decl| builder.declare_node(decl))
                    .collect(),
            );
        }
        let graph = ChainGraph {
            builder,
            decls,
            frame_compiler: FrameCompiler::new(CompileOptions::default()),
        };
        (graph, programs)
    }

    /// Sizes every link for an input of `input`. A link whose `OUTPUT` has no size of its own
    /// produces its input's size, except the last such link of the chain (the chain's scaler),
    /// which produces `output` when it is given: `--scale 2` over an upscaler followed by a
    /// sharpener of fixed size (`OUTPUT_WIDTH = INPUT_WIDTH`) doubles in the upscaler. When the
    /// chain cannot end at `output` (no link takes a size, or a link after the scaler resizes
    /// again), that is an error rather than an image of another size.
    fn link_sizes(
        links: &[EffectLink],
        input: [u32; 2],
        output: Option<[u32; 2]>,
    ) -> Result<Vec<EffectSizes>, EffectRunError> {
        let scaler = links
            .iter()
            .rposition(|link| link.effect.output_size().is_none());
        let mut sizes = Vec::with_capacity(links.len());
        let mut size = input;
        for (index, link) in links.iter().enumerate() {
            let requested = match output {
                Some(output) if Some(index) == scaler => output,
                _ => size,
            };
            let resolved = resolve_sizes(&link.effect, size, Some(requested))
                .map_err(|error| fail(format!("{}: {error}", link.effect.path.display())))?;
            size = resolved.output;
            sizes.push(resolved);
        }
        match output {
            Some(wanted) if wanted != size => Err(fail(unreachable_size_message(
                links, &sizes, scaler, wanted,
            ))),
            _ => Ok(sizes),
        }
    }

    /// Records and compiles the chain's frame for these sizes.
    fn build_frame(
        &mut self,
        links: &[EffectLink],
        sizes: &[EffectSizes],
        frame_index: u64,
    ) -> Result<(RecordedGraph, CompiledFrame), EffectRunError> {
        let builder = &mut self.builder;
        builder.begin_frame(frame_index);
        let mut input = builder
            .import_external("INPUT", rgba8(sizes[0].input))
            .map_err(fail)?;
        for (index, (link, link_sizes)) in links.iter().zip(sizes).enumerate() {
            let last = index + 1 == links.len();
            let output = if last {
                builder
                    .import_external("OUTPUT", output_desc(link, link_sizes.output))
                    .map_err(fail)?
            } else {
                let resource = builder
                    .create_resource(
                        output_desc(link, link_sizes.output),
                        mix_key(0xe17ec7, index as u64),
                    )
                    .map_err(fail)?;
                builder
                    .set_resource_name(resource, &format!("effect{index}.OUTPUT"))
                    .map_err(fail)?;
                resource
            };
            let layout = ConstantLayout::of(&link.effect);
            let constants = builder
                .import_external(
                    &link_external(index, "constants"),
                    ResourceDesc::buffer(layout.size as u64),
                )
                .map_err(fail)?;
            let mut sources = Vec::new();
            for (texture, image) in &link.sources {
                let name = link_external(index, &link.effect.textures[*texture].name);
                let desc = ResourceDesc::tex2d(image.format, image.width, image.height);
                sources.push((
                    *texture,
                    builder.import_external(&name, desc).map_err(fail)?,
                ));
            }
            let bindings = EffectBindings {
                input,
                output,
                sources,
                constants,
            };
            record_effect(
                builder,
                &link.effect,
                &self.decls[index],
                link_sizes,
                &bindings,
                index as u64 + 1,
            )
            .map_err(|error| fail(format!("{}: {error}", link.effect.path.display())))?;
            input = output;
        }
        let graph = builder.finish().map_err(fail)?.clone();
        let frame = self.frame_compiler.compile(&graph).map_err(fail)?.clone();
        Ok((graph, frame))
    }
}

/// The recorded and compiled frame of a chain for an input of `input` (`output`: the final
/// size of a last effect without a fixed one), as an [`EffectRunner`] would run it: what
/// `rpsl graph` shows for an effect file.
pub fn chain_frame(
    links: &[EffectLink],
    input: [u32; 2],
    output: Option<[u32; 2]>,
) -> Result<(RecordedGraph, CompiledFrame), EffectRunError> {
    chain_frame_at(links, input, output, 0)
}

/// [`chain_frame`] as the frame of index `frame_index` (the `k`-th image of a batch).
pub fn chain_frame_at(
    links: &[EffectLink],
    input: [u32; 2],
    output: Option<[u32; 2]>,
    frame_index: u64,
) -> Result<(RecordedGraph, CompiledFrame), EffectRunError> {
    if links.is_empty() {
        return Err(fail("no effect to run"));
    }
    let (mut graph, _) = ChainGraph::new(links);
    let sizes = ChainGraph::link_sizes(links, input, output)?;
    graph.build_frame(links, &sizes, frame_index)
}

/// The frame kept for one input and output size.
struct KeptFrame {
    sizes: (u32, u32, Option<[u32; 2]>),
    graph: RecordedGraph,
    frame: CompiledFrame,
    output: [u32; 2],
}

/// A chain of effects on a Vulkan backend.
pub struct EffectRunner {
    backend: VulkanBackend,
    links: Vec<EffectLink>,
    graph: ChainGraph,
    kept: Option<KeptFrame>,
    constants: Vec<Option<Vec<u8>>>,
    frame_index: u64,
}

fn rgba8(size: [u32; 2]) -> ResourceDesc {
    ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, size[0], size[1])
}

/// The output image of a link: its `OUTPUT`'s format at `size`.
fn output_desc(link: &EffectLink, size: [u32; 2]) -> ResourceDesc {
    ResourceDesc::tex2d(
        runtime_format(&link.effect, OUTPUT_TEXTURE),
        size[0],
        size[1],
    )
}

/// The external name of a link's resource (`effect0.constants`, `effect1.lut`, ...).
fn link_external(link: usize, name: &str) -> String {
    format!("effect{link}.{name}")
}

impl EffectRunner {
    /// Binds the chain's passes to `backend` and uploads the source textures.
    pub fn new(
        mut backend: VulkanBackend,
        links: Vec<EffectLink>,
    ) -> Result<EffectRunner, EffectRunError> {
        if links.is_empty() {
            return Err(fail("no effect to run"));
        }
        let (graph, programs) = ChainGraph::new(&links);
        for (index, link) in links.iter().enumerate() {
            for (texture, image) in &link.sources {
                let name = link_external(index, &link.effect.textures[*texture].name);
                let desc = ResourceDesc::tex2d(image.format, image.width, image.height);
                backend.create_external(&name, &desc).map_err(fail)?;
                backend.write_external(&name, &image.data).map_err(fail)?;
            }
        }
        bind_compute_programs(&mut backend, programs);
        Ok(EffectRunner {
            backend,
            constants: vec![None; links.len()],
            links,
            graph,
            kept: None,
            frame_index: 0,
        })
    }

    /// The backend (for its stats and object counts).
    pub fn backend(&self) -> &VulkanBackend {
        &self.backend
    }

    /// Timings of the frames run since the last call (with timestamps enabled on the backend).
    pub fn take_timings(&mut self) -> Vec<FrameTimings> {
        self.backend.take_timings()
    }

    /// Applies the chain to `image`; `output` is the final size for a last effect whose output
    /// size is not fixed (else the size of its input). The result is 8-bit RGBA: a last effect
    /// whose `OUTPUT` has another format is clamped and rounded ([`EffectImage::to_rgba8`];
    /// [`EffectRunner::run_image`] keeps the format).
    pub fn run(
        &mut self,
        image: &RgbaImage,
        output: Option<[u32; 2]>,
    ) -> Result<RgbaImage, EffectRunError> {
        let result = self.run_image(image, output)?;
        Ok(RgbaImage {
            width: result.width,
            height: result.height,
            pixels: result.to_rgba8().map_err(fail)?,
        })
    }

    /// [`EffectRunner::run`], with the result in the format of the last effect's `OUTPUT`.
    pub fn run_image(
        &mut self,
        image: &RgbaImage,
        output: Option<[u32; 2]>,
    ) -> Result<EffectImage, EffectRunError> {
        if image.pixels.len() != image.width as usize * image.height as usize * 4 {
            return Err(fail(format!(
                "a {}x{} RGBA8 image needs {} bytes, not {}",
                image.width,
                image.height,
                image.width as usize * image.height as usize * 4,
                image.pixels.len()
            )));
        }
        let key = (image.width, image.height, output);
        if self.kept.as_ref().map(|kept| kept.sizes) != Some(key) {
            let sizes = ChainGraph::link_sizes(&self.links, [image.width, image.height], output)?;
            for (index, (link, link_sizes)) in self.links.iter().zip(&sizes).enumerate() {
                let layout = ConstantLayout::of(&link.effect);
                let bytes = layout.fill(&link.effect, link_sizes, &link.params);
                if self.constants[index].as_ref() != Some(&bytes) {
                    let name = link_external(index, "constants");
                    self.backend
                        .create_external(&name, &ResourceDesc::buffer(layout.size as u64))
                        .map_err(fail)?;
                    self.backend.write_external(&name, &bytes).map_err(fail)?;
                    self.constants[index] = Some(bytes);
                }
            }
            let (graph, frame) = self
                .graph
                .build_frame(&self.links, &sizes, self.frame_index)?;
            let last = sizes.last().map(|s| s.output).unwrap_or([0, 0]);
            let Some(last_link) = self.links.last() else {
                return Err(fail("no effect to run"));
            };
            self.backend
                .create_external("INPUT", &rgba8([image.width, image.height]))
                .map_err(fail)?;
            self.backend
                .create_external("OUTPUT", &output_desc(last_link, last))
                .map_err(fail)?;
            self.kept = Some(KeptFrame {
                sizes: key,
                graph,
                frame,
                output: last,
            });
        }
        let Some(kept) = &self.kept else {
            return Err(fail("no frame was built"));
        };
        self.backend
            .write_external("INPUT", &image.pixels)
            .map_err(fail)?;
        self.backend
            .execute_frame(&kept.graph, &kept.frame)
            .map_err(fail)?;
        self.backend.wait_idle().map_err(fail)?;
        self.frame_index += 1;
        let data = self.backend.read_external("OUTPUT").map_err(fail)?;
        let format = self.links.last().map_or(Format::R8G8B8A8_UNORM, |link| {
            runtime_format(&link.effect, OUTPUT_TEXTURE)
        });
        Ok(EffectImage {
            width: kept.output[0],
            height: kept.output[1],
            format,
            data,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{ChainGraph, EffectLink};
    use crate::parse_effect_source;
    use std::path::Path;

    /// A one-pass effect named `name` whose `OUTPUT` has the size lines `size` (may be empty).
    fn link(name: &str, size: &str) -> EffectLink {
        let text = format!(
            "//!MAGPIE EFFECT\n//!VERSION 4\n//!TEXTURE\n{size}Texture2D OUTPUT;\n\
             //!PASS 1\n//!STYLE PS\n//!IN INPUT\n//!OUT OUTPUT\n\
             float4 Pass1(float2 pos) {{ return 0; }}\n"
        );
        let effect = parse_effect_source(Path::new(name), text).unwrap();
        EffectLink {
            effect,
            passes: Vec::new(),
            params: Vec::new(),
            sources: Vec::new(),
        }
    }

    fn outputs(links: &[EffectLink], output: Option<[u32; 2]>) -> Result<Vec<[u32; 2]>, String> {
        ChainGraph::link_sizes(links, [100, 50], output)
            .map(|sizes| sizes.iter().map(|size| size.output).collect())
            .map_err(|error| error.0)
    }

    const SAME: &str = "//!WIDTH INPUT_WIDTH\n//!HEIGHT INPUT_HEIGHT\n";
    const DOUBLE: &str = "//!WIDTH INPUT_WIDTH * 2\n//!HEIGHT INPUT_HEIGHT * 2\n";

    #[test]
    fn the_requested_size_goes_to_the_last_effect_without_a_fixed_size() {
        let chain = [link("Up.hlsl", ""), link("Sharpen.hlsl", SAME)];
        assert_eq!(
            outputs(&chain, Some([200, 100])),
            Ok(vec![[200, 100], [200, 100]])
        );
        assert_eq!(outputs(&chain, None), Ok(vec![[100, 50], [100, 50]]));
        let chain = [link("A.hlsl", ""), link("B.hlsl", ""), link("C.hlsl", SAME)];
        assert_eq!(
            outputs(&chain, Some([30, 20])),
            Ok(vec![[100, 50], [30, 20], [30, 20]])
        );
    }

    #[test]
    fn a_chain_that_cannot_end_at_the_requested_size_is_an_error() {
        let fixed = [link("Sharpen.hlsl", SAME)];
        assert_eq!(
            outputs(&fixed, Some([200, 100])),
            Err(
                "the chain produces 100x50, not the requested 200x100: every effect of the \
                 chain fixes its output size"
                    .to_string()
            )
        );
        assert_eq!(outputs(&fixed, Some([100, 50])), Ok(vec![[100, 50]]));
        let resized = [
            link("Up.hlsl", ""),
            link("Sharpen.hlsl", SAME),
            link("Double.hlsl", DOUBLE),
        ];
        assert_eq!(
            outputs(&resized, Some([200, 100])),
            Err(
                "the chain produces 400x200, not the requested 200x100: Double.hlsl after \
                 Up.hlsl (the last effect without a fixed output size) changes the size"
                    .to_string()
            )
        );
    }
}
