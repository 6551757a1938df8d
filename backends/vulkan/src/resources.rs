//! Vulkan images and buffers of a frame's resources: usage flags from the union of accesses,
//! transient heaps with resources placed at the compiler's offsets (one gpu-allocator allocation
//! per heap), and outliving (external, persistent, temporal) resources kept across frames.

use crate::context::{vk_error, Context};
use crate::format::{full_aspect, vk_format};
use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme, Allocator};
use gpu_allocator::MemoryLocation;
use rpsl_runtime::{
    AccessFlags, AccessRecord, BackendError, CompiledFrame, Format, RecordedGraph, ResourceDesc,
    ResourceKind,
};

/// The Vulkan object of a resource: textures are images, buffers are buffers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GpuObject {
    /// The image of a texture.
    Image(vk::Image),
    /// The buffer of a buffer resource.
    Buffer(vk::Buffer),
}

impl GpuObject {
    /// The image, if it is one.
    pub fn image(self) -> Option<vk::Image> {
        match self {
            GpuObject::Image(image) => Some(image),
            GpuObject::Buffer(_) => None,
        }
    }

    /// The buffer, if it is one.
    pub fn buffer(self) -> Option<vk::Buffer> {
        match self {
            GpuObject::Buffer(buffer) => Some(buffer),
            GpuObject::Image(_) => None,
        }
    }
}

/// A Vulkan image or buffer of one resource, with the memory it owns.
///
/// Lifetime: [`GpuResource::destroy`] is `unsafe` (the GPU must be done with it). Resources of
/// one frame slot (transients, scratch) are destroyed by [`crate::slots::FrameSlot`] once the
/// slot's fence has signalled; resources that outlive frames (external, persistent) after the
/// backend waited for every slot.
#[derive(Debug)]
pub struct GpuResource {
    /// The description it was created for.
    pub desc: ResourceDesc,
    /// The image or buffer.
    pub object: GpuObject,
    /// Its Vulkan format (`UNDEFINED` for buffers).
    pub format: vk::Format,
    /// The `RPS_FORMAT` the image really has: `desc.format`, except for typeless formats
    /// resolved by usage (`R32_TYPELESS` as `D32_FLOAT` when it is a depth target, ...).
    pub real_format: rpsl_runtime::Format,
    /// Byte size of a buffer (all temporal slices).
    pub size: u64,
    /// The usage the image was created with (empty for buffers).
    pub usage: vk::ImageUsageFlags,
    /// Its own memory (`None` when placed in a transient heap).
    pub allocation: Option<Allocation>,
}

pub(crate) fn map_alloc_error(what: &str, error: gpu_allocator::AllocationError) -> BackendError {
    match error {
        gpu_allocator::AllocationError::OutOfMemory => {
            BackendError::OutOfMemory(format!("{what}: out of device memory"))
        }
        other => BackendError::Api(format!("{what}: {other}")),
    }
}

/// Usage flags of an image from the access flags of its accesses.
pub fn image_usage(flags: AccessFlags, writes: bool) -> vk::ImageUsageFlags {
    let mut usage = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
    if flags.contains(AccessFlags::RENDER_TARGET) {
        usage |= vk::ImageUsageFlags::COLOR_ATTACHMENT;
    }
    if flags.intersects(AccessFlags::DEPTH | AccessFlags::STENCIL) {
        usage |= vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT;
    }
    let shader = AccessFlags::VS
        | AccessFlags::PS
        | AccessFlags::CS
        | AccessFlags::GS
        | AccessFlags::HS
        | AccessFlags::DS
        | AccessFlags::TS
        | AccessFlags::MS
        | AccessFlags::RAYTRACING;
    // The min/max resolve reads the source in a compute shader and stores the destination.
    if flags.contains(AccessFlags::RESOLVE) {
        usage |= if writes {
            vk::ImageUsageFlags::STORAGE
        } else {
            vk::ImageUsageFlags::SAMPLED
        };
    }
    if flags.intersects(shader) {
        usage |= if writes {
            vk::ImageUsageFlags::STORAGE
        } else {
            vk::ImageUsageFlags::SAMPLED
        };
    }
    usage
}

