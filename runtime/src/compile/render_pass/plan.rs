//! What render-pass building needs of the node declarations, worked out once per declaration
//! set (the set is an `Arc` shared by the frames of a program): per declaration whether its
//! nodes can have a pass and take values from arguments, and per view slot its attachment
//! role with the clear-value parameters that go with it.

use crate::decl::{NodeDeclDesc, QueueClass, ScalarType, SemanticKind, ValueType, ViewKind};
use std::sync::{Arc, Weak};

/// What a declaration's nodes may need of render-pass building.
#[derive(Copy, Clone, Debug)]
pub(super) struct DeclKind {
    /// A graphics node with an attachment slot (others never get a pass).
    pub attachments: bool,
    /// It has `SV_Viewport` or `SV_ScissorRect` parameters.
    pub viewports: bool,
    /// Its passes take values from arguments (clear values, viewports, scissors).
    pub argument_values: bool,
    /// The argument offset of the first `SV_ClearDepth` parameter.
    pub clear_depth: Option<u32>,
    /// The argument offset of the first `SV_ClearStencil` parameter.
    pub clear_stencil: Option<u32>,
    /// The declaration's only attachment slot `(param, slot, target index)` when that is a
    /// color target without clear color and there are no viewport or scissor parameters
    /// (the common pass, built by a shorter path).
    pub single_target: Option<(u16, u16, u32)>,
    /// The single target's parameter has that one view slot, a texture slot: every access of
    /// the parameter that a [`crate::GraphBuilder`] records is the target, a texture view (so
    /// render-pass building may find the target by parameter alone, from the access keys).
    pub target_param_alone: bool,
}

/// The attachment role of a view slot.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Role {
    /// Not an attachment.
    None,
    /// `SV_Target[index]`.
    Target,
    /// `SV_DepthStencil`.
    DepthStencil,
    /// `SV_ResolveTarget[index]`.
    ResolveTarget,
}

/// A view slot's role in a render pass.
#[derive(Copy, Clone, Debug)]
pub(super) struct SlotRole {
    /// The role.
    pub role: Role,
    /// The semantic index.
    pub index: u32,
    /// For a target: the argument offset of the first `SV_ClearColor[index]` parameter.
    pub clear_color: Option<u32>,
    /// That parameter holds `f32` values (others are converted from `u32`).
    pub clear_f32: bool,
}

impl SlotRole {
    const NONE: SlotRole = SlotRole {
        role: Role::None,
        index: 0,
        clear_color: None,
        clear_f32: false,
    };
}

/// The roles of every declaration's view slots, flattened: declaration -> first parameter,
/// parameter -> first slot (each with one extra end entry).
#[derive(Debug, Default)]
pub(super) struct DeclPlans {
    /// The declaration set the plans describe. A `Weak` keeps the allocation (so its address
    /// is never reused by another set) without keeping the declarations, and an `Arc` with a
    /// `Weak` to it cannot be changed in place (`Arc::make_mut` moves it).
    decls: Weak<Vec<NodeDeclDesc>>,
    /// Per declaration.
    pub kinds: Vec<DeclKind>,
    decl_params: Vec<u32>,
    param_slots: Vec<u32>,
    roles: Vec<SlotRole>,
}

fn semantic_kind(semantic: Option<(SemanticKind, u32)>) -> Option<SemanticKind> {
    semantic.map(|(kind, _)| kind)
}

impl DeclPlans {
    /// Makes the plans for `decls` unless they are already made for this very set.
    pub fn update(&mut self, decls: &Arc<Vec<NodeDeclDesc>>) {
        if std::ptr::eq(self.decls.as_ptr(), Arc::as_ptr(decls)) {
            return;
        }
        self.decls = Arc::downgrade(decls);
        self.kinds.clear();
        self.decl_params.clear();
        self.param_slots.clear();
        self.roles.clear();
        for decl in decls.iter() {
            self.decl_params.push(self.param_slots.len() as u32);
            for param in &decl.params {
                self.param_slots.push(self.roles.len() as u32);
                for slot in &param.view_slots {
                    self.roles.push(slot_role(decl, slot.semantic));
                }
            }
            self.kinds.push(decl_kind(decl));
        }
        self.decl_params.push(self.param_slots.len() as u32);
        self.param_slots.push(self.roles.len() as u32);
    }

