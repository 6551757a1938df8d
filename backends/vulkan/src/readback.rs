//! Reading external resources back to the host (raw bytes, or RGBA8 pixels of a texture),
//! uploading data into them, and writing RGBA8 pixels as PNG.

use crate::context::vk_error;
use crate::resources::map_alloc_error;
use crate::VulkanBackend;
use ash::vk;
use gpu_allocator::vulkan::{AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;
use rpsl_runtime::{BackendError, Format};
use std::path::Path;

/// Writes `width` x `height` RGBA8 pixels as a PNG file.
pub fn write_png(path: &Path, width: u32, height: u32, rgba: &[u8]) -> Result<(), BackendError> {
    let io = |e: std::io::Error| BackendError::Api(format!("cannot write {}: {e}", path.display()));
    let file = std::fs::File::create(path).map_err(io)?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let encoding =
        |e: png::EncodingError| BackendError::Api(format!("cannot write {}: {e}", path.display()));
    let mut writer = encoder.write_header().map_err(encoding)?;
    writer.write_image_data(rgba).map_err(encoding)?;
    writer.finish().map_err(encoding)
}

/// Reads an 8-bit RGBA PNG (as [`write_png`] writes them) as `(width, height, pixels)`.
pub fn read_png(path: &Path) -> Result<(u32, u32, Vec<u8>), BackendError> {
    let error = |e: &dyn std::fmt::Display| {
        BackendError::Api(format!("cannot read {}: {e}", path.display()))
    };
    let file = std::fs::File::open(path).map_err(|e| error(&e))?;
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .map_err(|e| error(&e))?;
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).map_err(|e| error(&e))?;
    if info.color_type != png::ColorType::Rgba || info.bit_depth != png::BitDepth::Eight {
        return Err(error(&"not an 8-bit RGBA image"));
    }
    pixels.truncate(info.buffer_size());
    Ok((info.width, info.height, pixels))
}

/// An IEEE half float as f32.
fn half_to_f32(bits: u16) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = (bits >> 10) & 0x1f;
    let mantissa = (bits & 0x3ff) as f32;
    match exponent {
        0 => sign * mantissa * 2f32.powi(-24),
        31 if mantissa == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + mantissa / 1024.0) * 2f32.powi(e as i32 - 15),
    }
}

/// Converts mip 0 / layer 0 bytes of a texture of `format` to RGBA8: 8-bit RGBA/BGRA as is,
/// float and unorm channels clamped to [0, 1]; one-channel formats (depth included) as grey.
fn to_rgba8(format: Format, bytes: &[u8]) -> Result<Vec<u8>, BackendError> {
    let unorm = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let f32_at = |p: &[u8], i: usize| f32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]]);
    let u16_at = |p: &[u8], i: usize| u16::from_le_bytes([p[i], p[i + 1]]);
    let grey = |v: u8| [v, v, v, 255];
    Ok(match format.0 {
        // R8G8B8A8 typeless, UNORM, UNORM_SRGB and UINT: the bytes are the channel values.
        27..=30 => bytes.to_vec(),
        87 | 90 | 91 => bytes
            .chunks_exact(4)
            .flat_map(|p| [p[2], p[1], p[0], p[3]])
            .collect(),
        2 => bytes
            .chunks_exact(16)
            .flat_map(|p| [0, 4, 8, 12].map(|i| unorm(f32_at(p, i))))
            .collect(),
        10 => bytes
            .chunks_exact(8)
            .flat_map(|p| [0, 2, 4, 6].map(|i| unorm(half_to_f32(u16_at(p, i)))))
            .collect(),
        24 => bytes
            .chunks_exact(4)
            .flat_map(|p| {
                let v = u32::from_le_bytes([p[0], p[1], p[2], p[3]]);
                let c = |shift: u32| unorm(((v >> shift) & 0x3ff) as f32 / 1023.0);
                [c(0), c(10), c(20), unorm((v >> 30) as f32 / 3.0)]
            })
            .collect(),
        40 | 41 => bytes
            .chunks_exact(4)
            .flat_map(|p| grey(unorm(f32_at(p, 0))))
            .collect(),
        55 | 56 => bytes
            .chunks_exact(2)
            .flat_map(|p| grey(unorm(u16_at(p, 0) as f32 / 65535.0)))
            .collect(),
        61 => bytes.iter().flat_map(|&v| grey(v)).collect(),
        49 => bytes
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[1], 0, 255])
            .collect(),
        _ => {
            return Err(BackendError::Unsupported(format!(
                "reading format {} back as RGBA8",
                format.name().unwrap_or("?")
            )))
        }
    })
}

