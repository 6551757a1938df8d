//! The window's swapchain, used as an engine uses one with rpsl: each frame acquires an image,
//! imports it into the backend as the presented texture parameter
//! ([`rpsl_vulkan::VulkanBackend::import_image`]), lets the frame wait for the acquisition and
//! signal the end of its work ([`rpsl_vulkan::FrameSync`]), and presents. With a capture
//! (`--window-capture`) a copy of the image into a host buffer runs between the frame and the
//! present.
//!
//! Format: the presented parameter gets the swapchain's format. A script that asks for an sRGB
//! format (`--arg bb=WxH:R8G8B8A8_UNORM_SRGB`) gets an sRGB swapchain (it writes linear values,
//! the device encodes them); otherwise a UNORM one (the values are display-encoded already, as
//! `--out` writes them into PNGs), in the channel order asked for when the window offers it.
//! The colour space is sRGB (non-linear).

use std::path::Path;
use std::time::Duration;

use rpsl::runtime::Format;
use rpsl_vulkan::ash::{self, vk};
use rpsl_vulkan::{vk_format, FrameSync, SemaphoreOp, VulkanBackend};

use super::device::{failed, WindowDevice};

/// The longest wait for a swapchain image or a frame's fence.
const WAIT: Duration = Duration::from_secs(20);
/// Frames recorded ahead of the GPU (each with its semaphores and fence).
pub const FRAMES_IN_FLIGHT: usize = 2;

/// `RPS_FORMAT_R8G8B8A8_UNORM_SRGB`.
const R8G8B8A8_SRGB: Format = Format(29);
/// `RPS_FORMAT_B8G8R8A8_UNORM_SRGB`.
const B8G8R8A8_SRGB: Format = Format(91);

/// The swapchain formats for a presented texture asked to be `requested`, best first (see the
/// module documentation).
pub fn wanted_formats(requested: Format) -> Vec<Format> {
    let srgb = requested.name().is_some_and(|name| name.ends_with("_SRGB"));
    let mut wanted = vec![requested];
    if srgb {
        wanted.extend([R8G8B8A8_SRGB, B8G8R8A8_SRGB]);
    } else {
        wanted.extend([Format::B8G8R8A8_UNORM, Format::R8G8B8A8_UNORM]);
    }
    wanted
}

/// The first of `wanted` the surface offers with the sRGB colour space.
pub fn choose_format(
    offered: &[vk::SurfaceFormatKHR],
    wanted: &[Format],
) -> Option<(Format, vk::SurfaceFormatKHR)> {
    wanted.iter().find_map(|&format| {
        let vk_format = vk_format(format)?;
        offered
            .iter()
            .find(|offer| {
                offer.format == vk_format && offer.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR
            })
            .map(|&offer| (format, offer))
    })
}

/// What one frame in flight uses.
struct Slot {
    /// The acquisition of the frame's image (the frame waits for it).
    acquired: vk::Semaphore,
    /// The frame's end, when a capture copy runs between it and the present.
    frame_done: vk::Semaphore,
    /// The frame's (or its capture's) completion.
    fence: vk::Fence,
    /// The fence was handed to a submission not waited for yet.
    fence_pending: bool,
    /// The capture copy.
    commands: vk::CommandBuffer,
}

/// A host-visible buffer the presented image is copied into.
struct Readback {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    size: u64,
}

/// An image acquired for a frame.
#[derive(Copy, Clone, Debug)]
pub struct Acquired {
    /// Its index in the swapchain.
    pub index: u32,
    /// The image.
    pub image: vk::Image,
    slot: usize,
}

/// The swapchain and the per-frame objects of presenting through it.
pub struct Swapchain {
    instance: ash::Instance,
    device: ash::Device,
    loader: ash::khr::swapchain::Device,
    surface_loader: ash::khr::surface::Instance,
    physical: vk::PhysicalDevice,
    memory_types: vk::PhysicalDeviceMemoryProperties,
    surface: vk::SurfaceKHR,
    queue: vk::Queue,
    swapchain: vk::SwapchainKHR,
    images: Vec<vk::Image>,
    /// One per image: the frame (or its capture) is done; the present waits for it.
    rendered: Vec<vk::Semaphore>,
    format: Format,
    surface_format: vk::SurfaceFormatKHR,
    usage: vk::ImageUsageFlags,
    extent: vk::Extent2D,
    /// The swapchain no longer fits the surface: made again before the next acquisition.
    stale: bool,
    pool: vk::CommandPool,
    slots: Vec<Slot>,
    next_slot: usize,
    readback: Option<Readback>,
}

