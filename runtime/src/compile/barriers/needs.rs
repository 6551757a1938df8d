//! What the accesses of each declaration parameter need in Vulkan terms, worked out once per
//! declaration set (the set is an `Arc` shared by the frames of a program): per parameter its
//! access attributes and, per resource kind, the [`AccessState`] of an access that covers the
//! whole of a one-plane resource. Barrier planning finds an access's need here from the node's
//! declaration and the parameter index in the access's key (the access table's compact copy
//! of the record's attributes); the entry is used only when the access has the parameter's
//! attribute flags and mode (true for every graph the builder records; the need of plane 0
//! depends on nothing else of the access), so a hand-edited access falls back to mapping its
//! own attributes.

use crate::compile::barriers::access_map::{map_access, AccessState};
use crate::compile::table::{attribute_key, param_access, DEPTH_FORMAT, KEY_PARAM_SHIFT, TEXTURE};
use crate::decl::{NodeDeclDesc, QueueClass};
use std::sync::{Arc, Weak};

/// Kinds of resource a parameter's needs are kept for: an index from an access's
/// [`AccessInfo`](crate::compile::table::AccessInfo) bits, `TEXTURE` (bit 9) and `DEPTH_FORMAT`
/// (bit 11) shifted down by 9 and masked with 5 (0 buffer, 1 texture, 4 and 5 with a
/// depth/stencil format).
const KINDS: usize = 6;

/// The resource kind index of an access's compact record bits (see [`KINDS`]).
#[inline(always)]
pub(super) fn kind_of(info_bits: u32) -> usize {
    const _: () = assert!(TEXTURE == 1 << 9 && DEPTH_FORMAT == 1 << 11);
    (info_bits >> 9 & 5) as usize
}

/// The needs of one declaration parameter's accesses.
#[derive(Copy, Clone, Debug)]
pub(super) struct ParamNeeds {
    /// The attribute flags and mode (of plane 0) the needs are for, as [`attribute_key`]
    /// (the parameter's first view slot's).
    attributes: u64,
    /// What an access of the whole of a one-plane resource needs (plane 0), by [`kind_of`].
    whole: [AccessState; KINDS],
}

impl ParamNeeds {
    /// The needs of a parameter index out of range: no access key matches them (a key's
    /// attribute bits end below bit [`KEY_PARAM_SHIFT`]).
    pub(super) const NONE: ParamNeeds = ParamNeeds {
        attributes: u64::MAX,
        whole: [AccessState {
            stages: crate::vk::Stages::NONE,
            accesses: crate::vk::Accesses::NONE,
            layout: crate::vk::ImageLayout::Undefined,
            reads: false,
            writes: false,
        }; KINDS],
    };

    /// The access with key `key` has the parameter's flags and mode.
    #[inline(always)]
    pub(super) fn matches(&self, key: u64) -> bool {
        key & ((1 << KEY_PARAM_SHIFT) - 1) == self.attributes
    }

    /// What an access of the whole of a one-plane resource of kind `kind` (see [`kind_of`])
    /// needs when it [`matches`](ParamNeeds::matches) the parameter.
    #[inline(always)]
    pub(super) fn whole_need(&self, kind: usize) -> &AccessState {
        &self.whole[kind.min(KINDS - 1)]
    }
}

/// A declaration's parameters in [`DeclNeeds`] and its queue class.
#[derive(Copy, Clone, Debug)]
pub(super) struct DeclEntry {
    /// Index of its first parameter's needs.
    first: u32,
    /// Number of its parameters.
    count: u32,
    /// The queue class of its nodes.
    pub(super) class: QueueClass,
}

impl DeclEntry {
    /// The entry of a declaration index out of range: no parameters, graphics class.
    const UNKNOWN: DeclEntry = DeclEntry {
        first: 0,
        count: 0,
        class: QueueClass::Graphics,
    };
}

/// The parameter needs of every declaration of a declaration set, flattened.
#[derive(Debug, Default)]
pub(super) struct DeclNeeds {
    /// The declaration set the table describes. A `Weak` keeps the allocation (so its address
    /// is never reused by another set) without keeping the declarations, and an `Arc` with a
    /// `Weak` to it cannot be changed in place (`Arc::make_mut` moves it).
    decls: Weak<Vec<NodeDeclDesc>>,
    /// Per declaration.
    entries: Vec<DeclEntry>,
    /// Per parameter of every declaration, declaration by declaration.
    params: Vec<ParamNeeds>,
}

