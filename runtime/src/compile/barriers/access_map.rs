//! The one table from rpsl.h access attributes to Vulkan synchronization2 terms: pipeline
//! stages, access bits and image layout, per plane.

use crate::compile::table::{DEPTH_FORMAT, TEXTURE};
use crate::decl::{AccessDesc, AccessFlags, QueueClass};

/// How far [`MapContext`] shifts the resource bits of an access's compact record (`TEXTURE`,
/// bit 9, lands on bit 38; `DEPTH_FORMAT`, bit 11, on bit 40).
const RESOURCE_SHIFT: u32 = 29;
use crate::vk::{Accesses, ImageLayout, Stages};

/// What an access needs of a subresource.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct AccessState {
    /// Stages that access it.
    pub stages: Stages,
    /// Access bits.
    pub accesses: Accesses,
    /// Image layout (`Undefined` for buffers).
    pub layout: ImageLayout,
    /// The access reads.
    pub reads: bool,
    /// The access writes.
    pub writes: bool,
}

fn shader_stages(flags: AccessFlags, queue: QueueClass) -> Stages {
    let table = [
        (AccessFlags::VS, Stages::VERTEX_SHADER),
        (AccessFlags::PS, Stages::FRAGMENT_SHADER),
        (AccessFlags::CS, Stages::COMPUTE_SHADER),
        (AccessFlags::GS, Stages::GEOMETRY_SHADER),
        (AccessFlags::HS, Stages::TESSELLATION_CONTROL_SHADER),
        (AccessFlags::DS, Stages::TESSELLATION_EVALUATION_SHADER),
        (AccessFlags::TS, Stages::TASK_SHADER),
        (AccessFlags::MS, Stages::MESH_SHADER),
        (AccessFlags::RAYTRACING, Stages::RAY_TRACING_SHADER),
    ];
    let mut stages = Stages::NONE;
    for (flag, stage) in table {
        if flags.contains(flag) {
            stages |= stage;
        }
    }
    if stages == Stages::NONE && flags.contains(AccessFlags::CB) {
        stages = match queue {
            QueueClass::Graphics => Stages::VERTEX_SHADER | Stages::FRAGMENT_SHADER,
            _ => Stages::COMPUTE_SHADER,
        };
    }
    stages
}

