//! Vulkan synchronization2 vocabulary as plain numbers (no Vulkan dependency): pipeline stage
//! and access bits with `VkPipelineStageFlagBits2` / `VkAccessFlagBits2` values, and image
//! layouts with `VkImageLayout` values. The backend casts them to its Vulkan types.

/// Defines the named bits of a flags type (Vulkan's names and values), its table of names and
/// its display (`COPY|CLEAR`, `NONE` for no bit).
macro_rules! vk_flags {
    ($ty:ident { $($name:ident = $value:expr,)* }) => {
        #[allow(missing_docs, reason = "names are Vulkan's, values are Vulkan's")]
        impl $ty {
            $(pub const $name: $ty = $ty($value);)*
        }

        impl $ty {
            /// Every named bit with its name, in Vulkan's order.
            pub const NAMED: &'static [(&'static str, $ty)] = &[$((stringify!($name), $ty($value)),)*];
        }

        /// The names of the set bits joined by `|` (`COMPUTE_SHADER|COPY`), bits without a name
        /// in hexadecimal, `NONE` when no bit is set.
        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                if self.0 == 0 {
                    return f.write_str("NONE");
                }
                let mut left = self.0;
                let mut first = true;
                for (name, bit) in $ty::NAMED {
                    if bit.0 != 0 && bit.0.count_ones() == 1 && left & bit.0 != 0 {
                        if !first {
                            f.write_str("|")?;
                        }
                        f.write_str(name)?;
                        left &= !bit.0;
                        first = false;
                    }
                }
                if left != 0 {
                    if !first {
                        f.write_str("|")?;
                    }
                    write!(f, "{left:#x}")?;
                }
                Ok(())
            }
        }
    };
}

/// `VkPipelineStageFlags2` bits.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Stages(pub u64);

/// `VkAccessFlags2` bits.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Accesses(pub u64);

vk_flags! {
    Stages {
    NONE = 0,
    TOP_OF_PIPE = 0x1,
    DRAW_INDIRECT = 0x2,
    VERTEX_SHADER = 0x8,
    TESSELLATION_CONTROL_SHADER = 0x10,
    TESSELLATION_EVALUATION_SHADER = 0x20,
    GEOMETRY_SHADER = 0x40,
    FRAGMENT_SHADER = 0x80,
    EARLY_FRAGMENT_TESTS = 0x100,
    LATE_FRAGMENT_TESTS = 0x200,
    COLOR_ATTACHMENT_OUTPUT = 0x400,
    COMPUTE_SHADER = 0x800,
    ALL_TRANSFER = 0x1000,
    BOTTOM_OF_PIPE = 0x2000,
    HOST = 0x4000,
    ALL_GRAPHICS = 0x8000,
    ALL_COMMANDS = 0x10000,
    CONDITIONAL_RENDERING = 0x40000,
    TASK_SHADER = 0x80000,
    MESH_SHADER = 0x100000,
    RAY_TRACING_SHADER = 0x200000,
    FRAGMENT_SHADING_RATE_ATTACHMENT = 0x400000,
    TRANSFORM_FEEDBACK = 0x1000000,
    ACCELERATION_STRUCTURE_BUILD = 0x2000000,
    COPY = 0x1_0000_0000,
    RESOLVE = 0x2_0000_0000,
    CLEAR = 0x8_0000_0000,
    INDEX_INPUT = 0x10_0000_0000,
    VERTEX_ATTRIBUTE_INPUT = 0x20_0000_0000,
    }
}

impl Stages {
    /// The stages of a buffer clear (`CLEAR | COPY`): the commands that clear buffers run at
    /// CLEAR by the current specification (`vkCmdFillBuffer` and `vkCmdUpdateBuffer` are clear
    /// commands), at COPY by validation layers before 1.3.280, and a clear with a pattern wider
    /// than 4 bytes copies it with `vkCmdCopyBuffer` (COPY). The barrier planner gives a buffer
    /// `clear` access these stages and the Vulkan backend scopes its buffer clear commands with
    /// them, so both read this one constant.
    pub const BUFFER_CLEAR: Stages = Stages(Stages::CLEAR.0 | Stages::COPY.0);

