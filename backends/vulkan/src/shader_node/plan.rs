//! The binding convention as pure logic: from a node declaration and the reflection of its
//! shaders to a [`BindingPlan`] (descriptors in parameter order, samplers, push-constant packing,
//! dispatch and draw sizes), or a [`Mismatch`] that names the shader file and line.

use rpsl_runtime::{NodeDeclDesc, ParamDesc, ScalarType, SemanticKind, ValueType, ViewKind};
use rpsl_shaders::{DescriptorKind, Reflection, ShaderStage};

use super::push::{copy_runs, std430_align, std430_size, CopyRun};

/// The push-constant bytes every Vulkan device supports (`maxPushConstantsSize` is at least 128).
pub(crate) const MAX_PUSH_CONSTANT_BYTES: u32 = 128;

/// Plain parameters with these names steer the dispatch or draw instead of being pushed.
pub(crate) const GROUP_COUNT: &str = "group_count";
/// Threads to cover; divided by the local size, rounded up.
pub(crate) const THREAD_COUNT: &str = "thread_count";
/// Vertices of a draw (default 3: the full-screen triangle).
pub(crate) const VERTEX_COUNT: &str = "vertex_count";
/// Instances of a draw (default 1).
pub(crate) const INSTANCE_COUNT: &str = "instance_count";

/// One compiled stage, as the planner sees it.
pub(crate) struct StageInfo<'a> {
    /// The stage.
    pub stage: ShaderStage,
    /// The shader file as errors name it.
    pub file: &'a str,
    /// Its source (for the line of a declaration).
    pub source: &'a str,
    /// Its reflection.
    pub reflection: &'a Reflection,
}

/// A convention violation, located in a shader file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Mismatch {
    /// The shader file.
    pub file: String,
    /// The line, when the offending declaration was found in the source.
    pub line: Option<u32>,
    /// What is wrong.
    pub message: String,
}

/// A sampler the backend provides for `sampler` bindings no parameter fills.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SamplerKind {
    /// Linear filtering, clamp to edge (the default).
    LinearClamp,
    /// Nearest filtering, clamp to edge (name contains `point` or `nearest`).
    NearestClamp,
    /// Linear filtering, repeat (name contains `wrap` or `repeat`).
    LinearRepeat,
    /// Nearest filtering, repeat.
    NearestRepeat,
}

impl SamplerKind {
    fn from_name(name: &str) -> SamplerKind {
        let lower = name.to_ascii_lowercase();
        let nearest = lower.contains("point") || lower.contains("nearest");
        let repeat = lower.contains("wrap") || lower.contains("repeat");
        match (nearest, repeat) {
            (false, false) => SamplerKind::LinearClamp,
            (true, false) => SamplerKind::NearestClamp,
            (false, true) => SamplerKind::LinearRepeat,
            (true, true) => SamplerKind::NearestRepeat,
        }
    }
}

/// What fills a descriptor binding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DescriptorSource {
    /// The views of parameter `param` (its view slots, in order, as the array elements).
    Param(u16),
    /// A backend sampler; combined image samplers of a parameter use [`SamplerKind::LinearClamp`].
    Sampler(SamplerKind),
}

/// One descriptor binding of set 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DescriptorPlan {
    /// Binding number.
    pub binding: u32,
    /// Kind (from the shader).
    pub kind: DescriptorKind,
    /// Descriptor count.
    pub count: u32,
    /// Stages that use it.
    pub stages: Vec<ShaderStage>,
    /// What fills it.
    pub source: DescriptorSource,
    /// The image type the shader declares (image kinds).
    pub image: Option<rpsl_shaders::ImageInfo>,
}

/// How a compute node sizes its dispatch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DispatchSource {
    /// Read 1 to 3 `u32` group counts from the argument block at this offset.
    Groups { offset: u32, components: u32 },
    /// Read 1 to 3 `u32` thread counts and divide by the local size.
    Threads { offset: u32, components: u32 },
    /// Cover the extent of parameter `param`'s first view (a written texture or buffer).
    View { param: u16 },
}

/// Everything the recorder needs, fixed per declaration and shader generation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BindingPlan {
    /// Descriptor bindings of set 0, by binding number.
    pub descriptors: Vec<DescriptorPlan>,
    /// Push-constant bytes to push (0: none).
    pub push_size: u32,
    /// Stages that declare the push-constant block.
    pub push_stages: Vec<ShaderStage>,
    /// How to fill the push-constant bytes from the argument block.
    pub push_runs: Vec<CopyRun>,
    /// The compute local size.
    pub local_size: Option<[u32; 3]>,
    /// How a compute node sizes its dispatch.
    pub dispatch: Option<DispatchSource>,
    /// `vertex_count` and `instance_count` parameter offsets of a graphics node.
    pub draw_counts: (Option<u32>, Option<u32>),
}

