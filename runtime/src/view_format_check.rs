//! The view-format rule, checked when a node call is recorded: a view's format must belong to the
//! resource format's compatibility class, and the kind of format must fit the kind of access.
//!
//! Vulkan creates every colour image with `VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT`, which lets a
//! view use any format of the image format's *compatibility class* (uncompressed colour formats
//! of the same texel size; each block-compression family; each depth/stencil format on its own).
//! A view outside that class, or a colour attachment through a depth format, is invalid API usage
//! that drivers may fault on (lavapipe crashes). This module makes it an error at the call, on
//! every backend:
//!
//! - **Compatibility** ([`view_format_compatible`]): colour formats by [`FormatClass`];
//!   a depth/stencil resource only with its own depth/stencil layout — the format itself, its
//!   typeless twin and the plane views rpsl.h defines (`R24_UNORM_X8_TYPELESS`,
//!   `X24_TYPELESS_G8_UINT`, `R32_FLOAT_X8X24_TYPELESS`, `X32_TYPELESS_G8X24_UINT`); and the
//!   depth-capable typeless formats of DXGI (`R32_TYPELESS`, `R16_TYPELESS`) with their
//!   depth format (`D32_FLOAT`, `D16_UNORM`) besides their colour class.
//! - **Aspect against access** ([`check_view_format`]): a depth or stencil access needs a
//!   depth/stencil format that has the plane it names; a colour access — render target, colour
//!   clear, storage (UAV) write, typed buffer view — needs an uncompressed colour format that
//!   can carry it.
//!
//! Usage needs no rule of its own: backends derive a resource's usage from every access of the
//! frame, so what remains is formats that can never carry a usage (block-compressed, shared
//! exponent, video and depth formats as render targets or storage); they are refused here. A
//! format a particular device lacks a feature for is reported by that backend.

use crate::decl::{AccessDesc, AccessFlags, ViewKind};
use crate::format::Format;
use std::fmt;

/// A format compatibility class: the formats a view may reinterpret a resource's texels as.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FormatClass {
    /// Uncompressed colour formats with texels of this many bits (8, 16, 32, 64, 96, 128).
    Color(u32),
    /// One block-compression family: 1..=7 for BC1..BC7 (BC6H is 6).
    Block(u32),
    /// One depth/stencil layout, named by its depth/stencil format: that format, its typeless
    /// twin and its plane views.
    DepthStencil(Format),
    /// A format compatible only with itself (video, palette, 1-bit, 4:2:2-packed, alpha-only,
    /// extended-range formats, `UNKNOWN` and undefined values).
    Alone(Format),
}

/// `R32_TYPELESS`: a colour format of DXGI that may also be viewed as `D32_FLOAT`.
const R32_TYPELESS: Format = Format(39);
/// `R16_TYPELESS`: a colour format of DXGI that may also be viewed as `D16_UNORM`.
const R16_TYPELESS: Format = Format(53);
/// `R9G9B9E5_SHAREDEXP`: sampled only, never rendered to or stored.
const R9G9B9E5_SHAREDEXP: Format = Format(67);

