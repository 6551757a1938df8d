//! Texture and buffer views as plain data with rpsl.h's byte layout ([`view_offsets`]), and the
//! subresource ranges they cover.
//!
//! The VM moves views as their bytes ([`ViewBytes`]); the runtime decodes them with
//! [`TextureView::from_bytes`] / [`BufferView::from_bytes`]. Both read the same offsets.

use crate::format::Format;
use crate::id::ResourceId;
use crate::resource::{ResourceDesc, ResourceKind};
use view_offsets as off;

/// The `Resource` value of a null view.
pub const NULL_RESOURCE: u32 = u32::MAX;
/// Byte size of both view structs in an argument block (and in VM memory).
pub const VIEW_BYTES: usize = 40;

/// The bytes of a view in VM memory and in argument blocks: rpsl.h's `texture` or `buffer`,
/// little-endian, fields at [`view_offsets`].
pub type ViewBytes = [u8; VIEW_BYTES];

/// Byte offsets of rpsl.h's view fields. `texture`: resource id, view format, temporal layer,
/// flags, base mip, mip count, base layer, layer count (`u32`s at 0..32), min LOD (`f32` at 32),
/// component mapping (`u32` at 36). `buffer`: resource id, view format, temporal layer, flags
/// (0..16), offset (`u64` at 16), size (`u64` at 24), stride (`u32` at 32), 4 bytes padding.
pub mod view_offsets {
    /// Resource id (`u32`, [`super::NULL_RESOURCE`] for `null`).
    pub const RESOURCE: u32 = 0;
    /// View format (`u32`).
    pub const VIEW_FORMAT: u32 = 4;
    /// Temporal layer (`u32`).
    pub const TEMPORAL_LAYER: u32 = 8;
    /// View flags (`u32`).
    pub const FLAGS: u32 = 12;
    /// Texture: base mip level (`u32`).
    pub const BASE_MIP: u32 = 16;
    /// Texture: mip level count (`u32`).
    pub const MIP_COUNT: u32 = 20;
    /// Texture: base array layer (`u32`).
    pub const BASE_LAYER: u32 = 24;
    /// Texture: array layer count (`u32`).
    pub const LAYER_COUNT: u32 = 28;
    /// Texture: min LOD clamp (`f32`).
    pub const MIN_LOD: u32 = 32;
    /// Texture: component mapping (`u32`).
    pub const COMPONENT_MAPPING: u32 = 36;
    /// Buffer: byte offset (`u64`).
    pub const OFFSET: u32 = 16;
    /// Buffer: byte size (`u64`).
    pub const SIZE: u32 = 24;
    /// Buffer: structure stride (`u32`).
    pub const STRIDE: u32 = 32;
}

/// The bytes of the `null` view (texture or buffer): resource id [`NULL_RESOURCE`], the rest
/// zero.
pub const NULL_VIEW: ViewBytes = {
    let mut bytes = [0u8; VIEW_BYTES];
    let resource = NULL_RESOURCE.to_le_bytes();
    let mut at = 0;
    while at < 4 {
        bytes[view_offsets::RESOURCE as usize + at] = resource[at];
        at += 1;
    }
    bytes
};
/// The `Resource` field of a texture or buffer view's bytes ([`NULL_RESOURCE`] for `null`).
///
/// ```
/// use rpsl_types::{view_resource, BufferView, NULL_RESOURCE, NULL_VIEW};
/// assert_eq!(view_resource(&NULL_VIEW), NULL_RESOURCE);
/// assert_eq!(view_resource(&BufferView { resource: 7, ..BufferView::NULL }.to_bytes()), 7);
/// ```
#[inline]
pub fn view_resource(view: &ViewBytes) -> u32 {
    read_u32(view, view_offsets::RESOURCE)
}

/// A mip or layer count meaning "all remaining" (rpsl.h's `-1`). A count of 0 means the same.
pub const REMAINING: u32 = u32::MAX;