/// Whether a parameter is a render-pass attachment (bound by the pass, not by descriptors).
fn is_attachment(param: &ParamDesc) -> bool {
    matches!(
        param.semantic,
        Some((
            SemanticKind::Target | SemanticKind::DepthStencil | SemanticKind::ResolveTarget,
            _
        ))
    )
}

/// Whether a plain parameter takes part in push constants.
fn is_pushed(param: &ParamDesc) -> bool {
    param.view_slots.is_empty()
        && param.semantic.is_none()
        && !matches!(param.value_type, ValueType::NodeHandle)
        && ![GROUP_COUNT, THREAD_COUNT, VERTEX_COUNT, INSTANCE_COUNT].contains(&param.name.as_str())
}

/// The 1-based line of the first whole-word occurrence of `name` in `source`.
pub(crate) fn line_of(source: &str, name: &str) -> Option<u32> {
    if name.is_empty() {
        return None;
    }
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    for (index, line) in source.lines().enumerate() {
        let mut search = 0;
        while let Some(found) = line[search..].find(name) {
            let start = search + found;
            let end = start + name.len();
            let before = line[..start].chars().next_back();
            let after = line[end..].chars().next();
            if !before.is_some_and(is_word) && !after.is_some_and(is_word) {
                return Some(index as u32 + 1);
            }
            search = end;
        }
    }
    None
}

fn kind_name(kind: DescriptorKind) -> &'static str {
    match kind {
        DescriptorKind::Sampler => "a sampler",
        DescriptorKind::CombinedImageSampler => "a combined image sampler",
        DescriptorKind::SampledImage => "a sampled image",
        DescriptorKind::StorageImage => "a storage image",
        DescriptorKind::UniformTexelBuffer => "a uniform texel buffer",
        DescriptorKind::StorageTexelBuffer => "a storage texel buffer",
        DescriptorKind::UniformBuffer => "a uniform buffer",
        DescriptorKind::StorageBuffer => "a storage buffer",
        DescriptorKind::InputAttachment => "an input attachment",
        DescriptorKind::AccelerationStructure => "an acceleration structure",
    }
}

