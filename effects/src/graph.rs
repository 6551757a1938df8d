//! An effect as a render graph: each pass a compute node, each intermediate texture a transient
//! resource sized from its expressions, `INPUT`, `OUTPUT` and the `//!SOURCE` textures resources
//! the caller supplies (externals, normally). Scheduling, barriers and aliasing then come from
//! rpsl-runtime's frame compiler like for any RPSL frame.
//!
//! A pass's node takes the effect's constant buffer ([`crate::ConstantLayout`], parameter values
//! and predefined sizes) as its first parameter, `__constants` (`[readonly(cb, cs)]` buffer),
//! then its `//!IN` textures as `[readonly(cs)]` parameters and its `//!OUT` textures as
//! `[readwrite(cs)]` ones (a pass may read back what it writes), in that order and named after
//! the textures.

use std::fmt;

use rpsl_runtime::{
    mix_key, AccessDesc, AccessFlags, ArgsWriter, BufferView, BuildError, CallFlags, DeclId,
    Format, GraphBuilder, NodeDeclDesc, NodeId, ParamDesc, QueueClass, ResourceDesc, ResourceId,
    TextureView, ValueType,
};

use crate::model::{Effect, TextureRole};
use crate::sizes::EffectSizes;

/// The node declaration of each pass of `effect`, named `<effect file stem>.Pass<N>`.
///
/// ```
/// # let folder = tempfile::tempdir().unwrap();
/// # let path = folder.path().join("Invert.hlsl");
/// # std::fs::write(&path, "//!MAGPIE EFFECT\n//!VERSION 4\n//!PASS 1\n//!STYLE PS\n\
/// #     //!IN INPUT\n//!OUT OUTPUT\nfloat4 Pass1(float2 pos) { return 0; }\n").unwrap();
/// let effect = rpsl_effects::parse_effect_file(&path).unwrap();
/// let decls = rpsl_effects::pass_declarations(&effect);
/// assert_eq!(decls[0].name, "Invert.Pass1");
/// assert_eq!(decls[0].params[0].name, rpsl_effects::CONSTANTS_PARAM);
/// assert_eq!(decls[0].params[1].name, "INPUT");
/// ```
pub fn pass_declarations(effect: &Effect) -> Vec<NodeDeclDesc> {
    let stem = effect
        .path
        .file_stem()
        .map(|stem| stem.to_string_lossy().into_owned())
        .unwrap_or_else(|| "effect".to_string());
    named_pass_declarations(effect, &stem)
}

/// [`pass_declarations`] named `<prefix>.Pass<N>`.
pub(crate) fn named_pass_declarations(effect: &Effect, prefix: &str) -> Vec<NodeDeclDesc> {
    effect
        .passes
        .iter()
        .map(|pass| {
            let read = AccessDesc::readonly(AccessFlags::CS);
            let write = AccessDesc::readwrite(AccessFlags::CS);
            let constants = ParamDesc::new(CONSTANTS_PARAM, ValueType::Buffer)
                .with_access(AccessDesc::readonly(AccessFlags::CB | AccessFlags::CS));
            let params = std::iter::once(constants)
                .chain(
                    pass.inputs
                        .iter()
                        .map(|&index| (index, read))
                        .chain(pass.outputs.iter().map(|&index| (index, write)))
                        .map(|(index, access)| {
                            ParamDesc::new(effect.textures[index].name.clone(), ValueType::Texture)
                                .with_access(access)
                        }),
                )
                .collect();
            NodeDeclDesc::new(
                format!("{prefix}.Pass{}", pass.number),
                QueueClass::Compute,
                params,
            )
        })
        .collect()
}

/// The name of every pass node's first parameter: the effect's constant buffer.
pub const CONSTANTS_PARAM: &str = "__constants";

/// The resources the caller gives an effect's graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EffectBindings {
    /// The image the effect reads (`INPUT`).
    pub input: ResourceId,
    /// The image the effect writes (`OUTPUT`).
    pub output: ResourceId,
    /// `(texture index, resource)` of each `//!SOURCE` texture, loaded by the caller.
    pub sources: Vec<(usize, ResourceId)>,
    /// The buffer holding the effect's constants ([`crate::ConstantLayout::fill`]), at least
    /// [`crate::ConstantLayout::size`] bytes.
    pub constants: ResourceId,
}

/// What recording an effect made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedEffect {
    /// The node of each pass, in pass order.
    pub nodes: Vec<NodeId>,
    /// The resource of each texture of [`Effect::textures`].
    pub textures: Vec<ResourceId>,
}

/// Why an effect could not be recorded.
#[derive(Clone, Debug, PartialEq)]
pub enum EffectGraphError {
    /// `decls` does not hold one declaration per pass.
    WrongDeclarations {
        /// Passes of the effect.
        passes: usize,
        /// Declarations given.
        given: usize,
    },
    /// A `//!SOURCE` texture has no resource in [`EffectBindings::sources`].
    MissingSource {
        /// The texture.
        name: String,
    },
    /// An intermediate texture has no size in the [`EffectSizes`] given.
    Unsized {
        /// The texture.
        name: String,
    },
    /// The graph builder refused a call.
    Build(BuildError),
}