impl VulkanBackend {
    /// Transfers between an external resource (mip 0, layer 0 of a texture; a whole buffer) and
    /// a host-visible staging buffer: `upload` = host to resource.
    fn transfer_external(
        &mut self,
        name: &str,
        upload: Option<&[u8]>,
    ) -> Result<Vec<u8>, BackendError> {
        let external = self
            .externals
            .get(name)
            .ok_or_else(|| BackendError::Api(format!("no external resource named `{name}`")))?;
        let resource = &external.resource;
        let desc = resource.desc;
        let rest = external.rest_layout;
        let (image, buffer, aspect) = (resource.image, resource.buffer, resource.aspect());
        let size = if image != vk::Image::null() {
            if desc.sample_count > 1 {
                return Err(BackendError::Unsupported(
                    "reading back multisampled textures".into(),
                ));
            }
            if desc.format.is_block_compressed() {
                return Err(BackendError::Unsupported(
                    "reading back block-compressed textures".into(),
                ));
            }
            desc.width
                * desc.height as u64
                * desc.depth() as u64
                * desc.format.bytes_per_element() as u64
        } else {
            resource.size
        };
        if let Some(data) = upload {
            if data.len() as u64 != size {
                return Err(BackendError::Api(format!(
                    "upload to `{name}` has {} bytes, the resource holds {size}",
                    data.len()
                )));
            }
        }
        let device = self.context.device.clone();
        let info = vk::BufferCreateInfo::default()
            .size(size.max(4))
            .usage(vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST);
        // SAFETY: valid create info.
        let staging = unsafe { device.create_buffer(&info, None) }
            .map_err(|r| vk_error("vkCreateBuffer", r))?;
        self.context.name(staging, &format!("staging for `{name}`"));
        // SAFETY: live buffer.
        let requirements = unsafe { device.get_buffer_memory_requirements(staging) };
        let allocation = self.allocator().allocate(&AllocationCreateDesc {
            name: "staging",
            requirements,
            location: if upload.is_some() {
                MemoryLocation::CpuToGpu
            } else {
                MemoryLocation::GpuToCpu
            },
            linear: true,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        });
        let mut allocation = match allocation {
            Ok(a) => a,
            Err(e) => {
                // SAFETY: unused buffer.
                unsafe { device.destroy_buffer(staging, None) };
                return Err(map_alloc_error("staging", e));
            }
        };
        let result = (|| {
            // SAFETY: fresh buffer and live allocation.
            unsafe { device.bind_buffer_memory(staging, allocation.memory(), allocation.offset()) }
                .map_err(|r| vk_error("vkBindBufferMemory", r))?;
            if let Some(data) = upload {
                let mapped = allocation
                    .mapped_slice_mut()
                    .ok_or_else(|| BackendError::Api("staging memory is not mapped".into()))?;
                mapped[..data.len()].copy_from_slice(data);
            }
            let transfer_layout = if upload.is_some() {
                vk::ImageLayout::TRANSFER_DST_OPTIMAL
            } else {
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL
            };
            let range = vk::ImageSubresourceRange {
                aspect_mask: aspect,
                base_mip_level: 0,
                level_count: 1,
                base_array_layer: 0,
                layer_count: 1,
            };
            let all = vk::PipelineStageFlags2::ALL_COMMANDS;
            let memory = vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE;
            let transfer_access =
                vk::AccessFlags2::TRANSFER_READ | vk::AccessFlags2::TRANSFER_WRITE;
            self.one_shot(|device, cb| {
                let image_barrier =
                    |old: vk::ImageLayout, new: vk::ImageLayout, to_transfer: bool| {
                        let (src, src_access, dst, dst_access) = if to_transfer {
                            (all, memory, vk::PipelineStageFlags2::COPY, transfer_access)
                        } else {
                            (vk::PipelineStageFlags2::COPY, transfer_access, all, memory)
                        };
                        vk::ImageMemoryBarrier2::default()
                            .src_stage_mask(src)
                            .src_access_mask(src_access)
                            .dst_stage_mask(dst)
                            .dst_access_mask(dst_access)
                            .old_layout(old)
                            .new_layout(new)
                            .image(image)
                            .subresource_range(range)
                    };
                let host = vk::BufferMemoryBarrier2::default()
                    .src_stage_mask(if upload.is_some() {
                        vk::PipelineStageFlags2::HOST
                    } else {
                        vk::PipelineStageFlags2::COPY
                    })
                    .src_access_mask(if upload.is_some() {
                        vk::AccessFlags2::HOST_WRITE
                    } else {
                        vk::AccessFlags2::TRANSFER_WRITE
                    })
                    .dst_stage_mask(if upload.is_some() {
                        vk::PipelineStageFlags2::COPY
                    } else {
                        vk::PipelineStageFlags2::HOST
                    })
                    .dst_access_mask(if upload.is_some() {
                        vk::AccessFlags2::TRANSFER_READ
                    } else {
                        vk::AccessFlags2::HOST_READ
                    })
                    .buffer(staging)
                    .offset(0)
                    .size(vk::WHOLE_SIZE);
                let buffer_barrier = |to_transfer: bool| {
                    let (src, src_access, dst, dst_access) = if to_transfer {
                        (all, memory, vk::PipelineStageFlags2::COPY, transfer_access)
                    } else {
                        (vk::PipelineStageFlags2::COPY, transfer_access, all, memory)
                    };
                    vk::BufferMemoryBarrier2::default()
                        .src_stage_mask(src)
                        .src_access_mask(src_access)
                        .dst_stage_mask(dst)
                        .dst_access_mask(dst_access)
                        .buffer(buffer)
                        .offset(0)
                        .size(vk::WHOLE_SIZE)
                };
                // SAFETY: recording a one-shot command buffer; all handles are live and the
                // image rests in `rest` between frames.
                unsafe {
                    if image != vk::Image::null() {
                        let mut before = vec![image_barrier(rest[0], transfer_layout, true)];
                        if aspect
                            .contains(vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL)
                        {
                            before[0].subresource_range.aspect_mask = vk::ImageAspectFlags::DEPTH;
                            let mut stencil = image_barrier(rest[1], transfer_layout, true);
                            stencil.subresource_range.aspect_mask = vk::ImageAspectFlags::STENCIL;
                            before.push(stencil);
                        }
                        let mut deps = vk::DependencyInfo::default().image_memory_barriers(&before);
                        let hosts = [host];
                        if upload.is_some() {
                            deps = deps.buffer_memory_barriers(&hosts);
                        }
                        device.cmd_pipeline_barrier2(cb, &deps);
                        let copy_aspect = if aspect.contains(vk::ImageAspectFlags::DEPTH) {
                            vk::ImageAspectFlags::DEPTH
                        } else {
                            aspect
                        };
                        let region = vk::BufferImageCopy {
                            buffer_offset: 0,
                            buffer_row_length: 0,
                            buffer_image_height: 0,
                            image_subresource: vk::ImageSubresourceLayers {
                                aspect_mask: copy_aspect,
                                mip_level: 0,
                                base_array_layer: 0,
                                layer_count: 1,
                            },
                            image_offset: vk::Offset3D::default(),
                            image_extent: vk::Extent3D {
                                width: desc.width as u32,
                                height: desc.height,
                                depth: desc.depth(),
                            },
                        };
                        if upload.is_some() {
                            device.cmd_copy_buffer_to_image(
                                cb,
                                staging,
                                image,
                                transfer_layout,
                                &[region],
                            );
                        } else {
                            device.cmd_copy_image_to_buffer(
                                cb,
                                image,
                                transfer_layout,
                                staging,
                                &[region],
                            );
                        }
                        let mut after: Vec<_> = before
                            .iter()
                            .map(|b| {
                                let mut back = image_barrier(transfer_layout, b.old_layout, false);
                                back.subresource_range = b.subresource_range;
                                back
                            })
                            .collect();
                        after
                            .iter_mut()
                            .for_each(|b| b.old_layout = transfer_layout);
                        let mut deps = vk::DependencyInfo::default().image_memory_barriers(&after);
                        if upload.is_none() {
                            deps = deps.buffer_memory_barriers(&hosts);
                        }
                        device.cmd_pipeline_barrier2(cb, &deps);
                    } else {
                        let mut before = vec![buffer_barrier(true)];
                        if upload.is_some() {
                            before.push(host);
                        }
                        device.cmd_pipeline_barrier2(
                            cb,
                            &vk::DependencyInfo::default().buffer_memory_barriers(&before),
                        );
                        let copy = vk::BufferCopy {
                            src_offset: 0,
                            dst_offset: 0,
                            size,
                        };
                        if upload.is_some() {
                            device.cmd_copy_buffer(cb, staging, buffer, &[copy]);
                        } else {
                            device.cmd_copy_buffer(cb, buffer, staging, &[copy]);
                        }
                        let mut after = vec![buffer_barrier(false)];
                        if upload.is_none() {
                            after.push(host);
                        }
                        device.cmd_pipeline_barrier2(
                            cb,
                            &vk::DependencyInfo::default().buffer_memory_barriers(&after),
                        );
                    }
                }
                Ok(())
            })?;
            Ok(if upload.is_none() {
                allocation
                    .mapped_slice()
                    .map(|bytes| bytes[..size as usize].to_vec())
                    .ok_or_else(|| BackendError::Api("staging memory is not mapped".into()))?
            } else {
                Vec::new()
            })
        })();
        // SAFETY: the transfer completed (or never started).
        unsafe { device.destroy_buffer(staging, None) };
        let _ = self.allocator().free(allocation);
        result
    }

