//! An effect called from an RPSL frame: a script's node declaration bound to an effect file
//! (`compute node Upscale([readonly(cs)] texture src, [readwrite(cs)] texture dst, float
//! sharpness);` with `Upscale.hlsl` in the shader directory). [`EffectNode`] checks that the
//! declaration fits the effect and, as the builder's [`NodeExpansion`] of that declaration,
//! records every call as the effect's graph: a node writing the call's constant buffer
//! (`Upscale.constants`, a transient filled by `vkCmdUpdateBuffer` from the bytes in its
//! arguments), then one compute node per pass (`Upscale.Pass1`, ...) with the effect's
//! intermediate textures as transients sized for the call: `INPUT` is the `src` view, `OUTPUT`
//! the `dst` view. Scalar parameters named like the effect's `//!PARAMETER`s set them (checked
//! against `//!MIN`/`//!MAX`); the others keep their `//!DEFAULT`.
//!
//! A `//!SOURCE` texture (a lookup table) is loaded once, by [`EffectNode::load_sources`], and
//! held by a persistent texture of the frame (`Upscale.lut`, the image's format and size). The
//! frame that creates that texture (its first, or the first after a frame without the call)
//! also records the node `Upscale.lut.upload`, a `copy` write of the texels, before the
//! passes; later frames read the texture as it is. The texels never travel through node
//! arguments: the backend binds them with the upload node (on Vulkan,
//! `rpsl_vulkan::texture_upload`).

use std::fmt;
use std::sync::Arc;

use rpsl_runtime::{
    external_key, mix_key, AccessDesc, AccessFlags, ArgsWriter, BuildError, CallFlags,
    ExpansionCall, Format, GraphBuilder, NodeDeclDesc, NodeExpansion, NodeId, ParamDesc,
    QueueClass, ResourceDesc, ResourceFlags, ResourceId, ResourceKind, ScalarType, TextureView,
    ValueType,
};

use crate::constants::ConstantLayout;
use crate::error::EffectErrors;
use crate::graph::{
    named_pass_declarations, record_effect_views, runtime_format, EffectCalls, EffectViews,
};
use crate::model::{Effect, ParamType, TextureRole, OUTPUT_TEXTURE};
use crate::sizes::resolve_sizes;
use crate::source_image::load_effect_sources;

/// Salt of the constant buffer's identity key.
const CONSTANTS_KEY: u64 = 0xC0B5_7A27;
/// Salt of the effect's own resources and nodes.
const EFFECT_KEY: u64 = 0xEFFE_C700;
/// Salt of the source textures' identity keys.
const SOURCE_KEY: u64 = 0x5052_C700;

/// Why a node declaration does not fit its effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeclarationMismatch {
    /// The parameter at fault (index into the declaration's parameters); `None` for the
    /// declaration as a whole.
    pub param: Option<usize>,
    /// What does not fit.
    pub message: String,
}

impl fmt::Display for DeclarationMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeclarationMismatch {}

/// A node declaration bound to an effect (see the module doc).
#[derive(Clone, Debug)]
pub struct EffectNode {
    node: String,
    effect: Effect,
    layout: ConstantLayout,
    src: usize,
    dst: usize,
    /// `(declaration parameter, effect parameter)` of each scalar parameter.
    params: Vec<(usize, usize)>,
    output_format: Format,
    /// The loaded `//!SOURCE` images ([`EffectNode::load_sources`]), in texture order.
    sources: Vec<NodeSource>,
}

/// A `//!SOURCE` image of an effect node, loaded once for every frame.
#[derive(Clone, Debug)]
struct NodeSource {
    /// Index into [`Effect::textures`].
    texture: usize,
    /// The persistent texture that holds it: the image's format and size.
    desc: ResourceDesc,
    /// Mip 0's texels, rows tightly packed.
    texels: Arc<[u8]>,
}

/// The name of the node that writes a call's constant buffer: `<node>.constants`.
pub fn constants_node_name(node: &str) -> String {
    format!("{node}.constants")
}

/// The name of pass `number`'s node of an effect bound to `node`: `<node>.Pass<number>`.
pub fn pass_node_name(node: &str, number: u32) -> String {
    format!("{node}.Pass{number}")
}

/// The name of the persistent texture that holds the `//!SOURCE` texture `texture` of an
/// effect bound to `node`: `<node>.<texture>`.
pub fn source_resource_name(node: &str, texture: &str) -> String {
    format!("{node}.{texture}")
}

