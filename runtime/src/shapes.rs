//! Synthetic graph shapes of `bench/rps_shapes.rpsl` (`chain`, `lanes`), recorded by hand
//! through the [`GraphBuilder`], for benchmarks and tests that compare with the RPS figures, and
//! the deterministic generator that random-graph tests and examples draw their shapes from.

use crate::args_writer::ArgsWriter;
use crate::builder::{BuildError, GraphBuilder};
use crate::decl::{
    AccessDesc, AccessFlags, NodeDeclDesc, ParamDesc, QueueClass, SemanticKind, ValueType,
};
use crate::format::Format;
use crate::graph::CallFlags;
use crate::ids::DeclId;
use crate::resource::ResourceDesc;
use crate::view::TextureView;

/// A small deterministic generator (a 64-bit linear congruential step, high bits out) for
/// random graph shapes: the same seed gives the same graph on every machine.
///
/// ```
/// let mut rng = rpsl_runtime::shapes::ShapeRng(7);
/// let first = rng.below(10);
/// assert!(first < 10);
/// assert_eq!(rpsl_runtime::shapes::ShapeRng(7).below(10), first);
/// ```
#[derive(Clone, Debug)]
pub struct ShapeRng(pub u64);

impl ShapeRng {
    /// The next 31-bit value.
    pub fn next_value(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }

    /// A value in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_value() % n.max(1)
    }
}

/// The two node declarations of the shapes.
#[derive(Copy, Clone, Debug)]
pub struct ShapeDecls {
    /// `graphics node Raster([readonly(ps)] a, [readonly(ps)] b, [writeonly(rendertarget)] rt : SV_Target0)`.
    pub raster: DeclId,
    /// `compute node Compute([readonly(cs)] a, [readonly(cs)] b, [writeonly(cs)] uav)`.
    pub compute: DeclId,
}

/// Declares `Raster` and `Compute`.
pub fn declare_shapes(builder: &mut GraphBuilder) -> ShapeDecls {
    let tex = |name: &str, access: AccessDesc| {
        ParamDesc::new(name, ValueType::Texture).with_access(access)
    };
    let raster = builder.declare_node(NodeDeclDesc::new(
        "Raster",
        QueueClass::Graphics,
        vec![
            tex("a", AccessDesc::readonly(AccessFlags::PS)),
            tex("b", AccessDesc::readonly(AccessFlags::PS)),
            tex("rt", AccessDesc::writeonly(AccessFlags::RENDER_TARGET))
                .with_semantic(SemanticKind::Target, 0),
        ],
    ));
    let compute = builder.declare_node(NodeDeclDesc::new(
        "Compute",
        QueueClass::Compute,
        vec![
            tex("a", AccessDesc::readonly(AccessFlags::CS)),
            tex("b", AccessDesc::readonly(AccessFlags::CS)),
            tex("uav", AccessDesc::writeonly(AccessFlags::CS)),
        ],
    ));
    ShapeDecls { raster, compute }
}

/// `makeResource(i)`: one of four size classes chosen by a hash of `i`.
pub fn shape_resource(i: u32) -> ResourceDesc {
    match (i.wrapping_mul(2654435761) >> 7) & 3 {
        0 => ResourceDesc::tex2d(Format::R16G16B16A16_FLOAT, 1920, 1080),
        1 => ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080),
        2 => ResourceDesc::tex2d(Format::R16G16B16A16_FLOAT, 960, 540),
        _ => ResourceDesc::tex2d(Format::R32_FLOAT, 480, 270),
    }
}

fn call(
    builder: &mut GraphBuilder,
    decl: DeclId,
    views: [TextureView; 3],
    key: u64,
) -> Result<(), BuildError> {
    let mut args = ArgsWriter::new(builder.decl(decl).ok_or(BuildError::UnknownDecl(decl))?);
    args.write_texture(0, &views[0])
        .write_texture(1, &views[1])
        .write_texture(2, &views[2]);
    builder.call_node(decl, args.bytes(), CallFlags::default(), key)?;
    Ok(())
}

fn backbuffer(builder: &mut GraphBuilder) -> Result<TextureView, BuildError> {
    let id = builder.import_external_with_access(
        "backbuffer",
        ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 1920, 1080),
        Some(AccessDesc::readonly(AccessFlags::PRESENT)),
    )?;
    builder.default_texture_view(id)
}