/// rpsl.h's `texture` (40 bytes, `#[repr(C)]`). Null: `resource == u32::MAX`, the rest zero.
#[derive(Copy, Clone, PartialEq, Debug, Default)]
#[repr(C)]
pub struct TextureView {
    /// The resource id (`NULL_RESOURCE` for null).
    pub resource: u32,
    /// View format; `UNKNOWN` (0) inherits the resource's.
    pub view_format: u32,
    /// Temporal layer: 0 = this frame, k = written k frames ago.
    pub temporal_layer: u32,
    /// `RESOURCE_VIEW_FLAGS` (bit 0 = cubemap).
    pub flags: u32,
    /// First mip.
    pub base_mip_level: u32,
    /// Mip count (`REMAINING` or 0 = to the end).
    pub mip_level_count: u32,
    /// First array layer.
    pub base_array_layer: u32,
    /// Layer count (`REMAINING` or 0 = to the end).
    pub array_layer_count: u32,
    /// Minimum LOD clamp.
    pub min_lod_clamp: f32,
    /// Component mapping.
    pub component_mapping: u32,
}

/// rpsl.h's `buffer` (40 bytes, `#[repr(C)]`). Null: `resource == u32::MAX`, the rest zero.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
#[repr(C)]
pub struct BufferView {
    /// The resource id (`NULL_RESOURCE` for null).
    pub resource: u32,
    /// View format (`UNKNOWN` = unformatted).
    pub view_format: u32,
    /// Temporal layer.
    pub temporal_layer: u32,
    /// `RESOURCE_VIEW_FLAGS`.
    pub flags: u32,
    /// Byte offset.
    pub offset: u64,
    /// Byte size (0 or `u64::MAX` = to the end of the buffer).
    pub size_in_bytes: u64,
    /// Structure stride (0 = not structured).
    pub stride: u32,
    /// Padding to 40 bytes; always zero.
    pub padding: u32,
}

/// `RPS_RESOURCE_VIEW_FLAG_CUBEMAP_BIT` of a texture view's flags: the view is a cubemap (or an
/// array of cubemaps), six layers each.
pub const CUBEMAP_VIEW_FLAG: u32 = 1 << 0;

/// The view component mapping of an identity swizzle (R, G, B, A from channels 0, 1, 2, 3, one
/// byte each): what a default view carries and what `texture.base()` returns.
pub const IDENTITY_COMPONENT_MAPPING: u32 = 0x0302_0100;

#[inline]
fn read_u32(bytes: &[u8], at: u32) -> u32 {
    let at = at as usize;
    u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
}

#[inline]
fn read_u64(bytes: &[u8], at: u32) -> u64 {
    read_u32(bytes, at) as u64 | ((read_u32(bytes, at + 4) as u64) << 32)
}

#[inline]
fn write_u32(out: &mut ViewBytes, at: u32, value: u32) {
    let at = at as usize;
    out[at..at + 4].copy_from_slice(&value.to_le_bytes());
}

