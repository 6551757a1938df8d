//! Argument rules of rpsl.h's built-in transfer nodes (`copy_texture`, `copy_buffer`,
//! `copy_texture_to_buffer`, `copy_buffer_to_texture`, `resolve`), checked when a call is
//! recorded. A copy between textures of different texel sizes, layer or sample counts, or one
//! that reaches past the end of a resource, is an error at the call on every backend — never a
//! command a GPU runs (on real drivers such a copy can take the device down).

use crate::builtin_call::{
    BufferTextureCopy, BuiltinCall, CopyBuffer, CopyTexture, Resolve, ViewArg,
};
use crate::builtins::BuiltinNode;
use crate::decl::NodeDeclDesc;
use crate::graph::{AccessRange, AccessRecord, ResourceRecord};
use crate::resource::ResourceDesc;

/// What one access of the call covers: its resource's description and the viewed range.
struct Viewed<'a> {
    desc: &'a ResourceDesc,
    range: AccessRange,
}

impl Viewed<'_> {
    /// Mips, layers and the first mip of a texture view (`None` for a buffer).
    fn texture(&self) -> Option<(u32, u32, u32)> {
        match self.range {
            AccessRange::Texture(range) => {
                Some((range.mip_count, range.layer_count, range.base_mip))
            }
            AccessRange::Buffer { .. } => None,
        }
    }

    /// The size of mip `mip` (width, height, depth).
    fn mip_extent(&self, mip: u32) -> [u64; 3] {
        [
            (self.desc.width >> mip).max(1),
            (self.desc.height as u64 >> mip).max(1),
            (self.desc.depth() as u64 >> mip).max(1),
        ]
    }

    /// Bytes of one texel (block) of the format.
    fn texel_bytes(&self) -> u64 {
        self.desc.format.bytes_per_element().max(1) as u64
    }

    /// Bytes of one texel of the viewed plane in a buffer: a depth/stencil format's stencil
    /// plane is 1 byte, its depth plane 2 (16-bit depth) or 4.
    fn plane_texel_bytes(&self) -> u64 {
        let format = self.desc.format;
        let planes = match self.range {
            AccessRange::Texture(range) => range.planes,
            AccessRange::Buffer { .. } => 0,
        };
        if !format.is_depth_stencil() {
            self.texel_bytes()
        } else if planes == 2 {
            1
        } else if format.bytes_per_element() == 2 {
            2
        } else {
            4
        }
    }

    /// The viewed byte range of a buffer: its offset in the buffer and its size.
    fn byte_range(&self) -> (u64, u64) {
        match self.range {
            AccessRange::Buffer { offset, size } => (offset, size),
            AccessRange::Texture(_) => (0, 0),
        }
    }

    /// The viewed byte range's size of a buffer.
    fn bytes(&self) -> u64 {
        self.byte_range().1
    }
}

/// Checks a call of built-in transfer node `decl` (a no-op for any other declaration);
/// `accesses` are the call's recorded accesses, `resources` the frame's resources.
pub(crate) fn check_transfer(
    decl: &NodeDeclDesc,
    accesses: &[AccessRecord],
    resources: &[ResourceRecord],
    args: &[u8],
) -> Result<(), String> {
    use BuiltinNode as N;
    // Only copies and resolves have rules here: other calls are not decoded at all.
    if !matches!(
        decl.builtin,
        Some(
            N::CopyTexture
                | N::CopyTextureRegion
                | N::CopyBuffer
                | N::CopyBufferRegion
                | N::CopyTextureToBuffer
                | N::CopyBufferToTexture
                | N::Resolve
        )
    ) {
        return Ok(());
    }
    match &BuiltinCall::decode(decl, args, accesses) {
        Ok(BuiltinCall::CopyTexture(copy)) => check_copy_texture(copy, resources),
        Ok(BuiltinCall::CopyBuffer(copy)) => check_copy_buffer(copy, resources),
        Ok(BuiltinCall::CopyTextureToBuffer(copy)) => {
            overlap(copy.buffer, copy.texture, resources)?;
            check_buffer_texture_copy(copy, resources)
        }
        Ok(BuiltinCall::CopyBufferToTexture(copy)) => {
            overlap(copy.texture, copy.buffer, resources)?;
            check_buffer_texture_copy(copy, resources)
        }
        Ok(BuiltinCall::Resolve(call)) => check_resolve(call, resources),
        Ok(
            BuiltinCall::ClearColor(_)
            | BuiltinCall::ClearColorRegions(_)
            | BuiltinCall::ClearDepthStencil(_)
            | BuiltinCall::ClearDepthStencilRegions(_)
            | BuiltinCall::ClearTexture(_)
            | BuiltinCall::ClearBuffer(_),
        ) => Ok(()),
        Err(error) => Err(error.to_string()),
    }
}

