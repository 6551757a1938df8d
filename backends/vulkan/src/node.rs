//! The Rust callback API of node implementations: a [`NodeContext`] with the command buffer,
//! the node's resolved views and buffers (with identities that stay the same across frames
//! while the objects live, and the layout each image is in), its arguments (raw, or by name
//! and type through [`NodeArgs`]) and its render pass.

use ash::vk;
use rpsl_runtime::{
    ArgField, FromArgBytes, NodeArgError, NodeArgs, NodeDeclDesc, NodeId, RecordedGraph,
    RenderPass, ValueType,
};

use crate::context::{Context, EnabledFeatures};
use crate::resources::{GpuObject, GpuResource};
use crate::view_cache::{ObjectCounter, ObjectCounts, ObjectId};

/// One view argument of a node, resolved to Vulkan objects: the subresources of a texture or
/// the bytes of a buffer ([`BoundResource`]).
///
/// ```
/// # use rpsl_vulkan::{BoundResource, BoundView};
/// /// What a callback records for one of its views.
/// fn describe(view: &BoundView) -> String {
///     match &view.resource {
///         BoundResource::Texture(texture) => {
///             format!("mips from {}", texture.range.base_mip_level)
///         }
///         BoundResource::Buffer(buffer) => format!("{} bytes at {}", buffer.size, buffer.offset),
///     }
/// }
/// // Or, where the parameter's type fixes the kind:
/// fn storage_bytes(view: &BoundView) -> Result<u64, String> {
///     let buffer = view.buffer().ok_or("parameter 0 must be a buffer")?;
///     Ok(buffer.size)
/// }
/// ```
#[derive(Copy, Clone, Debug)]
pub struct BoundView {
    /// Parameter index in the declaration.
    pub param: u16,
    /// Slot within the parameter (array element).
    pub slot: u16,
    /// The texture subresources or buffer bytes the view covers.
    pub resource: BoundResource,
    /// The identity of the image view (textures) or the buffer (buffers): the same in every
    /// frame while the object lives, never reused after it is destroyed. Caches of objects
    /// made from views (descriptor sets) key on it rather than on Vulkan handles, which may be
    /// reused.
    pub id: ObjectId,
}

/// What a [`BoundView`] names: a texture's subresources or a buffer's bytes.
#[derive(Copy, Clone, Debug)]
pub enum BoundResource {
    /// A view of a texture.
    Texture(BoundTexture),
    /// A view of a buffer.
    Buffer(BoundBuffer),
}

/// The texture side of a [`BoundView`].
#[derive(Copy, Clone, Debug)]
pub struct BoundTexture {
    /// The image.
    pub image: vk::Image,
    /// An image view of exactly the accessed subresources.
    pub image_view: vk::ImageView,
    /// The image's subresources (temporal slice folded into the layers).
    pub range: vk::ImageSubresourceRange,
    /// The layout the subresources are in while the node runs, as the frame's barriers left
    /// them (the barrier planner's own table): `COLOR_ATTACHMENT_OPTIMAL` for a render target,
    /// `GENERAL` for a shader write, `SHADER_READ_ONLY_OPTIMAL` for a sampled read,
    /// `TRANSFER_DST_OPTIMAL` for a copy destination, ... Two accesses of the node to the same
    /// subresources share the layout that serves both. For a depth/stencil view: the depth
    /// plane's (the stencil plane's for a stencil-only view).
    pub layout: vk::ImageLayout,
    /// The stencil plane's layout when the view covers the stencil aspect (`None` otherwise).
    pub stencil_layout: Option<vk::ImageLayout>,
}

/// The buffer side of a [`BoundView`].
#[derive(Copy, Clone, Debug)]
pub struct BoundBuffer {
    /// The buffer.
    pub buffer: vk::Buffer,
    /// Byte offset of the view.
    pub offset: u64,
    /// Byte size of the view.
    pub size: u64,
}

impl BoundView {
    /// The texture the view names, `None` for a buffer view.
    pub fn texture(&self) -> Option<&BoundTexture> {
        match &self.resource {
            BoundResource::Texture(texture) => Some(texture),
            BoundResource::Buffer(_) => None,
        }
    }