#[inline]
fn write_u64(out: &mut ViewBytes, at: u32, value: u64) {
    let at = at as usize;
    out[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

impl TextureView {
    /// The null view.
    pub const NULL: TextureView = TextureView {
        resource: NULL_RESOURCE,
        view_format: 0,
        temporal_layer: 0,
        flags: 0,
        base_mip_level: 0,
        mip_level_count: 0,
        base_array_layer: 0,
        array_layer_count: 0,
        min_lod_clamp: 0.0,
        component_mapping: 0,
    };

    /// The default view of a whole resource: every mip and layer, the resource's format.
    #[inline]
    pub fn whole(resource: ResourceId, desc: &ResourceDesc) -> TextureView {
        TextureView {
            resource: resource.0,
            view_format: 0,
            temporal_layer: 0,
            flags: 0,
            base_mip_level: 0,
            mip_level_count: desc.mip_levels,
            base_array_layer: 0,
            array_layer_count: desc.array_layers(),
            min_lod_clamp: 0.0,
            component_mapping: IDENTITY_COMPONENT_MAPPING,
        }
    }

    /// The view is null.
    #[inline]
    pub fn is_null(&self) -> bool {
        self.resource == NULL_RESOURCE
    }

    /// Decodes a view from 40 little-endian bytes; `None` when `bytes` is shorter.
    #[inline]
    pub fn from_bytes(bytes: &[u8]) -> Option<TextureView> {
        if bytes.len() < VIEW_BYTES {
            return None;
        }
        Some(TextureView {
            resource: read_u32(bytes, off::RESOURCE),
            view_format: read_u32(bytes, off::VIEW_FORMAT),
            temporal_layer: read_u32(bytes, off::TEMPORAL_LAYER),
            flags: read_u32(bytes, off::FLAGS),
            base_mip_level: read_u32(bytes, off::BASE_MIP),
            mip_level_count: read_u32(bytes, off::MIP_COUNT),
            base_array_layer: read_u32(bytes, off::BASE_LAYER),
            array_layer_count: read_u32(bytes, off::LAYER_COUNT),
            min_lod_clamp: f32::from_bits(read_u32(bytes, off::MIN_LOD)),
            component_mapping: read_u32(bytes, off::COMPONENT_MAPPING),
        })
    }

    /// The 40 little-endian bytes of this view.
    #[inline]
    pub fn to_bytes(&self) -> ViewBytes {
        let mut out = [0u8; VIEW_BYTES];
        write_u32(&mut out, off::RESOURCE, self.resource);
        write_u32(&mut out, off::VIEW_FORMAT, self.view_format);
        write_u32(&mut out, off::TEMPORAL_LAYER, self.temporal_layer);
        write_u32(&mut out, off::FLAGS, self.flags);
        write_u32(&mut out, off::BASE_MIP, self.base_mip_level);
        write_u32(&mut out, off::MIP_COUNT, self.mip_level_count);
        write_u32(&mut out, off::BASE_LAYER, self.base_array_layer);
        write_u32(&mut out, off::LAYER_COUNT, self.array_layer_count);
        write_u32(&mut out, off::MIN_LOD, self.min_lod_clamp.to_bits());
        write_u32(&mut out, off::COMPONENT_MAPPING, self.component_mapping);
        out
    }
}

impl BufferView {
    /// The null view.
    pub const NULL: BufferView = BufferView {
        resource: NULL_RESOURCE,
        view_format: 0,
        temporal_layer: 0,
        flags: 0,
        offset: 0,
        size_in_bytes: 0,
        stride: 0,
        padding: 0,
    };

    /// The default view of a whole buffer.
    #[inline]
    pub fn whole(resource: ResourceId, desc: &ResourceDesc) -> BufferView {
        BufferView {
            resource: resource.0,
            size_in_bytes: desc.width,
            ..BufferView::NULL
        }
    }

    /// The view is null.
    #[inline]
    pub fn is_null(&self) -> bool {
        self.resource == NULL_RESOURCE
    }

    /// Decodes a view from 40 little-endian bytes; `None` when `bytes` is shorter.
    #[inline]
    pub fn from_bytes(bytes: &[u8]) -> Option<BufferView> {
        if bytes.len() < VIEW_BYTES {
            return None;
        }
        Some(BufferView {
            resource: read_u32(bytes, off::RESOURCE),
            view_format: read_u32(bytes, off::VIEW_FORMAT),
            temporal_layer: read_u32(bytes, off::TEMPORAL_LAYER),
            flags: read_u32(bytes, off::FLAGS),
            offset: read_u64(bytes, off::OFFSET),
            size_in_bytes: read_u64(bytes, off::SIZE),
            stride: read_u32(bytes, off::STRIDE),
            padding: 0,
        })
    }

    /// The 40 little-endian bytes of this view.
    #[inline]
    pub fn to_bytes(&self) -> ViewBytes {
        let mut out = [0u8; VIEW_BYTES];
        write_u32(&mut out, off::RESOURCE, self.resource);
        write_u32(&mut out, off::VIEW_FORMAT, self.view_format);
        write_u32(&mut out, off::TEMPORAL_LAYER, self.temporal_layer);
        write_u32(&mut out, off::FLAGS, self.flags);
        write_u64(&mut out, off::OFFSET, self.offset);
        write_u64(&mut out, off::SIZE, self.size_in_bytes);
        write_u32(&mut out, off::STRIDE, self.stride);
        out
    }
}

/// Bit set of texture planes: bit 0 = color or depth, bit 1 = stencil.
pub type PlaneMask = u8;

/// Why a view does not fit its resource.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ViewRangeError {
    /// Mips beyond the resource's: the view's first mip and count (`REMAINING` or 0: the
    /// rest), and the resource's mip levels.
    Mips {
        /// The view's first mip.
        base: u32,
        /// The view's mip count.
        count: u32,
        /// The resource's mip levels.
        levels: u32,
    },
    /// Layers beyond the resource's: the view's first layer and count, and the resource's
    /// array layers.
    Layers {
        /// The view's first layer.
        base: u32,
        /// The view's layer count.
        count: u32,
        /// The resource's array layers.
        layers: u32,
    },
    /// Bytes beyond the buffer's: the view's offset and size (0 or `u64::MAX`: to the end),
    /// and the buffer's size.
    Bytes {
        /// The view's first byte.
        offset: u64,
        /// The view's size.
        size: u64,
        /// The buffer's size in bytes.
        buffer: u64,
    },
    /// A texture view of a buffer or the reverse.
    Kind,
    /// A cubemap view (`texture.cubemap()`) that is not of a 2-D texture or has fewer than 6
    /// array layers.
    Cubemap,
}

/// A resolved texture view range: counts are explicit.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct TextureRange {
    /// First mip.
    pub base_mip: u32,
    /// Mip count.
    pub mip_count: u32,
    /// First layer.
    pub base_layer: u32,
    /// Layer count.
    pub layer_count: u32,
    /// Planes covered.
    pub planes: PlaneMask,
}

