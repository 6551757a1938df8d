//! Lowering of host built-ins: resource creation and description, view edits (`mips`, `array`,
//! `format`, `temporal`, `bytes`, `base`, `cubemap`, ...), viewports, `sch_barrier` and `abort`.

use super::{FnLower, LowerError, Val};
use crate::entities::Reg;
use crate::host::{view_offsets, IDENTITY_COMPONENT_MAPPING, RESOURCE_DESC_SIZE};
use crate::inst::Inst;
use crate::ops::{BinaryOp as VmBinary, MarkerKind};
use crate::types::{Type as VmType, Value};
use rpsl_frontend::builtins::Builtin;
use rpsl_frontend::hir::Arg;
use rpsl_frontend::source::Span;
use rpsl_frontend::types::{ScalarKind, Type};
use rpsl_types::ResourceKind;

impl FnLower<'_> {
    /// Writes a `ResourceDesc` built from `u32` registers (`None` = 0) and creates the resource.
    fn create_resource(&mut self, words: [Option<Reg>; 9], span: Span) -> Result<Val, LowerError> {
        let desc = self.frame_slot(RESOURCE_DESC_SIZE, 4, span)?;
        let desc = self.b.frame_addr(desc);
        self.b.ins(Inst::MemZero {
            addr: desc,
            size: RESOURCE_DESC_SIZE,
        });
        for (i, word) in words.iter().enumerate() {
            if let Some(word) = *word {
                let word = if self.b.reg_type(word) == Some(VmType::U32) {
                    word
                } else {
                    self.b.convert(VmType::U32, word)
                };
                self.b.store(desc, 4 * i as u32, word);
            }
        }
        self.create_from_desc(desc, span)
    }

    fn create_from_desc(&mut self, desc: Reg, span: Span) -> Result<Val, LowerError> {
        self.at(span);
        if let Some(name) = self.naming.take() {
            let loc = self.current_loc();
            self.resource_names.push((loc, name));
        }
        let view = self.temp(&Type::Texture, span)?;
        self.b.ins(Inst::CreateResource {
            desc,
            view_out: view,
        });
        Ok(Val::Mem(view))
    }

    /// A copy of the view at `src` with `u32` fields replaced.
    fn edit_view(
        &mut self,
        src: Reg,
        fields: &[(u32, Reg)],
        span: Span,
    ) -> Result<Val, LowerError> {
        let view = self.temp(&Type::Texture, span)?;
        self.b.mem_copy(view, src, crate::host::VIEW_SIZE);
        for &(offset, value) in fields {
            self.b.store(view, offset, value);
        }
        Ok(Val::Mem(view))
    }

    /// The element size in bytes of a buffer view (as a `u64` register): its stride when non-zero,
    /// else the texel size of its view format, else 1. Formats are numbered as `RPS_FORMAT`
    /// (DXGI order), so the size is a step function of the format value, evaluated with selects.
    fn buffer_element_size(&mut self, view: Reg) -> Reg {
        use view_offsets as off;
        let format = self.b.load(VmType::U32, view, off::VIEW_FORMAT);
        // (first format value of a run, bytes per element of the run); runs end where the next
        // begins. Block-compressed and video formats have no per-element size: 1.
        const RUNS: &[(u32, u64)] = &[
            (0, 1),   // UNKNOWN
            (1, 16),  // R32G32B32A32_*
            (5, 12),  // R32G32B32_*
            (9, 8),   // R16G16B16A16_*, R32G32_*, R32G8X24 and its depth views
            (23, 4),  // R10G10B10A2, R11G11B10, R8G8B8A8, R16G16, R32, R24G8 families
            (48, 2),  // R8G8_*
            (54, 2),  // R16_*, D16
            (60, 1),  // R8_*, A8_UNORM
            (66, 1),  // R1_UNORM (stored in whole bytes here)
            (67, 4),  // R9G9B9E5, R8G8_B8G8, G8R8_G8B8
            (70, 1),  // BC1-BC5
            (85, 2),  // B5G6R5, B5G5R5A1
            (87, 4),  // B8G8R8A8 / B8G8R8X8 families, R10G10B10_XR_BIAS_A2
            (94, 1),  // BC6H, BC7, video formats
            (115, 2), // B4G4R4A4_UNORM
            (116, 1), // beyond the enum
        ];
        let mut size = self.b.constant(Value::U64(1));
        for &(start, bytes) in RUNS {
            let start_reg = self.b.iconst_u32(start);
            let at_or_after = self.b.binary(VmBinary::GeU32, format, start_reg);
            let run_size = self.b.constant(Value::U64(bytes));
            size = self.b.select(at_or_after, run_size, size);
        }
        let raw_stride = self.b.load(VmType::U32, view, off::STRIDE);
        let stride = self.b.convert(VmType::U64, raw_stride);
        let zero = self.b.iconst_u32(0);
        let has_stride = self.b.binary(VmBinary::NeU32, raw_stride, zero);
        self.b.select(has_stride, stride, size)
    }

    pub(super) fn call_builtin(
        &mut self,
        builtin: Builtin,
        args: &[Arg],
        ty: &Type,
        span: Span,
    ) -> Result<Val, LowerError> {
        let vals = self.in_args(args, span)?;
        self.at(span);
        let lane = |i: usize| match vals.get(i) {
            Some(Val::Lanes(lanes)) => lanes.first().copied(),
            _ => None,
        };
        let mem = |i: usize| match vals.get(i) {
            Some(Val::Mem(addr)) => Some(*addr),
            _ => None,
        };
        let missing = || LowerError {
            message: format!("bad arguments to `{}`", builtin.name()),
            span,
        };
        use view_offsets as off;
        match builtin {
            // `RpslResourceDesc` words: type, temporal layers, flags, width, height, depth/array,
            // mips, format, samples.
            Builtin::CreateTex1d => {
                let ty = self.b.iconst_u32(ResourceKind::Tex1d as u32);
                let one = self.b.iconst_u32(1);
                self.create_resource(
                    [
                        Some(ty),
                        lane(4),
                        lane(5),
                        lane(1),
                        Some(one),
                        lane(3),
                        lane(2),
                        lane(0),
                        Some(one),
                    ],
                    span,
                )
            }
            Builtin::CreateTex2d => {
                let ty = self.b.iconst_u32(ResourceKind::Tex2d as u32);
                self.create_resource(
                    [
                        Some(ty),
                        lane(5),
                        lane(8),
                        lane(1),
                        lane(2),
                        lane(4),
                        lane(3),
                        lane(0),
                        lane(6),
                    ],
                    span,
                )
            }
            Builtin::CreateTex3d => {
                let ty = self.b.iconst_u32(ResourceKind::Tex3d as u32);
                let one = self.b.iconst_u32(1);
                self.create_resource(
                    [
                        Some(ty),
                        lane(5),
                        lane(6),
                        lane(1),
                        lane(2),
                        lane(3),
                        lane(4),
                        lane(0),
                        Some(one),
                    ],
                    span,
                )
            }
            Builtin::CreateBuffer => {
                let width = lane(0).ok_or_else(missing)?;
                let width = if self.b.reg_type(width) == Some(VmType::U64) {
                    width
                } else {
                    self.b.convert(VmType::U64, width)
                };
                let low = self.b.convert(VmType::U32, width);
                let shift = self.b.constant(Value::U64(32));
                let high = self.b.binary(VmBinary::ShrU64, width, shift);
                let high = self.b.convert(VmType::U32, high);
                // 0 is both `ResourceKind::Buffer` and the format `UNKNOWN`.
                let zero = self.b.iconst_u32(0);
                let one = self.b.iconst_u32(1);
                self.create_resource(
                    [
                        Some(zero),
                        lane(1),
                        lane(2),
                        Some(low),
                        Some(high),
                        Some(one),
                        Some(one),
                        Some(zero),
                        Some(one),
                    ],
                    span,
                )
            }
            Builtin::CreateTexture | Builtin::CreateBufferFromDesc => {
                let desc = mem(0).ok_or_else(missing)?;
                self.create_from_desc(desc, span)
            }
            Builtin::DescribeTexture
            | Builtin::DescribeBuffer
            | Builtin::TextureDesc
            | Builtin::BufferDesc => {
                let view = mem(0).ok_or_else(missing)?;
                let desc = self.temp(ty, span)?;
                self.b.ins(Inst::DescribeResource {
                    view,
                    desc_out: desc,
                });
                Ok(Val::Mem(desc))
            }
            Builtin::SchBarrier => {
                self.b.marker(MarkerKind::SchBarrier, 0);
                Ok(Val::Lanes(Vec::new()))
            }
            Builtin::Abort => {
                let code = lane(0).ok_or_else(missing)?;
                self.b.abort(code);
                let after = self.b.create_block();
                self.b.switch_to_block(after);
                Ok(Val::Lanes(Vec::new()))
            }
            Builtin::Viewport | Builtin::ViewportSize => {
                let addr = self.temp(ty, span)?;
                let values: Vec<Reg> = if builtin == Builtin::ViewportSize {
                    let zero = self.b.fconst_f32(0.0);
                    let one = self.b.fconst_f32(1.0);
                    vec![
                        zero,
                        zero,
                        lane(0).ok_or_else(missing)?,
                        lane(1).ok_or_else(missing)?,
                        zero,
                        one,
                    ]
                } else {
                    (0..6)
                        .map(|i| lane(i).ok_or_else(missing))
                        .collect::<Result<_, _>>()?
                };
                for (i, value) in values.into_iter().enumerate() {
                    self.b.store(addr, 4 * i as u32, value);
                }
                Ok(Val::Mem(addr))
            }
            Builtin::TextureMips | Builtin::TextureArray => {
                let (base_off, count_off) = if builtin == Builtin::TextureMips {
                    (off::BASE_MIP, off::MIP_COUNT)
                } else {
                    (off::BASE_LAYER, off::LAYER_COUNT)
                };
                let view = mem(0).ok_or_else(missing)?;
                let base = lane(1).ok_or_else(missing)?;
                let count = lane(2).ok_or_else(missing)?;
                let count = if self.b.reg_type(count) == Some(VmType::U32) {
                    count
                } else {
                    self.b.bitcast(VmType::U32, count)
                };
                let old_base = self.b.load(VmType::U32, view, base_off);
                let new_base = self.b.binary(VmBinary::AddU32, old_base, base);
                // -1 (0xFFFFFFFF) keeps the count "all remaining" as RPS does.
                self.edit_view(view, &[(base_off, new_base), (count_off, count)], span)
            }
            Builtin::TextureMipsSingle | Builtin::TextureArraySingle => {
                let (base_off, count_off) = if builtin == Builtin::TextureMipsSingle {
                    (off::BASE_MIP, off::MIP_COUNT)
                } else {
                    (off::BASE_LAYER, off::LAYER_COUNT)
                };
                let view = mem(0).ok_or_else(missing)?;
                let index = lane(1).ok_or_else(missing)?;
                let old_base = self.b.load(VmType::U32, view, base_off);
                let new_base = self.b.binary(VmBinary::AddU32, old_base, index);
                let one = self.b.iconst_u32(1);
                self.edit_view(view, &[(base_off, new_base), (count_off, one)], span)
            }
            Builtin::TextureFormat | Builtin::BufferFormat => {
                let view = mem(0).ok_or_else(missing)?;
                let format = lane(1).ok_or_else(missing)?;
                let format = self.convert_lane(format, ScalarKind::Uint);
                self.edit_view(view, &[(off::VIEW_FORMAT, format)], span)
            }
            Builtin::TextureTemporal | Builtin::BufferTemporal => {
                let view = mem(0).ok_or_else(missing)?;
                let layer = lane(1).ok_or_else(missing)?;
                self.edit_view(view, &[(off::TEMPORAL_LAYER, layer)], span)
            }
            Builtin::BufferStride => {
                let view = mem(0).ok_or_else(missing)?;
                let stride = lane(1).ok_or_else(missing)?;
                self.edit_view(view, &[(off::STRIDE, stride)], span)
            }
            Builtin::BufferBytes => {
                let view = mem(0).ok_or_else(missing)?;
                let (offset, size) = (lane(1).ok_or_else(missing)?, lane(2).ok_or_else(missing)?);
                let result = self.edit_view(view, &[], span)?;
                if let Val::Mem(addr) = result {
                    let old = self.b.load(VmType::U64, view, off::OFFSET);
                    let new = self.b.binary(VmBinary::AddU64, old, offset);
                    self.b.store(addr, off::OFFSET, new);
                    self.b.store(addr, off::SIZE, size);
                }
                Ok(result)
            }
            Builtin::BufferElements => {
                // rpsl.h: the element size is the view's stride, else the size of its format,
                // else one byte (unformatted, unstructured).
                let view = mem(0).ok_or_else(missing)?;
                let (first, count) = (lane(1).ok_or_else(missing)?, lane(2).ok_or_else(missing)?);
                let element_size = self.buffer_element_size(view);
                let result = self.edit_view(view, &[], span)?;
                if let Val::Mem(addr) = result {
                    let byte_offset = self.b.binary(VmBinary::MulU64, first, element_size);
                    let byte_size = self.b.binary(VmBinary::MulU64, count, element_size);
                    let old = self.b.load(VmType::U64, view, off::OFFSET);
                    let new = self.b.binary(VmBinary::AddU64, old, byte_offset);
                    self.b.store(addr, off::OFFSET, new);
                    self.b.store(addr, off::SIZE, byte_size);
                }
                Ok(result)
            }
            Builtin::TextureCubemap => {
                let view = mem(0).ok_or_else(missing)?;
                let flags = self.b.load(VmType::U32, view, off::FLAGS);
                let cube_bit = self.b.iconst_u32(1);
                let flags = self.b.binary(VmBinary::OrU32, flags, cube_bit);
                self.edit_view(view, &[(off::FLAGS, flags)], span)
            }
            Builtin::CreateTextureView => {
                let view = mem(0).ok_or_else(missing)?;
                let fields = [
                    (off::BASE_MIP, 1),
                    (off::MIP_COUNT, 2),
                    (off::BASE_LAYER, 3),
                    (off::LAYER_COUNT, 4),
                    (off::TEMPORAL_LAYER, 5),
                    (off::VIEW_FORMAT, 6),
                ];
                let mut edits = Vec::new();
                for (offset, arg) in fields {
                    let value = lane(arg).ok_or_else(missing)?;
                    edits.push((offset, self.convert_lane(value, ScalarKind::Uint)));
                }
                self.edit_view(view, &edits, span)
            }
            Builtin::CreateBufferView => {
                let view = mem(0).ok_or_else(missing)?;
                let mut edits = Vec::new();
                for (offset, arg, kind) in [
                    (off::OFFSET, 1, ScalarKind::Uint64),
                    (off::SIZE, 2, ScalarKind::Uint64),
                    (off::TEMPORAL_LAYER, 3, ScalarKind::Uint),
                    (off::VIEW_FORMAT, 4, ScalarKind::Uint),
                ] {
                    let value = lane(arg).ok_or_else(missing)?;
                    edits.push((offset, self.convert_lane(value, kind)));
                }
                self.edit_view(view, &edits, span)
            }
            Builtin::TextureBase | Builtin::BufferBase => {
                // The whole-resource view: same resource, everything else default (the identity
                // component mapping of a texture), ranges from the resource description.
                let view = mem(0).ok_or_else(missing)?;
                let desc_ty = Type::array(Type::UINT, Some(9));
                let desc = self.temp(&desc_ty, span)?;
                self.b.ins(Inst::DescribeResource {
                    view,
                    desc_out: desc,
                });
                let result = self.temp(&Type::Texture, span)?;
                let resource = self.b.load(VmType::U32, view, off::RESOURCE);
                self.b.store(result, off::RESOURCE, resource);
                if builtin == Builtin::TextureBase {
                    let mips = self.b.load(VmType::U32, desc, 24);
                    let layers = self.b.load(VmType::U32, desc, 20);
                    let kind = self.b.load(VmType::U32, desc, 0);
                    let three = self.b.iconst_u32(3);
                    let one = self.b.iconst_u32(1);
                    let is_3d = self.b.binary(VmBinary::EqU32, kind, three);
                    let layers = self.b.select(is_3d, one, layers);
                    self.b.store(result, off::MIP_COUNT, mips);
                    self.b.store(result, off::LAYER_COUNT, layers);
                    let mapping = self.b.iconst_u32(IDENTITY_COMPONENT_MAPPING);
                    self.b.store(result, off::COMPONENT_MAPPING, mapping);
                } else {
                    let low = self.b.load(VmType::U32, desc, 12);
                    let high = self.b.load(VmType::U32, desc, 16);
                    let low = self.b.convert(VmType::U64, low);
                    let high = self.b.convert(VmType::U64, high);
                    let shift = self.b.constant(Value::U64(32));
                    let high = self.b.binary(VmBinary::ShlU64, high, shift);
                    let size = self.b.binary(VmBinary::OrU64, high, low);
                    self.b.store(result, off::SIZE, size);
                }
                Ok(Val::Mem(result))
            }
        }
    }
}