impl DeclNeeds {
    /// Makes the table for `decls` unless it is already made for this very set.
    pub(super) fn update(&mut self, decls: &Arc<Vec<NodeDeclDesc>>) {
        if std::ptr::eq(self.decls.as_ptr(), Arc::as_ptr(decls)) {
            return;
        }
        self.decls = Arc::downgrade(decls);
        self.entries.clear();
        self.params.clear();
        for decl in decls.iter() {
            self.entries.push(DeclEntry {
                first: self.params.len() as u32,
                count: decl.params.len() as u32,
                class: decl.queue,
            });
            for param in &decl.params {
                let desc = param_access(param);
                let mut whole = [AccessState::default(); KINDS];
                for (kind, state) in whole.iter_mut().enumerate() {
                    let texture = kind & 1 != 0;
                    let depth = kind & 4 != 0;
                    *state = map_access(&desc, 0, texture, depth, decl.queue);
                }
                self.params.push(ParamNeeds {
                    attributes: attribute_key(&desc),
                    whole,
                });
            }
        }
    }

    /// The entry of declaration `decl` ([`DeclEntry::UNKNOWN`] when out of range).
    #[inline(always)]
    pub(super) fn decl(&self, decl: usize) -> DeclEntry {
        self.entries
            .get(decl)
            .copied()
            .unwrap_or(DeclEntry::UNKNOWN)
    }

    /// The needs of the parameters of the declaration with entry `entry`, by parameter index
    /// (the parameter index of an access key: `key >> KEY_PARAM_SHIFT`).
    #[inline(always)]
    pub(super) fn params(&self, entry: DeclEntry) -> &[ParamNeeds] {
        // An entry's range lies in `params` by construction (`update` pushes the entry and its
        // parameters together; `UNKNOWN` is empty): a plain slice, which the hot loop keeps as
        // one pointer and length instead of re-selecting an empty slice per access.
        let first = (entry.first as usize).min(self.params.len());
        let end = (first + entry.count as usize).min(self.params.len());
        &self.params[first..end]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decl::{AccessDesc, AccessFlags, ParamDesc, ValueType};

    /// The key of an access of parameter 0 with attributes `desc`.
    fn key(desc: &AccessDesc) -> u64 {
        attribute_key(desc)
    }

    /// What the access with key `key` of the whole of a resource of kind `kind` needs from
    /// `param`, as barrier planning takes it.
    fn whole(param: &ParamNeeds, key: u64, kind: usize) -> Option<&AccessState> {
        param.matches(key).then(|| param.whole_need(kind))
    }

    #[test]
    fn needs_match_map_access_and_follow_the_set() {
        let decl = |queue, flags| {
            NodeDeclDesc::new(
                "n",
                queue,
                vec![
                    ParamDesc::new("a", ValueType::Texture)
                        .with_access(AccessDesc::readonly(flags)),
                    ParamDesc::new("b", ValueType::Texture)
                        .with_access(AccessDesc::readwrite(AccessFlags::CS)),
                ],
            )
        };
        let first = Arc::new(vec![
            decl(QueueClass::Graphics, AccessFlags::PS),
            decl(QueueClass::Compute, AccessFlags::CS),
        ]);
        let mut needs = DeclNeeds::default();
        needs.update(&first);
        for (index, decl) in first.iter().enumerate() {
            let entry = needs.decl(index);
            assert_eq!(entry.class, decl.queue);
            let params = needs.params(entry);
            assert_eq!(params.len(), 2);
            for (param, desc) in params.iter().zip(&decl.params) {
                let access = desc.access.unwrap();
                for kind in [0, 1, 4, 5] {
                    let expected = map_access(&access, 0, kind & 1 != 0, kind & 4 != 0, decl.queue);
                    assert_eq!(whole(param, key(&access), kind), Some(&expected));
                }
                // An index out of range matches no access.
                assert!(!ParamNeeds::NONE.matches(key(&access)));
                assert!(!ParamNeeds::NONE.matches(u64::MAX));
                let other = AccessDesc::readwrite(AccessFlags::COPY);
                assert_eq!(whole(param, key(&other), 1), None);
                let other_mode = AccessDesc::writeonly(access.flags);
                assert_eq!(whole(param, key(&other_mode), 1), None);
                // Plane 0 of a whole access does not depend on the stencil mode or `relaxed`.
                let stencil = AccessDesc {
                    stencil_mode: Some(crate::decl::AccessMode::WriteOnly),
                    relaxed: true,
                    ..access
                };
                assert_eq!(
                    whole(param, key(&stencil), 5),
                    Some(&map_access(&stencil, 0, true, true, decl.queue))
                );
            }
        }
        assert!(needs.params(needs.decl(2)).is_empty());
        // Another set (even an equal one) is described afresh.
        let second = Arc::new(vec![decl(QueueClass::Copy, AccessFlags::COPY)]);
        needs.update(&second);
        assert_eq!(needs.decl(0).class, QueueClass::Copy);
        assert!(needs.params(needs.decl(1)).is_empty());
    }

    #[test]
    fn kinds_from_info_bits() {
        assert_eq!(kind_of(0), 0);
        assert_eq!(kind_of(TEXTURE), 1);
        assert_eq!(kind_of(DEPTH_FORMAT), 4);
        assert_eq!(kind_of(TEXTURE | DEPTH_FORMAT | 0xff), 5);
    }
}