    /// The buffer the view names, `None` for a texture view.
    pub fn buffer(&self) -> Option<&BoundBuffer> {
        match &self.resource {
            BoundResource::Buffer(buffer) => Some(buffer),
            BoundResource::Texture(_) => None,
        }
    }
}

/// What a node implementation gets while its commands are recorded.
pub struct NodeContext<'a> {
    /// The device.
    pub device: &'a ash::Device,
    /// The command buffer (inside the node's render pass when it has one).
    pub command_buffer: vk::CommandBuffer,
    /// The node.
    pub node: NodeId,
    /// The recorded graph of the frame.
    pub graph: &'a RecordedGraph,
    /// The node's argument block (laid out as its declaration's params say).
    pub args: &'a [u8],
    /// The node's view arguments, in access order.
    pub views: &'a [BoundView],
    /// The render pass the node runs in, if any.
    pub render_pass: Option<&'a RenderPass>,
    /// The backend's object counts, which implementations add what they make to.
    pub counter: &'a ObjectCounter,
    /// The optional features the device was created with.
    pub features: &'a EnabledFeatures,
    /// VK_EXT_debug_utils, when enabled: name what you create with [`NodeContext::name`].
    pub debug_utils: Option<&'a ash::ext::debug_utils::Device>,
    /// Where [`NodeContext::host_buffer`] makes its buffers.
    pub(crate) host_buffers: HostBuffers<'a>,
}

/// The frame slot's scratch, where [`NodeContext::host_buffer`] puts the buffers it makes: they
/// are freed when the slot is reused, once the frame's work completed.
pub(crate) struct HostBuffers<'a> {
    /// The context the buffers are made with.
    pub context: &'a Context,
    /// The backend's allocator.
    pub allocator: &'a mut gpu_allocator::vulkan::Allocator,
    /// The frame slot's scratch resources.
    pub scratch: &'a mut Vec<GpuResource>,
}

impl<'a> NodeContext<'a> {
    /// The views of parameter `param`, in slot order.
    pub fn param_views(&self, param: u16) -> impl Iterator<Item = &BoundView> {
        self.views.iter().filter(move |view| view.param == param)
    }