/// The name of the node that uploads the `//!SOURCE` texture `texture` of an effect bound to
/// `node`: `<node>.<texture>.upload`.
pub fn source_upload_name(node: &str, texture: &str) -> String {
    format!("{node}.{texture}.upload")
}

/// The identity key of the `ordinal`-th source texture of the effect bound to `node`: the same
/// for every call (a frame's second call gets the builder's second identity of it), so the
/// texture and its data live on from frame to frame. Its high half, the site of a VM key,
/// names no script variable: a reloaded program never inherits it, and uploads anew.
fn source_key(node: &str, ordinal: usize) -> u64 {
    let mixed = mix_key(external_key(node), SOURCE_KEY + ordinal as u64);
    (u64::from(u32::MAX) << 32) | (mixed & u64::from(u32::MAX))
}

fn file_name(effect: &Effect) -> String {
    effect
        .path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

impl EffectNode {
    /// Checks `decl` (the script's declaration) against `effect`: one read-only texture (the
    /// effect's `INPUT`), one writable texture (`OUTPUT`), and scalars named like the effect's
    /// parameters, nothing else. An effect with `//!SOURCE` textures needs its images loaded
    /// ([`EffectNode::load_sources`]) before its calls are recorded.
    ///
    /// ```
    /// # let folder = tempfile::tempdir().unwrap();
    /// # let path = folder.path().join("Gain.hlsl");
    /// # std::fs::write(&path, "//!MAGPIE EFFECT\n//!VERSION 4\n//!PARAMETER\n//!DEFAULT 1\n\
    /// #     //!MIN 0\n//!MAX 2\n//!STEP 1\nfloat gain;\n//!PASS 1\n//!STYLE PS\n//!IN INPUT\n\
    /// #     //!OUT OUTPUT\nfloat4 Pass1(float2 pos) { return gain; }\n").unwrap();
    /// use rpsl_runtime::*;
    /// let effect = rpsl_effects::parse_effect_file(&path).unwrap();
    /// let decl = NodeDeclDesc::new("Gain", QueueClass::Compute, vec![
    ///     ParamDesc::new("src", ValueType::Texture).with_access(AccessDesc::readonly(AccessFlags::CS)),
    ///     ParamDesc::new("dst", ValueType::Texture).with_access(AccessDesc::readwrite(AccessFlags::CS)),
    ///     ParamDesc::new("gain", ValueType::Scalar(ScalarType::F32)),
    /// ]);
    /// let node = rpsl_effects::EffectNode::new(&decl, effect).unwrap();
    /// let names: Vec<String> = node.declarations().into_iter().map(|d| d.name).collect();
    /// assert_eq!(names, ["Gain.constants", "Gain.Pass1"]);
    /// ```
    pub fn new(decl: &NodeDeclDesc, effect: Effect) -> Result<EffectNode, DeclarationMismatch> {
        let shape = "an effect node takes one readonly texture (the effect's INPUT), one \
                     writable texture (its OUTPUT) and scalars named like its parameters";
        let mismatch =
            |param: Option<usize>, message: String| DeclarationMismatch { param, message };
        let file = file_name(&effect);
        let (mut src, mut dst) = (None, None);
        let mut params = Vec::new();
        for (index, param) in decl.params.iter().enumerate() {
            match &param.value_type {
                ValueType::Texture => {
                    let writes = param.access.is_some_and(|access| access.writes());
                    let (slot, role) = if writes {
                        (&mut dst, "writable")
                    } else {
                        (&mut src, "readonly")
                    };
                    if slot.is_some() {
                        return Err(mismatch(
                            Some(index),
                            format!("`{}` is a second {role} texture: {shape}", param.name),
                        ));
                    }
                    *slot = Some(index);
                }
                ValueType::Scalar(_) => match effect.param(&param.name) {
                    Some((effect_param, _)) => params.push((index, effect_param)),
                    None => {
                        let known: Vec<&str> =
                            effect.params.iter().map(|p| p.name.as_str()).collect();
                        let known = if known.is_empty() {
                            "it has none".to_string()
                        } else {
                            format!("it has {}", known.join(", "))
                        };
                        return Err(mismatch(
                            Some(index),
                            format!(
                                "`{}` names no parameter of the effect {file} ({known})",
                                param.name
                            ),
                        ));
                    }
                },
                _ => {
                    return Err(mismatch(
                        Some(index),
                        format!(
                            "`{}` is neither a texture nor a scalar: {shape}",
                            param.name
                        ),
                    ))
                }
            }
        }
        let (Some(src), Some(dst)) = (src, dst) else {
            let missing = if src.is_none() {
                "readonly texture"
            } else {
                "writable texture"
            };
            return Err(mismatch(
                None,
                format!("`{}` has no {missing}: {shape}", decl.name),
            ));
        };
        let output_format = runtime_format(&effect, OUTPUT_TEXTURE);
        Ok(EffectNode {
            node: decl.name.clone(),
            layout: ConstantLayout::of(&effect),
            effect,
            src,
            dst,
            params,
            output_format,
            sources: Vec::new(),
        })
    }

    /// Loads the effect's `//!SOURCE` images (once: every frame's calls then use them). An
    /// image that cannot be loaded is an error located at its `//!SOURCE` line
    /// ([`crate::load_effect_sources`]). An effect without source textures has nothing to load.
    ///
    /// ```
    /// # let folder = tempfile::tempdir().unwrap();
    /// # let path = folder.path().join("Lut.hlsl");
    /// # rpsl_effects::EffectImage { width: 1, height: 1,
    /// #     format: rpsl_runtime::Format::R8G8B8A8_UNORM, data: vec![255, 0, 0, 255] }
    /// #     .write_png(&folder.path().join("lut.png"), 8).unwrap();
    /// # std::fs::write(&path, "//!MAGPIE EFFECT\n//!VERSION 4\n//!TEXTURE\n//!SOURCE lut.png\n\
    /// #     Texture2D lut;\n//!PASS 1\n//!STYLE PS\n//!IN INPUT, lut\n//!OUT OUTPUT\n\
    /// #     float4 Pass1(float2 pos) { return 1; }\n").unwrap();
    /// use rpsl_runtime::*;
    /// let effect = rpsl_effects::parse_effect_file(&path).unwrap();
    /// let decl = NodeDeclDesc::new("Lut", QueueClass::Compute, vec![
    ///     ParamDesc::new("src", ValueType::Texture).with_access(AccessDesc::readonly(AccessFlags::CS)),
    ///     ParamDesc::new("dst", ValueType::Texture).with_access(AccessDesc::readwrite(AccessFlags::CS)),
    /// ]);
    /// let node = rpsl_effects::EffectNode::new(&decl, effect).unwrap().load_sources().unwrap();
    /// let uploads: Vec<(String, usize)> = node
    ///     .source_uploads()
    ///     .into_iter()
    ///     .map(|(name, texels)| (name, texels.len()))
    ///     .collect();
    /// assert_eq!(uploads, [("Lut.lut.upload".to_string(), 4)]);
    /// ```
    pub fn load_sources(mut self) -> Result<EffectNode, EffectErrors> {
        self.sources = load_effect_sources(&self.effect)?
            .into_iter()
            .map(|(texture, image)| NodeSource {
                texture,
                desc: ResourceDesc {
                    flags: ResourceFlags::PERSISTENT,
                    ..ResourceDesc::tex2d(image.format, image.width, image.height)
                },
                texels: Arc::from(image.data),
            })
            .collect();
        Ok(self)
    }

    /// The upload node of each loaded `//!SOURCE` texture with its texels, in texture order:
    /// what a backend binds (on Vulkan, `rpsl_vulkan::texture_upload::bind_texture_uploads`).
    pub fn source_uploads(&self) -> Vec<(String, Arc<[u8]>)> {
        self.sources
            .iter()
            .map(|source| {
                let name = &self.effect.textures[source.texture].name;
                (
                    source_upload_name(&self.node, name),
                    Arc::clone(&source.texels),
                )
            })
            .collect()
    }

    /// The parsed effect.
    pub fn effect(&self) -> &Effect {
        &self.effect
    }

    /// The script's node name.
    pub fn node(&self) -> &str {
        &self.node
    }

    fn fail(&self, message: impl Into<String>) -> BuildError {
        BuildError::Expansion {
            node: self.node.clone(),
            message: message.into(),
        }
    }

    /// The view of texture parameter `param` and its extent (the view's first mip level).
    fn texture_arg(
        &self,
        builder: &GraphBuilder,
        call: &ExpansionCall<'_>,
        param: usize,
    ) -> Result<(TextureView, [u32; 2], Format), BuildError> {
        let desc = &call.decl.params[param];
        let at = desc.offset as usize;
        let view = TextureView::from_bytes(&call.args[at..])
            .filter(|view| !view.is_null())
            .ok_or_else(|| self.fail(format!("`{}` is a null view", desc.name)))?;
        let resource = builder.describe(ResourceId(view.resource))?;
        if resource.kind != ResourceKind::Tex2d || resource.sample_count > 1 {
            return Err(self.fail(format!(
                "`{}` must view a 2D texture of one sample (an effect reads and writes images)",
                desc.name
            )));
        }
        let range =
            view.resolve_range(&resource, 0)
                .map_err(|reason| BuildError::ViewOutOfRange {
                    param: desc.name.clone(),
                    reason,
                })?;
        if range.layer_count != 1 || (param == self.dst && range.mip_count != 1) {
            let what = if range.layer_count != 1 {
                format!("{} array layers", range.layer_count)
            } else {
                format!("{} mip levels", range.mip_count)
            };
            return Err(self.fail(format!(
                "`{}` views {what}: an effect {} one",
                desc.name,
                if param == self.dst { "writes" } else { "reads" }
            )));
        }
        let extent = [
            ((resource.width >> range.base_mip) as u32).max(1),
            (resource.height >> range.base_mip).max(1),
        ];
        Ok((view, extent, view.effective_format(&resource)))
    }

    /// `(texture index, name)` of each `//!SOURCE` texture of the effect, in texture order.
    fn source_textures(&self) -> impl Iterator<Item = (usize, &str)> {
        self.effect
            .textures
            .iter()
            .enumerate()
            .filter(|(_, texture)| texture.role == TextureRole::Source)
            .map(|(index, texture)| (index, texture.name.as_str()))
    }

    /// Creates the persistent texture of each `//!SOURCE` texture and, in the frame that
    /// creates it (its data is not there yet), calls its upload node (`uploads`: their
    /// declarations, in texture order). Returns the textures' views.
    fn record_sources(
        &self,
        builder: &mut GraphBuilder,
        call: &ExpansionCall<'_>,
        uploads: &[rpsl_runtime::DeclId],
    ) -> Result<Vec<(usize, TextureView)>, BuildError> {
        let mut views = Vec::with_capacity(uploads.len());
        for (ordinal, ((index, name), &upload)) in self.source_textures().zip(uploads).enumerate() {
            let Some(source) = self.sources.iter().find(|source| source.texture == index) else {
                return Err(self.fail(format!(
                    "the image of `{name}` (//!SOURCE) was not loaded (EffectNode::load_sources)"
                )));
            };
            let resource = builder.create_resource(source.desc, source_key(&self.node, ordinal))?;
            builder.set_resource_name(resource, &source_resource_name(&self.node, name))?;
            let view = builder.default_texture_view(resource)?;
            let fresh = builder
                .graph()
                .resources
                .get(resource.index())
                .is_some_and(|record| record.frames_alive == 0);
            if fresh {
                let Some(decl) = builder.decl(upload) else {
                    return Err(BuildError::UnknownDecl(upload));
                };
                let mut args = ArgsWriter::new(decl);
                args.write_texture(0, &view);
                builder.call_node(
                    upload,
                    args.bytes(),
                    CallFlags::default(),
                    mix_key(call.identity_key, SOURCE_KEY + ordinal as u64),
                )?;
            }
            views.push((index, view));
        }
        Ok(views)
    }

    /// The value of each effect parameter for this call.
    fn parameter_values(&self, call: &ExpansionCall<'_>) -> Result<Vec<f64>, BuildError> {
        let mut values: Vec<f64> = self.effect.params.iter().map(|p| p.default).collect();
        for &(decl_param, effect_param) in &self.params {
            let desc = &call.decl.params[decl_param];
            let ValueType::Scalar(scalar) = desc.value_type else {
                continue;
            };
            let at = desc.offset as usize;
            let bytes = &call.args[at..at + scalar.size() as usize];
            let word =
                |n: usize| -> [u8; 4] { [bytes[n], bytes[n + 1], bytes[n + 2], bytes[n + 3]] };
            let value = match scalar {
                ScalarType::Bool | ScalarType::U32 => u32::from_le_bytes(word(0)) as f64,
                ScalarType::I32 => i32::from_le_bytes(word(0)) as f64,
                ScalarType::F32 => f32::from_le_bytes(word(0)) as f64,
                ScalarType::I64 => i64::from_le_bytes(bytes.try_into().unwrap_or([0; 8])) as f64,
                ScalarType::U64 => u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8])) as f64,
                ScalarType::F64 => f64::from_le_bytes(bytes.try_into().unwrap_or([0; 8])),
            };
            let param = &self.effect.params[effect_param];
            if !(param.min..=param.max).contains(&value) {
                return Err(self.fail(format!(
                    "`{}` is {value}, outside the effect's {}..={}",
                    desc.name, param.min, param.max
                )));
            }
            if param.ty == ParamType::Int && value.fract() != 0.0 {
                return Err(self.fail(format!(
                    "`{}` is {value}, but the effect's parameter is an int",
                    desc.name
                )));
            }
            values[effect_param] = value;
        }
        Ok(values)
    }
}

