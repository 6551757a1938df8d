//! Declarations of rpsl.h's built-in nodes (`clear`, `clear_depth`, `copy_texture`, `resolve`,
//! ...), flagged `builtin`. The frontend resolves an overloaded call to one of them by its
//! parameter types; [`builtin_declarations`] lists them all.

use crate::decl::{
    AccessDesc, AccessFlags, NodeDeclDesc, ParamDesc, QueueClass, ScalarType, SemanticKind,
    ValueType,
};

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

fn decl(name: &str, queue: QueueClass, params: Vec<ParamDesc>) -> NodeDeclDesc {
    NodeDeclDesc::new(name, queue, params).into_builtin()
}

/// Every built-in node of rpsl.h, overloads included, in rpsl.h's order.
pub fn builtin_declarations() -> Vec<NodeDeclDesc> {
    use AccessFlags as F;
    use QueueClass::{Compute, Copy, Graphics};
    use ScalarType::{F32, U32, U64};
    let rt_clear = F::RENDER_TARGET | F::CLEAR;
    vec![
        decl(
            "clear_color_regions",
            Graphics,
            vec![
                texture("t", AccessDesc::readwrite(rt_clear)),
                vector("data", F32, 4).with_semantic(SemanticKind::ClearColor, 0),
                scalar("numRects", U32),
                rects(),
            ],
        ),
        decl(
            "clear_depth_stencil_regions",
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
        decl(
            "clear_texture_regions",
            Compute,
            vec![
                texture("t", AccessDesc::readwrite(F::CLEAR)),
                vector("data", U32, 4).with_semantic(SemanticKind::ClearColor, 0),
                scalar("numRects", U32),
                rects(),
            ],
        ),
        decl(
            "clear_texture",
            Compute,
            vec![
                texture("t", AccessDesc::writeonly(F::CLEAR)),
                scalar("option", U32),
                vector("data", U32, 4),
            ],
        ),
        decl(
            "clear_buffer",
            Compute,
            vec![
                buffer("b", AccessDesc::writeonly(F::CLEAR)),
                scalar("option", U32),
                vector("data", U32, 4),
            ],
        ),
        decl(
            "copy_texture",
            Copy,
            vec![
                texture("dst", AccessDesc::readwrite(F::COPY)),
                vector("dstOffset", U32, 3),
                texture("src", AccessDesc::readonly(F::COPY)),
                vector("srcOffset", U32, 3),
                vector("extent", U32, 3),
            ],
        ),
        decl(
            "copy_buffer",
            Copy,
            vec![
                buffer("dst", AccessDesc::readwrite(F::COPY)),
                scalar("dstOffset", U64),
                buffer("src", AccessDesc::readonly(F::COPY)),
                scalar("srcOffset", U64),
                scalar("size", U64),
            ],
        ),
        decl(
            "copy_texture_to_buffer",
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
        decl(
            "copy_buffer_to_texture",
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
        decl(
            "resolve",
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
        decl(
            "clear",
            Graphics,
            vec![
                texture("dst", AccessDesc::writeonly(rt_clear)),
                vector("clearValue", F32, 4),
            ],
        ),
        decl(
            "clear",
            Graphics,
            vec![
                texture("dst", AccessDesc::writeonly(rt_clear)),
                vector("clearValue", U32, 4),
            ],
        ),
        decl(
            "clear",
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
        decl(
            "clear_depth",
            Graphics,
            vec![
                texture("dst", AccessDesc::writeonly(F::DEPTH | F::CLEAR)),
                scalar("depth", F32),
            ],
        ),
        decl(
            "clear_stencil",
            Graphics,
            vec![
                texture("dst", AccessDesc::writeonly(F::STENCIL | F::CLEAR)),
                scalar("stencil", U32),
            ],
        ),
        decl(
            "clear",
            Graphics,
            vec![
                buffer("dst", AccessDesc::readwrite(F::CLEAR)),
                vector("val", F32, 4),
            ],
        ),
        decl(
            "clear",
            Graphics,
            vec![
                buffer("dst", AccessDesc::readwrite(F::CLEAR)),
                vector("val", U32, 4),
            ],
        ),
        decl(
            "copy_texture",
            Graphics,
            vec![
                texture("dst", AccessDesc::writeonly(F::COPY)),
                texture("src", AccessDesc::readonly(F::COPY)),
            ],
        ),
        decl(
            "copy_buffer",
            Graphics,
            vec![
                buffer("dst", AccessDesc::readwrite(F::COPY)),
                buffer("src", AccessDesc::readonly(F::COPY)),
            ],
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtins_are_flagged_and_laid_out() {
        let decls = builtin_declarations();
        assert!(decls.iter().all(|decl| decl.builtin));
        let clear_depth = decls
            .iter()
            .find(|decl| decl.name == "clear_depth")
            .unwrap();
        assert_eq!(clear_depth.params[0].view_slots.len(), 1);
        assert_eq!(clear_depth.params[1].offset, 40);
    }
}
