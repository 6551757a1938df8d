//! Resource descriptions: kinds, flags, validation against Vulkan-typical limits, and byte sizes.
//!
//! Limits enforced by [`ResourceDesc::validate`] (Vulkan's guaranteed-or-typical desktop limits):
//! 1-D/2-D textures up to 16384 texels per side, 3-D textures up to 2048 per side, up to 2048 array
//! layers, buffers of 1 byte up to 256 TiB ([`MAX_BUFFER_BYTES`]; devices allow less), sample counts 1, 2, 4, 8 or 16 (multisampling only for
//! single-mip 2-D color or depth textures, never block-compressed), mip counts up to the full chain
//! (0 means the full chain), depth/stencil formats only on 1-D/2-D textures, up to 64 temporal
//! layers. `CUBEMAP_COMPATIBLE` needs a square 2-D texture with at least 6 layers.
//!
//! Placement size (see [`ResourceDesc::allocation_size`]): a texture takes the sum over its mips,
//! array layers, samples and temporal layers of its texel bytes; a buffer its byte size times its
//! temporal layers; either rounded up to [`ALLOCATION_ALIGNMENT`] (64 KiB).

use crate::format::Format;
use std::fmt;

/// Alignment and granularity of every placed resource (64 KiB, the usual image alignment).
pub const ALLOCATION_ALIGNMENT: u64 = 64 * 1024;
/// The largest width/height of 1-D and 2-D textures.
pub const MAX_TEXTURE_DIMENSION_2D: u32 = 16384;
/// The largest width/height/depth of 3-D textures.
pub const MAX_TEXTURE_DIMENSION_3D: u32 = 2048;
/// The largest array layer count.
pub const MAX_ARRAY_LAYERS: u32 = 2048;
/// The largest buffer in bytes (2^48, 256 TiB): rpsl.h's 64-bit buffer size (`Width` the low,
/// `Height` the high 32 bits) up to a bound that keeps the memory planner's sums of sizes far
/// from overflowing. Devices refuse smaller sizes: the Vulkan backend checks its
/// `maxBufferSize` and `maxMemoryAllocationSize`.
pub const MAX_BUFFER_BYTES: u64 = 1 << 48;
/// The largest temporal layer count.
pub const MAX_TEMPORAL_LAYERS: u32 = 64;

/// `RPS_RESOURCE_TYPE`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
#[repr(u32)]
pub enum ResourceKind {
    /// A buffer (`width` is its byte size).
    #[default]
    Buffer = 0,
    /// A 1-D texture.
    Tex1d = 1,
    /// A 2-D texture.
    Tex2d = 2,
    /// A 3-D texture.
    Tex3d = 3,
}

impl ResourceKind {
    /// The dump's name: `buffer`, `tex1d`, `tex2d`, `tex3d`.
    #[inline]
    pub fn name(self) -> &'static str {
        match self {
            ResourceKind::Buffer => "buffer",
            ResourceKind::Tex1d => "tex1d",
            ResourceKind::Tex2d => "tex2d",
            ResourceKind::Tex3d => "tex3d",
        }
    }

    /// The kind of an `RPS_RESOURCE_TYPE` value.
    #[inline]
    pub fn from_u32(value: u32) -> Option<ResourceKind> {
        match value {
            0 => Some(ResourceKind::Buffer),
            1 => Some(ResourceKind::Tex1d),
            2 => Some(ResourceKind::Tex2d),
            3 => Some(ResourceKind::Tex3d),
            _ => None,
        }
    }

    /// A texture of any dimension.
    #[inline]
    pub fn is_texture(self) -> bool {
        self != ResourceKind::Buffer
    }
}

/// `RPS_RESOURCE_FLAGS` bits.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ResourceFlags(pub u32);

impl ResourceFlags {
    /// No flags.
    pub const NONE: ResourceFlags = ResourceFlags(0);
    /// The resource supports cubemap views.
    pub const CUBEMAP_COMPATIBLE: ResourceFlags = ResourceFlags(1 << 1);
    /// Force row-major image layout.
    pub const ROWMAJOR_IMAGE: ResourceFlags = ResourceFlags(1 << 2);
    /// Prefer GPU-local CPU-visible memory.
    pub const PREFER_GPU_LOCAL_CPU_VISIBLE: ResourceFlags = ResourceFlags(1 << 3);
    /// Prefer a dedicated allocation.
    pub const PREFER_DEDICATED_ALLOCATION: ResourceFlags = ResourceFlags(1 << 4);
    /// Data persists from frame to frame: never aliased, never discarded.
    pub const PERSISTENT: ResourceFlags = ResourceFlags(1 << 15);