/// Usage flags of every resource of the graph: the union over its accesses (images), or every
/// buffer usage (buffers have no format restrictions).
///
/// Resolves of depth/stencil formats are render-pass resolves (the source and the destination
/// are attachments) or, where the device's resolve modes fall short, a fragment shader that
/// samples the source and writes the destination as an attachment: neither uses storage images,
/// which depth formats do not support.
pub fn usage_per_resource(graph: &RecordedGraph) -> Vec<vk::ImageUsageFlags> {
    let mut usage = vec![vk::ImageUsageFlags::empty(); graph.resources.len()];
    for access in &graph.accesses {
        let depth_format = graph
            .resources
            .get(access.resource.index())
            .is_some_and(|record| record.desc.format.is_depth_stencil());
        usage[access.resource.index()] |= access_usage(access, depth_format);
    }
    usage
}

/// The image usage one access needs; `depth_format`: its resource has a depth/stencil format.
pub fn access_usage(access: &AccessRecord, depth_format: bool) -> vk::ImageUsageFlags {
    let flags = access.access.flags;
    let writes = access.access.mode.writes();
    if depth_format && flags.contains(AccessFlags::RESOLVE) {
        let others = image_usage(AccessFlags(flags.0 & !AccessFlags::RESOLVE.0), writes);
        let resolve = if writes {
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
        } else {
            vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT | vk::ImageUsageFlags::SAMPLED
        };
        others | resolve
    } else {
        image_usage(flags, writes)
    }
}

/// Every usage the format supports, for resources that outlive the frame (later frames may use
/// them differently).
pub fn supported_usage(
    context: &Context,
    desc: &ResourceDesc,
    format: vk::Format,
) -> vk::ImageUsageFlags {
    let usage = format_usage(context, format);
    if desc.sample_count > 1 {
        usage & !vk::ImageUsageFlags::STORAGE
    } else {
        usage
    }
}

/// The image usages the device supports for optimal-tiling images (and views) of `format`.
pub fn format_usage(context: &Context, format: vk::Format) -> vk::ImageUsageFlags {
    // SAFETY: plain query on a live physical device.
    let properties = unsafe {
        context
            .instance
            .get_physical_device_format_properties(context.physical, format)
    };
    let features = properties.optimal_tiling_features;
    let mut usage = vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST;
    if features.contains(vk::FormatFeatureFlags::COLOR_ATTACHMENT) {
        usage |= vk::ImageUsageFlags::COLOR_ATTACHMENT;
    }
    if features.contains(vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT) {
        usage |= vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT;
    }
    if features.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE) {
        usage |= vk::ImageUsageFlags::SAMPLED;
    }
    if features.contains(vk::FormatFeatureFlags::STORAGE_IMAGE) {
        usage |= vk::ImageUsageFlags::STORAGE;
    }
    usage
}

/// The format a typeless single-channel format takes: its depth format when the resource is a
/// depth target (Vulkan has no typeless formats), else its float/unorm colour format.
pub fn resolve_typeless(format: Format, usage: vk::ImageUsageFlags) -> Format {
    let depth = usage.contains(vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT);
    match (format.0, depth) {
        (39, true) => Format::D32_FLOAT,
        (39, false) => Format::R32_FLOAT,
        (53, true) => Format::D16_UNORM,
        (53, false) => Format(56),
        _ => format,
    }
}

/// A resource's description with the format its image really has.
pub fn real_desc(resource: &GpuResource) -> ResourceDesc {
    ResourceDesc {
        format: resource.real_format,
        ..resource.desc
    }
}

/// Refuses a buffer of `size` bytes (all temporal slices) past the device's `maxBufferSize`
/// or `maxMemoryAllocationSize` (the buffer needs one allocation at least that large), naming
/// the limit and both numbers:
/// ``buffer `big` of 5368709120 bytes exceeds the device's maxBufferSize (4294967296 bytes)``.
pub(crate) fn check_buffer_size(
    context: &Context,
    size: u64,
    name: &str,
) -> Result<(), BackendError> {
    let limits = context.size_limits;
    for (limit, value) in [
        ("maxBufferSize", limits.max_buffer_size),
        ("maxMemoryAllocationSize", limits.max_memory_allocation_size),
    ] {
        if size > value {
            return Err(BackendError::Unsupported(format!(
                "buffer `{name}` of {size} bytes exceeds the device's {limit} ({value} bytes)"
            )));
        }
    }
    Ok(())
}

