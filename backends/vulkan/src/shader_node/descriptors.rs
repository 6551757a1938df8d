//! The contents of a node call's descriptor set (each planned binding gets its parameter's
//! views, in slot order, in the layout the frame compiler put them in) and writing them.

use std::collections::HashMap;

use ash::vk;
use rpsl_runtime::Format;
use rpsl_shaders::DescriptorKind;

use super::plan::{DescriptorSource, SamplerKind};
use super::program::{descriptor_type, Program};
use super::ShaderNodeErrorKind;
use crate::node::NodeContext;
use crate::record::view_type_of;
use crate::view_cache::ObjectId;

/// One descriptor of a set: what it points at, as the node call binds it. Two calls whose
/// contents are equal can share a descriptor set (views and buffers compare by [`ObjectId`],
/// which is never reused, so a set naming a destroyed object never matches again).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Descriptor {
    /// A sampled, storage or combined image.
    Image {
        /// The view's identity.
        id: ObjectId,
        /// The view.
        view: vk::ImageView,
        /// The layout the image is in during the node.
        layout: vk::ImageLayout,
        /// The sampler of a combined image sampler (null otherwise).
        sampler: vk::Sampler,
    },
    /// A storage or uniform buffer range.
    Buffer {
        /// The buffer's identity.
        id: ObjectId,
        /// The buffer.
        buffer: vk::Buffer,
        /// Byte offset.
        offset: u64,
        /// Byte size.
        range: u64,
    },
}

/// The descriptors of one binding (an array of `descriptors.len()`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct BindingContents {
    /// The binding number.
    pub binding: u32,
    /// Its descriptor type.
    pub ty: vk::DescriptorType,
    /// Its descriptors in array order.
    pub descriptors: Vec<Descriptor>,
}