    /// The node's declaration.
    pub fn decl(&self) -> &'a NodeDeclDesc {
        self.graph.decl_of(self.node)
    }

    /// The node's arguments, read by name and type ([`NodeArgs`]).
    pub fn node_args(&self) -> NodeArgs<'a> {
        NodeArgs::new(self.decl(), self.args)
    }

    /// Argument `name` (a parameter, `light.color`, `weights[2]`) as a `T`: `f32`, `[f32; 4]`
    /// for a `float4`, `[[f32; 4]; 4]` for a `float4x4` (see [`NodeArgs::get`]). An error
    /// names the argument, its declared type and `T`; `?` in a callback turns it into the
    /// node's error message.
    ///
    /// ```
    /// # use rpsl_vulkan::NodeContext;
    /// fn blur(context: &mut NodeContext<'_>) -> Result<(), String> {
    ///     let radius = context.arg::<u32>("radius")?;
    ///     let tint = context.arg::<[f32; 4]>("params.tint")?;
    ///     let _ = (radius, tint); // ... record commands with them
    ///     Ok(())
    /// }
    /// ```
    pub fn arg<T: FromArgBytes>(&self, name: &str) -> Result<T, NodeArgError> {
        self.node_args().get(name)
    }

    /// The view argument `name`: a `texture` or `buffer` parameter, an element of an array of
    /// views (`srcs[1]`) or a view in a struct (`gbuf.albedo`). An error when the name is
    /// unknown, names no single view, or the view is null.
    ///
    /// ```
    /// # use rpsl_vulkan::NodeContext;
    /// fn target_layout(context: &NodeContext<'_>) -> Result<String, String> {
    ///     let target = context.view("dst")?;
    ///     let texture = target.texture().ok_or("`dst` is a texture")?;
    ///     Ok(format!("{:?} over {} layers", texture.layout, texture.range.layer_count))
    /// }
    /// ```
    pub fn view(&self, name: &str) -> Result<&'a BoundView, NodeArgError> {
        let args = self.node_args();
        let field = args.field(name)?;
        let decl = args.decl();
        if !matches!(field.value_type, ValueType::Texture | ValueType::Buffer) {
            let holds = if field.value_type.has_views() {
                format!(
                    "which holds several views: take them with `views_of(\"{name}\")` or name \
                     one of them"
                )
            } else {
                "not a view".to_string()
            };
            return Err(NodeArgError {
                message: format!(
                    "`{name}` of node `{}` is `{}`, {holds}",
                    decl.name, field.value_type
                ),
            });
        }
        match self.slot_views(&field).next() {
            Some(Some(view)) => Ok(view),
            _ => Err(NodeArgError {
                message: format!(
                    "`{name}` of node `{}` is a null {}: no resource is bound to it",
                    decl.name, field.value_type
                ),
            }),
        }
    }

    /// Every view inside argument `name` (an array of views, a struct holding views, or one
    /// view), one entry per view in declaration order: `None` where the script passed a null
    /// view.
    ///
    /// ```
    /// # use rpsl_vulkan::NodeContext;
    /// fn bound_sources(context: &NodeContext<'_>) -> Result<usize, String> {
    ///     Ok(context.views_of("srcs")?.into_iter().flatten().count())
    /// }
    /// ```
    pub fn views_of(&self, name: &str) -> Result<Vec<Option<&'a BoundView>>, NodeArgError> {
        let args = self.node_args();
        let field = args.field(name)?;
        if !field.value_type.has_views() {
            return Err(NodeArgError {
                message: format!(
                    "`{name}` of node `{}` is `{}`, which holds no views",
                    args.decl().name,
                    field.value_type
                ),
            });
        }
        Ok(self.slot_views(&field).collect())
    }

    /// The view slots of the declaration inside `field`, in slot order, each with its bound
    /// view (`None`: null).
    fn slot_views(&self, field: &ArgField<'_>) -> impl Iterator<Item = Option<&'a BoundView>> + '_ {
        let param = &self.decl().params[field.param];
        let start = field.offset - param.offset;
        let end = start + field.size;
        let param_index = field.param;
        let views = self.views;
        param
            .view_slots
            .iter()
            .enumerate()
            .filter(move |(_, slot)| (start..end).contains(&slot.offset))
            .map(move |(index, _)| {
                views
                    .iter()
                    .find(|view| view.param as usize == param_index && view.slot as usize == index)
            })
    }

    /// Gives a Vulkan object made for this node a debug name, shown by validation messages and
    /// tools (no-op without VK_EXT_debug_utils).
    pub fn name<H: vk::Handle>(&self, handle: H, name: &str) {
        crate::context::name_object(self.debug_utils, handle, name);
    }

    /// A buffer holding `bytes` in host-visible memory, for the transfer commands this node
    /// records to read (the source of a `vkCmdCopyBufferToImage` of texels the host made). The
    /// host wrote them before the frame is submitted, so they are visible to its commands with
    /// no barrier. The buffer lives until the frame's work completed (its frame slot is reused),
    /// then it is freed: no later frame may read it. An error names `label`.
    ///
    /// ```
    /// # use rpsl_vulkan::NodeContext;
    /// fn stage(context: &mut NodeContext<'_>) -> Result<(), String> {
    ///     let staging = context.host_buffer("texels", &[255, 0, 0, 255])?;
    ///     let _ = staging; // ... record a copy from it
    ///     Ok(())
    /// }
    /// ```
    pub fn host_buffer(&mut self, label: &str, bytes: &[u8]) -> Result<vk::Buffer, String> {
        if bytes.is_empty() {
            return Err(format!("{label}: a host buffer needs at least one byte"));
        }
        let sink = &mut self.host_buffers;
        let (resource, buffer) = crate::buffer_clear::create_pattern_buffer(
            sink.context,
            sink.allocator,
            label,
            bytes.len() as u64,
            bytes,
        )
        .map_err(|error| error.to_string())?;
        sink.scratch.push(resource);
        Ok(buffer)
    }

    /// Adds to the backend's object counts ([`crate::VulkanBackend::object_counts`]).
    pub fn count(&self, change: impl FnOnce(&mut ObjectCounts)) {
        let mut counts = self.counter.get();
        change(&mut counts);
        self.counter.set(counts);
    }
}