    /// Raw bytes of an external resource: a whole buffer, or mip 0 / layer 0 of a texture
    /// (tightly packed rows; the depth plane of a depth/stencil texture).
    pub fn read_external(&mut self, name: &str) -> Result<Vec<u8>, BackendError> {
        self.transfer_external(name, None)
    }

    /// Writes raw bytes into an external resource (the layout [`Self::read_external`] reads).
    pub fn write_external(&mut self, name: &str, data: &[u8]) -> Result<(), BackendError> {
        self.transfer_external(name, Some(data)).map(|_| ())
    }

    /// Mip 0 / layer 0 of an external texture as `(width, height, RGBA8 pixels)`
    /// (RGBA8, BGRA8 and RGBA32F formats).
    pub fn read_rgba8(&mut self, name: &str) -> Result<(u32, u32, Vec<u8>), BackendError> {
        let desc = self
            .externals
            .get(name)
            .map(|e| e.resource.desc)
            .ok_or_else(|| BackendError::Api(format!("no external resource named `{name}`")))?;
        if !desc.kind.is_texture() {
            return Err(BackendError::Api(format!("`{name}` is not a texture")));
        }
        let bytes = self.read_external(name)?;
        Ok((
            desc.width as u32,
            desc.height,
            to_rgba8(desc.format, &bytes)?,
        ))
    }
}