impl NodeExpansion for EffectNode {
    /// `<node>.constants` (`[writeonly(clear)] buffer dst, uint words[N]`: `vkCmdUpdateBuffer`
    /// is a clear command), then the passes' nodes `<node>.Pass<N>` (with
    /// [`crate::pass_declarations`]' parameters), then the upload node of each `//!SOURCE`
    /// texture, `<node>.<texture>.upload` (`[writeonly(copy)] texture dst`).
    fn declarations(&self) -> Vec<NodeDeclDesc> {
        let words = self.layout.size / 4;
        let upload = NodeDeclDesc::new(
            constants_node_name(&self.node),
            QueueClass::Graphics,
            vec![
                ParamDesc::new("dst", ValueType::Buffer)
                    .with_access(AccessDesc::writeonly(AccessFlags::CLEAR)),
                ParamDesc::new(
                    "words",
                    ValueType::Array(Box::new(ValueType::Scalar(ScalarType::U32)), words),
                ),
            ],
        );
        let mut decls = vec![upload];
        decls.extend(named_pass_declarations(&self.effect, &self.node));
        decls.extend(self.source_textures().map(|(_, name)| {
            NodeDeclDesc::new(
                source_upload_name(&self.node, name),
                QueueClass::Graphics,
                vec![ParamDesc::new("dst", ValueType::Texture)
                    .with_access(AccessDesc::writeonly(AccessFlags::COPY))],
            )
        }));
        decls
    }

