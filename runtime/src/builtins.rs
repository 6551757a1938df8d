//! rpsl.h's built-in nodes (`clear`, `clear_depth`, `copy_texture`, `resolve`, ...): one
//! [`BuiltinNode`] per declaration, overloads told apart, and its declaration. A declaration is
//! resolved to its kind once, when it is made ([`BuiltinNode::of_declaration`], stored in
//! [`NodeDeclDesc::builtin`]); each call's arguments are then decoded by that kind into a typed
//! [`crate::BuiltinCall`]. The frontend resolves an overloaded call to one of them by its
//! parameter types; [`builtin_declarations`] lists them all.

use std::sync::OnceLock;

use crate::decl::{
    AccessDesc, AccessFlags, NodeDeclDesc, ParamDesc, QueueClass, ScalarType, SemanticKind,
    ValueType,
};

/// One built-in node declaration of rpsl.h; overloads of one name are distinct kinds.
///
/// ```
/// use rpsl_runtime::{builtin_declarations, BuiltinNode};
/// let decls = builtin_declarations();
/// let clear_depth = decls.iter().find(|decl| decl.name == "clear_depth").unwrap();
/// assert_eq!(clear_depth.builtin, Some(BuiltinNode::ClearDepth));
/// assert_eq!(BuiltinNode::of_declaration(clear_depth), Some(BuiltinNode::ClearDepth));
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BuiltinNode {
    /// `clear_color_regions(t, float4 data, uint numRects, int4 rects[])`.
    ClearColorRegions,
    /// `clear_depth_stencil_regions(t, option, float d, uint s, uint numRects, int4 rects[])`.
    ClearDepthStencilRegions,
    /// `clear_texture_regions(t, uint4 data, uint numRects, int4 rects[])`.
    ClearTextureRegions,
    /// `clear_texture(t, option, uint4 data)`.
    ClearTexture,
    /// `clear_buffer(b, option, uint4 data)`.
    ClearBuffer,
    /// `copy_texture(dst, uint3 dstOffset, src, uint3 srcOffset, uint3 extent)`.
    CopyTextureRegion,
    /// `copy_buffer(dst, uint64_t dstOffset, src, uint64_t srcOffset, uint64_t size)`.
    CopyBufferRegion,
    /// `copy_texture_to_buffer(dst, dstByteOffset, rowPitch, bufferImageSize, dstOffset, src,
    /// srcOffset, extent)`.
    CopyTextureToBuffer,
    /// `copy_buffer_to_texture(dst, dstOffset, src, srcByteOffset, rowPitch, bufferImageSize,
    /// srcOffset, extent)`.
    CopyBufferToTexture,
    /// `resolve(dst, uint2 dstOffset, src, uint2 srcOffset, uint2 extent, resolveMode)`.
    Resolve,
    /// `clear(texture dst, float4 clearValue)`: a render-target clear.
    ClearColorFloat,
    /// `clear(texture dst, uint4 clearValue)`: a render-target clear.
    ClearColorUint,
    /// `clear(texture dst, float depth, uint stencil)`.
    ClearDepthStencil,
    /// `clear_depth(texture dst, float depth)`.
    ClearDepth,
    /// `clear_stencil(texture dst, uint stencil)`.
    ClearStencil,
    /// `clear(buffer dst, float4 val)`.
    ClearBufferFloat,
    /// `clear(buffer dst, uint4 val)`.
    ClearBufferUint,
    /// `copy_texture(dst, src)`: every common mip of the views.
    CopyTexture,
    /// `copy_buffer(dst, src)`: the common size of the views.
    CopyBuffer,
}

impl BuiltinNode {
    /// Every built-in node, in rpsl.h's order.
    pub const ALL: [BuiltinNode; 19] = [
        BuiltinNode::ClearColorRegions,
        BuiltinNode::ClearDepthStencilRegions,
        BuiltinNode::ClearTextureRegions,
        BuiltinNode::ClearTexture,
        BuiltinNode::ClearBuffer,
        BuiltinNode::CopyTextureRegion,
        BuiltinNode::CopyBufferRegion,
        BuiltinNode::CopyTextureToBuffer,
        BuiltinNode::CopyBufferToTexture,
        BuiltinNode::Resolve,
        BuiltinNode::ClearColorFloat,
        BuiltinNode::ClearColorUint,
        BuiltinNode::ClearDepthStencil,
        BuiltinNode::ClearDepth,
        BuiltinNode::ClearStencil,
        BuiltinNode::ClearBufferFloat,
        BuiltinNode::ClearBufferUint,
        BuiltinNode::CopyTexture,
        BuiltinNode::CopyBuffer,
    ];