impl FormatClass {
    /// The compatibility class of `format`.
    ///
    /// ```
    /// use rpsl_runtime::{Format, FormatClass};
    /// let rgba8 = Format::from_name("R8G8B8A8_UNORM").unwrap();
    /// let r32 = Format::from_name("R32_UINT").unwrap();
    /// assert_eq!(FormatClass::of(rgba8), FormatClass::of(r32));
    /// assert_eq!(FormatClass::of(Format::D32_FLOAT), FormatClass::DepthStencil(Format::D32_FLOAT));
    /// ```
    pub fn of(format: Format) -> FormatClass {
        let Some(info) = format.info() else {
            return FormatClass::Alone(format);
        };
        match format.0 {
            19..=22 => FormatClass::DepthStencil(Format::D32_FLOAT_S8X24_UINT),
            44..=47 => FormatClass::DepthStencil(Format::D24_UNORM_S8_UINT),
            40 => FormatClass::DepthStencil(Format::D32_FLOAT),
            55 => FormatClass::DepthStencil(Format::D16_UNORM),
            70..=72 => FormatClass::Block(1),
            73..=75 => FormatClass::Block(2),
            76..=78 => FormatClass::Block(3),
            79..=81 => FormatClass::Block(4),
            82..=84 => FormatClass::Block(5),
            94..=96 => FormatClass::Block(6),
            97..=99 => FormatClass::Block(7),
            // UNKNOWN, A8_UNORM (Vulkan's 8-bit alpha class), R1_UNORM, the two 4:2:2 packed
            // formats (classes of their own in Vulkan) and R10G10B10_XR_BIAS_A2_UNORM.
            0 | 65 | 66 | 68 | 69 | 89 => FormatClass::Alone(format),
            _ if info.special => FormatClass::Alone(format),
            _ => FormatClass::Color(info.bits_per_element),
        }
    }
}

impl fmt::Display for FormatClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FormatClass::Color(bits) => write!(f, "the {bits}-bit colour class"),
            FormatClass::Block(6) => write!(f, "the BC6H class"),
            FormatClass::Block(n) => write!(f, "the BC{n} class"),
            FormatClass::DepthStencil(format) => write!(f, "the {format} depth/stencil class"),
            FormatClass::Alone(format) => write!(f, "a class of its own ({format})"),
        }
    }
}

/// Whether a view of format `view` may reinterpret a resource of format `resource`.
/// `UNKNOWN` as the view format inherits the resource's and is always compatible.
///
/// ```
/// use rpsl_runtime::{view_format_compatible, Format};
/// let rgba8 = Format::R8G8B8A8_UNORM;
/// assert!(view_format_compatible(rgba8, Format::from_name("R8G8B8A8_UNORM_SRGB").unwrap()));
/// assert!(!view_format_compatible(rgba8, Format::D24_UNORM_S8_UINT));
/// assert!(!view_format_compatible(rgba8, Format::R16G16B16A16_FLOAT));
/// ```
pub fn view_format_compatible(resource: Format, view: Format) -> bool {
    if view == Format::UNKNOWN || view == resource {
        return true;
    }
    if (resource, view) == (R32_TYPELESS, Format::D32_FLOAT)
        || (resource, view) == (R16_TYPELESS, Format::D16_UNORM)
    {
        return true;
    }
    match FormatClass::of(resource) {
        FormatClass::Alone(_) => false,
        class => class == FormatClass::of(view),
    }
}

/// `R32_TYPELESS` and `R16_TYPELESS`: colour formats that may also be viewed as depth formats.
pub(crate) fn is_depth_capable_typeless(format: Format) -> bool {
    format == R32_TYPELESS || format == R16_TYPELESS
}

/// Formats a depth/stencil attachment or clear may use: depth/stencil formats (not their plane
/// views) and the typeless formats a depth view can be made of.
fn can_be_depth_stencil(format: Format) -> bool {
    format.is_depth_stencil() || format == R32_TYPELESS || format == R16_TYPELESS
}

/// Uncompressed colour formats that can be written as render targets, cleared as colour,
/// stored to from shaders and used as typed buffer views.
fn can_be_written_as_color(format: Format) -> bool {
    matches!(FormatClass::of(format), FormatClass::Color(_)) && format != R9G9B9E5_SHAREDEXP
}

/// What kind of access a view slot makes, as far as its format is concerned.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum FormatUse {
    /// A depth and/or stencil attachment or clear (`depth` / `stencil` access flags).
    DepthStencil,
    /// A colour attachment or colour clear (`rendertarget`, or `clear` without depth/stencil).
    ColorTarget,
    /// A shader write (UAV): storage image or storage texel buffer.
    Storage,
    /// A buffer view with a format read by shaders (a uniform texel buffer).
    TypedBuffer,
    /// Anything else: shader reads of textures, copies, resolves, ...; only compatibility.
    Other,
}