    /// Every bit of `other` is set.
    pub fn contains(self, other: Stages) -> bool {
        self.0 & other.0 == other.0
    }
}

vk_flags! {
    Accesses {
    NONE = 0,
    INDIRECT_COMMAND_READ = 0x1,
    INDEX_READ = 0x2,
    VERTEX_ATTRIBUTE_READ = 0x4,
    UNIFORM_READ = 0x8,
    SHADER_READ = 0x20,
    SHADER_WRITE = 0x40,
    COLOR_ATTACHMENT_READ = 0x80,
    COLOR_ATTACHMENT_WRITE = 0x100,
    DEPTH_STENCIL_ATTACHMENT_READ = 0x200,
    DEPTH_STENCIL_ATTACHMENT_WRITE = 0x400,
    TRANSFER_READ = 0x800,
    TRANSFER_WRITE = 0x1000,
    HOST_READ = 0x2000,
    HOST_WRITE = 0x4000,
    MEMORY_READ = 0x8000,
    MEMORY_WRITE = 0x10000,
    CONDITIONAL_RENDERING_READ = 0x100000,
    ACCELERATION_STRUCTURE_READ = 0x200000,
    ACCELERATION_STRUCTURE_WRITE = 0x400000,
    FRAGMENT_SHADING_RATE_ATTACHMENT_READ = 0x800000,
    TRANSFORM_FEEDBACK_WRITE = 0x2000000,
    SHADER_SAMPLED_READ = 0x1_0000_0000,
    SHADER_STORAGE_READ = 0x2_0000_0000,
    SHADER_STORAGE_WRITE = 0x4_0000_0000,
    }
}

impl Accesses {
    /// Bits that are writes.
    pub const WRITE_MASK: Accesses = Accesses(
        0x40 | 0x100 | 0x400 | 0x1000 | 0x4000 | 0x10000 | 0x400000 | 0x2000000 | 0x4_0000_0000,
    );

    /// Some bit is a write.
    pub fn has_writes(self) -> bool {
        self.0 & Accesses::WRITE_MASK.0 != 0
    }
}

macro_rules! bit_ops {
    ($($ty:ident),*) => {$(
        impl std::ops::BitOr for $ty {
            type Output = $ty;
            fn bitor(self, rhs: $ty) -> $ty { $ty(self.0 | rhs.0) }
        }
        impl std::ops::BitOrAssign for $ty {
            fn bitor_assign(&mut self, rhs: $ty) { self.0 |= rhs.0; }
        }
    )*};
}
bit_ops!(Stages, Accesses);

/// `VkImageLayout` (buffers use `Undefined` throughout).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
#[repr(u32)]
#[allow(missing_docs, reason = "names are Vulkan's, values are Vulkan's")]
pub enum ImageLayout {
    #[default]
    Undefined = 0,
    General = 1,
    ColorAttachment = 2,
    DepthStencilAttachment = 3,
    DepthStencilReadOnly = 4,
    ShaderReadOnly = 5,
    TransferSrc = 6,
    TransferDst = 7,
    DepthAttachment = 1000241000,
    DepthReadOnly = 1000241001,
    StencilAttachment = 1000241002,
    StencilReadOnly = 1000241003,
    PresentSrc = 1000001002,
    FragmentShadingRateAttachment = 1000164003,
}

#[cfg(test)]
mod flag_name_tests {
    use super::*;

    #[test]
    fn flags_display_as_their_vulkan_names() {
        assert_eq!(Stages::NONE.to_string(), "NONE");
        assert_eq!(Stages::BUFFER_CLEAR.to_string(), "COPY|CLEAR");
        assert_eq!(
            (Stages::COMPUTE_SHADER | Stages(0x4_0000_0000_0000)).to_string(),
            "COMPUTE_SHADER|0x4000000000000"
        );
        assert_eq!(
            (Accesses::SHADER_STORAGE_READ | Accesses::SHADER_STORAGE_WRITE).to_string(),
            "SHADER_STORAGE_READ|SHADER_STORAGE_WRITE"
        );
    }
}