    const NAMES: [(ResourceFlags, &'static str); 5] = [
        (Self::CUBEMAP_COMPATIBLE, "cubemap_compatible"),
        (Self::ROWMAJOR_IMAGE, "rowmajor_image"),
        (
            Self::PREFER_GPU_LOCAL_CPU_VISIBLE,
            "prefer_gpu_local_cpu_visible",
        ),
        (
            Self::PREFER_DEDICATED_ALLOCATION,
            "prefer_dedicated_allocation",
        ),
        (Self::PERSISTENT, "persistent"),
    ];

    /// All of `other`'s bits are set.
    #[inline]
    pub fn contains(self, other: ResourceFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// The dump's names of the set bits, in bit order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        Self::NAMES
            .iter()
            .filter(move |(flag, _)| self.contains(*flag))
            .map(|(_, name)| *name)
    }
}

impl std::ops::BitOr for ResourceFlags {
    type Output = ResourceFlags;
    #[inline]
    fn bitor(self, rhs: ResourceFlags) -> ResourceFlags {
        ResourceFlags(self.0 | rhs.0)
    }
}

/// A resource description (rpsl.h's `ResourceDesc`, with the buffer size as one `u64`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct ResourceDesc {
    /// Buffer or texture dimension.
    pub kind: ResourceKind,
    /// The resource format (`Format::UNKNOWN` for buffers).
    pub format: Format,
    /// Texture width in texels, or buffer size in bytes.
    pub width: u64,
    /// Texture height (1 for buffers and 1-D textures).
    pub height: u32,
    /// Depth of a 3-D texture or array size of a 1-D/2-D texture (1 for buffers).
    pub depth_or_array_size: u32,
    /// Mip levels; 0 asks for the full chain and is resolved by validation.
    pub mip_levels: u32,
    /// Samples per texel.
    pub sample_count: u32,
    /// Temporal layers (1 = not temporal).
    pub temporal_layers: u32,
    /// `RPS_RESOURCE_FLAGS`.
    pub flags: ResourceFlags,
}

/// Size of rpsl.h's `ResourceDesc` in VM memory: nine `u32`s.
pub const RESOURCE_DESC_SIZE: u32 = 36;

/// rpsl.h's `ResourceDesc` byte-for-byte (nine `u32`: Type, TemporalLayers, Flags, Width, Height,
/// DepthOrArraySize, MipLevels, Format, SampleCount; little-endian in VM memory): what a script's
/// `create_*` calls hand the host and what `.desc()` reads back. [`ResourceDesc::from_rpsl`]
/// decodes it, [`ResourceDesc::to_rpsl`] encodes it.
#[derive(Copy, Clone, Eq, Debug, Default)]
#[repr(C)]
pub struct RpslResourceDesc {
    /// `RPS_RESOURCE_TYPE`: 0 buffer, 1 tex1d, 2 tex2d, 3 tex3d.
    pub ty: u32,
    /// Temporal layers.
    pub temporal_layers: u32,
    /// `RPS_RESOURCE_FLAGS`.
    pub flags: u32,
    /// Width, or the low 32 bits of a buffer's size.
    pub width: u32,
    /// Height, or the high 32 bits of a buffer's size.
    pub height: u32,
    /// Depth (3-D) or array size (1-D/2-D).
    pub depth_or_array_size: u32,
    /// Mip levels.
    pub mip_levels: u32,
    /// `RPS_FORMAT`.
    pub format: u32,
    /// Sample count.
    pub sample_count: u32,
}

/// Every field equal, compared without a branch per field (the builder compares a script's
/// description with a remembered one on every resource it creates).
impl PartialEq for RpslResourceDesc {
    #[inline]
    fn eq(&self, other: &RpslResourceDesc) -> bool {
        let (a, b) = (self.to_words(), other.to_words());
        let pair =
            |words: &[u32; 9], at: usize| u64::from(words[at]) | u64::from(words[at + 1]) << 32;
        ((pair(&a, 0) ^ pair(&b, 0))
            | (pair(&a, 2) ^ pair(&b, 2))
            | (pair(&a, 4) ^ pair(&b, 4))
            | (pair(&a, 6) ^ pair(&b, 6))
            | u64::from(a[8] ^ b[8]))
            == 0
    }
}