    fn expand(
        &self,
        builder: &mut GraphBuilder,
        call: &ExpansionCall<'_>,
    ) -> Result<NodeId, BuildError> {
        let (input, input_size, _) = self.texture_arg(builder, call, self.src)?;
        let (output, output_size, output_format) = self.texture_arg(builder, call, self.dst)?;
        let dst_name = &call.decl.params[self.dst].name;
        if output_format != self.output_format {
            return Err(self.fail(format!(
                "`{dst_name}` is {} but the effect writes {}",
                output_format.name().unwrap_or("UNKNOWN"),
                self.output_format.name().unwrap_or("UNKNOWN")
            )));
        }
        let sizes = resolve_sizes(&self.effect, input_size, Some(output_size))
            .map_err(|error| self.fail(format!("{}: {error}", file_name(&self.effect))))?;
        if sizes.output != output_size {
            return Err(self.fail(format!(
                "the effect's OUTPUT is {}x{} for a {}x{} input, but `{dst_name}` is {}x{}",
                sizes.output[0],
                sizes.output[1],
                input_size[0],
                input_size[1],
                output_size[0],
                output_size[1]
            )));
        }
        let values = self.parameter_values(call)?;
        let bytes = self.layout.fill(&self.effect, &sizes, &values);
        let constants = builder.create_resource(
            ResourceDesc::buffer(self.layout.size as u64),
            mix_key(call.identity_key, CONSTANTS_KEY),
        )?;
        builder.set_resource_name(constants, &constants_node_name(&self.node))?;
        let constants_view = builder.default_buffer_view(constants)?;
        let Some(upload) = builder.decl(call.decls[0]) else {
            return Err(BuildError::UnknownDecl(call.decls[0]));
        };
        let mut args = ArgsWriter::new(upload);
        args.write_buffer(0, &constants_view)
            .write_raw(1, 0, &bytes);
        // The call's flags go to every node it expands to: an `async` call puts the passes
        // (compute) on the async compute queue; the upload, a graphics-queue node, stays on
        // the main queue.
        builder.call_node(
            call.decls[0],
            args.bytes(),
            call.flags,
            mix_key(call.identity_key, CONSTANTS_KEY),
        )?;
        let passes = self.effect.passes.len();
        let sources = self.record_sources(builder, call, &call.decls[1 + passes..])?;
        let views = EffectViews {
            input,
            output,
            sources,
            constants: constants_view,
        };
        let recorded = record_effect_views(
            builder,
            &self.effect,
            &call.decls[1..1 + passes],
            &sizes,
            &views,
            EffectCalls {
                flags: call.flags,
                identity_key: mix_key(call.identity_key, EFFECT_KEY),
            },
        )
        .map_err(|error| match error {
            crate::graph::EffectGraphError::Build(error) => error,
            other => self.fail(other.to_string()),
        })?;
        recorded
            .nodes
            .last()
            .copied()
            .ok_or_else(|| self.fail("the effect has no pass"))
    }
}