    /// The RPSL name (shared by overloads).
    pub fn name(self) -> &'static str {
        match self {
            BuiltinNode::ClearColorRegions => "clear_color_regions",
            BuiltinNode::ClearDepthStencilRegions => "clear_depth_stencil_regions",
            BuiltinNode::ClearTextureRegions => "clear_texture_regions",
            BuiltinNode::ClearTexture => "clear_texture",
            BuiltinNode::ClearBuffer => "clear_buffer",
            BuiltinNode::CopyTextureRegion | BuiltinNode::CopyTexture => "copy_texture",
            BuiltinNode::CopyBufferRegion | BuiltinNode::CopyBuffer => "copy_buffer",
            BuiltinNode::CopyTextureToBuffer => "copy_texture_to_buffer",
            BuiltinNode::CopyBufferToTexture => "copy_buffer_to_texture",
            BuiltinNode::Resolve => "resolve",
            BuiltinNode::ClearColorFloat
            | BuiltinNode::ClearColorUint
            | BuiltinNode::ClearDepthStencil
            | BuiltinNode::ClearBufferFloat
            | BuiltinNode::ClearBufferUint => "clear",
            BuiltinNode::ClearDepth => "clear_depth",
            BuiltinNode::ClearStencil => "clear_stencil",
        }
    }

    /// The built-in that `decl` declares: the one of its name whose parameters have the same
    /// value types (a 32-bit integer scalar of either sign: scripts type rpsl.h's enum
    /// parameters `int`), or `None` when rpsl.h declares no such node. Declarations are resolved once,
    /// when they are made ([`NodeDeclDesc::with_builtin`]); calls never compare names.
    pub fn of_declaration(decl: &NodeDeclDesc) -> Option<BuiltinNode> {
        declarations()
            .iter()
            .find(|builtin| {
                builtin.name == decl.name
                    && builtin.params.len() == decl.params.len()
                    && builtin
                        .params
                        .iter()
                        .zip(&decl.params)
                        .all(|(a, b)| same_parameter_type(&a.value_type, &b.value_type))
            })
            .and_then(|builtin| builtin.builtin)
    }

    /// rpsl.h's declaration of this node, made once and shared.
    pub(crate) fn shared_declaration(self) -> &'static NodeDeclDesc {
        &declarations()[self as usize]
    }

    /// rpsl.h's declaration of this node.
    pub fn declaration(self) -> NodeDeclDesc {
        use AccessFlags as F;
        use QueueClass::{Compute, Copy, Graphics};
        use ScalarType::{F32, U32, U64};
        let rt_clear = F::RENDER_TARGET | F::CLEAR;
        let (queue, params) = match self {
            BuiltinNode::ClearColorRegions => (
                Graphics,
                vec![
                    texture("t", AccessDesc::readwrite(rt_clear)),
                    vector("data", F32, 4).with_semantic(SemanticKind::ClearColor, 0),
                    scalar("numRects", U32),
                    rects(),
                ],
            ),
            BuiltinNode::ClearDepthStencilRegions => (
                Graphics,
                vec![
                    texture("t", AccessDesc::readwrite(F::DEPTH | F::STENCIL | F::CLEAR)),
                    scalar("option", U32),
                    scalar("d", F32).with_semantic(SemanticKind::ClearDepth, 0),
                    scalar("s", U32).with_semantic(SemanticKind::ClearStencil, 0),
                    scalar("numRects", U32),
                    rects(),
                ],
            ),
            BuiltinNode::ClearTextureRegions => (
                Compute,
                vec![
                    texture("t", AccessDesc::readwrite(F::CLEAR)),
                    vector("data", U32, 4).with_semantic(SemanticKind::ClearColor, 0),
                    scalar("numRects", U32),
                    rects(),
                ],
            ),
            BuiltinNode::ClearTexture => (
                Compute,
                vec![
                    texture("t", AccessDesc::writeonly(F::CLEAR)),
                    scalar("option", U32),
                    vector("data", U32, 4),
                ],
            ),
            BuiltinNode::ClearBuffer => (
                Compute,
                vec![
                    buffer("b", AccessDesc::writeonly(F::CLEAR)),
                    scalar("option", U32),
                    vector("data", U32, 4),
                ],
            ),
            BuiltinNode::CopyTextureRegion => (
                Copy,
                vec![
                    texture("dst", AccessDesc::readwrite(F::COPY)),
                    vector("dstOffset", U32, 3),
                    texture("src", AccessDesc::readonly(F::COPY)),
                    vector("srcOffset", U32, 3),
                    vector("extent", U32, 3),
                ],
            ),
            BuiltinNode::CopyBufferRegion => (
                Copy,
                vec![
                    buffer("dst", AccessDesc::readwrite(F::COPY)),
                    scalar("dstOffset", U64),
                    buffer("src", AccessDesc::readonly(F::COPY)),
                    scalar("srcOffset", U64),
                    scalar("size", U64),
                ],
            ),
            BuiltinNode::CopyTextureToBuffer => (
                Copy,
                vec![
                    buffer("dst", AccessDesc::readwrite(F::COPY)),
                    scalar("dstByteOffset", U64),
                    scalar("rowPitch", U32),
                    vector("bufferImageSize", U32, 3),
                    vector("dstOffset", U32, 3),
                    texture("src", AccessDesc::readonly(F::COPY)),
                    vector("srcOffset", U32, 3),
                    vector("extent", U32, 3),
                ],
            ),
            BuiltinNode::CopyBufferToTexture => (
                Copy,
                vec![
                    texture("dst", AccessDesc::readwrite(F::COPY)),
                    vector("dstOffset", U32, 3),
                    buffer("src", AccessDesc::readonly(F::COPY)),
                    scalar("srcByteOffset", U64),
                    scalar("rowPitch", U32),
                    vector("bufferImageSize", U32, 3),
                    vector("srcOffset", U32, 3),
                    vector("extent", U32, 3),
                ],
            ),
            BuiltinNode::Resolve => (
                Graphics,
                vec![
                    texture("dst", AccessDesc::readwrite(F::RESOLVE)),
                    vector("dstOffset", U32, 2),
                    texture("src", AccessDesc::readonly(F::RESOLVE)),
                    vector("srcOffset", U32, 2),
                    vector("extent", U32, 2),
                    scalar("resolveMode", U32),
                ],
            ),
            BuiltinNode::ClearColorFloat => (
                Graphics,
                vec![
                    texture("dst", AccessDesc::writeonly(rt_clear)),
                    vector("clearValue", F32, 4),
                ],
            ),
            BuiltinNode::ClearColorUint => (
                Graphics,
                vec![
                    texture("dst", AccessDesc::writeonly(rt_clear)),
                    vector("clearValue", U32, 4),
                ],
            ),
            BuiltinNode::ClearDepthStencil => (
                Graphics,
                vec![
                    texture(
                        "dst",
                        AccessDesc::writeonly(F::DEPTH | F::STENCIL | F::CLEAR),
                    ),
                    scalar("depth", F32),
                    scalar("stencil", U32),
                ],
            ),
            BuiltinNode::ClearDepth => (
                Graphics,
                vec![
                    texture("dst", AccessDesc::writeonly(F::DEPTH | F::CLEAR)),
                    scalar("depth", F32),
                ],
            ),
            BuiltinNode::ClearStencil => (
                Graphics,
                vec![
                    texture("dst", AccessDesc::writeonly(F::STENCIL | F::CLEAR)),
                    scalar("stencil", U32),
                ],
            ),
            BuiltinNode::ClearBufferFloat => (
                Graphics,
                vec![
                    buffer("dst", AccessDesc::readwrite(F::CLEAR)),
                    vector("val", F32, 4),
                ],
            ),
            BuiltinNode::ClearBufferUint => (
                Graphics,
                vec![
                    buffer("dst", AccessDesc::readwrite(F::CLEAR)),
                    vector("val", U32, 4),
                ],
            ),
            BuiltinNode::CopyTexture => (
                Graphics,
                vec![
                    texture("dst", AccessDesc::writeonly(F::COPY)),
                    texture("src", AccessDesc::readonly(F::COPY)),
                ],
            ),
            BuiltinNode::CopyBuffer => (
                Graphics,
                vec![
                    buffer("dst", AccessDesc::readwrite(F::COPY)),
                    buffer("src", AccessDesc::readonly(F::COPY)),
                ],
            ),
        };
        NodeDeclDesc::new(self.name(), queue, params).with_builtin(self)
    }
}