/// What a node call's descriptor set holds: each planned binding gets its parameter's views (in
/// slot order) in the layout the frame compiler put them in (sampler bindings are immutable
/// samplers of the set layout).
pub(crate) fn set_contents(
    program: &Program,
    context: &NodeContext<'_>,
    samplers: &HashMap<SamplerKind, vk::Sampler>,
) -> Result<Vec<BindingContents>, ShaderNodeErrorKind> {
    let accesses = context.graph.node_accesses(context.node);
    if accesses.len() != context.views.len() {
        return Err(ShaderNodeErrorKind::Arguments(format!(
            "{} views for {} accesses",
            context.views.len(),
            accesses.len()
        )));
    }
    let linear = samplers
        .get(&SamplerKind::LinearClamp)
        .copied()
        .unwrap_or_default();
    let mut contents = Vec::with_capacity(program.plan.descriptors.len());
    for descriptor in &program.plan.descriptors {
        let DescriptorSource::Param(param) = descriptor.source else {
            continue;
        };
        let mut slots: Vec<(u16, usize)> = context
            .views
            .iter()
            .enumerate()
            .filter(|(_, view)| view.param == param)
            .map(|(index, view)| (view.slot, index))
            .collect();
        slots.sort_unstable();
        if slots.len() as u32 != descriptor.count {
            let name = &program.decl.params[param as usize].name;
            return Err(ShaderNodeErrorKind::Arguments(format!(
                "parameter `{name}` has {} views bound but binding {} takes {}",
                slots.len(),
                descriptor.binding,
                descriptor.count
            )));
        }
        let name = &program.decl.params[param as usize].name;
        let texture = |index: usize| {
            context.views[index].texture().ok_or_else(|| {
                ShaderNodeErrorKind::Arguments(format!(
                    "binding {} is an image in the shader but parameter `{name}` is a buffer",
                    descriptor.binding
                ))
            })
        };
        if let Some(image) = descriptor.image {
            for &(_, index) in &slots {
                let resource = &context.graph.resources[accesses[index].resource.index()];
                let layers = texture(index)?.range.layer_count;
                let view = view_type_of(resource.desc.kind, layers);
                let declared = declared_view_type(image);
                if declared != Some(view) {
                    return Err(ShaderNodeErrorKind::Arguments(format!(
                        "binding {} is {} in the shader but parameter `{name}` is {} ({} layer(s)): \
                         view one layer with `.array(i)` or declare the matching image type",
                        descriptor.binding,
                        declared.map_or("an image of an unsupported type", view_type_name),
                        view_type_name(view),
                        layers
                    )));
                }
                let access = &accesses[index];
                let format = if access.view_format == Format::UNKNOWN {
                    resource.desc.format
                } else {
                    access.view_format
                };
                let declared = declared_numeric_type(image.format);
                if descriptor.kind == DescriptorKind::StorageImage
                    && declared.is_some_and(|declared| declared != numeric_type(format))
                {
                    return Err(ShaderNodeErrorKind::Arguments(format!(
                        "binding {} is a storage image of {} texels in the shader but \
                         parameter `{name}` is viewed as {format} ({} texels): view it in a \
                         matching format with `.format(...)` or declare the matching image format",
                        descriptor.binding,
                        declared.map_or("?", NumericType::name),
                        numeric_type(format).name()
                    )));
                }
            }
        }
        let descriptors = match descriptor.kind {
            DescriptorKind::StorageBuffer | DescriptorKind::UniformBuffer => slots
                .iter()
                .map(|&(_, index)| {
                    let view = &context.views[index];
                    let bytes = view.buffer().ok_or_else(|| {
                        ShaderNodeErrorKind::Arguments(format!(
                            "binding {} is a buffer in the shader but parameter `{name}` is a \
                             texture",
                            descriptor.binding
                        ))
                    })?;
                    Ok(Descriptor::Buffer {
                        id: view.id,
                        buffer: bytes.buffer,
                        offset: bytes.offset,
                        range: bytes.size.max(1),
                    })
                })
                .collect::<Result<_, _>>()?,
            _ => slots
                .iter()
                .map(|&(_, index)| {
                    let texture = texture(index)?;
                    Ok(Descriptor::Image {
                        id: context.views[index].id,
                        view: texture.image_view,
                        layout: texture.layout,
                        sampler: if descriptor.kind == DescriptorKind::CombinedImageSampler {
                            linear
                        } else {
                            vk::Sampler::null()
                        },
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        contents.push(BindingContents {
            binding: descriptor.binding,
            ty: descriptor_type(descriptor.kind),
            descriptors,
        });
    }
    Ok(contents)
}

/// The view type a shader's image declaration takes (SPIR-V `Dim` and `Arrayed`); `None` for
/// dimensions a texture view never has (buffers, subpass data, rectangles).
fn declared_view_type(image: rpsl_shaders::ImageInfo) -> Option<vk::ImageViewType> {
    Some(match (image.dim, image.arrayed) {
        (0, false) => vk::ImageViewType::TYPE_1D,
        (0, true) => vk::ImageViewType::TYPE_1D_ARRAY,
        (1, false) => vk::ImageViewType::TYPE_2D,
        (1, true) => vk::ImageViewType::TYPE_2D_ARRAY,
        (2, false) => vk::ImageViewType::TYPE_3D,
        (3, false) => vk::ImageViewType::CUBE,
        (3, true) => vk::ImageViewType::CUBE_ARRAY,
        _ => return None,
    })
}

/// What a format's texels read as in a shader.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum NumericType {
    Float,
    Sint,
    Uint,
}

impl NumericType {
    fn name(self) -> &'static str {
        match self {
            NumericType::Float => "float",
            NumericType::Sint => "signed integer",
            NumericType::Uint => "unsigned integer",
        }
    }
}

/// The numeric type of an `RPS_FORMAT`: `_UINT` / `_SINT` formats are integers, everything else
/// (UNORM, SNORM, FLOAT, sRGB, typeless realised as float) reads as float.
fn numeric_type(format: Format) -> NumericType {
    let name = format.name().unwrap_or("");
    if name.ends_with("_UINT") {
        NumericType::Uint
    } else if name.ends_with("_SINT") {
        NumericType::Sint
    } else {
        NumericType::Float
    }
}

/// The numeric type of a SPIR-V `ImageFormat` a storage image declares (`None` for `Unknown`).
fn declared_numeric_type(spirv_format: u32) -> Option<NumericType> {
    match spirv_format {
        1..=20 => Some(NumericType::Float),
        21..=29 | 41 => Some(NumericType::Sint),
        30..=40 => Some(NumericType::Uint),
        _ => None,
    }
}

/// How a message names a view type (`a 2D array image`).
fn view_type_name(view: vk::ImageViewType) -> &'static str {
    match view {
        vk::ImageViewType::TYPE_1D => "a 1D image",
        vk::ImageViewType::TYPE_1D_ARRAY => "a 1D array image",
        vk::ImageViewType::TYPE_2D => "a 2D image",
        vk::ImageViewType::TYPE_2D_ARRAY => "a 2D array image",
        vk::ImageViewType::TYPE_3D => "a 3D image",
        vk::ImageViewType::CUBE => "a cube image",
        vk::ImageViewType::CUBE_ARRAY => "a cube array image",
        _ => "an image",
    }
}

/// Writes `contents` into `set`, which no pending frame may use.
pub(crate) fn write_set(
    device: &ash::Device,
    set: vk::DescriptorSet,
    contents: &[BindingContents],
) {
    let mut image_infos: Vec<Vec<vk::DescriptorImageInfo>> = Vec::new();
    let mut buffer_infos: Vec<Vec<vk::DescriptorBufferInfo>> = Vec::new();
    for binding in contents {
        let mut images = Vec::new();
        let mut buffers = Vec::new();
        for descriptor in &binding.descriptors {
            match *descriptor {
                Descriptor::Image {
                    view,
                    layout,
                    sampler,
                    ..
                } => images.push(vk::DescriptorImageInfo {
                    sampler,
                    image_view: view,
                    image_layout: layout,
                }),
                Descriptor::Buffer {
                    buffer,
                    offset,
                    range,
                    ..
                } => buffers.push(vk::DescriptorBufferInfo {
                    buffer,
                    offset,
                    range,
                }),
            }
        }
        image_infos.push(images);
        buffer_infos.push(buffers);
    }
    let writes: Vec<vk::WriteDescriptorSet<'_>> = contents
        .iter()
        .enumerate()
        .filter(|(_, binding)| !binding.descriptors.is_empty())
        .map(|(index, binding)| {
            let write = vk::WriteDescriptorSet::default()
                .dst_set(set)
                .dst_binding(binding.binding)
                .descriptor_type(binding.ty);
            if buffer_infos[index].is_empty() {
                write.image_info(&image_infos[index])
            } else {
                write.buffer_info(&buffer_infos[index])
            }
        })
        .collect();
    if !writes.is_empty() {
        // SAFETY: the caller guarantees no pending frame uses the set; the views and buffers
        // are live.
        unsafe { device.update_descriptor_sets(&writes, &[]) };
    }
}