impl Swapchain {
    /// A swapchain for the window of `device`, of the format [`wanted_formats`] chooses for
    /// `requested`; `size` is the window's inner size.
    pub fn new(
        device: &WindowDevice,
        requested: Format,
        size: (u32, u32),
    ) -> Result<Swapchain, String> {
        let base = &device.base;
        // SAFETY: plain queries on the live physical device and surface.
        let (offered, memory_types) = unsafe {
            (
                base.surface_loader
                    .get_physical_device_surface_formats(device.physical, base.surface)
                    .map_err(failed("vkGetPhysicalDeviceSurfaceFormatsKHR"))?,
                base.instance
                    .get_physical_device_memory_properties(device.physical),
            )
        };
        let wanted = wanted_formats(requested);
        let (format, surface_format) = choose_format(&offered, &wanted).ok_or_else(|| {
            let names: Vec<&str> = wanted.iter().filter_map(|f| f.name()).collect();
            format!(
                "the window offers none of the formats {} (sRGB colour space)",
                names.join(", ")
            )
        })?;
        let mut swapchain = Swapchain {
            loader: ash::khr::swapchain::Device::new(&base.instance, &device.device),
            instance: base.instance.clone(),
            device: device.device.clone(),
            surface_loader: base.surface_loader.clone(),
            physical: device.physical,
            memory_types,
            surface: base.surface,
            queue: device.queue,
            swapchain: vk::SwapchainKHR::null(),
            images: Vec::new(),
            rendered: Vec::new(),
            format,
            surface_format,
            usage: vk::ImageUsageFlags::empty(),
            extent: vk::Extent2D::default(),
            stale: true,
            pool: vk::CommandPool::null(),
            slots: Vec::new(),
            next_slot: 0,
            readback: None,
        };
        swapchain.create_slots(device.family)?;
        swapchain.recreate(size)?;
        Ok(swapchain)
    }

    /// The format of the images (the presented parameter's).
    pub fn format(&self) -> Format {
        self.format
    }

    /// The images' extent (0 x 0 while the window is minimised).
    pub fn extent(&self) -> vk::Extent2D {
        self.extent
    }

    /// The images' usage.
    pub fn usage(&self) -> vk::ImageUsageFlags {
        self.usage
    }

    /// Marks the swapchain for re-creation (the window was resized).
    pub fn resized(&mut self) {
        self.stale = true;
    }