/// Creates the image or buffer of `desc` without memory.
pub fn create_unbound(
    context: &Context,
    desc: &ResourceDesc,
    usage: vk::ImageUsageFlags,
    name: &str,
) -> Result<GpuResource, BackendError> {
    let temporal = desc.temporal_layers.max(1);
    let device = &context.device;
    if desc.kind == ResourceKind::Buffer {
        let size = desc.width.max(4).saturating_mul(temporal as u64);
        check_buffer_size(context, size, name)?;
        let mut info = vk::BufferCreateInfo::default().size(size).usage(
            vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST
                | vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::UNIFORM_BUFFER
                | vk::BufferUsageFlags::VERTEX_BUFFER
                | vk::BufferUsageFlags::INDEX_BUFFER
                | vk::BufferUsageFlags::INDIRECT_BUFFER,
        );
        if context.concurrent_families.len() > 1 {
            info = info
                .sharing_mode(vk::SharingMode::CONCURRENT)
                .queue_family_indices(&context.concurrent_families);
        }
        // SAFETY: valid create info on a live device.
        let buffer = unsafe { device.create_buffer(&info, None) }
            .map_err(|r| vk_error("vkCreateBuffer", r))?;
        context.name(buffer, name);
        return Ok(GpuResource::new(
            desc,
            GpuObject::Buffer(buffer),
            vk::Format::UNDEFINED,
            desc.format,
            size,
            vk::ImageUsageFlags::empty(),
        ));
    }
    let real_format = resolve_typeless(desc.format, usage);
    let format = vk_format(real_format).ok_or_else(|| {
        BackendError::Unsupported(format!(
            "format {} of `{name}`",
            desc.format.name().unwrap_or("?")
        ))
    })?;
    let layers = desc.array_layers() * temporal;
    if desc.kind == ResourceKind::Tex3d && temporal > 1 {
        // TODO: temporal 3-D textures (one image per slice).
        return Err(BackendError::Unsupported(format!(
            "temporal 3-D texture `{name}`"
        )));
    }
    let (image_type, extent) = match desc.kind {
        ResourceKind::Tex1d => (vk::ImageType::TYPE_1D, (desc.width as u32, 1, 1)),
        ResourceKind::Tex3d => (
            vk::ImageType::TYPE_3D,
            (desc.width as u32, desc.height, desc.depth()),
        ),
        _ => (vk::ImageType::TYPE_2D, (desc.width as u32, desc.height, 1)),
    };
    let mut flags = vk::ImageCreateFlags::empty();
    if desc
        .flags
        .contains(rpsl_runtime::ResourceFlags::CUBEMAP_COMPATIBLE)
    {
        flags |= vk::ImageCreateFlags::CUBE_COMPATIBLE;
    }
    // Views may reinterpret colour images in another format of the same class (`.format()`).
    // TODO: only for resources whose accesses use another view format (compression on some GPUs).
    if !real_format.is_depth_stencil() {
        flags |= vk::ImageCreateFlags::MUTABLE_FORMAT;
    }
    // Drop the speculative shader usages (resolve sources and targets) the format lacks.
    // SAFETY: plain query on a live physical device.
    let features = unsafe {
        context
            .instance
            .get_physical_device_format_properties(context.physical, format)
    }
    .optimal_tiling_features;
    let mut usage = usage;
    if !features.contains(vk::FormatFeatureFlags::STORAGE_IMAGE) || desc.sample_count > 1 {
        usage &= !vk::ImageUsageFlags::STORAGE;
    }
    if !features.contains(vk::FormatFeatureFlags::SAMPLED_IMAGE) {
        usage &= !vk::ImageUsageFlags::SAMPLED;
    }
    let usage = if real_format.is_depth_stencil() {
        usage & !vk::ImageUsageFlags::COLOR_ATTACHMENT
    } else {
        usage & !vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
    };
    let mut info = vk::ImageCreateInfo::default()
        .flags(flags)
        .image_type(image_type)
        .format(format)
        .extent(vk::Extent3D {
            width: extent.0,
            height: extent.1,
            depth: extent.2,
        })
        .mip_levels(desc.mip_levels.max(1))
        .array_layers(layers)
        .samples(context.sample_count(desc.sample_count))
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(usage)
        .initial_layout(vk::ImageLayout::UNDEFINED);
    // Several queue families use resources without ownership transfers.
    if context.concurrent_families.len() > 1 {
        info = info
            .sharing_mode(vk::SharingMode::CONCURRENT)
            .queue_family_indices(&context.concurrent_families);
    }
    // SAFETY: valid create info on a live device.
    let image = unsafe { device.create_image(&info, None) }.map_err(|r| {
        let error = vk_error("vkCreateImage", r);
        match error {
            BackendError::MissingFeature(message) => {
                BackendError::MissingFeature(format!("{message} for `{name}` ({format:?})"))
            }
            other => other,
        }
    })?;
    context.name(image, name);
    Ok(GpuResource::new(
        desc,
        GpuObject::Image(image),
        format,
        real_format,
        0,
        usage,
    ))
}

