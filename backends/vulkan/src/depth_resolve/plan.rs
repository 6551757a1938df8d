//! How the aspects of a depth/stencil resolve are grouped into passes and ordered, and which
//! scratch copies a driver with whole-texel copies cannot take (pure functions of the plan, unit
//! tested here).

use super::{Method, ShaderOp};
use ash::vk;

/// Groups planned aspects into passes: render-pass aspects (into the destination, or into a
/// scratch image) share one pass when their modes are equal or the device has
/// `independentResolve`; every shader aspect is a pass of its own.
pub(super) fn group_passes(
    plans: &[(vk::ImageAspectFlags, Method)],
    independent_resolve: bool,
) -> Vec<Vec<(vk::ImageAspectFlags, Method)>> {
    let mut passes: Vec<Vec<(vk::ImageAspectFlags, Method)>> = Vec::new();
    for &(aspect, method) in plans {
        let joins = passes.iter_mut().find(|pass| {
            pass.iter().all(|&(_, other)| match (other, method) {
                (Method::RenderPass(a), Method::RenderPass(b))
                | (Method::Scratch(a), Method::Scratch(b)) => a == b || independent_resolve,
                _ => false,
            })
        });
        match joins {
            Some(pass) => pass.push((aspect, method)),
            None => passes.push(vec![(aspect, method)]),
        }
    }
    passes
}

/// Orders planned aspects: render-pass resolves into the destination first (where one of them
/// also writes the other aspect, that aspect's scratch copy or shader resolve comes after and
/// overwrites it), then scratch resolves, then shader resolves (which rewrite what a driver's
/// whole-texel scratch copy overwrote, see `Quirks`).
pub(super) fn sort_plans(plans: &mut [(vk::ImageAspectFlags, Method)]) {
    plans.sort_by_key(|(_, method)| match method {
        Method::RenderPass(_) => 0,
        Method::Scratch(_) => 1,
        Method::Shader(_) => 2,
    });
}

/// The shader operation of RPS mode `mode` (0 average, 1 min, 2 max) on an aspect.
pub(super) fn shader_op(mode: usize, stencil: bool) -> ShaderOp {
    match (mode, stencil) {
        (0, true) => ShaderOp::SampleZero,
        (0, false) => ShaderOp::Average,
        (1, _) => ShaderOp::Min,
        _ => ShaderOp::Max,
    }
}

