//! The embedding API of application resources and submission on [`crate::VulkanBackend`]:
//! importing images and buffers (and lending views), releasing them, the semaphores and fence
//! of the next frame, and recording a frame for the application to submit. The types and the
//! barrier planning are in `app_resources.rs`.

use crate::app_resources::{
    CommandBufferSource, FrameSync, Import, ImportedBuffer, ImportedImage, RecordedBatch,
    ResourceState,
};
use crate::resources::{GpuObject, GpuResource};
use ash::vk;
use rpsl_runtime::{BackendError, RecordedGraph, ResourceDesc};

impl crate::VulkanBackend {
    /// Passes the application's image `image` as the entry argument of texture parameter
    /// `parameter` for the next frames (until another import of that parameter or
    /// [`Self::release_image`]): the frames draw into it instead of an image of rpsl's. Import
    /// again before each frame with the state the image is in then (a swapchain's image of the
    /// frame, say); without a new import, the next frame starts from the state the last one
    /// left it in ([`Self::imported_state`]).
    ///
    /// Fails when the description is invalid or has no Vulkan format. A frame whose script
    /// describes the parameter differently, or that needs a usage the image lacks, fails with
    /// an error naming the parameter.
    pub fn import_image(
        &mut self,
        parameter: &str,
        image: ImportedImage,
    ) -> Result<(), BackendError> {
        let desc = image
            .desc
            .validate()
            .map_err(|e| BackendError::Api(format!("imported image `{parameter}`: {e}")))?;
        if !desc.kind.is_texture() {
            return Err(BackendError::Api(format!(
                "imported image `{parameter}`: the description is of a buffer"
            )));
        }
        let object = GpuObject::Image(image.image);
        let resource = GpuResource::of_application(&desc, object, image.usage)
            .map_err(|e| BackendError::Api(format!("imported image `{parameter}`: {e}")))?;
        self.forget_if_redescribed(object, &desc)?;
        if let Some(name) = &image.debug_name {
            self.context.name(image.image, name);
        }
        self.imports.insert(
            parameter.to_string(),
            Import {
                resource,
                state: image.state,
                final_state: image.final_state,
            },
        );
        Ok(())
    }

    /// Lends the application's `view` of the whole image imported as `parameter` (all its
    /// mips and layers, the image's format and aspect, the plain view type of its description):
    /// frames use it wherever they need such a view instead of making their own. Returns
    /// whether it is used: `false` when rpsl already made its own view of the whole image (that
    /// one stays) or nothing is imported as `parameter`. The application destroys its view
    /// after [`Self::release_image`] or after dropping the backend.
    pub fn lend_image_view(&mut self, parameter: &str, view: vk::ImageView) -> bool {
        let Some(import) = self.imports.get(parameter) else {
            return false;
        };
        let resource = &import.resource;
        let GpuObject::Image(image) = resource.object else {
            return false;
        };
        let desc = &resource.desc;
        let range = vk::ImageSubresourceRange {
            aspect_mask: resource.aspect(),
            base_mip_level: 0,
            level_count: desc.mip_levels.max(1),
            base_array_layer: 0,
            layer_count: desc.array_layers() * desc.temporal_layers.max(1),
        };
        let view_type = crate::record::view_type_of(desc.kind, range.layer_count);
        let key = crate::view_cache::ViewKey::new(image, view_type, resource.format, &range);
        self.view_cache.adopt(key, view)
    }

    /// Passes the application's buffer as the entry argument of buffer parameter `parameter`,
    /// as [`Self::import_image`] does for images.
    pub fn import_buffer(
        &mut self,
        parameter: &str,
        buffer: ImportedBuffer,
    ) -> Result<(), BackendError> {
        let desc = buffer
            .desc
            .validate()
            .map_err(|e| BackendError::Api(format!("imported buffer `{parameter}`: {e}")))?;
        if desc.kind.is_texture() {
            return Err(BackendError::Api(format!(
                "imported buffer `{parameter}`: the description is of a texture"
            )));
        }
        let object = GpuObject::Buffer(buffer.buffer);
        let resource = GpuResource::of_application(&desc, object, vk::ImageUsageFlags::empty())?;
        self.forget_if_redescribed(object, &desc)?;
        if let Some(name) = &buffer.debug_name {
            self.context.name(buffer.buffer, name);
        }
        self.imports.insert(
            parameter.to_string(),
            Import {
                resource,
                state: buffer.state,
                final_state: buffer.final_state,
            },
        );
        Ok(())
    }