/// Maps an access of plane `plane` (0 color/depth, 1 stencil) of a texture (or a buffer) to
/// Vulkan terms. `depth_format`: the resource has depth and/or stencil planes.
pub fn map_access(
    access: &AccessDesc,
    plane: u32,
    texture: bool,
    depth_format: bool,
    queue: QueueClass,
) -> AccessState {
    let mode = if texture {
        access.mode_for_plane(plane)
    } else {
        access.mode
    };
    let reads = mode.reads();
    let writes = mode.writes();
    let flags = access.flags;
    let mut stages = Stages::NONE;
    let mut accesses = Accesses::NONE;
    let mut layouts: [Option<ImageLayout>; 4] = [None; 4];
    let mut layout_count = 0;
    let mut add_layout = |layout: ImageLayout| {
        if !layouts[..layout_count].contains(&Some(layout)) && layout_count < 4 {
            layouts[layout_count] = Some(layout);
            layout_count += 1;
        }
    };
    let shader = shader_stages(flags, queue);
    if shader != Stages::NONE
        && !flags.intersects(AccessFlags::RENDER_TARGET | AccessFlags::DEPTH | AccessFlags::STENCIL)
        || flags.contains(AccessFlags::CB)
    {
        stages |= shader;
        if flags.contains(AccessFlags::CB) {
            accesses |= Accesses::UNIFORM_READ;
        }
        if shader_stages(AccessFlags(flags.0 & !AccessFlags::CB.0), queue) != Stages::NONE {
            if writes {
                accesses |= Accesses::SHADER_STORAGE_READ | Accesses::SHADER_STORAGE_WRITE;
                add_layout(ImageLayout::General);
            } else if texture {
                accesses |= Accesses::SHADER_SAMPLED_READ;
                add_layout(if depth_format {
                    if plane == 1 {
                        ImageLayout::StencilReadOnly
                    } else {
                        ImageLayout::DepthReadOnly
                    }
                } else {
                    ImageLayout::ShaderReadOnly
                });
            } else {
                accesses |= Accesses::SHADER_READ;
            }
        }
    } else if shader != Stages::NONE {
        // Attachment plus shader access in one view (e.g. read-only depth also sampled).
        stages |= shader;
        accesses |= if texture {
            Accesses::SHADER_SAMPLED_READ
        } else {
            Accesses::SHADER_READ
        };
    }
    if flags.contains(AccessFlags::RENDER_TARGET) {
        stages |= Stages::COLOR_ATTACHMENT_OUTPUT;
        if reads {
            accesses |= Accesses::COLOR_ATTACHMENT_READ;
        }
        if writes {
            accesses |= Accesses::COLOR_ATTACHMENT_WRITE;
        }
        add_layout(ImageLayout::ColorAttachment);
    }
    if flags.intersects(AccessFlags::DEPTH | AccessFlags::STENCIL) {
        stages |= Stages::EARLY_FRAGMENT_TESTS | Stages::LATE_FRAGMENT_TESTS;
        accesses |= Accesses::DEPTH_STENCIL_ATTACHMENT_READ;
        if writes {
            accesses |= Accesses::DEPTH_STENCIL_ATTACHMENT_WRITE;
        }
        add_layout(match (plane, writes) {
            (1, true) => ImageLayout::StencilAttachment,
            (1, false) => ImageLayout::StencilReadOnly,
            (_, true) => ImageLayout::DepthAttachment,
            (_, false) => ImageLayout::DepthReadOnly,
        });
    }
    let transfer = |stage: Stages, stages: &mut Stages, accesses: &mut Accesses| {
        *stages |= stage;
        *accesses |= if writes {
            Accesses::TRANSFER_WRITE
        } else {
            Accesses::TRANSFER_READ
        };
    };
    if flags.contains(AccessFlags::COPY) {
        transfer(Stages::COPY, &mut stages, &mut accesses);
        add_layout(if writes {
            ImageLayout::TransferDst
        } else {
            ImageLayout::TransferSrc
        });
    }
    if flags.contains(AccessFlags::RESOLVE) {
        transfer(Stages::RESOLVE, &mut stages, &mut accesses);
        add_layout(if writes {
            ImageLayout::TransferDst
        } else {
            ImageLayout::TransferSrc
        });
    }
    if flags.contains(AccessFlags::CLEAR)
        && !flags.intersects(AccessFlags::RENDER_TARGET | AccessFlags::DEPTH | AccessFlags::STENCIL)
    {
        // Images are cleared by `vkCmdClearColorImage` (the CLEAR stage); buffers by
        // `vkCmdFillBuffer`, `vkCmdUpdateBuffer` and `vkCmdCopyBuffer`, which the backend records
        // and scopes with this same constant.
        stages |= if texture {
            Stages::CLEAR
        } else {
            Stages::BUFFER_CLEAR
        };
        accesses |= Accesses::TRANSFER_WRITE;
        add_layout(ImageLayout::TransferDst);
    }
    if flags.contains(AccessFlags::PRESENT) {
        stages |= Stages::BOTTOM_OF_PIPE;
        add_layout(ImageLayout::PresentSrc);
    }
    if flags.contains(AccessFlags::CPU) {
        stages |= Stages::HOST;
        accesses |= if writes {
            Accesses::HOST_WRITE
        } else {
            Accesses::HOST_READ
        };
        add_layout(ImageLayout::General);
    }
    if flags.contains(AccessFlags::INDIRECT_ARGS) {
        stages |= Stages::DRAW_INDIRECT;
        accesses |= Accesses::INDIRECT_COMMAND_READ;
    }
    if flags.contains(AccessFlags::VB) {
        stages |= Stages::VERTEX_ATTRIBUTE_INPUT;
        accesses |= Accesses::VERTEX_ATTRIBUTE_READ;
    }
    if flags.contains(AccessFlags::IB) {
        stages |= Stages::INDEX_INPUT;
        accesses |= Accesses::INDEX_READ;
    }
    if flags.contains(AccessFlags::SHADING_RATE) {
        stages |= Stages::FRAGMENT_SHADING_RATE_ATTACHMENT;
        accesses |= Accesses::FRAGMENT_SHADING_RATE_ATTACHMENT_READ;
        add_layout(ImageLayout::FragmentShadingRateAttachment);
    }
    if flags.contains(AccessFlags::PREDICATION) {
        stages |= Stages::CONDITIONAL_RENDERING;
        accesses |= Accesses::CONDITIONAL_RENDERING_READ;
    }
    if flags.contains(AccessFlags::STREAM_OUT) {
        stages |= Stages::TRANSFORM_FEEDBACK;
        accesses |= Accesses::TRANSFORM_FEEDBACK_WRITE;
    }
    if flags.contains(AccessFlags::RTAS) {
        if writes {
            stages |= Stages::ACCELERATION_STRUCTURE_BUILD;
            accesses |=
                Accesses::ACCELERATION_STRUCTURE_WRITE | Accesses::ACCELERATION_STRUCTURE_READ;
        } else {
            stages |= Stages::RAY_TRACING_SHADER | Stages::ACCELERATION_STRUCTURE_BUILD;
            accesses |= Accesses::ACCELERATION_STRUCTURE_READ;
        }
    }
    if stages == Stages::NONE {
        stages = Stages::ALL_COMMANDS;
    }
    if accesses == Accesses::NONE && !flags.contains(AccessFlags::PRESENT) {
        if reads {
            accesses |= Accesses::MEMORY_READ;
        }
        if writes {
            accesses |= Accesses::MEMORY_WRITE;
        }
    }
    let layout = if !texture {
        ImageLayout::Undefined
    } else {
        match layout_count {
            0 => ImageLayout::General,
            1 => layouts[0].unwrap_or(ImageLayout::General),
            _ => merge_layouts(
                layouts[0].unwrap_or(ImageLayout::General),
                layouts[1].unwrap_or(ImageLayout::General),
            ),
        }
    };
    AccessState {
        stages,
        accesses,
        layout,
        reads,
        writes,
    }
}