/// What a view argument covers (`None` for a null view or an unknown resource).
fn viewed<'a>(view: Option<ViewArg<'a>>, resources: &'a [ResourceRecord]) -> Option<Viewed<'a>> {
    let access = view?.access;
    resources.get(access.resource.index()).map(|record| Viewed {
        desc: &record.desc,
        range: access.range,
    })
}

/// `copy_texture`: distinct subresources; whole views of compatible textures with mips of one
/// size, or a region whose offsets lie in compatible views' first mips.
fn check_copy_texture(copy: &CopyTexture<'_>, resources: &[ResourceRecord]) -> Result<(), String> {
    overlap(copy.dst, copy.src, resources)?;
    let (Some(dst), Some(src)) = (viewed(copy.dst, resources), viewed(copy.src, resources)) else {
        return Ok(());
    };
    match copy.region {
        None => whole_texture_copy(&dst, &src),
        Some(region) => {
            texture_copy_compatible(&dst, &src)?;
            offset_in_mip("destination", widen(region.dst_offset), &dst, 3)?;
            offset_in_mip("source", widen(region.src_offset), &src, 3)
        }
    }
}

/// `copy_buffer`: distinct byte ranges; a region inside both views.
fn check_copy_buffer(copy: &CopyBuffer<'_>, resources: &[ResourceRecord]) -> Result<(), String> {
    overlap(copy.dst, copy.src, resources)?;
    let (Some(dst), Some(src), Some(region)) = (
        viewed(copy.dst, resources),
        viewed(copy.src, resources),
        copy.region,
    ) else {
        return Ok(());
    };
    within("source", region.src_offset, region.size, src.bytes())?;
    within("destination", region.dst_offset, region.size, dst.bytes())
}

/// `copy_texture_to_buffer` / `copy_buffer_to_texture` ([`buffer_texture_copy`]).
fn check_buffer_texture_copy(
    copy: &BufferTextureCopy<'_>,
    resources: &[ResourceRecord],
) -> Result<(), String> {
    let (Some(buffer), Some(texture)) = (
        viewed(copy.buffer, resources),
        viewed(copy.texture, resources),
    ) else {
        return Ok(());
    };
    let layout = BufferLayout {
        byte_offset: copy.byte_offset,
        row_pitch: copy.row_pitch as u64,
        image_height: copy.buffer_image_size[1] as u64,
        at: widen(copy.buffer_offset),
    };
    buffer_texture_copy(
        &buffer,
        &texture,
        layout,
        widen(copy.texture_offset),
        widen(copy.extent),
    )
}

/// `resolve`: distinct subresources, a multisampled source into a single-sampled destination
/// of its format, offsets inside the views' first mips.
fn check_resolve(call: &Resolve<'_>, resources: &[ResourceRecord]) -> Result<(), String> {
    overlap(call.dst, call.src, resources)?;
    let (Some(dst), Some(src)) = (viewed(call.dst, resources), viewed(call.src, resources)) else {
        return Ok(());
    };
    resolve(&dst, &src)?;
    let [x, y] = call.dst_offset;
    offset_in_mip("destination", widen([x, y, 0]), &dst, 2)?;
    let [x, y] = call.src_offset;
    offset_in_mip("source", widen([x, y, 0]), &src, 2)
}

/// Texel coordinates as the checks' `u64`s (no sum of them can overflow).
fn widen(at: [u32; 3]) -> [u64; 3] {
    at.map(u64::from)
}