/// Plans the bindings of `decl` against its compiled `stages`.
pub(crate) fn plan_bindings(
    decl: &NodeDeclDesc,
    stages: &[StageInfo<'_>],
) -> Result<BindingPlan, Mismatch> {
    let view_params: Vec<(u16, &ParamDesc)> = decl
        .params
        .iter()
        .enumerate()
        .filter(|(_, param)| !param.view_slots.is_empty() && !is_attachment(param))
        .map(|(index, param)| (index as u16, param))
        .collect();
    let mut descriptors: Vec<DescriptorPlan> = Vec::new();
    for stage in stages {
        for binding in &stage.reflection.descriptors {
            let located = |message: String| Mismatch {
                file: stage.file.to_string(),
                line: line_of(stage.source, &binding.name),
                message,
            };
            let label = if binding.name.is_empty() {
                format!("binding {}", binding.binding)
            } else {
                format!("binding {} (`{}`)", binding.binding, binding.name)
            };
            if binding.set != 0 {
                return Err(located(format!(
                    "{label} is in descriptor set {}; shader nodes bind set 0 only",
                    binding.set
                )));
            }
            if let Some(existing) = descriptors
                .iter_mut()
                .find(|d| d.binding == binding.binding)
            {
                if existing.kind != binding.kind || existing.count != binding.count {
                    return Err(located(format!(
                        "{label} differs from the same binding in another stage of the node"
                    )));
                }
                existing.stages.push(stage.stage);
                continue;
            }
            let source = match view_params.get(binding.binding as usize) {
                Some(&(param_index, param)) => {
                    check_view_binding(param, binding.kind, binding.count)
                        .map_err(|message| located(format!("{label} {message}")))?;
                    DescriptorSource::Param(param_index)
                }
                None if binding.kind == DescriptorKind::Sampler => {
                    DescriptorSource::Sampler(SamplerKind::from_name(&binding.name))
                }
                None => {
                    let names: Vec<&str> =
                        view_params.iter().map(|(_, p)| p.name.as_str()).collect();
                    let takes = match names.len() {
                        0 => "the node has no view parameters".to_string(),
                        1 => format!("the node's view parameter takes binding 0 ({})", names[0]),
                        n => format!(
                            "the node's view parameters take bindings 0 to {} ({})",
                            n - 1,
                            names.join(", ")
                        ),
                    };
                    return Err(located(format!(
                        "{label} has no matching view parameter: {takes}"
                    )));
                }
            };
            let count = match source {
                DescriptorSource::Param(param) => {
                    decl.params[param as usize].view_slots.len() as u32
                }
                DescriptorSource::Sampler(_) => binding.count.max(1),
            };
            descriptors.push(DescriptorPlan {
                binding: binding.binding,
                kind: binding.kind,
                count,
                stages: vec![stage.stage],
                source,
                image: binding.image,
            });
        }
    }
    descriptors.sort_by_key(|d| d.binding);

    // Push constants: plain parameters packed std430 in declaration order.
    let mut push_runs = Vec::new();
    let mut packed_fields: Vec<(&str, u32, u32)> = Vec::new();
    let mut end = 0u32;
    for param in decl.params.iter().filter(|param| is_pushed(param)) {
        let (Some(align), Some(size)) = (
            std430_align(&param.value_type),
            std430_size(&param.value_type),
        ) else {
            continue;
        };
        let at = end.next_multiple_of(align);
        copy_runs(&param.value_type, param.offset, at, &mut push_runs);
        packed_fields.push((param.name.as_str(), at, size));
        end = at + size;
    }
    let packed_size = end;
    let mut push_size = 0;
    let mut push_stages = Vec::new();
    for stage in stages {
        let Some(block) = &stage.reflection.push_constants else {
            continue;
        };
        let located = |message: String| Mismatch {
            file: stage.file.to_string(),
            line: block
                .members
                .first()
                .and_then(|m| line_of(stage.source, &m.name))
                .or_else(|| line_of(stage.source, &block.name)),
            message,
        };
        let block_label = if block.name.is_empty() {
            "the push-constant block".to_string()
        } else {
            format!("the push-constant block `{}`", block.name)
        };
        if block.size > MAX_PUSH_CONSTANT_BYTES {
            return Err(located(format!(
                "{block_label} is {} bytes; shader nodes push at most {MAX_PUSH_CONSTANT_BYTES} bytes (Vulkan's guaranteed minimum): pass large data in a buffer",
                block.size
            )));
        }
        for (member, field) in block.members.iter().zip(&packed_fields) {
            let located = |message: String| Mismatch {
                file: stage.file.to_string(),
                line: line_of(stage.source, &member.name),
                message,
            };
            let names_another = packed_fields
                .iter()
                .any(|other| other.0 == member.name && other.0 != field.0);
            if names_another {
                return Err(located(format!(
                    "push-constant member `{}` is where the node packs parameter `{}` (byte {}): declare the members in the order of the node's plain parameters",
                    member.name, field.0, field.1
                )));
            }
            if member.offset != field.1 {
                let member_name = if member.name.is_empty() {
                    "a member".to_string()
                } else {
                    format!("member `{}`", member.name)
                };
                return Err(located(format!(
                    "push-constant {member_name} is at byte {} but parameter `{}` packs at byte {} (std430 layout of the node's plain parameters)",
                    member.offset, field.0, field.1
                )));
            }
        }
        if block.size > packed_size {
            let names: Vec<&str> = packed_fields.iter().map(|f| f.0).collect();
            let what = if names.is_empty() {
                "the node has no plain parameters".to_string()
            } else {
                format!(
                    "the node's plain parameters ({}) pack into {packed_size} bytes",
                    names.join(", ")
                )
            };
            return Err(located(format!(
                "{block_label} is {} bytes but {what}",
                block.size
            )));
        }
        push_size = push_size.max(block.size);
        push_stages.push(stage.stage);
    }
    push_runs.retain(|run| run.dest < push_size);
    for run in &mut push_runs {
        run.len = run.len.min(push_size - run.dest);
    }

    let local_size = stages
        .iter()
        .find(|s| s.stage == ShaderStage::Compute)
        .and_then(|s| s.reflection.entry_points.first().and_then(|e| e.local_size));
    let dispatch = if stages.iter().any(|s| s.stage == ShaderStage::Compute) {
        Some(plan_dispatch(decl, stages)?)
    } else {
        None
    };
    let count_param = |name: &str| {
        decl.param(name)
            .filter(|p| is_u32(&p.value_type))
            .map(|p| p.offset)
    };
    Ok(BindingPlan {
        descriptors,
        push_size,
        push_stages,
        push_runs,
        local_size,
        dispatch,
        draw_counts: (count_param(VERTEX_COUNT), count_param(INSTANCE_COUNT)),
    })
}

fn is_u32(ty: &ValueType) -> bool {
    matches!(ty, ValueType::Scalar(ScalarType::U32 | ScalarType::I32))
}

/// Checks a parameter against the descriptor the shader declares at its binding.
fn check_view_binding(param: &ParamDesc, kind: DescriptorKind, count: u32) -> Result<(), String> {
    let first = &param.view_slots[0];
    let texture = first.kind == ViewKind::Texture;
    if param.view_slots.iter().any(|slot| slot.kind != first.kind) {
        return Err(format!(
            "takes parameter `{}`, which mixes textures and buffers",
            param.name
        ));
    }
    let writes = first.access.writes();
    let param_kind = if texture { "texture" } else { "buffer" };
    match kind {
        DescriptorKind::SampledImage | DescriptorKind::CombinedImageSampler if texture => {
            if writes {
                return Err(format!(
                    "is {} but parameter `{}` is written: read-only views are sampled, written views need a storage image",
                    kind_name(kind),
                    param.name
                ));
            }
        }
        DescriptorKind::StorageImage if texture => {
            if !writes {
                return Err(format!(
                    "is a storage image but parameter `{}` is read-only: declare it [readwrite(cs)] or [writeonly(cs)], or sample it in the shader",
                    param.name
                ));
            }
        }
        DescriptorKind::StorageBuffer if !texture => {}
        DescriptorKind::UniformBuffer if !texture => {
            if writes {
                return Err(format!(
                    "is a uniform buffer but parameter `{}` is written",
                    param.name
                ));
            }
        }
        _ => {
            return Err(format!(
                "is {} but parameter `{}` is a {param_kind}",
                kind_name(kind),
                param.name
            ))
        }
    }
    let slots = param.view_slots.len() as u32;
    if count == 0 {
        return Err(format!(
            "is a runtime-sized array: declare its size ({slots}, the views of parameter `{}`)",
            param.name
        ));
    }
    if count != slots {
        let views = if slots == 1 {
            "1 view".to_string()
        } else {
            format!("{slots} views")
        };
        return Err(format!(
            "is an array of {count} but parameter `{}` has {views}",
            param.name
        ));
    }
    Ok(())
}

fn plan_dispatch(
    decl: &NodeDeclDesc,
    stages: &[StageInfo<'_>],
) -> Result<DispatchSource, Mismatch> {
    let components = |ty: &ValueType| match ty {
        ValueType::Scalar(ScalarType::U32 | ScalarType::I32) => Some(1),
        ValueType::Vector(ScalarType::U32 | ScalarType::I32, n @ 1..=3) => Some(*n),
        _ => None,
    };
    for (name, is_groups) in [(GROUP_COUNT, true), (THREAD_COUNT, false)] {
        if let Some(param) = decl.param(name) {
            let Some(components) = components(&param.value_type) else {
                let stage = &stages[0];
                return Err(Mismatch {
                    file: stage.file.to_string(),
                    line: None,
                    message: format!("parameter `{name}` must be a uint, uint2 or uint3"),
                });
            };
            return Ok(if is_groups {
                DispatchSource::Groups {
                    offset: param.offset,
                    components,
                }
            } else {
                DispatchSource::Threads {
                    offset: param.offset,
                    components,
                }
            });
        }
    }
    let written = |want: ViewKind| {
        decl.params.iter().position(|p| {
            !is_attachment(p)
                && p.view_slots
                    .first()
                    .is_some_and(|s| s.kind == want && s.access.writes())
        })
    };
    match written(ViewKind::Texture).or_else(|| written(ViewKind::Buffer)) {
        Some(param) => Ok(DispatchSource::View {
            param: param as u16,
        }),
        None => {
            let stage = stages
                .iter()
                .find(|s| s.stage == ShaderStage::Compute)
                .unwrap_or(&stages[0]);
            Err(Mismatch {
                file: stage.file.to_string(),
                line: None,
                message: format!(
                    "cannot size the dispatch: the node writes no texture or buffer and has no `{GROUP_COUNT}` or `{THREAD_COUNT}` parameter"
                ),
            })
        }
    }
}
