//! Access attributes as rpsl.h defines them: the mode (`readonly`, `writeonly`, `readwrite`),
//! the argument flags (`ps`, `rendertarget`, `discard_before`, ...: [`AccessFlags`], one table of
//! names and bits that the frontend checks scripts against and the runtime decodes), the resolved
//! access of a view parameter ([`AccessDesc`]) and the system-value semantics ([`SemanticKind`]).

use std::fmt;

/// How a node accesses a view: rpsl.h's `readonly`, `writeonly` (= readwrite + discard_before) or
/// `readwrite`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub enum AccessMode {
    /// `readonly`: reads only.
    #[default]
    ReadOnly,
    /// `writeonly`: writes without reading; previous data may be discarded.
    WriteOnly,
    /// `readwrite`: reads and writes.
    ReadWrite,
}

impl AccessMode {
    /// The attribute name (`readonly`), also the dump's.
    #[inline]
    pub fn name(self) -> &'static str {
        match self {
            AccessMode::ReadOnly => "readonly",
            AccessMode::WriteOnly => "writeonly",
            AccessMode::ReadWrite => "readwrite",
        }
    }

    /// The access reads existing data.
    #[inline]
    pub fn reads(self) -> bool {
        self != AccessMode::WriteOnly
    }

    /// The access writes.
    #[inline]
    pub fn writes(self) -> bool {
        self != AccessMode::ReadOnly
    }

    /// The union of two accesses to the same thing: the mode itself when both agree, else
    /// `ReadWrite`.
    ///
    /// ```
    /// use rpsl_types::AccessMode;
    /// assert_eq!(AccessMode::ReadOnly.merge(AccessMode::WriteOnly), AccessMode::ReadWrite);
    /// assert_eq!(AccessMode::WriteOnly.merge(AccessMode::WriteOnly), AccessMode::WriteOnly);
    /// ```
    #[inline]
    pub fn merge(self, other: AccessMode) -> AccessMode {
        if self == other {
            self
        } else {
            AccessMode::ReadWrite
        }
    }
}

/// The arguments of an access attribute (`ps`, `rendertarget`, `discard_before`, ...) as bits, in
/// rpsl.h's order.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct AccessFlags(pub u32);