/// What [`map_access`] depends on besides the access itself (plane, resource kind, queue
/// class), packed into the bits of a cache key above those of the access (37 and up): the
/// stencil plane at 37, the resource's [`TEXTURE`] and [`DEPTH_FORMAT`] bits shifted up by
/// [`RESOURCE_SHIFT`] (38 and 40) and the queue class from 41.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct MapContext(u64);

impl MapContext {
    /// The context of plane 0 (`stencil_plane` false) or plane 1 of a texture (or a buffer) with
    /// a depth/stencil format or not, accessed from a queue of class `class`.
    #[inline(always)]
    pub fn new(stencil_plane: bool, texture: bool, depth: bool, class: QueueClass) -> MapContext {
        let bits = if texture { TEXTURE } else { 0 } | if depth { DEPTH_FORMAT } else { 0 };
        MapContext::of_resource(stencil_plane, bits, class)
    }

    /// The context from an access's [`AccessInfo`](crate::compile::table::AccessInfo) bits (their
    /// `TEXTURE` and `DEPTH_FORMAT` bits; the rest are ignored).
    #[inline(always)]
    pub fn of_resource(stencil_plane: bool, info_bits: u32, class: QueueClass) -> MapContext {
        MapContext(
            (stencil_plane as u64) << 37
                | ((info_bits & (TEXTURE | DEPTH_FORMAT)) as u64) << RESOURCE_SHIFT
                | (class as u64) << 41,
        )
    }

    fn stencil_plane(self) -> bool {
        self.0 >> 37 & 1 != 0
    }

    fn texture(self) -> bool {
        self.0 & (TEXTURE as u64) << RESOURCE_SHIFT != 0
    }

