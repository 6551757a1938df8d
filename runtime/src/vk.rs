//! Vulkan synchronization2 vocabulary as plain numbers (no Vulkan dependency): pipeline stage
//! and access bits with `VkPipelineStageFlagBits2` / `VkAccessFlagBits2` values, and image
//! layouts with `VkImageLayout` values. The backend casts them to its Vulkan types.

/// `VkPipelineStageFlags2` bits.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Stages(pub u64);

/// `VkAccessFlags2` bits.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Accesses(pub u64);

#[allow(missing_docs, reason = "names are Vulkan's, values are Vulkan's")]
impl Stages {
    pub const NONE: Stages = Stages(0);
    pub const TOP_OF_PIPE: Stages = Stages(0x1);
    pub const DRAW_INDIRECT: Stages = Stages(0x2);
    pub const VERTEX_SHADER: Stages = Stages(0x8);
    pub const TESSELLATION_CONTROL_SHADER: Stages = Stages(0x10);
    pub const TESSELLATION_EVALUATION_SHADER: Stages = Stages(0x20);
    pub const GEOMETRY_SHADER: Stages = Stages(0x40);
    pub const FRAGMENT_SHADER: Stages = Stages(0x80);
    pub const EARLY_FRAGMENT_TESTS: Stages = Stages(0x100);
    pub const LATE_FRAGMENT_TESTS: Stages = Stages(0x200);
    pub const COLOR_ATTACHMENT_OUTPUT: Stages = Stages(0x400);
    pub const COMPUTE_SHADER: Stages = Stages(0x800);
    pub const ALL_TRANSFER: Stages = Stages(0x1000);
    pub const BOTTOM_OF_PIPE: Stages = Stages(0x2000);
    pub const HOST: Stages = Stages(0x4000);
    pub const ALL_GRAPHICS: Stages = Stages(0x8000);
    pub const ALL_COMMANDS: Stages = Stages(0x10000);
    pub const CONDITIONAL_RENDERING: Stages = Stages(0x40000);
    pub const TASK_SHADER: Stages = Stages(0x80000);
    pub const MESH_SHADER: Stages = Stages(0x100000);
    pub const RAY_TRACING_SHADER: Stages = Stages(0x200000);
    pub const FRAGMENT_SHADING_RATE_ATTACHMENT: Stages = Stages(0x400000);
    pub const TRANSFORM_FEEDBACK: Stages = Stages(0x1000000);
    pub const ACCELERATION_STRUCTURE_BUILD: Stages = Stages(0x2000000);
    pub const COPY: Stages = Stages(0x1_0000_0000);
    pub const RESOLVE: Stages = Stages(0x2_0000_0000);
    pub const CLEAR: Stages = Stages(0x8_0000_0000);
    pub const INDEX_INPUT: Stages = Stages(0x10_0000_0000);
    pub const VERTEX_ATTRIBUTE_INPUT: Stages = Stages(0x20_0000_0000);
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

#[allow(missing_docs, reason = "names are Vulkan's, values are Vulkan's")]
impl Accesses {
    pub const NONE: Accesses = Accesses(0);
    pub const INDIRECT_COMMAND_READ: Accesses = Accesses(0x1);
    pub const INDEX_READ: Accesses = Accesses(0x2);
    pub const VERTEX_ATTRIBUTE_READ: Accesses = Accesses(0x4);
    pub const UNIFORM_READ: Accesses = Accesses(0x8);
    pub const SHADER_READ: Accesses = Accesses(0x20);
    pub const SHADER_WRITE: Accesses = Accesses(0x40);
    pub const COLOR_ATTACHMENT_READ: Accesses = Accesses(0x80);
    pub const COLOR_ATTACHMENT_WRITE: Accesses = Accesses(0x100);
    pub const DEPTH_STENCIL_ATTACHMENT_READ: Accesses = Accesses(0x200);
    pub const DEPTH_STENCIL_ATTACHMENT_WRITE: Accesses = Accesses(0x400);
    pub const TRANSFER_READ: Accesses = Accesses(0x800);
    pub const TRANSFER_WRITE: Accesses = Accesses(0x1000);
    pub const HOST_READ: Accesses = Accesses(0x2000);
    pub const HOST_WRITE: Accesses = Accesses(0x4000);
    pub const MEMORY_READ: Accesses = Accesses(0x8000);
    pub const MEMORY_WRITE: Accesses = Accesses(0x10000);
    pub const CONDITIONAL_RENDERING_READ: Accesses = Accesses(0x100000);
    pub const ACCELERATION_STRUCTURE_READ: Accesses = Accesses(0x200000);
    pub const ACCELERATION_STRUCTURE_WRITE: Accesses = Accesses(0x400000);
    pub const FRAGMENT_SHADING_RATE_ATTACHMENT_READ: Accesses = Accesses(0x800000);
    pub const TRANSFORM_FEEDBACK_WRITE: Accesses = Accesses(0x2000000);
    pub const SHADER_SAMPLED_READ: Accesses = Accesses(0x1_0000_0000);
    pub const SHADER_STORAGE_READ: Accesses = Accesses(0x2_0000_0000);
    pub const SHADER_STORAGE_WRITE: Accesses = Accesses(0x4_0000_0000);

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