impl FormatUse {
    /// The format use of an access of kind `kind` with attributes `access`.
    pub fn of(access: &AccessDesc, kind: ViewKind) -> FormatUse {
        let flags = access.flags;
        let texture = kind == ViewKind::Texture;
        if texture && flags.intersects(AccessFlags::DEPTH | AccessFlags::STENCIL) {
            FormatUse::DepthStencil
        } else if flags.intersects(AccessFlags::RENDER_TARGET | AccessFlags::CLEAR) {
            FormatUse::ColorTarget
        } else if flags.intersects(AccessFlags::SHADER_STAGES) && access.writes() {
            FormatUse::Storage
        } else if !texture && flags.intersects(AccessFlags::SHADER_STAGES) {
            FormatUse::TypedBuffer
        } else {
            FormatUse::Other
        }
    }

    fn describe(self) -> &'static str {
        match self {
            FormatUse::DepthStencil => "a depth/stencil access",
            FormatUse::ColorTarget => "a render target or colour clear",
            FormatUse::Storage => "a shader write (storage)",
            FormatUse::TypedBuffer => "a typed buffer view",
            FormatUse::Other => "this access",
        }
    }
}

/// Why a view's format does not fit its resource or its access.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ViewFormatError {
    /// The view format is not an `RPS_FORMAT` value.
    Undefined,
    /// The view format is outside the resource format's compatibility class.
    Incompatible(FormatClass),
    /// A depth/stencil access through a format without depth/stencil planes.
    NeedsDepthStencil,
    /// A depth-only or stencil-only access through a format without that plane.
    MissingPlane(&'static str),
    /// A colour access (target, clear, storage, typed buffer) through a format that cannot carry it.
    NotColor(FormatUse),
    /// A depth-capable typeless resource written both as depth and as colour in one frame.
    TypelessRoles {
        /// The node that first wrote it this frame.
        earlier_node: String,
        /// That node wrote it as depth (else as colour).
        earlier_depth: bool,
    },
}

/// Checks the format of one view: `resource` is the resource's format, `view` the view's
/// (`UNKNOWN` = the resource's), `access` and `kind` the slot's attributes and view kind.
///
/// ```
/// use rpsl_runtime::{check_view_format, AccessDesc, AccessFlags, Format, ViewKind};
/// let target = AccessDesc::writeonly(AccessFlags::RENDER_TARGET);
/// let srgb = Format::from_name("R8G8B8A8_UNORM_SRGB").unwrap();
/// assert!(check_view_format(&target, ViewKind::Texture, Format::R8G8B8A8_UNORM, srgb).is_ok());
/// assert!(check_view_format(&target, ViewKind::Texture, Format::D32_FLOAT, Format::UNKNOWN).is_err());
/// ```
pub fn check_view_format(
    access: &AccessDesc,
    kind: ViewKind,
    resource: Format,
    view: Format,
) -> Result<(), ViewFormatError> {
    if view.info().is_none() {
        return Err(ViewFormatError::Undefined);
    }
    // Buffers have no format of their own: a typed view only needs a format that fits its use.
    if kind == ViewKind::Texture && !view_format_compatible(resource, view) {
        return Err(ViewFormatError::Incompatible(FormatClass::of(resource)));
    }
    let effective = if view == Format::UNKNOWN {
        resource
    } else {
        view
    };
    if kind == ViewKind::Buffer && effective == Format::UNKNOWN {
        return Ok(());
    }
    let format_use = FormatUse::of(access, kind);
    match format_use {
        FormatUse::DepthStencil => {
            if !can_be_depth_stencil(effective) {
                return Err(ViewFormatError::NeedsDepthStencil);
            }
            let planes = access.plane_bits();
            let typeless_depth = effective == R32_TYPELESS || effective == R16_TYPELESS;
            if planes == 1 && !effective.has_depth() && !typeless_depth {
                return Err(ViewFormatError::MissingPlane("depth"));
            }
            if planes == 2 && !effective.has_stencil() {
                return Err(ViewFormatError::MissingPlane("stencil"));
            }
            Ok(())
        }
        FormatUse::ColorTarget | FormatUse::Storage | FormatUse::TypedBuffer => {
            if can_be_written_as_color(effective) {
                Ok(())
            } else {
                Err(ViewFormatError::NotColor(format_use))
            }
        }
        FormatUse::Other => Ok(()),
    }
}