    fn create_slots(&mut self, family: u32) -> Result<(), String> {
        let device = &self.device;
        let pool_info = vk::CommandPoolCreateInfo::default()
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER)
            .queue_family_index(family);
        // SAFETY: valid create infos on the live device; each object is kept in `self` as
        // soon as it exists, so `Drop` destroys it.
        unsafe {
            self.pool = device
                .create_command_pool(&pool_info, None)
                .map_err(failed("vkCreateCommandPool"))?;
            for _ in 0..FRAMES_IN_FLIGHT {
                let alloc = vk::CommandBufferAllocateInfo::default()
                    .command_pool(self.pool)
                    .level(vk::CommandBufferLevel::PRIMARY)
                    .command_buffer_count(1);
                let commands = device
                    .allocate_command_buffers(&alloc)
                    .map_err(failed("vkAllocateCommandBuffers"))?[0];
                let mut slot = Slot {
                    acquired: vk::Semaphore::null(),
                    frame_done: vk::Semaphore::null(),
                    fence: vk::Fence::null(),
                    fence_pending: false,
                    commands,
                };
                let semaphore = vk::SemaphoreCreateInfo::default();
                let made = device
                    .create_semaphore(&semaphore, None)
                    .and_then(|acquired| {
                        slot.acquired = acquired;
                        let done = device.create_semaphore(&semaphore, None)?;
                        slot.frame_done = done;
                        slot.fence = device.create_fence(&vk::FenceCreateInfo::default(), None)?;
                        Ok(())
                    });
                self.slots.push(slot);
                made.map_err(failed("vkCreateSemaphore/vkCreateFence"))?;
            }
        }
        Ok(())
    }

    /// Waits for every frame in flight (their fences).
    fn wait_slots(&mut self) -> Result<(), String> {
        for slot in &mut self.slots {
            if slot.fence_pending {
                // SAFETY: the fence was handed to a submission.
                unsafe {
                    self.device
                        .wait_for_fences(&[slot.fence], true, WAIT.as_nanos() as u64)
                        .map_err(failed("vkWaitForFences"))?;
                    self.device
                        .reset_fences(&[slot.fence])
                        .map_err(failed("vkResetFences"))?;
                }
                slot.fence_pending = false;
            }
        }
        Ok(())
    }

    /// Makes the swapchain again for the surface's extent (`size` where the surface leaves it
    /// to the swapchain); the backend forgets the old images first. An empty extent
    /// (minimised) leaves no swapchain.
    fn recreate(&mut self, size: (u32, u32)) -> Result<(), String> {
        self.wait_slots()?;
        // SAFETY: a plain query on the live surface.
        let caps = unsafe {
            self.surface_loader
                .get_physical_device_surface_capabilities(self.physical, self.surface)
        }
        .map_err(failed("vkGetPhysicalDeviceSurfaceCapabilitiesKHR"))?;
        let extent = if caps.current_extent.width != u32::MAX {
            caps.current_extent
        } else {
            vk::Extent2D {
                width: size
                    .0
                    .clamp(caps.min_image_extent.width, caps.max_image_extent.width),
                height: size
                    .1
                    .clamp(caps.min_image_extent.height, caps.max_image_extent.height),
            }
        };
        let old = std::mem::replace(&mut self.swapchain, vk::SwapchainKHR::null());
        self.destroy_images_and(old)?;
        self.extent = extent;
        if extent.width == 0 || extent.height == 0 {
            return Ok(());
        }
        // Colour attachment and transfers (clears, copies, the capture), storage and sampling
        // where the window allows them.
        self.usage = caps.supported_usage_flags
            & (vk::ImageUsageFlags::COLOR_ATTACHMENT
                | vk::ImageUsageFlags::TRANSFER_SRC
                | vk::ImageUsageFlags::TRANSFER_DST
                | vk::ImageUsageFlags::SAMPLED
                | vk::ImageUsageFlags::STORAGE);
        // SAFETY: a plain query on the live physical device.
        let features = unsafe {
            self.instance
                .get_physical_device_format_properties(self.physical, self.surface_format.format)
        };
        if !features
            .optimal_tiling_features
            .contains(vk::FormatFeatureFlags::STORAGE_IMAGE)
        {
            self.usage &= !vk::ImageUsageFlags::STORAGE;
        }
        let mut count = caps.min_image_count.max(2) + 1;
        if caps.max_image_count != 0 {
            count = count.min(caps.max_image_count);
        }
        let alpha = [
            vk::CompositeAlphaFlagsKHR::OPAQUE,
            vk::CompositeAlphaFlagsKHR::INHERIT,
            vk::CompositeAlphaFlagsKHR::PRE_MULTIPLIED,
            vk::CompositeAlphaFlagsKHR::POST_MULTIPLIED,
        ]
        .into_iter()
        .find(|&alpha| caps.supported_composite_alpha.contains(alpha))
        .unwrap_or(vk::CompositeAlphaFlagsKHR::OPAQUE);
        // SAFETY: a plain query on the live surface.
        let modes = unsafe {
            self.surface_loader
                .get_physical_device_surface_present_modes(self.physical, self.surface)
        }
        .map_err(failed("vkGetPhysicalDeviceSurfacePresentModesKHR"))?;
        // MAILBOX shows the newest frame without tearing or waiting; FIFO is always there.
        let mode = if modes.contains(&vk::PresentModeKHR::MAILBOX) {
            vk::PresentModeKHR::MAILBOX
        } else {
            vk::PresentModeKHR::FIFO
        };
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(self.surface)
            .min_image_count(count)
            .image_format(self.surface_format.format)
            .image_color_space(self.surface_format.color_space)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(self.usage)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(caps.current_transform)
            .composite_alpha(alpha)
            .present_mode(mode)
            .clipped(true);
        // SAFETY: valid create info for the live surface, which has no other swapchain.
        unsafe {
            self.swapchain = self
                .loader
                .create_swapchain(&info, None)
                .map_err(failed("vkCreateSwapchainKHR"))?;
            self.images = self
                .loader
                .get_swapchain_images(self.swapchain)
                .map_err(failed("vkGetSwapchainImagesKHR"))?;
            for _ in 0..self.images.len() {
                let semaphore = self
                    .device
                    .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                    .map_err(failed("vkCreateSemaphore"))?;
                self.rendered.push(semaphore);
            }
        }
        self.stale = false;
        Ok(())
    }

    /// Destroys the images' semaphores and `old` (the slots are idle; the presents of its
    /// images waited for semaphores of finished frames).
    fn destroy_images_and(&mut self, old: vk::SwapchainKHR) -> Result<(), String> {
        // SAFETY: every frame's fence was waited for and the queue is idle after the wait, so
        // neither the semaphores nor the images are in use.
        unsafe {
            self.device
                .queue_wait_idle(self.queue)
                .map_err(failed("vkQueueWaitIdle"))?;
            for semaphore in self.rendered.drain(..) {
                self.device.destroy_semaphore(semaphore, None);
            }
            if old != vk::SwapchainKHR::null() {
                self.loader.destroy_swapchain(old, None);
            }
        }
        self.images.clear();
        Ok(())
    }

    /// Makes the swapchain again when it went stale (the backend forgets the old images
    /// first); `false` when the window has no area (nothing to present to).
    pub fn prepare(
        &mut self,
        backend: &mut VulkanBackend,
        size: (u32, u32),
    ) -> Result<bool, String> {
        if self.stale {
            for &image in &self.images {
                backend
                    .release_image(image)
                    .map_err(|error| error.to_string())?;
            }
            self.recreate(size)?;
        }
        Ok(self.swapchain != vk::SwapchainKHR::null())
    }

    /// The next image for a frame (after [`Swapchain::prepare`]); `None` when the swapchain
    /// turned out of date (it is made again next time).
    pub fn acquire(&mut self) -> Result<Option<Acquired>, String> {
        if self.swapchain == vk::SwapchainKHR::null() {
            return Ok(None);
        }
        let slot_index = self.next_slot;
        let slot = &mut self.slots[slot_index];
        if slot.fence_pending {
            // SAFETY: the fence was handed to the submission of this slot's last frame.
            unsafe {
                self.device
                    .wait_for_fences(&[slot.fence], true, WAIT.as_nanos() as u64)
                    .map_err(failed("vkWaitForFences"))?;
                self.device
                    .reset_fences(&[slot.fence])
                    .map_err(failed("vkResetFences"))?;
            }
            slot.fence_pending = false;
        }
        // SAFETY: the swapchain is live; the slot's semaphore is unsignalled (its last wait was
        // by a frame whose fence was just waited for).
        let acquired = unsafe {
            self.loader.acquire_next_image(
                self.swapchain,
                WAIT.as_nanos() as u64,
                slot.acquired,
                vk::Fence::null(),
            )
        };
        let index = match acquired {
            Ok((index, suboptimal)) => {
                self.stale |= suboptimal;
                index
            }
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                self.stale = true;
                return Ok(None);
            }
            Err(result) => return Err(failed("vkAcquireNextImageKHR")(result)),
        };
        self.next_slot = (slot_index + 1) % self.slots.len();
        Ok(Some(Acquired {
            index,
            image: self.images[index as usize],
            slot: slot_index,
        }))
    }

    /// The semaphores and fence of the frame rendering into `acquired`: it waits for the
    /// acquisition; it signals the present's semaphore and the slot's fence, or, when a
    /// capture copy follows, the semaphore that copy waits for.
    pub fn frame_sync(&mut self, acquired: &Acquired, capture: bool) -> FrameSync {
        let slot = &mut self.slots[acquired.slot];
        let all = vk::PipelineStageFlags2::ALL_COMMANDS;
        let (signal, fence) = if capture {
            (slot.frame_done, vk::Fence::null())
        } else {
            slot.fence_pending = true;
            (self.rendered[acquired.index as usize], slot.fence)
        };
        FrameSync {
            waits: vec![SemaphoreOp::binary(slot.acquired, all)],
            signals: vec![SemaphoreOp::binary(signal, all)],
            fence,
        }
    }

    /// Presents `acquired` (its frame submitted with [`Swapchain::frame_sync`]); with
    /// `capture`, copies it into a host buffer first and writes it there as a PNG.
    pub fn present(&mut self, acquired: Acquired, capture: Option<&Path>) -> Result<(), String> {
        if capture.is_some() {
            self.submit_capture(&acquired)?;
        }
        let swapchains = [self.swapchain];
        let indices = [acquired.index];
        let wait = [self.rendered[acquired.index as usize]];
        let present = vk::PresentInfoKHR::default()
            .wait_semaphores(&wait)
            .swapchains(&swapchains)
            .image_indices(&indices);
        // SAFETY: the image was acquired and the work signalling `wait` submitted.
        match unsafe { self.loader.queue_present(self.queue, &present) } {
            Ok(suboptimal) => self.stale |= suboptimal,
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => self.stale = true,
            Err(result) => return Err(failed("vkQueuePresentKHR")(result)),
        }
        if let Some(path) = capture {
            let slot = &mut self.slots[acquired.slot];
            // SAFETY: the fence was handed to the capture's submission.
            unsafe {
                self.device
                    .wait_for_fences(&[slot.fence], true, WAIT.as_nanos() as u64)
                    .map_err(failed("vkWaitForFences"))?;
                self.device
                    .reset_fences(&[slot.fence])
                    .map_err(failed("vkResetFences"))?;
            }
            slot.fence_pending = false;
            self.write_capture(path)?;
        }
        Ok(())
    }

    /// Records and submits the copy of the presented image into the readback buffer: after
    /// the frame (its `frame_done`), before the present (`rendered`), signalling the fence.
    fn submit_capture(&mut self, acquired: &Acquired) -> Result<(), String> {
        if !matches!(
            self.format,
            Format::B8G8R8A8_UNORM | B8G8R8A8_SRGB | Format::R8G8B8A8_UNORM | R8G8B8A8_SRGB
        ) {
            return Err(format!(
                "capturing needs an 8-bit RGBA or BGRA window format, not {}",
                self.format.name().unwrap_or("this one")
            ));
        }
        if !self.usage.contains(vk::ImageUsageFlags::TRANSFER_SRC) {
            return Err("this window's images cannot be read back (no TRANSFER_SRC)".into());
        }
        self.ensure_readback()?;
        let (Some(readback), Some(slot)) = (&self.readback, self.slots.get(acquired.slot)) else {
            return Err("no readback buffer".into());
        };
        let device = &self.device;
        let colour = vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .level_count(1)
            .layer_count(1);
        use vk::AccessFlags2 as A;
        use vk::PipelineStageFlags2 as S;
        let to_copy = [vk::ImageMemoryBarrier2::default()
            .image(acquired.image)
            .old_layout(vk::ImageLayout::PRESENT_SRC_KHR)
            .new_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .src_stage_mask(S::ALL_COMMANDS)
            .src_access_mask(A::MEMORY_WRITE)
            .dst_stage_mask(S::ALL_TRANSFER)
            .dst_access_mask(A::TRANSFER_READ)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .subresource_range(colour)];
        let to_present = [vk::ImageMemoryBarrier2::default()
            .image(acquired.image)
            .old_layout(vk::ImageLayout::TRANSFER_SRC_OPTIMAL)
            .new_layout(vk::ImageLayout::PRESENT_SRC_KHR)
            .src_stage_mask(S::ALL_TRANSFER)
            .src_access_mask(A::NONE)
            .dst_stage_mask(S::NONE)
            .dst_access_mask(A::NONE)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .subresource_range(colour)];
        let to_host = [vk::MemoryBarrier2::default()
            .src_stage_mask(S::ALL_TRANSFER)
            .src_access_mask(A::TRANSFER_WRITE)
            .dst_stage_mask(S::HOST)
            .dst_access_mask(A::HOST_READ)];
        let region = vk::BufferImageCopy::default()
            .image_subresource(
                vk::ImageSubresourceLayers::default()
                    .aspect_mask(vk::ImageAspectFlags::COLOR)
                    .layer_count(1),
            )
            .image_extent(vk::Extent3D {
                width: self.extent.width,
                height: self.extent.height,
                depth: 1,
            });
        let waits = [vk::SemaphoreSubmitInfo::default()
            .semaphore(slot.frame_done)
            .stage_mask(S::ALL_COMMANDS)];
        let signals = [vk::SemaphoreSubmitInfo::default()
            .semaphore(self.rendered[acquired.index as usize])
            .stage_mask(S::ALL_COMMANDS)];
        let buffers = [vk::CommandBufferSubmitInfo::default().command_buffer(slot.commands)];
        let submit = vk::SubmitInfo2::default()
            .wait_semaphore_infos(&waits)
            .command_buffer_infos(&buffers)
            .signal_semaphore_infos(&signals);
        // SAFETY: the slot's command buffer is idle (its fence was waited for at acquisition);
        // the image is in PRESENT_SRC (the frame's final state) and the buffer holds the whole
        // extent; the fence is unsignalled.
        unsafe {
            device
                .begin_command_buffer(
                    slot.commands,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )
                .map_err(failed("vkBeginCommandBuffer"))?;
            device.cmd_pipeline_barrier2(
                slot.commands,
                &vk::DependencyInfo::default().image_memory_barriers(&to_copy),
            );
            device.cmd_copy_image_to_buffer(
                slot.commands,
                acquired.image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                readback.buffer,
                &[region],
            );
            device.cmd_pipeline_barrier2(
                slot.commands,
                &vk::DependencyInfo::default()
                    .memory_barriers(&to_host)
                    .image_memory_barriers(&to_present),
            );
            device
                .end_command_buffer(slot.commands)
                .map_err(failed("vkEndCommandBuffer"))?;
            device
                .queue_submit2(self.queue, &[submit], slot.fence)
                .map_err(failed("vkQueueSubmit2"))?;
        }
        self.slots[acquired.slot].fence_pending = true;
        Ok(())
    }

    /// Makes the readback buffer when there is none large enough for the extent.
    fn ensure_readback(&mut self) -> Result<(), String> {
        let size = self.extent.width as u64 * self.extent.height as u64 * 4;
        if self.readback.as_ref().is_some_and(|r| r.size >= size) {
            return Ok(());
        }
        self.wait_slots()?;
        self.free_readback();
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(vk::BufferUsageFlags::TRANSFER_DST)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info on the live device.
        let buffer =
            unsafe { self.device.create_buffer(&info, None) }.map_err(failed("vkCreateBuffer"))?;
        // SAFETY: the buffer is live.
        let needs = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let wanted = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let types = &self.memory_types.memory_types[..self.memory_types.memory_type_count as usize];
        let type_index = types.iter().enumerate().position(|(index, kind)| {
            needs.memory_type_bits & (1 << index) != 0 && kind.property_flags.contains(wanted)
        });
        let alloc = type_index.map(|index| {
            vk::MemoryAllocateInfo::default()
                .allocation_size(needs.size)
                .memory_type_index(index as u32)
        });
        // SAFETY: valid allocate info; the memory is bound at once and freed with the buffer.
        let memory = match alloc.map(|alloc| unsafe { self.device.allocate_memory(&alloc, None) }) {
            Some(Ok(memory)) => memory,
            other => {
                // SAFETY: the buffer is unused.
                unsafe { self.device.destroy_buffer(buffer, None) };
                return Err(match other {
                    Some(Err(result)) => failed("vkAllocateMemory")(result),
                    _ => "no host-visible memory for the capture".to_string(),
                });
            }
        };
        self.readback = Some(Readback {
            buffer,
            memory,
            size,
        });
        // SAFETY: a fresh buffer and memory of a type it accepts, offset 0.
        unsafe { self.device.bind_buffer_memory(buffer, memory, 0) }
            .map_err(failed("vkBindBufferMemory"))
    }

    fn free_readback(&mut self) {
        if let Some(readback) = self.readback.take() {
            // SAFETY: called with every slot idle (`wait_slots`, `Drop`).
            unsafe {
                self.device.destroy_buffer(readback.buffer, None);
                self.device.free_memory(readback.memory, None);
            }
        }
    }

    /// Writes the readback buffer (a completed copy of the presented image) as an RGBA PNG.
    fn write_capture(&mut self, path: &Path) -> Result<(), String> {
        let readback = self.readback.as_ref().ok_or("no capture was recorded")?;
        let size = self.extent.width as u64 * self.extent.height as u64 * 4;
        // SAFETY: host-coherent memory of a completed copy (its fence waited for), mapped for
        // `size` bytes inside the allocation and unmapped before its next use.
        let mut pixels = unsafe {
            let mapped = self
                .device
                .map_memory(readback.memory, 0, size, vk::MemoryMapFlags::empty())
                .map_err(failed("vkMapMemory"))?;
            let bytes = std::slice::from_raw_parts(mapped as *const u8, size as usize).to_vec();
            self.device.unmap_memory(readback.memory);
            bytes
        };
        if matches!(self.format, Format::B8G8R8A8_UNORM | B8G8R8A8_SRGB) {
            for texel in pixels.chunks_exact_mut(4) {
                texel.swap(0, 2);
            }
        }
        rpsl_vulkan::write_png(path, self.extent.width, self.extent.height, &pixels)
            .map_err(|error| format!("cannot write `{}`: {error}", path.display()))
    }

    /// Forgets the swapchain images in `backend` and destroys everything (before the backend
    /// and the device go).
    pub fn destroy(mut self, backend: &mut VulkanBackend) {
        for &image in &self.images {
            let _ = backend.release_image(image);
        }
        let _ = self.wait_slots();
        let old = std::mem::replace(&mut self.swapchain, vk::SwapchainKHR::null());
        let _ = self.destroy_images_and(old);
        self.free_readback();
        // SAFETY: every slot is idle and the queue too (`destroy_images_and` waited).
        unsafe {
            for slot in self.slots.drain(..) {
                self.device.destroy_semaphore(slot.acquired, None);
                self.device.destroy_semaphore(slot.frame_done, None);
                self.device.destroy_fence(slot.fence, None);
            }
            self.device.destroy_command_pool(self.pool, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(format: vk::Format) -> vk::SurfaceFormatKHR {
        vk::SurfaceFormatKHR {
            format,
            color_space: vk::ColorSpaceKHR::SRGB_NONLINEAR,
        }
    }

    #[test]
    fn the_srgb_formats_are_rps_formats_of_those_names() {
        assert_eq!(R8G8B8A8_SRGB.name(), Some("R8G8B8A8_UNORM_SRGB"));
        assert_eq!(B8G8R8A8_SRGB.name(), Some("B8G8R8A8_UNORM_SRGB"));
    }

    #[test]
    fn the_format_keeps_the_encoding_asked_for() {
        let offered = [
            offer(vk::Format::B8G8R8A8_SRGB),
            offer(vk::Format::B8G8R8A8_UNORM),
        ];
        let chosen = |requested| {
            choose_format(&offered, &wanted_formats(requested))
                .unwrap()
                .0
        };
        assert_eq!(chosen(Format::R8G8B8A8_UNORM), Format::B8G8R8A8_UNORM);
        assert_eq!(chosen(Format::B8G8R8A8_UNORM), Format::B8G8R8A8_UNORM);
        assert_eq!(chosen(R8G8B8A8_SRGB), B8G8R8A8_SRGB);
        // A format no window offers: a UNORM one.
        assert_eq!(chosen(Format::R16G16B16A16_FLOAT), Format::B8G8R8A8_UNORM);
        // The order asked for, when offered.
        let both = [
            offer(vk::Format::B8G8R8A8_UNORM),
            offer(vk::Format::R8G8B8A8_UNORM),
        ];
        assert_eq!(
            choose_format(&both, &wanted_formats(Format::R8G8B8A8_UNORM))
                .unwrap()
                .0,
            Format::R8G8B8A8_UNORM
        );
        assert_eq!(
            choose_format(&[], &wanted_formats(Format::R8G8B8A8_UNORM)),
            None
        );
    }
}