impl GpuResource {
    /// A resource of the application's `object` (an imported image or buffer): it has no
    /// memory of rpsl's and is never passed to [`GpuResource::destroy`].
    pub(crate) fn of_application(
        desc: &ResourceDesc,
        object: GpuObject,
        usage: vk::ImageUsageFlags,
    ) -> Result<GpuResource, BackendError> {
        if let GpuObject::Buffer(_) = object {
            let size = desc
                .width
                .saturating_mul(desc.temporal_layers.max(1) as u64);
            return Ok(GpuResource::new(
                desc,
                object,
                vk::Format::UNDEFINED,
                desc.format,
                size,
                vk::ImageUsageFlags::empty(),
            ));
        }
        let real_format = resolve_typeless(desc.format, usage);
        let format = vk_format(real_format).ok_or_else(|| {
            BackendError::Unsupported(format!(
                "format {} has no Vulkan format",
                desc.format.name().unwrap_or("?")
            ))
        })?;
        Ok(GpuResource::new(
            desc,
            object,
            format,
            real_format,
            0,
            usage,
        ))
    }

    /// A resource of `object` without memory.
    fn new(
        desc: &ResourceDesc,
        object: GpuObject,
        format: vk::Format,
        real_format: Format,
        size: u64,
        usage: vk::ImageUsageFlags,
    ) -> GpuResource {
        GpuResource {
            desc: *desc,
            object,
            format,
            real_format,
            size,
            usage,
            allocation: None,
        }
    }

    /// Memory requirements of the image or buffer.
    pub fn requirements(&self, context: &Context) -> vk::MemoryRequirements {
        // SAFETY: the handle is a live object of this device (destroying it consumes `self`).
        unsafe {
            match self.object {
                GpuObject::Image(image) => context.device.get_image_memory_requirements(image),
                GpuObject::Buffer(buffer) => context.device.get_buffer_memory_requirements(buffer),
            }
        }
    }

    /// Binds it at `offset` of `memory`.
    pub fn bind(
        &self,
        context: &Context,
        memory: vk::DeviceMemory,
        offset: u64,
    ) -> Result<(), BackendError> {
        // SAFETY: the resource is unbound; the caller checked size and alignment.
        unsafe {
            match self.object {
                GpuObject::Image(image) => context.device.bind_image_memory(image, memory, offset),
                GpuObject::Buffer(buffer) => {
                    context.device.bind_buffer_memory(buffer, memory, offset)
                }
            }
        }
        .map_err(|r| vk_error("vkBind*Memory", r))
    }

    /// Gives it its own GPU-only allocation. When binding fails the allocation is freed again
    /// (the resource stays unbound, and the caller still owns it).
    pub fn allocate_own(
        &mut self,
        context: &Context,
        allocator: &mut Allocator,
        name: &str,
    ) -> Result<(), BackendError> {
        let requirements = self.requirements(context);
        let allocation = allocator
            .allocate(&AllocationCreateDesc {
                name,
                requirements,
                location: MemoryLocation::GpuOnly,
                linear: matches!(self.object, GpuObject::Buffer(_)),
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            })
            .map_err(|e| map_alloc_error(name, e))?;
        let allocation = bind_or_free(
            allocation,
            // SAFETY: the allocation is live; gpu-allocator's offsets honour the requirements.
            |allocation| self.bind(context, unsafe { allocation.memory() }, allocation.offset()),
            |allocation| {
                let _ = allocator.free(allocation);
            },
        )?;
        self.allocation = Some(allocation);
        Ok(())
    }

    /// The aspect of the whole image.
    pub fn aspect(&self) -> vk::ImageAspectFlags {
        full_aspect(self.real_format)
    }