fn resolve_count(base: u32, count: u32, total: u32) -> Option<u32> {
    if base >= total {
        return None;
    }
    let count = if count == 0 || count == REMAINING {
        total - base
    } else {
        count
    };
    (count as u64 + base as u64 <= total as u64).then_some(count)
}

impl TextureView {
    /// The view's format, or the resource's when the view inherits it.
    #[inline]
    pub fn effective_format(&self, desc: &ResourceDesc) -> Format {
        if self.view_format == 0 {
            desc.format
        } else {
            Format(self.view_format)
        }
    }

    /// Resolves the mip and layer range against the resource (counts of `REMAINING` or 0 mean
    /// the rest), with planes chosen by the view format or, for depth/stencil resources viewed
    /// with their own format, by `access_planes` (from the access's depth/stencil flags; 0 = all).
    pub fn resolve_range(
        &self,
        desc: &ResourceDesc,
        access_planes: PlaneMask,
    ) -> Result<TextureRange, ViewRangeError> {
        if !desc.kind.is_texture() {
            return Err(ViewRangeError::Kind);
        }
        let mip_count = resolve_count(self.base_mip_level, self.mip_level_count, desc.mip_levels)
            .ok_or(ViewRangeError::Mips {
            base: self.base_mip_level,
            count: self.mip_level_count,
            levels: desc.mip_levels,
        })?;
        let layer_count = resolve_count(
            self.base_array_layer,
            self.array_layer_count,
            desc.array_layers(),
        )
        .ok_or(ViewRangeError::Layers {
            base: self.base_array_layer,
            count: self.array_layer_count,
            layers: desc.array_layers(),
        })?;
        // rpsl.h: "The texture must be a texture array with at least 6 array layers." (The
        // AMD samples take cubemap views of textures without the cubemap-compatible flag.)
        if self.flags & CUBEMAP_VIEW_FLAG != 0
            && (desc.kind != ResourceKind::Tex2d || layer_count < 6)
        {
            return Err(ViewRangeError::Cubemap);
        }
        let all_planes: PlaneMask = if desc.format.plane_count() == 2 {
            0b11
        } else {
            0b01
        };
        let view_format = Format(self.view_format);
        let planes = if desc.format.plane_count() == 2 {
            if self.view_format != 0 && view_format.info().is_some_and(|info| info.plane_view) {
                view_format.plane_bits()
            } else if access_planes != 0 {
                access_planes & all_planes
            } else {
                all_planes
            }
        } else {
            1
        };
        Ok(TextureRange {
            base_mip: self.base_mip_level,
            mip_count,
            base_layer: self.base_array_layer,
            layer_count,
            planes: planes.max(1),
        })
    }
}