    fn depth(self) -> bool {
        self.0 & (DEPTH_FORMAT as u64) << RESOURCE_SHIFT != 0
    }

    fn class(self) -> QueueClass {
        match self.0 >> 41 {
            0 => QueueClass::Graphics,
            1 => QueueClass::Compute,
            _ => QueueClass::Copy,
        }
    }
}

/// The inputs of [`map_access`] packed into one word: attribute flags (bits 0..32), mode,
/// stencil mode (3 = none), relaxed, and the context. Never `u64::MAX`, which marks an empty
/// slot of [`AccessStateCache`].
#[inline(always)]
fn map_key(access: &AccessDesc, context: MapContext) -> u64 {
    let stencil = match access.stencil_mode {
        Some(mode) => mode as u64,
        None => 3,
    };
    access.flags.0 as u64
        | (access.mode as u64) << 32
        | stencil << 34
        | (access.relaxed as u64) << 36
        | context.0
}

/// Slots of [`AccessStateCache`] (a power of two).
const CACHE_SLOTS: usize = 256;

/// The home slot of a key: the top bits of a multiplicative mix.
#[inline(always)]
fn home_slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56) as usize
}

/// [`map_access`] results by [`map_key`], in an open-addressed table probed linearly from the
/// key's home slot. A frame has few distinct access kinds, so a lookup is nearly always one
/// probe; [`map_access`] is a pure function, so entries stay valid across frames.
#[derive(Debug)]
pub struct AccessStateCache {
    keys: Box<[u64; CACHE_SLOTS]>,
    states: Box<[AccessState; CACHE_SLOTS]>,
    len: usize,
}

impl Default for AccessStateCache {
    fn default() -> AccessStateCache {
        AccessStateCache {
            keys: Box::new([u64::MAX; CACHE_SLOTS]),
            states: Box::new([AccessState::default(); CACHE_SLOTS]),
            len: 0,
        }
    }
}

impl AccessStateCache {
    /// [`map_access`] of `access` in `context`.
    #[inline(always)]
    pub fn get(&mut self, access: &AccessDesc, context: MapContext) -> AccessState {
        let key = map_key(access, context);
        let mut slot = home_slot(key);
        loop {
            let known = self.keys[slot];
            if known == key {
                break;
            }
            if known == u64::MAX {
                slot = self.insert(slot, key, access, context);
                break;
            }
            slot = (slot + 1) & (CACHE_SLOTS - 1);
        }
        // One exit, so the caller reads the fields straight from the table.
        self.states[slot]
    }

    /// Maps `access` into the empty slot `slot` (or, when the table is half full, into a
    /// table started over); returns the slot used.
    #[cold]
    fn insert(
        &mut self,
        mut slot: usize,
        key: u64,
        access: &AccessDesc,
        context: MapContext,
    ) -> usize {
        let state = map_access(
            access,
            context.stencil_plane() as u32,
            context.texture(),
            context.depth(),
            context.class(),
        );
        if self.len >= CACHE_SLOTS / 2 {
            // Keep probe chains short (and the loop in `get` finite): start over.
            self.keys.fill(u64::MAX);
            self.len = 0;
            slot = home_slot(key);
        }
        self.keys[slot] = key;
        self.states[slot] = state;
        self.len += 1;
        slot
    }
}

