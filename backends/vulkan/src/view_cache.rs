//! Image views kept as long as their images live, identities of the views and buffers that node
//! implementations see (so they can cache descriptor sets across frames), and the backend's
//! running counts of the Vulkan objects it creates.
//!
//! A view is made once per (image, view type, format, subresource range) and destroyed when its
//! image is: every place that destroys an image the backend made calls [`ViewCache::forget`]
//! first. Those places already know the GPU is done with the image (its frame slot was retired,
//! or the device was waited for), so its views can go at once. Vulkan may hand out a destroyed
//! image's handle again; forgetting its views (and its [`ObjectId`]) at destruction is what keeps
//! a new image from being given a stale view.

use std::cell::Cell;
use std::collections::HashMap;

use ash::vk;
use rpsl_runtime::BackendError;

use crate::context::{vk_error, Context};
use crate::resources::{GpuObject, GpuResource};

/// The identity of an image view or buffer given to node implementations: equal ids mean the
/// same live Vulkan object. Ids are never reused, so a descriptor set keyed by ids can never be
/// taken for one naming a destroyed view or buffer whose handle Vulkan gave out again.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ObjectId(pub u64);

/// Running totals of Vulkan objects made for frames since the backend was created (shader-bound
/// nodes add their descriptor sets and pipelines). Compare two snapshots to see what a frame
/// made: a steady-state frame of an unchanged graph makes nothing.
///
/// ```no_run
/// # use rpsl_vulkan::{VulkanBackend, VulkanOptions};
/// # let backend = VulkanBackend::new(VulkanOptions::default()).unwrap();
/// let before = backend.object_counts();
/// // ... execute a frame ...
/// let made = backend.object_counts().since(&before);
/// assert_eq!(made.image_views_created, 0);
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct ObjectCounts {
    /// Image views created (for nodes, render passes and buffer render targets).
    pub image_views_created: u64,
    /// Image views destroyed (with their images).
    pub image_views_destroyed: u64,
    /// Descriptor sets allocated.
    pub descriptor_sets_allocated: u64,
    /// Descriptor sets written (`vkUpdateDescriptorSets`, counted per set).
    pub descriptor_sets_written: u64,
    /// Descriptor sets freed back to their pools.
    pub descriptor_sets_freed: u64,
    /// Descriptor pools created.
    pub descriptor_pools_created: u64,
    /// Pipelines created.
    pub pipelines_created: u64,
}

impl ObjectCounts {
    /// What happened between `earlier` and `self` (field by field, saturating).
    pub fn since(&self, earlier: &ObjectCounts) -> ObjectCounts {
        ObjectCounts {
            image_views_created: self
                .image_views_created
                .saturating_sub(earlier.image_views_created),
            image_views_destroyed: self
                .image_views_destroyed
                .saturating_sub(earlier.image_views_destroyed),
            descriptor_sets_allocated: self
                .descriptor_sets_allocated
                .saturating_sub(earlier.descriptor_sets_allocated),
            descriptor_sets_written: self
                .descriptor_sets_written
                .saturating_sub(earlier.descriptor_sets_written),
            descriptor_sets_freed: self
                .descriptor_sets_freed
                .saturating_sub(earlier.descriptor_sets_freed),
            descriptor_pools_created: self
                .descriptor_pools_created
                .saturating_sub(earlier.descriptor_pools_created),
            pipelines_created: self
                .pipelines_created
                .saturating_sub(earlier.pipelines_created),
        }
    }

    /// Image views alive (created and not yet destroyed).
    pub fn live_image_views(&self) -> u64 {
        self.image_views_created
            .saturating_sub(self.image_views_destroyed)
    }

    /// Descriptor sets alive (allocated and not yet freed).
    pub fn live_descriptor_sets(&self) -> u64 {
        self.descriptor_sets_allocated
            .saturating_sub(self.descriptor_sets_freed)
    }
}

/// The shared counter node implementations add to (see [`crate::NodeContext::count`]).
pub type ObjectCounter = Cell<ObjectCounts>;

/// What makes two views the same.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ViewKey {
    pub image: vk::Image,
    pub view_type: vk::ImageViewType,
    pub format: vk::Format,
    pub aspect: vk::ImageAspectFlags,
    pub mips: (u32, u32),
    pub layers: (u32, u32),
}

impl ViewKey {
    /// The key of a view of `image` over `range`.
    pub fn new(
        image: vk::Image,
        view_type: vk::ImageViewType,
        format: vk::Format,
        range: &vk::ImageSubresourceRange,
    ) -> ViewKey {
        ViewKey {
            image,
            view_type,
            format,
            aspect: range.aspect_mask,
            mips: (range.base_mip_level, range.level_count),
            layers: (range.base_array_layer, range.layer_count),
        }
    }

    fn range(&self) -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange {
            aspect_mask: self.aspect,
            base_mip_level: self.mips.0,
            level_count: self.mips.1,
            base_array_layer: self.layers.0,
            layer_count: self.layers.1,
        }
    }
}