/// Records `chain(backbuffer, n)` into the current frame.
pub fn record_chain(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    n: u32,
) -> Result<(), BuildError> {
    record_chain_variant(builder, decls, n, 0)
}

/// Records variant `variant` of `chain(backbuffer, n)`: the same resources (so the same sizes
/// and a frame-to-frame resource serial) and the same statistics, but other skip-link distances
/// and another raster/compute pattern, so a compile takes other branches. Variant 0 is
/// [`record_chain`]. Benchmarks rotate variants to time compiles whose branch outcomes the
/// CPU's predictor cannot have learnt from the previous frames (see `profile_compile ...
/// variants K`).
///
/// ```
/// use rpsl_runtime::shapes::{declare_shapes, record_chain_variant};
/// use rpsl_runtime::GraphBuilder;
/// let mut builder = GraphBuilder::new();
/// let decls = declare_shapes(&mut builder);
/// builder.begin_frame(0);
/// record_chain_variant(&mut builder, decls, 100, 3).unwrap();
/// assert_eq!(builder.finish().unwrap().nodes.len(), 100);
/// ```
pub fn record_chain_variant(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    n: u32,
    variant: u32,
) -> Result<(), BuildError> {
    let back = backbuffer(builder)?;
    let mut ring = [TextureView::NULL; 16];
    for i in 0..n {
        let k = (i.wrapping_add(variant.wrapping_mul(3)).wrapping_mul(7)) % 8 + 2;
        let mut a = if i >= 1 {
            ring[((i - 1) % 16) as usize]
        } else {
            TextureView::NULL
        };
        let b = if i >= k {
            ring[((i - k) % 16) as usize]
        } else {
            TextureView::NULL
        };
        if a.is_null() {
            a = b;
        }
        let out = if i == n - 1 {
            back
        } else {
            let id = builder.create_resource(shape_resource(i), i as u64)?;
            builder.default_texture_view(id)?
        };
        ring[(i % 16) as usize] = out;
        let decl = if i.wrapping_add(variant) % 3 == 1 && i != n - 1 {
            decls.compute
        } else {
            decls.raster
        };
        call(builder, decl, [a, b, out], 1_000_000 + i as u64)?;
    }
    Ok(())
}

/// Records `lanes(backbuffer, n)` into the current frame.
pub fn record_lanes(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    n: u32,
) -> Result<(), BuildError> {
    record_lanes_variant(builder, decls, n, 0)
}

/// Records variant `variant` of `lanes(backbuffer, n)`: the same resources and dependencies, another
/// raster/compute pattern along each lane (so other barriers and other branches in a compile).
/// Variant 0 is [`record_lanes`]; see [`record_chain_variant`].
pub fn record_lanes_variant(
    builder: &mut GraphBuilder,
    decls: ShapeDecls,
    n: u32,
    variant: u32,
) -> Result<(), BuildError> {
    const W: u32 = 8;
    let back = backbuffer(builder)?;
    let l = (n.max(1) - 1) / W;
    let mut heads = [TextureView::NULL; W as usize];
    for lane in 0..W {
        let mut prev = TextureView::NULL;
        for j in 0..l {
            let i = lane * l + j;
            let id = builder.create_resource(shape_resource(i), i as u64)?;
            let out = builder.default_texture_view(id)?;
            // Variant 0: every other node computes; others mix the lane into the pattern.
            let decl = if j.wrapping_add(variant.wrapping_mul(lane + 1)) % (2 + variant % 2) == 1 {
                decls.compute
            } else {
                decls.raster
            };
            call(
                builder,
                decl,
                [prev, TextureView::NULL, out],
                1_000_000 + i as u64,
            )?;
            prev = out;
        }
        heads[lane as usize] = prev;
    }
    let mut acc = heads[0];
    for m in 1..W {
        let out = if m == W - 1 {
            back
        } else {
            let i = W * l + m - 1;
            let id = builder.create_resource(shape_resource(i), i as u64)?;
            builder.default_texture_view(id)?
        };
        call(
            builder,
            decls.raster,
            [acc, heads[m as usize], out],
            2_000_000 + m as u64,
        )?;
        acc = out;
    }
    Ok(())
}