    /// The state the application's resource imported as `parameter` is in after the frames
    /// executed so far (the state it was imported in, before any frame used it); `None` when
    /// nothing is imported as `parameter`.
    pub fn imported_state(&self, parameter: &str) -> Option<ResourceState> {
        self.imports.get(parameter).map(|import| import.state)
    }

    /// Stops passing an application resource as `parameter` (frames then use an image or
    /// buffer of rpsl's again). Its views stay cached until [`Self::release_image`].
    pub fn remove_import(&mut self, parameter: &str) {
        self.imports.remove(parameter);
    }

    /// Forgets an image of the application's before it destroys it: waits for the frames in
    /// flight, destroys the image views rpsl made of it and removes the imports that name it.
    /// Call it before destroying (or recreating, as with a swapchain) any image you imported.
    pub fn release_image(&mut self, image: vk::Image) -> Result<(), BackendError> {
        self.release_object(GpuObject::Image(image))
    }

    /// [`Self::release_image`] for a buffer.
    pub fn release_buffer(&mut self, buffer: vk::Buffer) -> Result<(), BackendError> {
        self.release_object(GpuObject::Buffer(buffer))
    }

    /// Records a frame into command buffers the application gives (`command_buffers(family)`
    /// returns one in the initial state, allocated from a pool of that queue family) and returns
    /// the batches the application submits, in order, with the waits and signals listed (rpsl's
    /// timeline semaphores between queues, and the [`FrameSync`] set with
    /// [`Self::set_frame_sync`] on the first and last batch; its `fence` must be null: attach
    /// your own to the last submission). Every batch must be submitted before the frame's slot
    /// is reused (`frames_in_flight` frames later) or the backend waits for idle or drops.
    ///
    /// ```no_run
    /// # use rpsl_vulkan::{ash::vk, VulkanBackend};
    /// # fn frame(backend: &mut VulkanBackend, graph: &rpsl_runtime::RecordedGraph,
    /// #          compiled: &rpsl_runtime::CompiledFrame, mut take: impl FnMut(u32) -> vk::CommandBuffer) {
    /// let batches = backend.record_frame(graph, compiled, &mut take).unwrap();
    /// for batch in &batches {
    ///     // vkQueueSubmit2(batch.queue, command buffer + batch.waits + batch.signals)
    /// }
    /// # }
    /// ```
    pub fn record_frame(
        &mut self,
        graph: &RecordedGraph,
        frame: &rpsl_runtime::CompiledFrame,
        command_buffers: &mut CommandBufferSource<'_>,
    ) -> Result<Vec<RecordedBatch>, BackendError> {
        if self
            .frame_sync
            .as_ref()
            .is_some_and(|sync| sync.fence != vk::Fence::null())
        {
            self.frame_sync = None;
            return Err(BackendError::Api(
                "a frame the application submits signals no fence of rpsl's: pass the fence \
                 to your last submission (FrameSync::fence must be null)"
                    .into(),
            ));
        }
        self.execute(graph, frame, Some(command_buffers))
    }

    /// Sets the application's semaphores and fence of the next frame's submission
    /// ([`rpsl_runtime::Backend::execute_frame`]); they apply to that frame alone. A frame that
    /// fails before it is submitted neither waits for nor signals them.
    pub fn set_frame_sync(&mut self, sync: FrameSync) {
        self.frame_sync = Some(sync);
    }

    fn release_object(&mut self, object: GpuObject) -> Result<(), BackendError> {
        self.imports
            .retain(|_, import| import.resource.object != object);
        let known = self.imported_objects.remove(&object).is_some();
        if known {
            self.forget_object(object)?;
        }
        Ok(())
    }

    /// Waits for the frames in flight, then forgets the views and identity of `object`.
    fn forget_object(&mut self, object: GpuObject) -> Result<(), BackendError> {
        use rpsl_runtime::Backend;
        self.wait_idle()?;
        match object {
            // SAFETY: every frame slot was retired just above, so no pending work uses the
            // image's views.
            GpuObject::Image(image) => unsafe {
                self.view_cache.forget_image(&self.context, image)
            },
            GpuObject::Buffer(buffer) => self.view_cache.forget_buffer(buffer),
        }
        Ok(())
    }

    /// Remembers the description `object` is imported with; when it differs from an earlier
    /// import of the same handle (an image destroyed and another made with its handle), the
    /// views made of the earlier one are forgotten first.
    fn forget_if_redescribed(
        &mut self,
        object: GpuObject,
        desc: &ResourceDesc,
    ) -> Result<(), BackendError> {
        match self.imported_objects.insert(object, *desc) {
            Some(earlier) if earlier != *desc => self.forget_object(object),
            _ => Ok(()),
        }
    }
}