/// The backend's image views and object identities (one per backend).
#[derive(Default)]
pub(crate) struct ViewCache {
    views: HashMap<ViewKey, (vk::ImageView, ObjectId)>,
    by_image: HashMap<vk::Image, Vec<ViewKey>>,
    buffers: HashMap<vk::Buffer, ObjectId>,
    /// Views the application made (of its imported images): used like the others, never
    /// destroyed by rpsl.
    adopted: std::collections::HashSet<vk::ImageView>,
    next_id: u64,
    /// Totals of objects made, shared with node implementations.
    pub counter: ObjectCounter,
}

impl ViewCache {
    fn fresh_id(&mut self) -> ObjectId {
        self.next_id += 1;
        ObjectId(self.next_id)
    }

    /// Adds to the counts.
    pub fn count(&self, change: impl FnOnce(&mut ObjectCounts)) {
        let mut counts = self.counter.get();
        change(&mut counts);
        self.counter.set(counts);
    }

    /// The view for `key` (created on first use and named `label()`), with its identity.
    pub fn view(
        &mut self,
        context: &Context,
        key: ViewKey,
        label: impl FnOnce() -> String,
    ) -> Result<(vk::ImageView, ObjectId), BackendError> {
        self.view_with_usage(context, key, None, label)
    }

    /// [`ViewCache::view`] with the view's usage narrowed to `usage` (a subset of the image's:
    /// a view in another format than its image's may support fewer usages, and a view's usage
    /// must be supported by its format). `usage` must be the same for every call with `key`.
    pub fn view_with_usage(
        &mut self,
        context: &Context,
        key: ViewKey,
        usage: Option<vk::ImageUsageFlags>,
        label: impl FnOnce() -> String,
    ) -> Result<(vk::ImageView, ObjectId), BackendError> {
        if let Some(&found) = self.views.get(&key) {
            return Ok(found);
        }
        let mut usage_info = vk::ImageViewUsageCreateInfo::default();
        let mut info = vk::ImageViewCreateInfo::default()
            .image(key.image)
            .view_type(key.view_type)
            .format(key.format)
            .subresource_range(key.range());
        if let Some(usage) = usage {
            usage_info = usage_info.usage(usage);
            info = info.push_next(&mut usage_info);
        }
        // SAFETY: valid create info for a live image (images are forgotten before destruction).
        let view = unsafe { context.device.create_image_view(&info, None) }
            .map_err(|r| vk_error("vkCreateImageView", r))?;
        context.name(view, &label());
        let id = self.fresh_id();
        self.views.insert(key, (view, id));
        self.by_image.entry(key.image).or_default().push(key);
        self.count(|c| c.image_views_created += 1);
        Ok((view, id))
    }

    /// Uses the application's `view` wherever a view for `key` is asked for, unless rpsl made
    /// one for `key` already (that one stays); returns whether `view` is used. rpsl never
    /// destroys an adopted view.
    pub fn adopt(&mut self, key: ViewKey, view: vk::ImageView) -> bool {
        if let Some(&(existing, _)) = self.views.get(&key) {
            return existing == view;
        }
        let id = self.fresh_id();
        self.views.insert(key, (view, id));
        self.by_image.entry(key.image).or_default().push(key);
        self.adopted.insert(view);
        true
    }

    /// The identity of a live buffer.
    pub fn buffer_id(&mut self, buffer: vk::Buffer) -> ObjectId {
        if let Some(&id) = self.buffers.get(&buffer) {
            return id;
        }
        let id = self.fresh_id();
        self.buffers.insert(buffer, id);
        id
    }

    /// Destroys the views of `image` and forgets them; call right before destroying the image.
    ///
    /// # Safety
    ///
    /// No pending GPU work uses the image's views: the command buffers that recorded them
    /// have completed (their frame slots were retired, or the device is idle) or were never
    /// submitted.
    pub unsafe fn forget_image(&mut self, context: &Context, image: vk::Image) {
        let Some(keys) = self.by_image.remove(&image) else {
            return;
        };
        for key in keys {
            if let Some((view, _)) = self.views.remove(&key) {
                if self.adopted.remove(&view) {
                    // The application's: it destroys it.
                    continue;
                }
                // SAFETY: the caller guarantees no pending work uses the image or its views.
                unsafe { context.device.destroy_image_view(view, None) };
                self.count(|c| c.image_views_destroyed += 1);
            }
        }
    }

    /// Forgets a buffer's identity; call right before destroying the buffer.
    pub fn forget_buffer(&mut self, buffer: vk::Buffer) {
        self.buffers.remove(&buffer);
    }

    /// Forgets a resource's views and identity; call right before [`GpuResource::destroy`].
    ///
    /// # Safety
    ///
    /// As [`Self::forget_image`], for the resource's views.
    pub unsafe fn forget(&mut self, context: &Context, resource: &GpuResource) {
        match resource.object {
            // SAFETY: the caller's guarantee.
            GpuObject::Image(image) => unsafe { self.forget_image(context, image) },
            GpuObject::Buffer(buffer) => self.forget_buffer(buffer),
        }
    }

    /// Destroys every view (at the backend's end).
    ///
    /// # Safety
    ///
    /// The device is idle.
    pub unsafe fn destroy_all(&mut self, context: &Context) {
        let images: Vec<vk::Image> = self.by_image.keys().copied().collect();
        for image in images {
            // SAFETY: the device is idle (the caller's guarantee).
            unsafe { self.forget_image(context, image) };
        }
        self.buffers.clear();
    }
}
