//! The arguments of one call of a built-in node, decoded once into named fields.
//!
//! [`BuiltinCall::decode`] is the one reader of a built-in call's argument block: it turns the
//! declaration's resolved [`BuiltinNode`], the recorded argument bytes and the call's accesses
//! into one struct per built-in (views, offsets, extents, clear values, rectangles). The
//! transfer checks (`transfer_check.rs`), the null backend and the Vulkan backend all read
//! built-in calls through it, so no one reads an argument by its position.

use std::fmt;

use crate::builtins::BuiltinNode;
use crate::clear_pattern::{option_clear_value, texture_region_clear_value, ClearValue};
use crate::decl::NodeDeclDesc;
use crate::format::Format;
use crate::graph::{AccessRecord, RecordedGraph};
use crate::ids::NodeId;

/// A view argument: the access the builder recorded for it (a null view has none, and is
/// `None` where a view is expected).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct ViewArg<'a> {
    /// The position of the access among the call's accesses (0 = the node's first access).
    pub index: u32,
    /// The access.
    pub access: &'a AccessRecord,
}

/// The `int4 rects[]` (x, y, width, height) of a region clear: `numRects` and the bytes the
/// caller passed from the array on. Whether enough were passed is checked when they are read
/// ([`ClearRects::rects`]), by the backend that clears them.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct ClearRects<'a> {
    /// `numRects`.
    pub count: u32,
    bytes: &'a [u8],
}

impl<'a> ClearRects<'a> {
    /// The rectangles, or an error when `numRects` announces more than were passed.
    ///
    /// ```
    /// use rpsl_runtime::ClearRects;
    /// let bytes: Vec<u8> = [1i32, 2, 3, 4].iter().flat_map(|v| v.to_le_bytes()).collect();
    /// let rects = ClearRects::new(1, &bytes);
    /// assert_eq!(rects.rects().unwrap().collect::<Vec<_>>(), [[1, 2, 3, 4]]);
    /// assert!(ClearRects::new(2, &bytes).rects().is_err());
    /// ```
    pub fn rects(&self) -> Result<impl Iterator<Item = [i32; 4]> + 'a, String> {
        let count = self.count;
        if count as u64 * 16 > self.bytes.len() as u64 {
            return Err(format!(
                "{count} rectangle(s) announced but fewer were passed in `rects`"
            ));
        }
        let bytes = self.bytes;
        Ok(bytes.chunks_exact(16).take(count as usize).map(|rect| {
            [0, 1, 2, 3].map(|i| {
                let at = i * 4;
                i32::from_le_bytes([rect[at], rect[at + 1], rect[at + 2], rect[at + 3]])
            })
        }))
    }

    /// `count` rectangles announced over `bytes` (the array's bytes, 16 per rectangle).
    pub fn new(count: u32, bytes: &'a [u8]) -> ClearRects<'a> {
        ClearRects { count, bytes }
    }
}

/// The value of a storage clear (`clear_texture*`, `clear_buffer`, `clear(buffer, ...)`) as the
/// call gives it; the cleared view's format completes it ([`StorageClearValue::for_format`]).
#[derive(Copy, Clone, PartialEq, Debug)]
pub enum StorageClearValue {
    /// A typed `float4` or `uint4` (`clear(buffer, float4 | uint4)`).
    Typed(ClearValue),
    /// `RPS_CLEAR_FLAGS option` with `uint4 data` (`clear_texture`, `clear_buffer`): the
    /// option's `RPS_CLEAR_UAV_FLOAT` / `RPS_CLEAR_UAV_UINT` bits say how to read the data.
    WithOption {
        /// The `RPS_CLEAR_FLAGS`.
        option: u32,
        /// The data words.
        data: [u32; 4],
    },
    /// `uint4 data` read as the format's channels want (`clear_texture_regions`).
    FormatTyped([u32; 4]),
}

impl StorageClearValue {
    /// The clear value of a view of `format`.
    pub fn for_format(self, format: Format) -> ClearValue {
        match self {
            StorageClearValue::Typed(value) => value,
            StorageClearValue::WithOption { option, data } => {
                option_clear_value(format, option, data)
            }
            StorageClearValue::FormatTyped(data) => texture_region_clear_value(format, data),
        }
    }
}

/// `clear(texture, float4)` or `clear(texture, uint4)`: a render-target clear.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct ClearColor<'a> {
    /// The cleared view.
    pub target: Option<ViewArg<'a>>,
    /// The value as typed (the render target's format converts it).
    pub value: ClearValue,
}

