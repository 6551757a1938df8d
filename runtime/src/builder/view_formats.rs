//! The view-format rules on the recording path: each view slot of a call checked against its
//! resource's format and the kind of access (`view_format_check.rs`), passed combinations
//! remembered so repeated views cost one table lookup, and the one role (depth or colour) a
//! depth-capable typeless resource takes per frame.

use super::GraphBuilder;
use crate::build_error::BuildError;
use crate::decl::{NodeDeclDesc, ViewKind, ViewSlot};
use crate::format::Format;
use crate::graph::AccessRecord;
use crate::view_format_check::{FormatUse, ViewFormatError};

/// Sets of [`GraphBuilder::passed_format_checks`], two keys each, the most recently passed
/// first (a power of two: a key's set is the top bits of its hash).
pub(super) const FORMAT_CHECK_SETS: usize = 32;

/// The passed format checks: per set, its two latest keys (0 = empty).
pub(super) type PassedFormatChecks = [[u64; 2]; FORMAT_CHECK_SETS];

/// The part of a format-check key that depends only on the view slot: its format use, view
/// kind and planes, with the set top bit (0 means an empty entry). [`GraphBuilder::declare_node`]
/// computes it once per slot.
pub(super) fn slot_key_bits(format_use: FormatUse, kind: ViewKind, planes: u8) -> u64 {
    let use_bits = format_use as u64;
    let kind_bit = u64::from(kind == ViewKind::Buffer);
    let attributes = use_bits | kind_bit << 3 | (u64::from(planes) & 3) << 4;
    1 << 63 | attributes << 48
}

/// [`slot_key_bits`] of a declaration's view slot.
pub(super) fn key_bits_of_slot(slot: &ViewSlot) -> u64 {
    slot_key_bits(
        FormatUse::of(&slot.access, slot.kind),
        slot.kind,
        slot.access.plane_bits(),
    )
}

/// The key of a format check: what [`crate::view_format_check::check_view_format`]'s answer
/// depends on (the resource and view formats, and the slot's [`slot_key_bits`]); `None` for
/// formats too large to pack (not `RPS_FORMAT` values: the full check reports them).
#[inline]
fn format_check_key(resource: Format, view: Format, slot_bits: u64) -> Option<u64> {
    if resource.0 >= 1 << 24 || view.0 >= 1 << 24 {
        return None;
    }
    Some(slot_bits | u64::from(resource.0) | u64::from(view.0) << 24)
}

/// The set of a format-check key (two entries: two keys of one set both stay, so a frame's few
/// combinations rarely push each other out).
fn format_check_set(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 59) as usize % FORMAT_CHECK_SETS
}

/// Whether `key` is in the passed-checks table.
#[inline]
pub(super) fn is_passed(table: &PassedFormatChecks, key: u64) -> bool {
    let [latest, older] = table[format_check_set(key)];
    (latest == key) | (older == key)
}

/// Puts a key that is not in the table ([`is_passed`] is false) first in its set: the set's
/// other key moves second, and the older second one leaves.
fn remember_passed(table: &mut PassedFormatChecks, key: u64) {
    let set = &mut table[format_check_set(key)];
    *set = [key, set[0]];
}

impl GraphBuilder {
    /// Whether a view of `view_format` of `resource` passed through a slot with `slot_bits`
    /// needs no check: the same combination passed before, and the resource is not
    /// depth-capable typeless (whose role is claimed per frame). The fast path of
    /// [`Self::check_slot_format`].
    #[inline]
    pub(super) fn format_check_passed(
        &self,
        resource: u32,
        view_format: u32,
        slot_bits: u64,
    ) -> bool {
        let resource_format = self.graph.resources[resource as usize].desc.format;
        !crate::view_format_check::is_depth_capable_typeless(resource_format)
            && format_check_key(resource_format, Format(view_format), slot_bits)
                .is_some_and(|key| is_passed(&self.passed_format_checks, key))
    }

    /// The view-format rule (`view_format_check.rs`) for one view slot of a call of `decl`
    /// (`slot_bits`: the slot's [`key_bits_of_slot`]), and the one role a depth-capable
    /// typeless resource takes in a frame: a backend realises it as a depth image when some
    /// access is a depth target, which cannot also be rendered to, cleared as colour or stored
    /// to.
    pub(super) fn check_slot_format(
        &mut self,
        decl: &NodeDeclDesc,
        slot: &ViewSlot,
        slot_bits: u64,
        resource: u32,
        view_format: u32,
    ) -> Result<(), BuildError> {
        if self.format_check_passed(resource, view_format, slot_bits) {
            return Ok(());
        }
        let resource_format = self.graph.resources[resource as usize].desc.format;
        let view_format = Format(view_format);
        let format_use = FormatUse::of(&slot.access, slot.kind);
        let key = format_check_key(resource_format, view_format, slot_bits);
        let typeless = crate::view_format_check::is_depth_capable_typeless(resource_format);
        let error = |reason| BuildError::InvalidViewFormat {
            node: decl.name.clone(),
            param: slot.name.clone(),
            resource_format,
            view_format,
            reason,
        };
        crate::view_format_check::check_view_format(
            &slot.access,
            slot.kind,
            resource_format,
            view_format,
        )
        .map_err(error)?;
        if !typeless {
            if let Some(key) = key {
                remember_passed(&mut self.passed_format_checks, key);
            }
            return Ok(());
        }
        let as_depth = match format_use {
            FormatUse::DepthStencil => true,
            FormatUse::ColorTarget | FormatUse::Storage => false,
            _ => return Ok(()),
        };
        self.claim_typeless_role(resource, as_depth, &decl.name)
            .map_err(error)
    }