macro_rules! access_flags {
    ($($(#[$doc:meta])* $flag:ident = $bit:literal, $text:literal;)*) => {
        impl AccessFlags {
            $($(#[$doc])* pub const $flag: AccessFlags = AccessFlags(1 << $bit);)*

            /// Every flag with its RPSL name, in bit order (rpsl.h's order).
            pub const ALL: &'static [(AccessFlags, &'static str)] = &[$((AccessFlags::$flag, $text)),*];
        }
    };
}

access_flags! {
    /// `vs`: vertex shader.
    VS = 0, "vs";
    /// `ps`: pixel shader.
    PS = 1, "ps";
    /// `cs`: compute shader.
    CS = 2, "cs";
    /// `gs`: geometry shader.
    GS = 3, "gs";
    /// `hs`: hull shader.
    HS = 4, "hs";
    /// `ds`: domain shader.
    DS = 5, "ds";
    /// `ts`: amplification (task) shader.
    TS = 6, "ts";
    /// `ms`: mesh shader.
    MS = 7, "ms";
    /// `raytracing`: ray tracing shaders.
    RAYTRACING = 8, "raytracing";
    /// `rendertarget`: render target (write access only).
    RENDER_TARGET = 9, "rendertarget";
    /// `depth`: the depth plane of a depth-stencil view.
    DEPTH = 10, "depth";
    /// `stencil`: the stencil plane of a depth-stencil view.
    STENCIL = 11, "stencil";
    /// `copy`: copy source (read) or destination (write).
    COPY = 12, "copy";
    /// `resolve`: resolve source (read) or destination (write).
    RESOLVE = 13, "resolve";
    /// `present`: present source (readonly only).
    PRESENT = 14, "present";
    /// `cpu`: CPU access.
    CPU = 15, "cpu";
    /// `indirectargs`: indirect arguments (readonly only).
    INDIRECT_ARGS = 16, "indirectargs";
    /// `vb`: vertex buffer.
    VB = 17, "vb";
    /// `ib`: index buffer.
    IB = 18, "ib";
    /// `cb`: constant buffer.
    CB = 19, "cb";
    /// `shadingrate`: VRS image (readonly only).
    SHADING_RATE = 20, "shadingrate";
    /// `predication`: predication buffer (readonly only).
    PREDICATION = 21, "predication";
    /// `streamout`: stream-out buffer (write access only).
    STREAM_OUT = 22, "streamout";
    /// `rtas`: ray tracing acceleration structure (buffers).
    RTAS = 23, "rtas";
    /// `cubemap`: viewed as a cubemap.
    CUBEMAP = 24, "cubemap";
    /// `clear`: cleared before the access.
    CLEAR = 25, "clear";
    /// `discard_before`: previous contents may be discarded.
    DISCARD_BEFORE = 26, "discard_before";
    /// `discard_after`: contents may be discarded after the node.
    DISCARD_AFTER = 27, "discard_after";
}

impl AccessFlags {
    /// No flags.
    pub const NONE: AccessFlags = AccessFlags(0);
    /// Shader stages (`vs ps cs gs hs ds ts ms raytracing`).
    pub const SHADER_STAGES: AccessFlags = AccessFlags(0x1ff);

    /// All of `other`'s bits are set.
    #[inline]
    pub fn contains(self, other: AccessFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// Any of `other`'s bits is set.
    #[inline]
    pub fn intersects(self, other: AccessFlags) -> bool {
        self.0 & other.0 != 0
    }

    /// No bit is set.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The flag of an attribute argument name (`"ps"`, `"rendertarget"`, ...).
    ///
    /// ```
    /// use rpsl_types::AccessFlags;
    /// assert_eq!(AccessFlags::from_name("rendertarget"), Some(AccessFlags::RENDER_TARGET));
    /// assert_eq!(AccessFlags::from_name("pss"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<AccessFlags> {
        AccessFlags::ALL
            .iter()
            .find(|(_, text)| *text == name)
            .map(|(flag, _)| *flag)
    }

    /// Names of the set flags, in bit order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        AccessFlags::ALL
            .iter()
            .filter(move |(flag, _)| self.contains(*flag))
            .map(|(_, text)| *text)
    }
}

impl std::ops::BitOr for AccessFlags {
    type Output = AccessFlags;
    #[inline]
    fn bitor(self, rhs: AccessFlags) -> AccessFlags {
        AccessFlags(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for AccessFlags {
    #[inline]
    fn bitor_assign(&mut self, rhs: AccessFlags) {
        self.0 |= rhs.0;
    }
}

impl fmt::Display for AccessFlags {
    /// The names of the set flags, comma separated, as attribute arguments are written
    /// (`ps, cs`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, name) in self.names().enumerate() {
            if index > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// The access attributes of a view parameter.
///
/// Stacked attributes that differ per plane (`[readwrite(depth)][writeonly(stencil)]`) put the
/// depth/color plane's mode in `mode` and the stencil plane's in `stencil_mode`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct AccessDesc {
    /// Mode of the color or depth plane (and of the stencil plane unless `stencil_mode` is set).
    pub mode: AccessMode,
    /// Mode of the stencil plane when it differs.
    pub stencil_mode: Option<AccessMode>,
    /// Union of the attribute arguments.
    pub flags: AccessFlags,
    /// `[relaxed]`: may reorder with other relaxed accesses.
    pub relaxed: bool,
}

impl AccessDesc {
    /// An access with one mode for every plane.
    #[inline]
    pub fn new(mode: AccessMode, flags: AccessFlags) -> AccessDesc {
        AccessDesc {
            mode,
            stencil_mode: None,
            flags,
            relaxed: false,
        }
    }

    /// `[readonly(flags)]`.
    #[inline]
    pub fn readonly(flags: AccessFlags) -> AccessDesc {
        AccessDesc::new(AccessMode::ReadOnly, flags)
    }

    /// `[writeonly(flags)]`.
    #[inline]
    pub fn writeonly(flags: AccessFlags) -> AccessDesc {
        AccessDesc::new(AccessMode::WriteOnly, flags)
    }

    /// `[readwrite(flags)]`.
    #[inline]
    pub fn readwrite(flags: AccessFlags) -> AccessDesc {
        AccessDesc::new(AccessMode::ReadWrite, flags)
    }

    /// The mode for plane 0 (color/depth) or 1 (stencil).
    #[inline]
    pub fn mode_for_plane(&self, plane: u32) -> AccessMode {
        if plane == 1 {
            self.stencil_mode.unwrap_or(self.mode)
        } else {
            self.mode
        }
    }

    /// Some plane is written.
    #[inline]
    pub fn writes(&self) -> bool {
        self.mode.writes() || self.stencil_mode.is_some_and(AccessMode::writes)
    }

    /// Some plane is read.
    #[inline]
    pub fn reads(&self) -> bool {
        self.mode.reads() || self.stencil_mode.is_some_and(AccessMode::reads)
    }

    /// The planes named by `depth` / `stencil` flags (bit 0 depth, bit 1 stencil); 0 when neither.
    #[inline]
    pub fn plane_bits(&self) -> u8 {
        (self.flags.contains(AccessFlags::DEPTH) as u8)
            | ((self.flags.contains(AccessFlags::STENCIL) as u8) << 1)
    }
}

/// The system-value semantics RPSL gives meaning to (`SV_Target3`, `SV_DepthStencil`, ...).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum SemanticKind {
    /// `SV_Target[n]`: render target (color attachment) n.
    Target,
    /// `SV_ClearColor[n]`: the clear value of the render target of the same index.
    ClearColor,
    /// `SV_DepthStencil`: the depth-stencil view.
    DepthStencil,
    /// `SV_ClearDepth`: the depth clear value.
    ClearDepth,
    /// `SV_ClearStencil`: the stencil clear value.
    ClearStencil,
    /// `SV_ResolveTarget[n]`: the resolve destination of render target n.
    ResolveTarget,
    /// `SV_Viewport[n]`: a viewport (`RpsViewport`).
    Viewport,
    /// `SV_ScissorRect[n]`: a scissor rectangle (`int4` / `uint4`).
    ScissorRect,
}

impl SemanticKind {
    /// All kinds.
    pub const ALL: [SemanticKind; 8] = [
        SemanticKind::Target,
        SemanticKind::ClearColor,
        SemanticKind::DepthStencil,
        SemanticKind::ClearDepth,
        SemanticKind::ClearStencil,
        SemanticKind::ResolveTarget,
        SemanticKind::Viewport,
        SemanticKind::ScissorRect,
    ];

    /// The canonical spelling without index (`SV_Target`).
    #[inline]
    pub fn name(self) -> &'static str {
        match self {
            SemanticKind::Target => "SV_Target",
            SemanticKind::ClearColor => "SV_ClearColor",
            SemanticKind::DepthStencil => "SV_DepthStencil",
            SemanticKind::ClearDepth => "SV_ClearDepth",
            SemanticKind::ClearStencil => "SV_ClearStencil",
            SemanticKind::ResolveTarget => "SV_ResolveTarget",
            SemanticKind::Viewport => "SV_Viewport",
            SemanticKind::ScissorRect => "SV_ScissorRect",
        }
    }

    /// Parses `SV_Target3`, `SV_DepthStencil`, ... (case-insensitive) into kind and index (0
    /// when none is written); `None` for anything else.
    ///
    /// ```
    /// use rpsl_types::SemanticKind;
    /// assert_eq!(SemanticKind::parse("sv_clearcolor2"), Some((SemanticKind::ClearColor, 2)));
    /// assert_eq!(SemanticKind::parse("TEXCOORD0"), None);
    /// ```
    pub fn parse(text: &str) -> Option<(SemanticKind, u32)> {
        let lower = text.to_ascii_lowercase();
        let mut best: Option<(SemanticKind, u32)> = None;
        for kind in SemanticKind::ALL {
            let name = kind.name().to_ascii_lowercase();
            if let Some(rest) = lower.strip_prefix(&name) {
                let index = if rest.is_empty() {
                    0
                } else {
                    rest.parse().ok()?
                };
                if best.is_none_or(|(prev, _)| prev.name().len() < kind.name().len()) {
                    best = Some((kind, index));
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_table_is_rpsl_h_order_and_round_trips() {
        assert_eq!(AccessFlags::ALL.len(), 28);
        for (bit, (flag, name)) in AccessFlags::ALL.iter().enumerate() {
            assert_eq!(flag.0, 1 << bit, "{name}");
            assert_eq!(AccessFlags::from_name(name), Some(*flag));
        }
        let flags = AccessFlags::PS | AccessFlags::CS | AccessFlags::DISCARD_AFTER;
        assert_eq!(flags.to_string(), "ps, cs, discard_after");
        assert_eq!(AccessFlags::SHADER_STAGES.names().count(), 9);
        assert!(AccessFlags::NONE.is_empty());
    }

    #[test]
    fn semantics_parse() {
        assert_eq!(
            SemanticKind::parse("SV_Target3"),
            Some((SemanticKind::Target, 3))
        );
        assert_eq!(
            SemanticKind::parse("SV_DepthStencil"),
            Some((SemanticKind::DepthStencil, 0))
        );
        assert_eq!(
            SemanticKind::parse("SV_ClearColor1"),
            Some((SemanticKind::ClearColor, 1))
        );
        assert_eq!(SemanticKind::parse("SV_Target1x"), None);
        assert_eq!(SemanticKind::parse("SV_Position"), None);
        for kind in SemanticKind::ALL {
            assert_eq!(SemanticKind::parse(kind.name()), Some((kind, 0)));
        }
    }

    #[test]
    fn per_plane_modes() {
        let desc = AccessDesc {
            stencil_mode: Some(AccessMode::WriteOnly),
            ..AccessDesc::readonly(AccessFlags::DEPTH | AccessFlags::STENCIL)
        };
        assert_eq!(desc.mode_for_plane(0), AccessMode::ReadOnly);
        assert_eq!(desc.mode_for_plane(1), AccessMode::WriteOnly);
        assert!(desc.reads() && desc.writes());
        assert_eq!(desc.plane_bits(), 0b11);
    }
}