/// Field by field, as a derived `Hash` would (consistent with the `PartialEq` above).
impl std::hash::Hash for RpslResourceDesc {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        for word in self.to_words() {
            word.hash(state);
        }
    }
}

impl RpslResourceDesc {
    /// The fields in declaration order.
    #[inline]
    pub fn to_words(&self) -> [u32; 9] {
        [
            self.ty,
            self.temporal_layers,
            self.flags,
            self.width,
            self.height,
            self.depth_or_array_size,
            self.mip_levels,
            self.format,
            self.sample_count,
        ]
    }

    /// Reads the fields in declaration order.
    #[inline]
    pub fn from_words(words: [u32; 9]) -> RpslResourceDesc {
        RpslResourceDesc {
            ty: words[0],
            temporal_layers: words[1],
            flags: words[2],
            width: words[3],
            height: words[4],
            depth_or_array_size: words[5],
            mip_levels: words[6],
            format: words[7],
            sample_count: words[8],
        }
    }

    /// The in-memory bytes.
    #[inline]
    pub fn to_bytes(&self) -> [u8; RESOURCE_DESC_SIZE as usize] {
        let mut bytes = [0u8; RESOURCE_DESC_SIZE as usize];
        for (chunk, word) in bytes.chunks_exact_mut(4).zip(self.to_words()) {
            chunk.copy_from_slice(&word.to_le_bytes());
        }
        bytes
    }

    /// Reads the in-memory bytes.
    ///
    /// ```
    /// use rpsl_types::RpslResourceDesc;
    /// let desc = RpslResourceDesc { ty: 2, width: 640, height: 480, ..Default::default() };
    /// assert_eq!(RpslResourceDesc::from_bytes(&desc.to_bytes()), desc);
    /// ```
    #[inline]
    pub fn from_bytes(bytes: &[u8; RESOURCE_DESC_SIZE as usize]) -> RpslResourceDesc {
        let mut words = [0u32; 9];
        for (word, chunk) in words.iter_mut().zip(bytes.chunks_exact(4)) {
            *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        RpslResourceDesc::from_words(words)
    }
}

/// Why a resource description was rejected. The VM turns it into a located runtime fault.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ResourceError {
    /// A dimension is zero.
    ZeroSize,
    /// A dimension is beyond the limit.
    TooLarge {
        /// Which dimension.
        what: &'static str,
        /// The requested value.
        value: u64,
        /// The limit.
        limit: u64,
    },
    /// More mips than the full chain.
    TooManyMips {
        /// Requested.
        requested: u32,
        /// The full chain.
        full_chain: u32,
    },
    /// The sample count is not 1, 2, 4, 8 or 16.
    UnsupportedSampleCount(u32),
    /// The format cannot be used for this resource.
    UnsupportedFormat {
        /// The format.
        format: Format,
        /// Why.
        reason: &'static str,
    },
    /// Other inconsistent combinations.
    Invalid(&'static str),
}

impl fmt::Display for ResourceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResourceError::ZeroSize => write!(f, "resource size must not be zero"),
            ResourceError::TooLarge { what, value, limit } => {
                write!(f, "resource {what} {value} exceeds the limit of {limit}")
            }
            ResourceError::TooManyMips {
                requested,
                full_chain,
            } => {
                write!(
                    f,
                    "{requested} mip levels requested but the full mip chain has {full_chain}"
                )
            }
            ResourceError::UnsupportedSampleCount(count) => {
                write!(
                    f,
                    "unsupported sample count {count} (expected 1, 2, 4, 8 or 16)"
                )
            }
            ResourceError::UnsupportedFormat { format, reason } => {
                write!(f, "format {format} {reason}")
            }
            ResourceError::Invalid(reason) => f.write_str(reason),
        }
    }
}

impl std::error::Error for ResourceError {}

impl ResourceDesc {
    /// A 2-D texture with one mip, one layer, one sample.
    #[inline]
    pub fn tex2d(format: Format, width: u32, height: u32) -> ResourceDesc {
        ResourceDesc {
            kind: ResourceKind::Tex2d,
            format,
            width: width as u64,
            height,
            depth_or_array_size: 1,
            mip_levels: 1,
            sample_count: 1,
            temporal_layers: 1,
            flags: ResourceFlags::NONE,
        }
    }