impl fmt::Display for EffectGraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EffectGraphError::WrongDeclarations { passes, given } => write!(
                f,
                "the effect has {passes} passes but {given} node declarations were given"
            ),
            EffectGraphError::MissingSource { name } => {
                write!(f, "no resource was given for the source texture `{name}`")
            }
            EffectGraphError::Unsized { name } => write!(f, "texture `{name}` has no size"),
            EffectGraphError::Build(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for EffectGraphError {}

impl From<BuildError> for EffectGraphError {
    fn from(error: BuildError) -> Self {
        EffectGraphError::Build(error)
    }
}

/// The runtime format of an intermediate texture (every effect format is an RPS format).
pub(crate) fn runtime_format(effect: &Effect, index: usize) -> Format {
    effect.textures[index]
        .effective_format()
        .and_then(|format| Format::from_name(format.name()))
        .unwrap_or(Format::R8G8B8A8_UNORM)
}

/// Records `effect` into `builder` (between `begin_frame` and `finish`): creates its
/// intermediate textures as transients named after them, then calls one node per pass.
/// `decls` are the ids [`GraphBuilder::declare_node`] gave [`pass_declarations`]; `identity_key`
/// tells this effect's resources apart from others' in the frame (an effect chain uses one key
/// per link).
pub fn record_effect(
    builder: &mut GraphBuilder,
    effect: &Effect,
    decls: &[DeclId],
    sizes: &EffectSizes,
    bindings: &EffectBindings,
    identity_key: u64,
) -> Result<RecordedEffect, EffectGraphError> {
    let mut sources = Vec::with_capacity(bindings.sources.len());
    for &(index, resource) in &bindings.sources {
        sources.push((index, builder.default_texture_view(resource)?));
    }
    let views = EffectViews {
        input: builder.default_texture_view(bindings.input)?,
        output: builder.default_texture_view(bindings.output)?,
        sources,
        constants: builder.default_buffer_view(bindings.constants)?,
    };
    let calls = EffectCalls {
        flags: CallFlags::default(),
        identity_key,
    };
    record_effect_views(builder, effect, decls, sizes, &views, calls)
}

/// How an effect's pass nodes are called: with the flags of the call that runs the effect (an
/// `async` call of an effect node makes every pass `async`), and the identity key that tells
/// this effect's resources and nodes apart from others' in the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EffectCalls {
    /// The flags of each pass's call.
    pub flags: CallFlags,
    /// The effect's identity key.
    pub identity_key: u64,
}

/// The views an effect's graph reads and writes: what [`EffectBindings`] gives as whole
/// resources, as views (an RPSL frame passes the views its script holds: a mip level, an
/// array layer).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EffectViews {
    /// `INPUT`.
    pub input: TextureView,
    /// `OUTPUT`.
    pub output: TextureView,
    /// `(texture index, view)` of each `//!SOURCE` texture.
    pub sources: Vec<(usize, TextureView)>,
    /// The constant buffer.
    pub constants: BufferView,
}

/// [`record_effect`] over views: creates the intermediate textures as transients named after
/// them, then calls one node per pass with `calls.flags`.
pub(crate) fn record_effect_views(
    builder: &mut GraphBuilder,
    effect: &Effect,
    decls: &[DeclId],
    sizes: &EffectSizes,
    views: &EffectViews,
    calls: EffectCalls,
) -> Result<RecordedEffect, EffectGraphError> {
    let identity_key = calls.identity_key;
    if decls.len() != effect.passes.len() {
        return Err(EffectGraphError::WrongDeclarations {
            passes: effect.passes.len(),
            given: decls.len(),
        });
    }
    let mut textures = Vec::with_capacity(effect.textures.len());
    let mut texture_views = Vec::with_capacity(effect.textures.len());
    for (index, texture) in effect.textures.iter().enumerate() {
        let view = match texture.role {
            TextureRole::Input => views.input,
            TextureRole::Output => views.output,
            TextureRole::Source => views
                .sources
                .iter()
                .find(|(source, _)| *source == index)
                .map(|(_, view)| *view)
                .ok_or_else(|| EffectGraphError::MissingSource {
                    name: texture.name.clone(),
                })?,
            TextureRole::Intermediate => {
                let Some([width, height]) = sizes.textures.get(index).copied().flatten() else {
                    return Err(EffectGraphError::Unsized {
                        name: texture.name.clone(),
                    });
                };
                let desc = ResourceDesc::tex2d(runtime_format(effect, index), width, height);
                let resource =
                    builder.create_resource(desc, mix_key(identity_key, index as u64))?;
                builder.set_resource_name(resource, &texture.name)?;
                builder.default_texture_view(resource)?
            }
        };
        textures.push(ResourceId(view.resource));
        texture_views.push(view);
    }
    let mut nodes = Vec::with_capacity(effect.passes.len());
    for (pass, &decl_id) in effect.passes.iter().zip(decls) {
        let Some(decl) = builder.decl(decl_id) else {
            return Err(BuildError::UnknownDecl(decl_id).into());
        };
        let mut args = ArgsWriter::new(decl);
        args.write_buffer(0, &views.constants);
        for (param, &index) in pass.inputs.iter().chain(&pass.outputs).enumerate() {
            args.write_texture(param + 1, &texture_views[index]);
        }
        let key = mix_key(identity_key, 0x7000_0000 + pass.number as u64);
        nodes.push(builder.call_node(decl_id, args.bytes(), calls.flags, key)?);
    }
    Ok(RecordedEffect { nodes, textures })
}