fn scalar(name: &str, ty: ScalarType) -> ParamDesc {
    ParamDesc::new(name, ValueType::Scalar(ty))
}

fn vector(name: &str, ty: ScalarType, count: u32) -> ParamDesc {
    ParamDesc::new(name, ValueType::Vector(ty, count))
}

fn texture(name: &str, access: AccessDesc) -> ParamDesc {
    ParamDesc::new(name, ValueType::Texture).with_access(access)
}

fn buffer(name: &str, access: AccessDesc) -> ParamDesc {
    ParamDesc::new(name, ValueType::Buffer).with_access(access)
}

fn rects() -> ParamDesc {
    ParamDesc::new(
        "rects",
        ValueType::Array(Box::new(ValueType::Vector(ScalarType::I32, 4)), 0),
    )
}

/// Parameter types a declaration of a built-in may give where rpsl.h's has `declared`: the same
/// type, or a 32-bit integer scalar of the other sign (an enum such as `RPS_CLEAR_FLAGS`).
fn same_parameter_type(declared: &ValueType, given: &ValueType) -> bool {
    use ScalarType::{I32, U32};
    match (declared, given) {
        (ValueType::Scalar(I32 | U32), ValueType::Scalar(I32 | U32)) => true,
        _ => declared == given,
    }
}