/// The source and destination views of one resource share no subresource (or byte): a copy
/// reads and writes them in different layouts, and the copy regions may not overlap.
fn overlap(
    dst: Option<ViewArg<'_>>,
    src: Option<ViewArg<'_>>,
    resources: &[ResourceRecord],
) -> Result<(), String> {
    let (Some(dst), Some(src)) = (dst, src) else {
        return Ok(());
    };
    let (dst, src) = (dst.access, src.access);
    let Some(record) = resources.get(dst.resource.index()) else {
        return Ok(());
    };
    if dst.resource == src.resource
        && dst
            .subresource_box(&record.desc)
            .overlaps(&src.subresource_box(&record.desc))
    {
        return Err(
            "the source and destination views overlap (one resource: copy between distinct \
             mips, layers or byte ranges)"
                .into(),
        );
    }
    Ok(())
}

/// Both views hold the same number of array layers.
fn same_layers(dst: &Viewed<'_>, src: &Viewed<'_>) -> Result<(), String> {
    match (dst.texture(), src.texture()) {
        (Some((_, dst_layers, _)), Some((_, src_layers, _))) if dst_layers != src_layers => Err(
            format!("the views have {src_layers} and {dst_layers} array layers"),
        ),
        _ => Ok(()),
    }
}

/// A region copy's or resolve's texel offset lies in the first viewed mip (its first `axes`
/// coordinates; an offset on the far edge leaves an empty region). The extent is clamped to the
/// edge by the backends (rpsl.h's `0xFFFFFFFF` means "to the edge"), the offset is not.
fn offset_in_mip(what: &str, at: [u64; 3], view: &Viewed<'_>, axes: usize) -> Result<(), String> {
    let Some((_, _, base_mip)) = view.texture() else {
        return Ok(());
    };
    let mip = view.mip_extent(base_mip);
    if (0..axes).any(|axis| at[axis] > mip[axis]) {
        return Err(format!(
            "the {what} offset {:?} lies outside the viewed mip ({}x{}x{})",
            &at[..axes],
            mip[0],
            mip[1],
            mip[2]
        ));
    }
    Ok(())
}

/// `offset + size` fits `available` bytes.
fn within(what: &str, offset: u64, size: u64, available: u64) -> Result<(), String> {
    match offset.checked_add(size) {
        Some(end) if end <= available => Ok(()),
        _ => Err(format!(
            "the {what} range {offset}..{offset}+{size} goes past the end of its view \
             ({available} bytes)"
        )),
    }
}

/// Texel sizes, depth/stencil formats, sample and layer counts that a copy between two
/// textures needs to agree on.
fn texture_copy_compatible(dst: &Viewed<'_>, src: &Viewed<'_>) -> Result<(), String> {
    if dst.texture().is_none() || src.texture().is_none() {
        return Ok(());
    }
    let (dst_format, src_format) = (dst.desc.format, src.desc.format);
    let depth_stencil = dst_format.is_depth_stencil() || src_format.is_depth_stencil();
    if depth_stencil && dst_format != src_format {
        return Err(format!(
            "depth/stencil copies need one format ({} to {})",
            src_format.name().unwrap_or("?"),
            dst_format.name().unwrap_or("?")
        ));
    }
    if dst.texel_bytes() != src.texel_bytes() || dst_format.block_size() != src_format.block_size()
    {
        return Err(format!(
            "formats {} and {} are not copy-compatible ({} and {} bytes per texel)",
            src_format.name().unwrap_or("?"),
            dst_format.name().unwrap_or("?"),
            src.texel_bytes(),
            dst.texel_bytes()
        ));
    }
    if dst.desc.sample_count.max(1) != src.desc.sample_count.max(1) {
        return Err(format!(
            "sample counts differ ({} to {})",
            src.desc.sample_count, dst.desc.sample_count
        ));
    }
    same_layers(dst, src)
}