/// `clear_color_regions(t, data, numRects, rects)`: rectangles of a render target.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct ClearColorRegions<'a> {
    /// The cleared view.
    pub target: Option<ViewArg<'a>>,
    /// The colour.
    pub value: [f32; 4],
    /// The rectangles.
    pub rects: ClearRects<'a>,
}

/// `clear(texture, depth, stencil)`, `clear_depth(texture, depth)` or
/// `clear_stencil(texture, stencil)`: the planes given a value are cleared, the others kept.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct ClearDepthStencil<'a> {
    /// The cleared view.
    pub target: Option<ViewArg<'a>>,
    /// The depth value (`None`: depth is not cleared).
    pub depth: Option<f32>,
    /// The stencil value (`None`: stencil is not cleared).
    pub stencil: Option<u32>,
}

/// `clear_depth_stencil_regions(t, option, d, s, numRects, rects)`.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct ClearDepthStencilRegions<'a> {
    /// The cleared view.
    pub target: Option<ViewArg<'a>>,
    /// `RPS_CLEAR_FLAGS`: `RPS_CLEAR_DEPTH` (2) and `RPS_CLEAR_STENCIL` (4) pick the planes.
    pub option: u32,
    /// The depth value.
    pub depth: f32,
    /// The stencil value.
    pub stencil: u32,
    /// The rectangles.
    pub rects: ClearRects<'a>,
}

/// `clear_texture(t, option, data)` or `clear_texture_regions(t, data, numRects, rects)`.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct ClearTexture<'a> {
    /// The cleared view.
    pub target: Option<ViewArg<'a>>,
    /// The value.
    pub value: StorageClearValue,
    /// The rectangles of `clear_texture_regions` (`None`: the whole view).
    pub rects: Option<ClearRects<'a>>,
}

/// `clear_buffer(b, option, data)` or `clear(buffer, float4 | uint4)`.
#[derive(Copy, Clone, PartialEq, Debug)]
pub struct ClearBuffer<'a> {
    /// The cleared view.
    pub target: Option<ViewArg<'a>>,
    /// The value.
    pub value: StorageClearValue,
}

/// The region of `copy_texture(dst, dstOffset, src, srcOffset, extent)`, in texels of the
/// views' first mips (an extent of `0xFFFFFFFF` reaches the edge).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct TextureRegion {
    /// Where the region lands in the destination.
    pub dst_offset: [u32; 3],
    /// Where it starts in the source.
    pub src_offset: [u32; 3],
    /// Its size.
    pub extent: [u32; 3],
}

/// `copy_texture(dst, src)` (every common mip) or its region overload.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CopyTexture<'a> {
    /// The destination view.
    pub dst: Option<ViewArg<'a>>,
    /// The source view.
    pub src: Option<ViewArg<'a>>,
    /// The copied region (`None`: whole views).
    pub region: Option<TextureRegion>,
}

/// The bytes of `copy_buffer(dst, dstOffset, src, srcOffset, size)`, relative to the views.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct BufferRegion {
    /// Where the bytes land in the destination view.
    pub dst_offset: u64,
    /// Where they start in the source view.
    pub src_offset: u64,
    /// How many.
    pub size: u64,
}

/// `copy_buffer(dst, src)` (the views' common size) or its region overload.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CopyBuffer<'a> {
    /// The destination view.
    pub dst: Option<ViewArg<'a>>,
    /// The source view.
    pub src: Option<ViewArg<'a>>,
    /// The copied bytes (`None`: the common size from the views' starts).
    pub region: Option<BufferRegion>,
}

/// `copy_texture_to_buffer` or `copy_buffer_to_texture`: texels between the first mip of a
/// texture view and a buffer view holding an image of them.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct BufferTextureCopy<'a> {
    /// The buffer view (the destination of `copy_texture_to_buffer`).
    pub buffer: Option<ViewArg<'a>>,
    /// The texture view.
    pub texture: Option<ViewArg<'a>>,
    /// Where the image starts in the buffer view, in bytes.
    pub byte_offset: u64,
    /// Bytes per row of the buffer image (0: rows packed).
    pub row_pitch: u32,
    /// The buffer image's size in texels; its height is the rows per slice (0: the extent's).
    pub buffer_image_size: [u32; 3],
    /// The region's texel offset in the buffer image.
    pub buffer_offset: [u32; 3],
    /// The region's texel offset in the texture's first viewed mip.
    pub texture_offset: [u32; 3],
    /// The region's size in texels.
    pub extent: [u32; 3],
}