/// One layout serving two uses of a subresource at once (read-only depth also sampled keeps the
/// read-only depth layout; anything else falls back to `General`).
pub fn merge_layouts(a: ImageLayout, b: ImageLayout) -> ImageLayout {
    use ImageLayout as L;
    match (a, b) {
        _ if a == b => a,
        (L::DepthReadOnly, L::ShaderReadOnly) | (L::ShaderReadOnly, L::DepthReadOnly) => {
            L::DepthReadOnly
        }
        (L::StencilReadOnly, L::ShaderReadOnly) | (L::ShaderReadOnly, L::StencilReadOnly) => {
            L::StencilReadOnly
        }
        _ => L::General,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_matches_map_access() {
        let mut cache = AccessStateCache::default();
        let mut ds = AccessDesc::readwrite(AccessFlags::DEPTH | AccessFlags::STENCIL);
        ds.stencil_mode = Some(crate::decl::AccessMode::ReadOnly);
        let descs = [
            AccessDesc::readwrite(AccessFlags::RENDER_TARGET),
            AccessDesc::readonly(AccessFlags::PS | AccessFlags::CS),
            AccessDesc::readwrite(AccessFlags::CS),
            AccessDesc::readonly(AccessFlags::COPY),
            ds,
        ];
        let classes = [QueueClass::Graphics, QueueClass::Compute, QueueClass::Copy];
        // Far more distinct keys than the cache holds, twice over: every answer (fresh, cached
        // or after the cache started over) equals the direct mapping.
        for _ in 0..2 {
            for flags in 0..64u32 {
                for desc in descs {
                    let desc = AccessDesc {
                        flags: AccessFlags(desc.flags.0 | flags << 20),
                        ..desc
                    };
                    for (plane, texture, depth, class) in
                        (0..24).map(|i| (i & 1, i & 2 != 0, i & 4 != 0, classes[i as usize / 8]))
                    {
                        let context = MapContext::new(plane == 1, texture, depth, class);
                        assert_eq!(
                            cache.get(&desc, context),
                            map_access(&desc, plane, texture, depth, class)
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn table_entries() {
        let rt = map_access(
            &AccessDesc::readwrite(AccessFlags::RENDER_TARGET),
            0,
            true,
            false,
            QueueClass::Graphics,
        );
        assert_eq!(rt.layout, ImageLayout::ColorAttachment);
        assert_eq!(rt.stages, Stages::COLOR_ATTACHMENT_OUTPUT);
        assert_eq!(
            rt.accesses,
            Accesses::COLOR_ATTACHMENT_READ | Accesses::COLOR_ATTACHMENT_WRITE
        );
        let srv = map_access(
            &AccessDesc::readonly(AccessFlags::PS | AccessFlags::CS),
            0,
            true,
            false,
            QueueClass::Graphics,
        );
        assert_eq!(srv.layout, ImageLayout::ShaderReadOnly);
        assert_eq!(srv.stages, Stages::FRAGMENT_SHADER | Stages::COMPUTE_SHADER);
        let uav = map_access(
            &AccessDesc::readwrite(AccessFlags::CS),
            0,
            true,
            false,
            QueueClass::Compute,
        );
        assert_eq!(uav.layout, ImageLayout::General);
        assert!(uav.accesses.has_writes());
        let mut ds = AccessDesc::readwrite(AccessFlags::DEPTH | AccessFlags::STENCIL);
        ds.stencil_mode = Some(crate::decl::AccessMode::ReadOnly);
        assert_eq!(
            map_access(&ds, 0, true, true, QueueClass::Graphics).layout,
            ImageLayout::DepthAttachment
        );
        assert_eq!(
            map_access(&ds, 1, true, true, QueueClass::Graphics).layout,
            ImageLayout::StencilReadOnly
        );
        let copy_src = map_access(
            &AccessDesc::readonly(AccessFlags::COPY),
            0,
            true,
            false,
            QueueClass::Copy,
        );
        assert_eq!(
            (copy_src.layout, copy_src.accesses),
            (ImageLayout::TransferSrc, Accesses::TRANSFER_READ)
        );
        let present = map_access(
            &AccessDesc::readonly(AccessFlags::PRESENT),
            0,
            true,
            false,
            QueueClass::Graphics,
        );
        assert_eq!(present.layout, ImageLayout::PresentSrc);
        let vb = map_access(
            &AccessDesc::readonly(AccessFlags::VB),
            0,
            false,
            false,
            QueueClass::Graphics,
        );
        assert_eq!(
            (vb.stages, vb.accesses),
            (
                Stages::VERTEX_ATTRIBUTE_INPUT,
                Accesses::VERTEX_ATTRIBUTE_READ
            )
        );
    }
}