    /// A buffer of `size` bytes.
    #[inline]
    pub fn buffer(size: u64) -> ResourceDesc {
        ResourceDesc {
            kind: ResourceKind::Buffer,
            format: Format::UNKNOWN,
            width: size,
            height: 1,
            depth_or_array_size: 1,
            mip_levels: 1,
            sample_count: 1,
            temporal_layers: 1,
            flags: ResourceFlags::NONE,
        }
    }

    /// Array layers of a 1-D/2-D texture (1 for buffers and 3-D textures).
    #[inline]
    pub fn array_layers(&self) -> u32 {
        match self.kind {
            ResourceKind::Tex1d | ResourceKind::Tex2d => self.depth_or_array_size,
            _ => 1,
        }
    }

    /// Depth of a 3-D texture (1 otherwise).
    #[inline]
    pub fn depth(&self) -> u32 {
        if self.kind == ResourceKind::Tex3d {
            self.depth_or_array_size
        } else {
            1
        }
    }

    /// Planes of a texture (2 for depth + stencil formats), 1 for buffers.
    #[inline]
    pub fn plane_count(&self) -> u32 {
        if self.kind.is_texture() {
            self.format.plane_count()
        } else {
            1
        }
    }

    /// The number of mips in the full chain of this texture's extent.
    #[inline]
    pub fn full_mip_chain(&self) -> u32 {
        let largest = self
            .width
            .max(self.height as u64)
            .max(self.depth() as u64)
            .max(1);
        64 - largest.leading_zeros()
    }

    /// The data survives across frames: `PERSISTENT` or more than one temporal layer.
    #[inline]
    pub fn is_persistent(&self) -> bool {
        self.flags.contains(ResourceFlags::PERSISTENT) || self.temporal_layers > 1
    }

    /// Checks the description and resolves defaults (0 mips = full chain, 0 samples or temporal
    /// layers = 1; buffers get height, depth, mips and samples of 1).
    pub fn validate(&self) -> Result<ResourceDesc, ResourceError> {
        let mut desc = *self;
        if desc.sample_count == 0 {
            desc.sample_count = 1;
        }
        if desc.temporal_layers == 0 {
            desc.temporal_layers = 1;
        }
        if desc.temporal_layers > MAX_TEMPORAL_LAYERS {
            return Err(ResourceError::TooLarge {
                what: "temporal layer count",
                value: desc.temporal_layers as u64,
                limit: MAX_TEMPORAL_LAYERS as u64,
            });
        }
        if desc.kind == ResourceKind::Buffer {
            if desc.width == 0 {
                return Err(ResourceError::ZeroSize);
            }
            if desc.width > MAX_BUFFER_BYTES {
                return Err(ResourceError::TooLarge {
                    what: "byte size",
                    value: desc.width,
                    limit: MAX_BUFFER_BYTES,
                });
            }
            if desc.format.is_depth_stencil() {
                return Err(ResourceError::UnsupportedFormat {
                    format: desc.format,
                    reason: "cannot be used for a buffer",
                });
            }
            if desc.sample_count != 1 {
                return Err(ResourceError::Invalid("buffers cannot be multisampled"));
            }
            desc.height = 1;
            desc.depth_or_array_size = 1;
            desc.mip_levels = 1;
            return Ok(desc);
        }
        let info = match desc.format.info() {
            Some(info) if desc.format != Format::UNKNOWN => info,
            _ => {
                return Err(ResourceError::UnsupportedFormat {
                    format: desc.format,
                    reason: "is not a texture format",
                })
            }
        };
        if info.special || info.plane_view {
            return Err(ResourceError::UnsupportedFormat {
                format: desc.format,
                reason: "cannot be used to create a texture",
            });
        }
        if desc.kind == ResourceKind::Tex1d && desc.height == 0 {
            desc.height = 1;
        }
        if desc.width == 0 || desc.height == 0 || desc.depth_or_array_size == 0 {
            return Err(ResourceError::ZeroSize);
        }
        let (limit, what) = match desc.kind {
            ResourceKind::Tex3d => (MAX_TEXTURE_DIMENSION_3D, "extent"),
            _ => (MAX_TEXTURE_DIMENSION_2D, "extent"),
        };
        for value in [desc.width, desc.height as u64] {
            if value > limit as u64 {
                return Err(ResourceError::TooLarge {
                    what,
                    value,
                    limit: limit as u64,
                });
            }
        }
        if desc.kind == ResourceKind::Tex1d && desc.height != 1 {
            return Err(ResourceError::Invalid(
                "a 1-D texture must have a height of 1",
            ));
        }
        let layer_limit = if desc.kind == ResourceKind::Tex3d {
            MAX_TEXTURE_DIMENSION_3D
        } else {
            MAX_ARRAY_LAYERS
        };
        if desc.depth_or_array_size > layer_limit {
            return Err(ResourceError::TooLarge {
                what: if desc.kind == ResourceKind::Tex3d {
                    "depth"
                } else {
                    "array layer count"
                },
                value: desc.depth_or_array_size as u64,
                limit: layer_limit as u64,
            });
        }
        let full_chain = desc.full_mip_chain();
        if desc.mip_levels == 0 {
            desc.mip_levels = full_chain;
        }
        if desc.mip_levels > full_chain {
            return Err(ResourceError::TooManyMips {
                requested: desc.mip_levels,
                full_chain,
            });
        }
        if !matches!(desc.sample_count, 1 | 2 | 4 | 8 | 16) {
            return Err(ResourceError::UnsupportedSampleCount(desc.sample_count));
        }
        if desc.sample_count > 1 {
            if desc.kind != ResourceKind::Tex2d {
                return Err(ResourceError::Invalid(
                    "only 2-D textures can be multisampled",
                ));
            }
            if desc.mip_levels != 1 {
                return Err(ResourceError::Invalid(
                    "multisampled textures must have exactly one mip level",
                ));
            }
            if info.block_size > 1 {
                return Err(ResourceError::UnsupportedFormat {
                    format: desc.format,
                    reason: "cannot be multisampled",
                });
            }
        }
        if desc.kind == ResourceKind::Tex3d && (info.depth || info.stencil) {
            return Err(ResourceError::UnsupportedFormat {
                format: desc.format,
                reason: "cannot be used for a 3-D texture",
            });
        }
        if desc.flags.contains(ResourceFlags::CUBEMAP_COMPATIBLE)
            && (desc.kind != ResourceKind::Tex2d
                || desc.width != desc.height as u64
                || desc.depth_or_array_size < 6)
        {
            return Err(ResourceError::Invalid("a cubemap-compatible texture must be a square 2-D texture with at least 6 array layers"));
        }
        Ok(desc)
    }