/// `resolve(dst, dstOffset, src, srcOffset, extent, resolveMode)`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Resolve<'a> {
    /// The single-sampled destination view.
    pub dst: Option<ViewArg<'a>>,
    /// Where the region lands in the destination.
    pub dst_offset: [u32; 2],
    /// The multisampled source view.
    pub src: Option<ViewArg<'a>>,
    /// Where it starts in the source.
    pub src_offset: [u32; 2],
    /// Its size (a zero axis: the source's first viewed mip).
    pub extent: [u32; 2],
    /// `RpsResolveMode`: 0 average, 1 min, 2 max, 3 and 4 the sampler-feedback modes.
    pub mode: u32,
}

/// One call of a built-in node with its arguments decoded ([`BuiltinCall::decode`]).
#[derive(Copy, Clone, PartialEq, Debug)]
pub enum BuiltinCall<'a> {
    /// `clear(texture, float4 | uint4)`.
    ClearColor(ClearColor<'a>),
    /// `clear_color_regions`.
    ClearColorRegions(ClearColorRegions<'a>),
    /// `clear(texture, float, uint)`, `clear_depth`, `clear_stencil`.
    ClearDepthStencil(ClearDepthStencil<'a>),
    /// `clear_depth_stencil_regions`.
    ClearDepthStencilRegions(ClearDepthStencilRegions<'a>),
    /// `clear_texture`, `clear_texture_regions`.
    ClearTexture(ClearTexture<'a>),
    /// `clear_buffer`, `clear(buffer, float4 | uint4)`.
    ClearBuffer(ClearBuffer<'a>),
    /// `copy_texture` (both overloads).
    CopyTexture(CopyTexture<'a>),
    /// `copy_buffer` (both overloads).
    CopyBuffer(CopyBuffer<'a>),
    /// `copy_texture_to_buffer`.
    CopyTextureToBuffer(BufferTextureCopy<'a>),
    /// `copy_buffer_to_texture`.
    CopyBufferToTexture(BufferTextureCopy<'a>),
    /// `resolve`.
    Resolve(Resolve<'a>),
}

/// An argument block that does not hold a built-in's arguments (the builder accepts no such
/// call; a hand-made graph could hold one).
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum BuiltinArgsError {
    /// The declaration is no built-in node.
    NotBuiltin,
    /// The declaration's parameters are not those of the built-in it names.
    Parameters(BuiltinNode),
    /// The block is shorter than the parameters.
    TooShort {
        /// The built-in.
        node: BuiltinNode,
        /// The bytes its parameters need.
        needed: usize,
        /// The bytes recorded.
        len: usize,
    },
}

impl fmt::Display for BuiltinArgsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuiltinArgsError::NotBuiltin => write!(f, "not a built-in node"),
            BuiltinArgsError::Parameters(node) => write!(
                f,
                "the declaration's parameters are not those of built-in `{}`",
                node.name()
            ),
            BuiltinArgsError::TooShort { node, needed, len } => write!(
                f,
                "the arguments of built-in `{}` are {len} bytes, fewer than the {needed} its \
                 parameters take",
                node.name()
            ),
        }
    }
}

impl std::error::Error for BuiltinArgsError {}

/// Reads parameters of one call by index at the offsets of rpsl.h's declaration; every read
/// lies inside the block, which [`BuiltinCall::decode`] checked once against that layout.
struct ArgReader<'a> {
    layout: &'static NodeDeclDesc,
    bytes: &'a [u8],
    accesses: &'a [AccessRecord],
}

impl<'a> ArgReader<'a> {
    #[inline]
    fn offset(&self, param: usize) -> usize {
        self.layout.params[param].offset as usize
    }

    #[inline(always)]
    fn words<const N: usize>(&self, param: usize) -> [u32; N] {
        let start = self.offset(param);
        let bytes = &self.bytes[start..start + N * 4];
        std::array::from_fn(|i| {
            u32::from_le_bytes([
                bytes[i * 4],
                bytes[i * 4 + 1],
                bytes[i * 4 + 2],
                bytes[i * 4 + 3],
            ])
        })
    }

    #[inline]
    fn u32(&self, param: usize) -> u32 {
        self.words::<1>(param)[0]
    }

    #[inline]
    fn u64(&self, param: usize) -> u64 {
        let [low, high] = self.words::<2>(param);
        low as u64 | (high as u64) << 32
    }

    #[inline]
    fn f32(&self, param: usize) -> f32 {
        f32::from_bits(self.u32(param))
    }

    #[inline]
    fn floats(&self, param: usize) -> [f32; 4] {
        self.words::<4>(param).map(f32::from_bits)
    }

    #[inline]
    fn view(&self, param: u16) -> Option<ViewArg<'a>> {
        let accesses: &'a [AccessRecord] = self.accesses;
        for (index, access) in accesses.iter().enumerate() {
            if access.param == param {
                return Some(ViewArg {
                    index: index as u32,
                    access,
                });
            }
        }
        None
    }

    /// `numRects` at `count` and the array's bytes at `rects` (to the end of the block).
    #[inline]
    fn rects(&self, count: usize, rects: usize) -> ClearRects<'a> {
        ClearRects::new(self.u32(count), &self.bytes[self.offset(rects)..])
    }
}

impl<'a> BuiltinCall<'a> {
    /// Decodes a call of built-in `decl` from its argument block `args` and its recorded
    /// accesses (those of the call only, in order).
    ///
    /// ```
    /// use rpsl_runtime::{ArgsWriter, BuiltinCall, BuiltinNode};
    /// // copy_buffer(dst, dstOffset, src, srcOffset, size)
    /// let decl = BuiltinNode::CopyBufferRegion.declaration();
    /// let mut args = ArgsWriter::new(&decl);
    /// args.write_raw(1, 0, &16u64.to_le_bytes())
    ///     .write_raw(3, 0, &4u64.to_le_bytes())
    ///     .write_raw(4, 0, &64u64.to_le_bytes());
    /// let Ok(BuiltinCall::CopyBuffer(copy)) = BuiltinCall::decode(&decl, args.bytes(), &[]) else {
    ///     panic!("a buffer copy");
    /// };
    /// let region = copy.region.unwrap();
    /// assert_eq!((region.dst_offset, region.src_offset, region.size), (16, 4, 64));
    /// assert_eq!(copy.dst, None); // null views
    /// ```
    #[inline]
    pub fn decode(
        decl: &'a NodeDeclDesc,
        args: &'a [u8],
        accesses: &'a [AccessRecord],
    ) -> Result<BuiltinCall<'a>, BuiltinArgsError> {
        let node = decl.builtin.ok_or(BuiltinArgsError::NotBuiltin)?;
        // Arguments are read at the offsets of rpsl.h's declaration, which `decl` must share
        // (`BuiltinNode::of_declaration` matched its parameter types when it was made).
        let layout = node.shared_declaration();
        if decl.params.len() != layout.params.len() || decl.args_end != layout.args_end {
            return Err(BuiltinArgsError::Parameters(node));
        }
        if args.len() < layout.args_end as usize {
            return Err(BuiltinArgsError::TooShort {
                node,
                needed: layout.args_end as usize,
                len: args.len(),
            });
        }
        let r = ArgReader {
            layout,
            bytes: args,
            accesses,
        };
        Ok(decode_args(node, &r))
    }

    /// The call of built-in `node` of `graph`, decoded; `None` for a script's node.
    pub fn of_node(
        graph: &'a RecordedGraph,
        node: NodeId,
    ) -> Option<Result<BuiltinCall<'a>, BuiltinArgsError>> {
        let decl = graph.decl_of(node);
        decl.builtin?;
        Some(BuiltinCall::decode(
            decl,
            graph.node_args(node),
            graph.node_accesses(node),
        ))
    }

    /// The view of the call's first parameter: the cleared, copied-to or resolved-to view.
    pub fn target(&self) -> Option<&ViewArg<'a>> {
        match self {
            BuiltinCall::ClearColor(call) => call.target.as_ref(),
            BuiltinCall::ClearColorRegions(call) => call.target.as_ref(),
            BuiltinCall::ClearDepthStencil(call) => call.target.as_ref(),
            BuiltinCall::ClearDepthStencilRegions(call) => call.target.as_ref(),
            BuiltinCall::ClearTexture(call) => call.target.as_ref(),
            BuiltinCall::ClearBuffer(call) => call.target.as_ref(),
            BuiltinCall::CopyTexture(call) => call.dst.as_ref(),
            BuiltinCall::CopyBuffer(call) => call.dst.as_ref(),
            BuiltinCall::CopyTextureToBuffer(call) => call.buffer.as_ref(),
            BuiltinCall::CopyBufferToTexture(call) => call.texture.as_ref(),
            BuiltinCall::Resolve(call) => call.dst.as_ref(),
        }
    }
}

/// The one place that knows where each built-in keeps each argument (the parameter indices of
/// [`BuiltinNode::declaration`]).
#[inline(never)]
fn decode_args<'a>(node: BuiltinNode, r: &ArgReader<'a>) -> BuiltinCall<'a> {
    use BuiltinNode as N;
    match node {
        N::ClearColorFloat | N::ClearColorUint => BuiltinCall::ClearColor(ClearColor {
            target: r.view(0),
            value: if node == N::ClearColorFloat {
                ClearValue::Float(r.floats(1))
            } else {
                ClearValue::Uint(r.words(1))
            },
        }),
        N::ClearColorRegions => BuiltinCall::ClearColorRegions(ClearColorRegions {
            target: r.view(0),
            value: r.floats(1),
            rects: r.rects(2, 3),
        }),
        N::ClearDepthStencil => BuiltinCall::ClearDepthStencil(ClearDepthStencil {
            target: r.view(0),
            depth: Some(r.f32(1)),
            stencil: Some(r.u32(2)),
        }),
        N::ClearDepth => BuiltinCall::ClearDepthStencil(ClearDepthStencil {
            target: r.view(0),
            depth: Some(r.f32(1)),
            stencil: None,
        }),
        N::ClearStencil => BuiltinCall::ClearDepthStencil(ClearDepthStencil {
            target: r.view(0),
            depth: None,
            stencil: Some(r.u32(1)),
        }),
        N::ClearDepthStencilRegions => {
            BuiltinCall::ClearDepthStencilRegions(ClearDepthStencilRegions {
                target: r.view(0),
                option: r.u32(1),
                depth: r.f32(2),
                stencil: r.u32(3),
                rects: r.rects(4, 5),
            })
        }
        N::ClearTexture => BuiltinCall::ClearTexture(ClearTexture {
            target: r.view(0),
            value: StorageClearValue::WithOption {
                option: r.u32(1),
                data: r.words(2),
            },
            rects: None,
        }),
        N::ClearTextureRegions => BuiltinCall::ClearTexture(ClearTexture {
            target: r.view(0),
            value: StorageClearValue::FormatTyped(r.words(1)),
            rects: Some(r.rects(2, 3)),
        }),
        N::ClearBuffer => BuiltinCall::ClearBuffer(ClearBuffer {
            target: r.view(0),
            value: StorageClearValue::WithOption {
                option: r.u32(1),
                data: r.words(2),
            },
        }),
        N::ClearBufferFloat => BuiltinCall::ClearBuffer(ClearBuffer {
            target: r.view(0),
            value: StorageClearValue::Typed(ClearValue::Float(r.floats(1))),
        }),
        N::ClearBufferUint => BuiltinCall::ClearBuffer(ClearBuffer {
            target: r.view(0),
            value: StorageClearValue::Typed(ClearValue::Uint(r.words(1))),
        }),
        N::CopyTexture => BuiltinCall::CopyTexture(CopyTexture {
            dst: r.view(0),
            src: r.view(1),
            region: None,
        }),
        N::CopyTextureRegion => BuiltinCall::CopyTexture(CopyTexture {
            dst: r.view(0),
            src: r.view(2),
            region: Some(TextureRegion {
                dst_offset: r.words(1),
                src_offset: r.words(3),
                extent: r.words(4),
            }),
        }),
        N::CopyBuffer => BuiltinCall::CopyBuffer(CopyBuffer {
            dst: r.view(0),
            src: r.view(1),
            region: None,
        }),
        N::CopyBufferRegion => BuiltinCall::CopyBuffer(CopyBuffer {
            dst: r.view(0),
            src: r.view(2),
            region: Some(BufferRegion {
                dst_offset: r.u64(1),
                src_offset: r.u64(3),
                size: r.u64(4),
            }),
        }),
        N::CopyTextureToBuffer => BuiltinCall::CopyTextureToBuffer(BufferTextureCopy {
            buffer: r.view(0),
            byte_offset: r.u64(1),
            row_pitch: r.u32(2),
            buffer_image_size: r.words(3),
            buffer_offset: r.words(4),
            texture: r.view(5),
            texture_offset: r.words(6),
            extent: r.words(7),
        }),
        N::CopyBufferToTexture => BuiltinCall::CopyBufferToTexture(BufferTextureCopy {
            texture: r.view(0),
            texture_offset: r.words(1),
            buffer: r.view(2),
            byte_offset: r.u64(3),
            row_pitch: r.u32(4),
            buffer_image_size: r.words(5),
            buffer_offset: r.words(6),
            extent: r.words(7),
        }),
        N::Resolve => BuiltinCall::Resolve(Resolve {
            dst: r.view(0),
            dst_offset: r.words(1),
            src: r.view(2),
            src_offset: r.words(3),
            extent: r.words(4),
            mode: r.u32(5),
        }),
    }
}