impl BufferView {
    /// Resolves the byte range `[offset, offset + size)` against the buffer (size 0 or
    /// `u64::MAX` = to the end).
    pub fn resolve_range(&self, desc: &ResourceDesc) -> Result<(u64, u64), ViewRangeError> {
        if desc.kind.is_texture() {
            return Err(ViewRangeError::Kind);
        }
        let out_of_range = ViewRangeError::Bytes {
            offset: self.offset,
            size: self.size_in_bytes,
            buffer: desc.width,
        };
        if self.offset >= desc.width {
            return Err(out_of_range);
        }
        let size = if self.size_in_bytes == 0 || self.size_in_bytes == u64::MAX {
            desc.width - self.offset
        } else {
            self.size_in_bytes
        };
        if self
            .offset
            .checked_add(size)
            .is_none_or(|end| end > desc.width)
        {
            return Err(out_of_range);
        }
        Ok((self.offset, size))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_are_pinned() {
        assert_eq!(std::mem::size_of::<TextureView>(), 40);
        assert_eq!(std::mem::size_of::<BufferView>(), 40);
        let view = TextureView {
            resource: 3,
            base_mip_level: 2,
            mip_level_count: REMAINING,
            min_lod_clamp: 1.5,
            ..TextureView::NULL
        };
        assert_eq!(TextureView::from_bytes(&view.to_bytes()), Some(view));
        let buffer = BufferView {
            resource: 1,
            offset: 1 << 40,
            size_in_bytes: 9,
            stride: 4,
            ..BufferView::NULL
        };
        assert_eq!(BufferView::from_bytes(&buffer.to_bytes()), Some(buffer));
        assert!(TextureView::from_bytes(&[0; 39]).is_none());
        assert_eq!(TextureView::NULL.to_bytes(), NULL_VIEW);
        assert_eq!(BufferView::NULL.to_bytes(), NULL_VIEW);
        let mut bytes = NULL_VIEW;
        bytes[off::MIN_LOD as usize..][..4].copy_from_slice(&2.5f32.to_le_bytes());
        bytes[off::SIZE as usize..][..8].copy_from_slice(&(7u64 << 33).to_le_bytes());
        assert_eq!(TextureView::from_bytes(&bytes).unwrap().min_lod_clamp, 2.5);
        assert_eq!(
            BufferView::from_bytes(&bytes).unwrap().size_in_bytes,
            7 << 33
        );
    }

    #[test]
    fn ranges_resolve_remaining_counts() {
        let mut desc = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 64);
        desc.mip_levels = 7;
        desc.depth_or_array_size = 4;
        let view = TextureView {
            resource: 0,
            base_mip_level: 2,
            mip_level_count: REMAINING,
            base_array_layer: 1,
            array_layer_count: 0,
            ..TextureView::NULL
        };
        let range = view.resolve_range(&desc, 0).unwrap();
        assert_eq!(
            (range.mip_count, range.layer_count, range.planes),
            (5, 3, 1)
        );
        let bad = TextureView {
            mip_level_count: 6,
            ..view
        };
        assert_eq!(
            bad.resolve_range(&desc, 0),
            Err(ViewRangeError::Mips {
                base: 2,
                count: 6,
                levels: 7
            })
        );
        let ds = ResourceDesc::tex2d(Format::D32_FLOAT_S8X24_UINT, 8, 8);
        let stencil_view = TextureView {
            resource: 0,
            view_format: Format::X32_TYPELESS_G8X24_UINT.0,
            mip_level_count: 1,
            array_layer_count: 1,
            ..TextureView::NULL
        };
        assert_eq!(stencil_view.resolve_range(&ds, 0).unwrap().planes, 2);
        let buffer = ResourceDesc::buffer(100);
        assert_eq!(
            BufferView {
                resource: 0,
                offset: 10,
                ..BufferView::NULL
            }
            .resolve_range(&buffer),
            Ok((10, 90))
        );
        assert_eq!(
            BufferView {
                resource: 0,
                offset: 10,
                size_in_bytes: 91,
                ..BufferView::NULL
            }
            .resolve_range(&buffer),
            Err(ViewRangeError::Bytes {
                offset: 10,
                size: 91,
                buffer: 100
            })
        );
    }
}