    /// Bytes of one temporal layer's data (unaligned): texels of every mip, layer and sample, or
    /// the buffer size.
    #[inline]
    pub fn data_bytes(&self) -> u64 {
        if self.kind == ResourceKind::Buffer {
            return self.width;
        }
        let block = self.format.block_size() as u64;
        let element_bytes = self.format.bits_per_element() as u64;
        let mut total_bits = 0u64;
        for mip in 0..self.mip_levels.max(1) {
            let width = (self.width >> mip).max(1);
            let height = ((self.height as u64) >> mip).max(1);
            let depth = ((self.depth() as u64) >> mip).max(1);
            let blocks = width.div_ceil(block) * height.div_ceil(block) * depth;
            total_bits = total_bits.saturating_add(blocks.saturating_mul(element_bytes));
        }
        let per_layer = total_bits.div_ceil(8);
        per_layer
            .saturating_mul(self.array_layers() as u64)
            .saturating_mul(self.sample_count.max(1) as u64)
    }

    /// Placement size: data bytes of every temporal layer, rounded up to [`ALLOCATION_ALIGNMENT`].
    #[inline]
    pub fn allocation_size(&self) -> u64 {
        let bytes = self
            .data_bytes()
            .saturating_mul(self.temporal_layers.max(1) as u64);
        bytes
            .div_ceil(ALLOCATION_ALIGNMENT)
            .saturating_mul(ALLOCATION_ALIGNMENT)
    }

    /// rpsl.h's byte layout of this description.
    #[inline]
    pub fn to_rpsl(&self) -> RpslResourceDesc {
        let buffer = self.kind == ResourceKind::Buffer;
        RpslResourceDesc {
            ty: self.kind as u32,
            temporal_layers: self.temporal_layers,
            flags: self.flags.0,
            width: self.width as u32,
            height: if buffer {
                (self.width >> 32) as u32
            } else {
                self.height
            },
            depth_or_array_size: self.depth_or_array_size,
            mip_levels: self.mip_levels,
            format: self.format.0,
            sample_count: self.sample_count,
        }
    }