    /// Destroys it and frees its memory.
    ///
    /// # Safety
    ///
    /// No GPU work that uses it is pending or will be submitted: every command buffer that
    /// recorded it has completed (the fences of the frame slots whose frames used it were
    /// waited for, or the device was idle) or was never submitted. Its image views were
    /// forgotten first ([`crate::view_cache::ViewCache::forget`]). `allocator` made its memory.
    pub unsafe fn destroy(mut self, context: &Context, allocator: &mut Allocator) {
        // SAFETY: the caller guarantees the GPU is done with the object.
        unsafe {
            match self.object {
                GpuObject::Image(image) => context.device.destroy_image(image, None),
                GpuObject::Buffer(buffer) => context.device.destroy_buffer(buffer, None),
            }
        }
        if let Some(allocation) = self.allocation.take() {
            let _ = allocator.free(allocation);
        }
    }
}

/// Creates the image or buffer of `desc` with its own GPU-only memory; on failure nothing is
/// left behind.
pub fn create_with_own_memory(
    context: &Context,
    allocator: &mut Allocator,
    desc: &ResourceDesc,
    usage: vk::ImageUsageFlags,
    name: &str,
) -> Result<GpuResource, BackendError> {
    let mut resource = create_unbound(context, desc, usage, name)?;
    if let Err(error) = resource.allocate_own(context, allocator, name) {
        // SAFETY: the resource was just created and never recorded; it has no views.
        unsafe { resource.destroy(context, allocator) };
        return Err(error);
    }
    Ok(resource)
}

/// Binds `allocation` with `bind`; when binding fails, hands the allocation to `free` before
/// returning the error, so that no error path leaks memory. Returns the bound allocation.
///
/// ```ignore
/// let bound = bind_or_free(allocation, |a| bind(a), |a| allocator.free(a));
/// ```
pub(crate) fn bind_or_free<A, E>(
    allocation: A,
    bind: impl FnOnce(&A) -> Result<(), E>,
    free: impl FnOnce(A),
) -> Result<A, E> {
    match bind(&allocation) {
        Ok(()) => Ok(allocation),
        Err(error) => {
            free(allocation);
            Err(error)
        }
    }
}

/// A transient heap: one allocation holding placed resources.
pub struct TransientHeap {
    /// The allocation.
    pub allocation: Allocation,
}

/// Allocates one heap for the placed resources (`(resource, offset, size)` as planned) and
/// binds each at its offset. Resources whose real requirements do not fit their planned slot
/// (size, alignment or memory type) get their own memory instead, and so do all of them when
/// the heap would pass the device's `maxMemoryAllocationSize`; returns how many did.
pub fn place_transients(
    context: &Context,
    allocator: &mut Allocator,
    resources: &mut [Option<GpuResource>],
    planned: &[(usize, u64, u64)],
) -> Result<(Option<TransientHeap>, u32), BackendError> {
    let mut type_bits = u32::MAX;
    let mut heap_size = 0u64;
    let mut fitting = Vec::new();
    let mut fallback = Vec::new();
    for &(index, offset, size) in planned {
        let Some(resource) = resources[index].as_ref() else {
            continue;
        };
        let requirements = resource.requirements(context);
        let fits = requirements.size <= size
            && offset % requirements.alignment.max(1) == 0
            && type_bits & requirements.memory_type_bits != 0;
        if fits {
            type_bits &= requirements.memory_type_bits;
            heap_size = heap_size.max(offset + size);
            fitting.push((index, offset));
        } else {
            fallback.push(index);
        }
    }
    // One allocation larger than the device allows: every resource gets its own memory (each
    // passed `check_buffer_size` or is an image the device created), without aliasing.
    if heap_size > context.size_limits.max_memory_allocation_size {
        fallback.extend(fitting.drain(..).map(|(index, _)| index));
    }
    for &index in &fallback {
        if let Some(resource) = resources[index].as_mut() {
            resource.allocate_own(context, allocator, "transient (unplaced)")?;
        }
    }
    if fitting.is_empty() {
        return Ok((None, fallback.len() as u32));
    }
    let allocation = allocator
        .allocate(&AllocationCreateDesc {
            name: "transient heap",
            requirements: vk::MemoryRequirements {
                size: heap_size,
                alignment: rpsl_runtime::ALLOCATION_ALIGNMENT,
                memory_type_bits: type_bits,
            },
            location: MemoryLocation::GpuOnly,
            linear: false,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        })
        .map_err(|e| map_alloc_error("transient heap", e))?;
    // SAFETY: the allocation is live.
    let memory = unsafe { allocation.memory() };
    context.name(memory, "rpsl transient heap");
    // A failed bind frees the heap (the resources bound before it are destroyed with the
    // frame slot's transients, which never use it).
    let allocation = bind_or_free(
        allocation,
        |allocation| {
            for &(index, offset) in &fitting {
                if let Some(resource) = resources[index].as_ref() {
                    resource.bind(context, memory, allocation.offset() + offset)?;
                }
            }
            Ok(())
        },
        |allocation| {
            let _ = allocator.free(allocation);
        },
    )?;
    Ok((Some(TransientHeap { allocation }), fallback.len() as u32))
}