/// Where scratch copies of single aspects would overwrite the other aspect of a depth-stencil
/// destination (drivers whose copies take whole texels), the aspects that must go through the
/// shader instead. A scratch copy is safe when it copies every aspect of the format, or when
/// the aspects it leaves are resolved by the shader afterwards ([`sort_plans`]).
pub(super) fn copies_clobbering(
    plans: &[(vk::ImageAspectFlags, Method)],
    independent_resolve: bool,
    format_aspects: vk::ImageAspectFlags,
) -> Vec<vk::ImageAspectFlags> {
    let union = |wanted: fn(&Method) -> bool| {
        plans
            .iter()
            .filter(|(_, method)| wanted(method))
            .fold(vk::ImageAspectFlags::empty(), |all, (aspect, _)| {
                all | *aspect
            })
    };
    let scratch = union(|method| matches!(method, Method::Scratch(_)));
    let shader = union(|method| matches!(method, Method::Shader(_)));
    if scratch.is_empty() {
        return Vec::new();
    }
    let scratch_passes = group_passes(plans, independent_resolve)
        .iter()
        .filter(|pass| matches!(pass[0].1, Method::Scratch(_)))
        .count();
    if scratch_passes == 1 && (scratch | shader) == format_aspects {
        return Vec::new();
    }
    if scratch_passes > 1 {
        // Two single-aspect copies: depth through the shader, after the stencil copy.
        return vec![vk::ImageAspectFlags::DEPTH];
    }
    [vk::ImageAspectFlags::DEPTH, vk::ImageAspectFlags::STENCIL]
        .into_iter()
        .filter(|&aspect| scratch.contains(aspect))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPTH: vk::ImageAspectFlags = vk::ImageAspectFlags::DEPTH;
    const STENCIL: vk::ImageAspectFlags = vk::ImageAspectFlags::STENCIL;
    const MIN: vk::ResolveModeFlags = vk::ResolveModeFlags::MIN;
    const MAX: vk::ResolveModeFlags = vk::ResolveModeFlags::MAX;

    fn both() -> vk::ImageAspectFlags {
        DEPTH | STENCIL
    }

    #[test]
    fn render_passes_share_a_pass_when_modes_match_or_resolve_is_independent() {
        let same = [
            (DEPTH, Method::Scratch(MAX)),
            (STENCIL, Method::Scratch(MAX)),
        ];
        assert_eq!(group_passes(&same, false).len(), 1);
        let mixed = [
            (DEPTH, Method::Scratch(MIN)),
            (STENCIL, Method::Scratch(MAX)),
        ];
        assert_eq!(group_passes(&mixed, false).len(), 2);
        assert_eq!(group_passes(&mixed, true).len(), 1);
        // A direct pass and a scratch pass never share.
        let direct = [
            (DEPTH, Method::RenderPass(MAX)),
            (STENCIL, Method::Scratch(MAX)),
        ];
        assert_eq!(group_passes(&direct, true).len(), 2);
        let shaders = [
            (DEPTH, Method::Shader(ShaderOp::Max)),
            (STENCIL, Method::Shader(ShaderOp::Max)),
        ];
        assert_eq!(group_passes(&shaders, true).len(), 2);
    }

    #[test]
    fn direct_passes_come_first_and_shaders_last() {
        let mut plans = [
            (DEPTH, Method::Shader(ShaderOp::Average)),
            (STENCIL, Method::Scratch(vk::ResolveModeFlags::SAMPLE_ZERO)),
        ];
        sort_plans(&mut plans);
        assert_eq!(
            plans[0].1,
            Method::Scratch(vk::ResolveModeFlags::SAMPLE_ZERO)
        );
        let mut plans = [
            (DEPTH, Method::Scratch(MIN)),
            (STENCIL, Method::RenderPass(MIN)),
        ];
        sort_plans(&mut plans);
        assert_eq!(plans[0], (STENCIL, Method::RenderPass(MIN)));
    }

    #[test]
    fn shader_ops_follow_the_rps_modes() {
        assert_eq!(shader_op(0, true), ShaderOp::SampleZero);
        assert_eq!(shader_op(0, false), ShaderOp::Average);
        assert_eq!(shader_op(1, true), ShaderOp::Min);
        assert_eq!(shader_op(2, false), ShaderOp::Max);
    }

    #[test]
    fn whole_texel_copies_keep_only_safe_scratch_copies() {
        // Both aspects in one scratch pass: one copy of every aspect.
        let one_pass = [
            (DEPTH, Method::Scratch(MAX)),
            (STENCIL, Method::Scratch(MAX)),
        ];
        assert!(copies_clobbering(&one_pass, false, both()).is_empty());
        // A stencil copy whose depth the shader rewrites afterwards.
        let then_shader = [
            (STENCIL, Method::Scratch(vk::ResolveModeFlags::SAMPLE_ZERO)),
            (DEPTH, Method::Shader(ShaderOp::Average)),
        ];
        assert!(copies_clobbering(&then_shader, false, both()).is_empty());
        // Two single-aspect copies: depth goes to the shader.
        let two_passes = [
            (DEPTH, Method::Scratch(MIN)),
            (STENCIL, Method::Scratch(MAX)),
        ];
        assert_eq!(copies_clobbering(&two_passes, false, both()), vec![DEPTH]);
        // A stencil-only view, or a copy after a direct pass of the other aspect.
        let alone = [(STENCIL, Method::Scratch(MAX))];
        assert_eq!(copies_clobbering(&alone, false, both()), vec![STENCIL]);
        let after_direct = [
            (DEPTH, Method::RenderPass(MAX)),
            (STENCIL, Method::Scratch(MAX)),
        ];
        assert_eq!(
            copies_clobbering(&after_direct, true, both()),
            vec![STENCIL]
        );
        // No scratch at all.
        let direct = [
            (DEPTH, Method::RenderPass(MAX)),
            (STENCIL, Method::RenderPass(MAX)),
        ];
        assert!(copies_clobbering(&direct, true, both()).is_empty());
    }
}