    /// Records that depth-capable typeless `resource` is written as depth (or as colour) by
    /// node `node`; an error when it took the other role earlier this frame.
    fn claim_typeless_role(
        &mut self,
        resource: u32,
        as_depth: bool,
        node: &str,
    ) -> Result<(), ViewFormatError> {
        match self.typeless_roles.get(&resource) {
            Some((earlier, earlier_node)) if *earlier != as_depth => {
                Err(ViewFormatError::TypelessRoles {
                    earlier_node: earlier_node.clone(),
                    earlier_depth: *earlier,
                })
            }
            Some(_) => Ok(()),
            None => {
                self.typeless_roles
                    .insert(resource, (as_depth, node.to_string()));
                Ok(())
            }
        }
    }

    /// A built-in copy of a depth-capable typeless resource makes it a colour image for the
    /// frame: Vulkan copies between a depth image and a colour image only through a buffer,
    /// and the partner's role (a colour texture, or a typeless one whose role a later call may
    /// decide) is not known to be depth.
    pub(super) fn check_typeless_copies(
        &mut self,
        decl: &NodeDeclDesc,
        accesses: std::ops::Range<usize>,
    ) -> Result<(), BuildError> {
        if !decl.is_builtin() || accesses.len() != 2 {
            return Ok(());
        }
        let copies: Vec<AccessRecord> = self.graph.accesses[accesses].to_vec();
        if !copies
            .iter()
            .all(|access| access.access.flags.contains(crate::decl::AccessFlags::COPY))
        {
            return Ok(());
        }
        let formats: Vec<Format> = copies
            .iter()
            .map(|access| self.graph.resources[access.resource.index()].desc.format)
            .collect();
        for (index, access) in copies.iter().enumerate() {
            let (format, partner) = (formats[index], formats[1 - index]);
            if !crate::view_format_check::is_depth_capable_typeless(format) || partner == format {
                continue;
            }
            let param = &decl.params[access.param as usize].view_slots[access.slot as usize].name;
            self.claim_typeless_role(access.resource.0, false, &decl.name)
                .map_err(|reason| BuildError::InvalidViewFormat {
                    node: decl.name.clone(),
                    param: param.clone(),
                    resource_format: format,
                    view_format: access.view_format,
                    reason,
                })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_set_keeps_its_two_latest_keys() {
        let bits = slot_key_bits(FormatUse::Other, ViewKind::Texture, 1);
        let keys: Vec<u64> = (1..4096)
            .filter_map(|format| format_check_key(Format(format), Format::UNKNOWN, bits))
            .collect();
        let set = format_check_set(keys[0]);
        let same_set: Vec<u64> = keys
            .iter()
            .copied()
            .filter(|&key| format_check_set(key) == set)
            .take(3)
            .collect();
        assert_eq!(same_set.len(), 3);
        let (first, second, third) = (same_set[0], same_set[1], same_set[2]);
        let mut table = PassedFormatChecks::default();
        assert!(!is_passed(&table, first));
        remember_passed(&mut table, first);
        remember_passed(&mut table, second);
        assert!(is_passed(&table, first) && is_passed(&table, second));
        assert!(!is_passed(&table, third));
        remember_passed(&mut table, third);
        assert!(
            !is_passed(&table, first),
            "the oldest key of the set leaves"
        );
        assert!(is_passed(&table, second) && is_passed(&table, third));
        assert_eq!(table.iter().flatten().filter(|&&key| key != 0).count(), 2);
    }

    #[test]
    fn keys_tell_apart_everything_the_check_depends_on() {
        let d24 = Format::from_name("D24_UNORM_S8_UINT").unwrap();
        let base = (
            d24,
            Format::UNKNOWN,
            FormatUse::DepthStencil,
            ViewKind::Texture,
            1,
        );
        let key = |(r, v, u, k, p): (Format, Format, FormatUse, ViewKind, u8)| {
            format_check_key(r, v, slot_key_bits(u, k, p)).unwrap()
        };
        let variants = [
            (Format::R8G8B8A8_UNORM, base.1, base.2, base.3, base.4),
            (base.0, d24, base.2, base.3, base.4),
            (base.0, base.1, FormatUse::ColorTarget, base.3, base.4),
            (base.0, base.1, base.2, ViewKind::Buffer, base.4),
            (base.0, base.1, base.2, base.3, 2),
        ];
        for variant in variants {
            assert_ne!(key(variant), key(base), "{variant:?}");
        }
        assert_eq!(key(base), key(base));
        assert_ne!(key(base), 0, "0 marks an empty entry");
        assert_eq!(
            format_check_key(
                Format(1 << 24),
                Format::UNKNOWN,
                slot_key_bits(base.2, base.3, 1)
            ),
            None
        );
    }
}