/// A node implementation; an `Err` message fails the frame with [`rpsl_runtime::BackendError::Node`].
/// `Send`, so that the backend holding it can move to an engine's render thread.
pub type NodeCallback = dyn FnMut(&mut NodeContext<'_>) -> Result<(), String> + Send;

#[path = "node_layout.rs"]
mod layout;

/// Resolves the view arguments of a node to Vulkan objects (image views come from the
/// backend's view cache and live as long as their images), each image with the layout it is in
/// during the node.
pub(crate) fn bind_node_views(
    recorder: &mut crate::record::FrameRecorder<'_>,
    node: NodeId,
) -> Result<Vec<BoundView>, rpsl_runtime::BackendError> {
    let graph = recorder.graph;
    let start = graph.nodes[node.index()].accesses.start;
    let queue = graph.decl_of(node).queue;
    let accesses = graph.node_accesses(node);
    let mut views = Vec::new();
    for (offset, access) in accesses.iter().enumerate() {
        let handle = recorder.handle(access.resource)?;
        let region = crate::record::access_region(access, &handle.desc);
        let (resource, id) = match handle.object {
            GpuObject::Image(image) => {
                let (image_view, id) = recorder.view_with_id(start + offset as u32, false)?;
                let (layout, stencil_layout) =
                    layout::layouts_during_node(graph, queue, accesses, offset);
                let texture = BoundTexture {
                    image,
                    image_view,
                    range: region.range,
                    layout,
                    stencil_layout,
                };
                (BoundResource::Texture(texture), id)
            }
            GpuObject::Buffer(buffer) => {
                let bytes = BoundBuffer {
                    buffer,
                    offset: region.offset,
                    size: region.size,
                };
                let id = recorder.view_cache.buffer_id(buffer);
                (BoundResource::Buffer(bytes), id)
            }
        };
        views.push(BoundView {
            param: access.param,
            slot: access.slot,
            resource,
            id,
        });
    }
    Ok(views)
}

#[cfg(test)]
mod tests {
    use super::{BoundBuffer, BoundResource, BoundTexture, BoundView};
    use crate::view_cache::ObjectId;
    use ash::vk::{self, Handle};

    fn bound(resource: BoundResource) -> BoundView {
        BoundView {
            param: 0,
            slot: 0,
            resource,
            id: ObjectId(7),
        }
    }

    #[test]
    fn a_bound_view_gives_only_the_side_of_its_kind() {
        let texture = BoundTexture {
            image: vk::Image::from_raw(0x11),
            image_view: vk::ImageView::from_raw(0x12),
            range: vk::ImageSubresourceRange {
                aspect_mask: vk::ImageAspectFlags::COLOR,
                base_mip_level: 1,
                level_count: 2,
                base_array_layer: 0,
                layer_count: 1,
            },
            layout: vk::ImageLayout::GENERAL,
            stencil_layout: None,
        };
        let bytes = BoundBuffer {
            buffer: vk::Buffer::from_raw(0x22),
            offset: 16,
            size: 64,
        };
        let texture_view = bound(BoundResource::Texture(texture));
        let buffer_view = bound(BoundResource::Buffer(bytes));
        let got = texture_view.texture().map(|t| {
            (
                t.image,
                t.image_view,
                t.range.base_mip_level,
                t.range.level_count,
            )
        });
        assert_eq!(got, Some((texture.image, texture.image_view, 1, 2)));
        assert!(texture_view.buffer().is_none());
        let got = buffer_view.buffer().map(|b| (b.buffer, b.offset, b.size));
        assert_eq!(got, Some((bytes.buffer, 16, 64)));
        assert!(buffer_view.texture().is_none());
    }
}