/// The resting layout per plane of an external resource in this frame: the old layout of its
/// first barrier that keeps contents, else the end-of-frame barrier's new layout, else GENERAL.
pub fn rest_layout(frame: &CompiledFrame, resource: usize) -> [vk::ImageLayout; 2] {
    let mut rest = [None, None];
    for barrier in frame
        .barriers
        .iter()
        .filter(|b| b.resource.index() == resource)
    {
        if barrier.old_layout != rpsl_runtime::vk::ImageLayout::Undefined {
            let region = frame.barrier_region(barrier);
            for plane in region.lo[2]..region.hi[2].min(2) {
                rest[plane as usize].get_or_insert(barrier.old_layout);
            }
        }
    }
    let end = frame.order.len() as u32;
    if let Some(batch) = frame.batch_list.iter().find(|b| b.position == end) {
        for barrier in &frame.barriers[batch.barriers.start as usize..batch.barriers.end as usize] {
            if barrier.resource.index() == resource {
                let region = frame.barrier_region(barrier);
                for plane in region.lo[2]..region.hi[2].min(2) {
                    rest[plane as usize].get_or_insert(barrier.new_layout);
                }
            }
        }
    }
    rest.map(|layout| {
        layout.map_or(vk::ImageLayout::GENERAL, |l| {
            vk::ImageLayout::from_raw(l as i32)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::{bind_or_free, GpuObject};
    use ash::vk::{self, Handle};
    use std::cell::RefCell;

    #[test]
    fn a_gpu_object_names_only_the_handle_of_its_kind() {
        let image = vk::Image::from_raw(0x11);
        let buffer = vk::Buffer::from_raw(0x22);
        assert_eq!(
            (
                GpuObject::Image(image).image(),
                GpuObject::Image(image).buffer()
            ),
            (Some(image), None)
        );
        assert_eq!(
            (
                GpuObject::Buffer(buffer).image(),
                GpuObject::Buffer(buffer).buffer()
            ),
            (None, Some(buffer))
        );
    }

    /// A stand-in allocation that records whether it was freed.
    struct FakeAllocation<'a> {
        id: u32,
        freed: &'a RefCell<Vec<u32>>,
    }

    #[test]
    fn a_failed_bind_frees_the_allocation_and_returns_the_error() {
        let freed = RefCell::new(Vec::new());
        let allocation = FakeAllocation {
            id: 7,
            freed: &freed,
        };
        let result = bind_or_free(
            allocation,
            |_| Err("vkBindImageMemory failed with ERROR_OUT_OF_DEVICE_MEMORY"),
            |allocation| allocation.freed.borrow_mut().push(allocation.id),
        );
        assert_eq!(
            result.err(),
            Some("vkBindImageMemory failed with ERROR_OUT_OF_DEVICE_MEMORY")
        );
        assert_eq!(*freed.borrow(), vec![7]);
    }

    #[test]
    fn a_successful_bind_keeps_the_allocation() {
        let freed = RefCell::new(Vec::new());
        let allocation = FakeAllocation {
            id: 3,
            freed: &freed,
        };
        let bound = bind_or_free(
            allocation,
            |allocation| if allocation.id == 3 { Ok(()) } else { Err(()) },
            |allocation| allocation.freed.borrow_mut().push(allocation.id),
        );
        assert_eq!(bound.map(|allocation| allocation.id), Ok(3));
        assert!(freed.borrow().is_empty());
    }
}