impl ViewFormatError {
    /// The message of this error for a view of format `view` (`UNKNOWN` = the resource's) of a
    /// resource of format `resource`.
    pub fn message(&self, resource: Format, view: Format) -> String {
        let shown = |format: Format| {
            if format == Format::UNKNOWN {
                format!("{resource} (the resource's)")
            } else {
                format.to_string()
            }
        };
        match self {
            ViewFormatError::Undefined => {
                format!("view format {} is not an RPS_FORMAT value", view.0)
            }
            ViewFormatError::Incompatible(class) => format!(
                "view format {view} is not compatible with the resource's format {resource} \
                 ({resource} is in {class}; {view} is in {})",
                FormatClass::of(view)
            ),
            ViewFormatError::NeedsDepthStencil => format!(
                "a depth/stencil access needs a depth/stencil format; view format {} has no \
                 depth or stencil",
                shown(view)
            ),
            ViewFormatError::MissingPlane(plane) => format!(
                "a {plane} access needs a format with a {plane} plane; view format {} has none",
                shown(view)
            ),
            ViewFormatError::TypelessRoles {
                earlier_node,
                earlier_depth,
            } => {
                let depth = "a depth target";
                let colour = "used as colour (a render target, colour clear, storage write or \
                              copy)";
                let (earlier, now) = if *earlier_depth {
                    (depth, colour)
                } else {
                    (colour, depth)
                };
                format!(
                    "this {resource} resource was {earlier} earlier this frame \
                     (`{earlier_node}`), so it cannot also be {now}: a typeless resource is a \
                     depth image or a colour image for a whole frame"
                )
            }
            ViewFormatError::NotColor(format_use) => format!(
                "{} needs an uncompressed colour format; view format {} is not one",
                format_use.describe(),
                shown(view)
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn format(name: &str) -> Format {
        Format::from_name(name).unwrap_or_else(|| panic!("no format {name}"))
    }

    #[test]
    fn colour_classes_group_formats_by_texel_size() {
        let classes = [
            (
                8,
                &["R8_UNORM", "R8_UINT", "R8_SNORM", "R8_SINT", "R8_TYPELESS"][..],
            ),
            (
                16,
                &[
                    "R8G8_UNORM",
                    "R16_FLOAT",
                    "R16_UINT",
                    "B5G6R5_UNORM",
                    "B4G4R4A4_UNORM",
                ],
            ),
            (
                32,
                &[
                    "R8G8B8A8_UNORM",
                    "R8G8B8A8_UNORM_SRGB",
                    "B8G8R8A8_UNORM",
                    "R10G10B10A2_UNORM",
                    "R11G11B10_FLOAT",
                    "R16G16_FLOAT",
                    "R32_UINT",
                    "R32_TYPELESS",
                    "R9G9B9E5_SHAREDEXP",
                ],
            ),
            (64, &["R16G16B16A16_FLOAT", "R32G32_FLOAT", "R32G32_UINT"]),
            (96, &["R32G32B32_FLOAT", "R32G32B32_UINT"]),
            (128, &["R32G32B32A32_FLOAT", "R32G32B32A32_SINT"]),
        ];
        for (bits, names) in classes {
            for name in names {
                assert_eq!(
                    FormatClass::of(format(name)),
                    FormatClass::Color(bits),
                    "{name}"
                );
            }
        }
    }

    #[test]
    fn block_depth_and_lone_classes() {
        for (names, family) in [
            (["BC1_TYPELESS", "BC1_UNORM", "BC1_UNORM_SRGB"], 1),
            (["BC3_TYPELESS", "BC3_UNORM", "BC3_UNORM_SRGB"], 3),
            (["BC6H_TYPELESS", "BC6H_UF16", "BC6H_SF16"], 6),
            (["BC7_TYPELESS", "BC7_UNORM", "BC7_UNORM_SRGB"], 7),
        ] {
            for name in names {
                assert_eq!(
                    FormatClass::of(format(name)),
                    FormatClass::Block(family),
                    "{name}"
                );
            }
        }
        let d24 = FormatClass::DepthStencil(Format::D24_UNORM_S8_UINT);
        for name in [
            "R24G8_TYPELESS",
            "D24_UNORM_S8_UINT",
            "R24_UNORM_X8_TYPELESS",
            "X24_TYPELESS_G8_UINT",
        ] {
            assert_eq!(FormatClass::of(format(name)), d24, "{name}");
        }
        let d32s8 = FormatClass::DepthStencil(Format::D32_FLOAT_S8X24_UINT);
        for name in [
            "R32G8X24_TYPELESS",
            "D32_FLOAT_S8X24_UINT",
            "R32_FLOAT_X8X24_TYPELESS",
            "X32_TYPELESS_G8X24_UINT",
        ] {
            assert_eq!(FormatClass::of(format(name)), d32s8, "{name}");
        }
        assert_eq!(
            FormatClass::of(Format::D32_FLOAT),
            FormatClass::DepthStencil(Format::D32_FLOAT)
        );
        assert_eq!(
            FormatClass::of(Format::D16_UNORM),
            FormatClass::DepthStencil(Format::D16_UNORM)
        );
        for name in [
            "UNKNOWN",
            "A8_UNORM",
            "R1_UNORM",
            "R8G8_B8G8_UNORM",
            "G8R8_G8B8_UNORM",
            "R10G10B10_XR_BIAS_A2_UNORM",
            "NV12",
            "P8",
        ] {
            assert_eq!(
                FormatClass::of(format(name)),
                FormatClass::Alone(format(name)),
                "{name}"
            );
        }
        assert_eq!(
            FormatClass::of(Format(500)),
            FormatClass::Alone(Format(500))
        );
    }

    #[test]
    fn compatibility_follows_the_classes_with_dxgi_depth_typeless_exceptions() {
        let yes = [
            ("R8G8B8A8_UNORM", "R8G8B8A8_UNORM_SRGB"),
            ("R8G8B8A8_UNORM", "R32_UINT"),
            ("R8G8B8A8_UNORM", "B8G8R8A8_UNORM"),
            ("R16G16B16A16_FLOAT", "R32G32_UINT"),
            ("BC1_UNORM", "BC1_UNORM_SRGB"),
            ("R32_TYPELESS", "D32_FLOAT"),
            ("R32_TYPELESS", "R32_FLOAT"),
            ("R16_TYPELESS", "D16_UNORM"),
            ("D24_UNORM_S8_UINT", "R24_UNORM_X8_TYPELESS"),
            ("R24G8_TYPELESS", "D24_UNORM_S8_UINT"),
            ("D32_FLOAT_S8X24_UINT", "X32_TYPELESS_G8X24_UINT"),
            ("D32_FLOAT", "D32_FLOAT"),
            ("A8_UNORM", "A8_UNORM"),
        ];
        for (resource, view) in yes {
            assert!(
                view_format_compatible(format(resource), format(view)),
                "{resource} as {view}"
            );
        }
        assert!(view_format_compatible(Format::D16_UNORM, Format::UNKNOWN));
        let no = [
            ("R8G8B8A8_UNORM", "D24_UNORM_S8_UINT"),
            ("R8G8B8A8_UNORM", "D32_FLOAT"),
            ("R16G16_UNORM", "D16_UNORM"),
            ("R8G8B8A8_UNORM", "R16G16B16A16_FLOAT"),
            ("R8G8B8A8_UNORM", "R24_UNORM_X8_TYPELESS"),
            ("D32_FLOAT", "R32_FLOAT"),
            ("D32_FLOAT", "R32_TYPELESS"),
            ("D24_UNORM_S8_UINT", "D32_FLOAT"),
            ("D24_UNORM_S8_UINT", "R32_FLOAT_X8X24_TYPELESS"),
            ("R32_FLOAT", "D32_FLOAT"),
            ("R32G32_FLOAT", "BC1_UNORM"),
            ("BC1_UNORM", "BC4_UNORM"),
            ("R8_UNORM", "A8_UNORM"),
            ("A8_UNORM", "R8_UNORM"),
            ("R10G10B10_XR_BIAS_A2_UNORM", "R10G10B10A2_UNORM"),
        ];
        for (resource, view) in no {
            assert!(
                !view_format_compatible(format(resource), format(view)),
                "{resource} as {view}"
            );
        }
    }

    fn check(
        access: AccessDesc,
        kind: ViewKind,
        resource: &str,
        view: &str,
    ) -> Result<(), ViewFormatError> {
        let view = if view.is_empty() {
            Format::UNKNOWN
        } else {
            format(view)
        };
        check_view_format(&access, kind, format(resource), view)
    }

    #[test]
    fn the_kind_of_access_needs_the_kind_of_format() {
        use AccessFlags as F;
        use ViewKind::{Buffer, Texture};
        let target = AccessDesc::writeonly(F::RENDER_TARGET | F::CLEAR);
        let dsv = AccessDesc::writeonly(F::DEPTH | F::STENCIL);
        let depth = AccessDesc::writeonly(F::DEPTH | F::CLEAR);
        let stencil = AccessDesc::writeonly(F::STENCIL | F::CLEAR);
        let uav = AccessDesc::readwrite(F::CS);
        let srv = AccessDesc::readonly(F::PS);
        assert_eq!(
            check(target, Texture, "R8G8B8A8_UNORM", "R8G8B8A8_UNORM_SRGB"),
            Ok(())
        );
        assert_eq!(
            check(target, Texture, "R8G8B8A8_UNORM", "D24_UNORM_S8_UINT"),
            Err(ViewFormatError::Incompatible(FormatClass::Color(32)))
        );
        assert_eq!(
            check(target, Texture, "D32_FLOAT", ""),
            Err(ViewFormatError::NotColor(FormatUse::ColorTarget))
        );
        assert_eq!(
            check(target, Texture, "BC1_UNORM", ""),
            Err(ViewFormatError::NotColor(FormatUse::ColorTarget))
        );
        assert_eq!(
            check(target, Texture, "R32_UINT", "R9G9B9E5_SHAREDEXP"),
            Err(ViewFormatError::NotColor(FormatUse::ColorTarget))
        );
        assert_eq!(
            check(dsv, Texture, "R8G8B8A8_UNORM", ""),
            Err(ViewFormatError::NeedsDepthStencil)
        );
        assert_eq!(
            check(
                dsv,
                Texture,
                "D32_FLOAT_S8X24_UINT",
                "R32_FLOAT_X8X24_TYPELESS"
            ),
            Err(ViewFormatError::NeedsDepthStencil)
        );
        assert_eq!(check(dsv, Texture, "R32_TYPELESS", "D32_FLOAT"), Ok(()));
        assert_eq!(check(dsv, Texture, "R24G8_TYPELESS", ""), Ok(()));
        assert_eq!(check(depth, Texture, "D16_UNORM", ""), Ok(()));
        assert_eq!(check(depth, Texture, "R16_TYPELESS", ""), Ok(()));
        assert_eq!(
            check(stencil, Texture, "D32_FLOAT", ""),
            Err(ViewFormatError::MissingPlane("stencil"))
        );
        assert_eq!(
            check(stencil, Texture, "R32_TYPELESS", ""),
            Err(ViewFormatError::MissingPlane("stencil"))
        );
        assert_eq!(check(stencil, Texture, "D24_UNORM_S8_UINT", ""), Ok(()));
        assert_eq!(check(uav, Texture, "R8G8B8A8_UNORM", "R32_UINT"), Ok(()));
        assert_eq!(
            check(uav, Texture, "D32_FLOAT", ""),
            Err(ViewFormatError::NotColor(FormatUse::Storage))
        );
        assert_eq!(
            check(uav, Texture, "BC7_UNORM", ""),
            Err(ViewFormatError::NotColor(FormatUse::Storage))
        );
        assert_eq!(check(srv, Texture, "BC7_UNORM", "BC7_UNORM_SRGB"), Ok(()));
        assert_eq!(
            check(
                srv,
                Texture,
                "D32_FLOAT_S8X24_UINT",
                "X32_TYPELESS_G8X24_UINT"
            ),
            Ok(())
        );
        assert_eq!(
            check(srv, Texture, "R8G8B8A8_UNORM", "D32_FLOAT"),
            Err(ViewFormatError::Incompatible(FormatClass::Color(32)))
        );
        assert_eq!(check(srv, Buffer, "UNKNOWN", ""), Ok(()));
        assert_eq!(check(srv, Buffer, "UNKNOWN", "R32G32B32A32_FLOAT"), Ok(()));
        assert_eq!(
            check(srv, Buffer, "UNKNOWN", "D16_UNORM"),
            Err(ViewFormatError::NotColor(FormatUse::TypedBuffer))
        );
        assert_eq!(
            check(uav, Buffer, "UNKNOWN", "BC1_UNORM"),
            Err(ViewFormatError::NotColor(FormatUse::Storage))
        );
        assert_eq!(
            check(target, Buffer, "UNKNOWN", "D24_UNORM_S8_UINT"),
            Err(ViewFormatError::NotColor(FormatUse::ColorTarget))
        );
        assert_eq!(
            check_view_format(&srv, Texture, Format::R8G8B8A8_UNORM, Format(116)),
            Err(ViewFormatError::Undefined)
        );
    }

    #[test]
    fn messages_name_both_formats_and_their_classes() {
        let rgba8 = Format::R8G8B8A8_UNORM;
        assert_eq!(
            ViewFormatError::Incompatible(FormatClass::Color(32)).message(rgba8, Format::D16_UNORM),
            "view format D16_UNORM is not compatible with the resource's format R8G8B8A8_UNORM \
             (R8G8B8A8_UNORM is in the 32-bit colour class; D16_UNORM is in the D16_UNORM \
             depth/stencil class)"
        );
        assert_eq!(
            ViewFormatError::NeedsDepthStencil.message(rgba8, Format::UNKNOWN),
            "a depth/stencil access needs a depth/stencil format; view format R8G8B8A8_UNORM \
             (the resource's) has no depth or stencil"
        );
        assert_eq!(
            ViewFormatError::TypelessRoles {
                earlier_node: "Shadow".to_string(),
                earlier_depth: true,
            }
            .message(Format(39), Format::UNKNOWN),
            "this R32_TYPELESS resource was a depth target earlier this frame (`Shadow`), so it \
             cannot also be used as colour (a render target, colour clear, storage write or \
             copy): a typeless resource is a depth image or a colour image for a whole frame"
        );
        assert_eq!(
            ViewFormatError::Undefined.message(rgba8, Format(700)),
            "view format 700 is not an RPS_FORMAT value"
        );
    }
}