/// [`builtin_declarations`], made once; declaration `i` is that of `BuiltinNode::ALL[i]`.
fn declarations() -> &'static [NodeDeclDesc] {
    static DECLARATIONS: OnceLock<Vec<NodeDeclDesc>> = OnceLock::new();
    DECLARATIONS.get_or_init(builtin_declarations)
}

/// Every built-in node of rpsl.h, overloads included, in rpsl.h's order.
pub fn builtin_declarations() -> Vec<NodeDeclDesc> {
    BuiltinNode::ALL.map(BuiltinNode::declaration).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_are_flagged_and_laid_out() {
        let decls = builtin_declarations();
        assert!(decls.iter().all(|decl| decl.is_builtin()));
        let clear_depth = decls
            .iter()
            .find(|decl| decl.name == "clear_depth")
            .unwrap();
        assert_eq!(clear_depth.params[0].view_slots.len(), 1);
        assert_eq!(clear_depth.params[1].offset, 40);
    }

    #[test]
    fn every_declaration_resolves_to_its_own_kind() {
        for decl in builtin_declarations() {
            assert_eq!(
                BuiltinNode::of_declaration(&decl),
                decl.builtin,
                "{}",
                decl.name
            );
        }
        let kinds: Vec<_> = builtin_declarations()
            .iter()
            .map(|decl| decl.builtin.unwrap())
            .collect();
        assert_eq!(kinds, BuiltinNode::ALL);
        for node in BuiltinNode::ALL {
            assert_eq!(node.shared_declaration().builtin, Some(node));
        }
    }

    #[test]
    fn overloads_resolve_by_parameter_types_and_others_not_at_all() {
        let with_types = |name: &str, types: Vec<ValueType>| {
            let params = types
                .into_iter()
                .enumerate()
                .map(|(index, ty)| ParamDesc::new(format!("p{index}"), ty))
                .collect();
            BuiltinNode::of_declaration(&NodeDeclDesc::new(name, QueueClass::Graphics, params))
        };
        let uint4 = ValueType::Vector(ScalarType::U32, 4);
        let float4 = ValueType::Vector(ScalarType::F32, 4);
        assert_eq!(
            with_types("clear", vec![ValueType::Buffer, uint4.clone()]),
            Some(BuiltinNode::ClearBufferUint)
        );
        assert_eq!(
            with_types("clear", vec![ValueType::Texture, float4.clone()]),
            Some(BuiltinNode::ClearColorFloat)
        );
        assert_eq!(
            with_types("copy_texture", vec![ValueType::Texture, ValueType::Texture]),
            Some(BuiltinNode::CopyTexture)
        );
        let enum_typed = ValueType::Scalar(ScalarType::I32);
        assert_eq!(
            with_types(
                "clear_texture",
                vec![ValueType::Texture, enum_typed, uint4.clone()]
            ),
            Some(BuiltinNode::ClearTexture)
        );
        assert_eq!(
            with_types("clear", vec![ValueType::Buffer, float4.clone()]),
            Some(BuiltinNode::ClearBufferFloat)
        );
        assert_eq!(
            with_types("clear", vec![ValueType::Texture, uint4]),
            Some(BuiltinNode::ClearColorUint)
        );
        assert_eq!(with_types("clear", vec![ValueType::Buffer]), None);
        assert_eq!(with_types("blit", vec![ValueType::Texture, float4]), None);
    }
}