    /// The role of view slot `slot` of parameter `param` of declaration `decl` (none for
    /// indices out of range).
    #[inline]
    pub fn role(&self, decl: usize, param: u16, slot: u16) -> SlotRole {
        let (Some(&params_start), Some(&params_end)) =
            (self.decl_params.get(decl), self.decl_params.get(decl + 1))
        else {
            return SlotRole::NONE;
        };
        let param = params_start as usize + param as usize;
        if param >= params_end as usize {
            return SlotRole::NONE;
        }
        let slots_start = self.param_slots[param] as usize;
        let slots_end = self.param_slots[param + 1] as usize;
        let slot = slots_start + slot as usize;
        if slot >= slots_end {
            return SlotRole::NONE;
        }
        self.roles[slot]
    }
}

fn slot_role(decl: &NodeDeclDesc, semantic: Option<(SemanticKind, u32)>) -> SlotRole {
    let Some((kind, index)) = semantic else {
        return SlotRole::NONE;
    };
    let role = match kind {
        SemanticKind::Target => Role::Target,
        SemanticKind::DepthStencil => Role::DepthStencil,
        SemanticKind::ResolveTarget => Role::ResolveTarget,
        _ => return SlotRole::NONE,
    };
    let clear_param = if role == Role::Target {
        decl.params
            .iter()
            .find(|param| param.semantic == Some((SemanticKind::ClearColor, index)))
    } else {
        None
    };
    SlotRole {
        role,
        index,
        clear_color: clear_param.map(|param| param.offset),
        clear_f32: clear_param
            .is_some_and(|param| matches!(param.value_type, ValueType::Vector(ScalarType::F32, _))),
    }
}

fn decl_kind(decl: &NodeDeclDesc) -> DeclKind {
    let attachments = decl.queue == QueueClass::Graphics
        && !decl.is_builtin()
        && decl.params.iter().any(|param| {
            param.view_slots.iter().any(|slot| {
                matches!(
                    semantic_kind(slot.semantic),
                    Some(
                        SemanticKind::Target
                            | SemanticKind::DepthStencil
                            | SemanticKind::ResolveTarget
                    )
                )
            })
        });
    let viewports = decl.params.iter().any(|param| {
        matches!(
            semantic_kind(param.semantic),
            Some(SemanticKind::Viewport | SemanticKind::ScissorRect)
        )
    });
    let argument_values = viewports
        || decl.params.iter().any(|param| {
            matches!(
                semantic_kind(param.semantic),
                Some(
                    SemanticKind::ClearColor
                        | SemanticKind::ClearDepth
                        | SemanticKind::ClearStencil
                )
            )
        });
    let offset_of = |wanted: SemanticKind| {
        decl.params
            .iter()
            .find(|param| semantic_kind(param.semantic) == Some(wanted))
            .map(|param| param.offset)
    };
    let mut attachment_slots = decl.params.iter().enumerate().flat_map(|(param, desc)| {
        desc.view_slots
            .iter()
            .enumerate()
            .map(move |(slot, view)| (param, slot, view.semantic))
            .filter(|(_, _, semantic)| slot_role(decl, *semantic).role != Role::None)
    });
    let single_target = match (attachment_slots.next(), attachment_slots.next()) {
        (Some((param, slot, semantic)), None) if attachments && !viewports => {
            let role = slot_role(decl, semantic);
            match (u16::try_from(param), u16::try_from(slot)) {
                (Ok(param), Ok(slot))
                    if role.role == Role::Target && role.clear_color.is_none() =>
                {
                    Some((param, slot, role.index))
                }
                _ => None,
            }
        }
        _ => None,
    };
    let target_param_alone = single_target.is_some_and(|(param, slot, _)| {
        decl.params
            .get(param as usize)
            .is_some_and(|param| match param.view_slots.as_slice() {
                [only] => slot == 0 && only.kind == ViewKind::Texture,
                _ => false,
            })
    });
    DeclKind {
        attachments,
        viewports,
        argument_values,
        clear_depth: offset_of(SemanticKind::ClearDepth),
        clear_stencil: offset_of(SemanticKind::ClearStencil),
        single_target,
        target_param_alone,
    }
}