    /// A description from rpsl.h's byte layout; `None` for an unknown `Type`.
    #[inline]
    pub fn from_rpsl(raw: &RpslResourceDesc) -> Option<ResourceDesc> {
        let kind = ResourceKind::from_u32(raw.ty)?;
        let buffer = kind == ResourceKind::Buffer;
        Some(ResourceDesc {
            kind,
            format: Format(raw.format),
            width: if buffer {
                raw.width as u64 | ((raw.height as u64) << 32)
            } else {
                raw.width as u64
            },
            height: if buffer { 1 } else { raw.height },
            depth_or_array_size: raw.depth_or_array_size,
            mip_levels: raw.mip_levels,
            sample_count: raw.sample_count,
            temporal_layers: raw.temporal_layers,
            flags: ResourceFlags(raw.flags),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_are_equal_only_in_every_field() {
        let base = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 64, 32).to_rpsl();
        assert_eq!(base, base);
        for field in 0..9 {
            for bit in [0, 7, 31] {
                let mut words = base.to_words();
                words[field] ^= 1 << bit;
                let [ty, temporal_layers, flags, width, height, depth_or_array_size, mip_levels, format, sample_count] =
                    words;
                let other = RpslResourceDesc {
                    ty,
                    temporal_layers,
                    flags,
                    width,
                    height,
                    depth_or_array_size,
                    mip_levels,
                    format,
                    sample_count,
                };
                assert_ne!(base, other, "field {field}, bit {bit}");
                assert_ne!(other, base, "field {field}, bit {bit}");
            }
        }
    }

    #[test]
    fn validation_limits() {
        let ok = ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080);
        assert_eq!(ok.validate(), Ok(ok));
        let mut full = ok;
        full.mip_levels = 0;
        assert_eq!(full.validate().unwrap().mip_levels, 11);
        full.mip_levels = 12;
        assert_eq!(
            full.validate(),
            Err(ResourceError::TooManyMips {
                requested: 12,
                full_chain: 11
            })
        );
        let mut zero = ok;
        zero.width = 0;
        assert_eq!(zero.validate(), Err(ResourceError::ZeroSize));
        let mut huge = ok;
        huge.width = 16385;
        assert!(matches!(
            huge.validate(),
            Err(ResourceError::TooLarge { .. })
        ));
        let mut msaa = ok;
        msaa.sample_count = 3;
        assert_eq!(
            msaa.validate(),
            Err(ResourceError::UnsupportedSampleCount(3))
        );
        let mut bc = ResourceDesc::tex2d(Format::BC1_UNORM, 64, 64);
        bc.sample_count = 4;
        assert!(matches!(
            bc.validate(),
            Err(ResourceError::UnsupportedFormat { .. })
        ));
        let mut depth3d = ResourceDesc::tex2d(Format::D32_FLOAT, 64, 64);
        depth3d.kind = ResourceKind::Tex3d;
        assert!(matches!(
            depth3d.validate(),
            Err(ResourceError::UnsupportedFormat { .. })
        ));
        assert!(ResourceDesc::buffer(MAX_BUFFER_BYTES + 1)
            .validate()
            .is_err());
        assert!(ResourceDesc::buffer(0).validate().is_err());
    }

    #[test]
    fn sizes_and_rpsl_layout() {
        let desc = ResourceDesc::tex2d(Format::R16G16B16A16_FLOAT, 1920, 1080);
        assert_eq!(desc.data_bytes(), 1920 * 1080 * 8);
        assert_eq!(desc.allocation_size() % ALLOCATION_ALIGNMENT, 0);
        let buffer = ResourceDesc::buffer((5u64 << 32) + 7);
        let raw = buffer.to_rpsl();
        assert_eq!((raw.width, raw.height), (7, 5));
        assert_eq!(ResourceDesc::from_rpsl(&raw), Some(buffer));
        assert_eq!(
            std::mem::size_of::<RpslResourceDesc>(),
            RESOURCE_DESC_SIZE as usize
        );
        let bytes = raw.to_bytes();
        assert_eq!(&bytes[12..20], &[7, 0, 0, 0, 5, 0, 0, 0]);
        assert_eq!(RpslResourceDesc::from_bytes(&bytes), raw);
    }
}