/// A whole-view copy: compatible textures whose copied mips have the same size.
fn whole_texture_copy(dst: &Viewed<'_>, src: &Viewed<'_>) -> Result<(), String> {
    texture_copy_compatible(dst, src)?;
    let (Some((dst_mips, _, dst_base)), Some((src_mips, _, src_base))) =
        (dst.texture(), src.texture())
    else {
        return Ok(());
    };
    for mip in 0..dst_mips.min(src_mips) {
        let (from, to) = (
            src.mip_extent(src_base + mip),
            dst.mip_extent(dst_base + mip),
        );
        if from != to {
            return Err(format!(
                "mip {mip} of the views is {}x{}x{} in the source and {}x{}x{} in the \
                 destination (copy regions with `copy_texture(dst, dstOffset, src, srcOffset, \
                 extent)`)",
                from[0], from[1], from[2], to[0], to[1], to[2]
            ));
        }
    }
    Ok(())
}

/// How a buffer holds the texels of a texture copy.
struct BufferLayout {
    byte_offset: u64,
    /// Bytes per row (0: rows packed).
    row_pitch: u64,
    /// Rows per image slice (0: the extent's height).
    image_height: u64,
    /// Texel offset in the buffer image.
    at: [u64; 3],
}

/// A copy between `buffer` and the first mip of `texture` at `texture_at` with `extent`: the
/// region fits the mip, the rows fit the pitch, and every byte read or written lies in the
/// buffer's view.
fn buffer_texture_copy(
    buffer: &Viewed<'_>,
    texture: &Viewed<'_>,
    layout: BufferLayout,
    texture_at: [u64; 3],
    extent: [u64; 3],
) -> Result<(), String> {
    let Some((_, _, base_mip)) = texture.texture() else {
        return Ok(());
    };
    let extent = [extent[0], extent[1], extent[2].max(1)];
    let mip = texture.mip_extent(base_mip);
    for axis in 0..3 {
        if texture_at[axis].saturating_add(extent[axis]) > mip[axis] {
            return Err(format!(
                "the texture region at {:?} of {:?} texels goes past the viewed mip ({:?})",
                texture_at, extent, mip
            ));
        }
    }
    if extent[0] == 0 || extent[1] == 0 {
        return Err(format!("the copy extent {extent:?} is empty"));
    }
    let texel = texture.plane_texel_bytes();
    let row = extent[0].saturating_mul(texel);
    let pitch = if layout.row_pitch == 0 {
        row
    } else {
        layout.row_pitch
    };
    if pitch < row || pitch % texel != 0 {
        return Err(format!(
            "row pitch {pitch} does not hold a row of {} texels of {texel} bytes",
            extent[0]
        ));
    }
    let image_height = match layout.image_height {
        0 => extent[1],
        rows if rows < extent[1] => {
            return Err(format!(
                "an image of {rows} rows in the buffer does not hold {} rows",
                extent[1]
            ))
        }
        rows => rows,
    };
    let slice = pitch.saturating_mul(image_height);
    let start = layout
        .byte_offset
        .saturating_add(layout.at[2].saturating_mul(slice))
        .saturating_add(layout.at[1].saturating_mul(pitch))
        .saturating_add(layout.at[0].saturating_mul(texel));
    // Texels start on a texel boundary of the buffer (4 bytes for depth/stencil planes).
    let alignment = if texture.desc.format.is_depth_stencil() {
        4
    } else {
        texel
    };
    let absolute = buffer.byte_range().0.saturating_add(start);
    if absolute % alignment != 0 {
        return Err(format!(
            "the texels start at buffer byte {absolute}, not a multiple of {alignment}"
        ));
    }
    let span = (extent[2] - 1)
        .saturating_mul(slice)
        .saturating_add((extent[1] - 1).saturating_mul(pitch))
        .saturating_add(row);
    within("buffer", start, span, buffer.bytes())
}

/// A resolve: a multisampled source into a single-sampled destination of the same format.
fn resolve(dst: &Viewed<'_>, src: &Viewed<'_>) -> Result<(), String> {
    if src.desc.sample_count <= 1 {
        return Err("the source of a resolve must be multisampled".into());
    }
    if dst.desc.sample_count > 1 {
        return Err("the destination of a resolve must have one sample".into());
    }
    if dst.desc.format != src.desc.format {
        return Err(format!(
            "a resolve keeps the format ({} to {})",
            src.desc.format.name().unwrap_or("?"),
            dst.desc.format.name().unwrap_or("?")
        ));
    }
    same_layers(dst, src)
}
