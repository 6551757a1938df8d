//! SPIR-V reflection from the word stream: entry points and execution models, compute local size,
//! descriptor bindings (set, binding, kind, array size), the push-constant block, fragment
//! outputs and each entry point's stage interface (inputs and outputs with their locations,
//! built-ins, HLSL semantics and types). Written for this crate; no external reflection library.
//!
//! ```
//! let spirv = rpsl_shaders::compile_glsl_compute(
//!     "#version 450\nlayout(local_size_x = 8, local_size_y = 4) in;\n\
//!      layout(binding = 0, rgba8) uniform writeonly image2D dst;\n\
//!      void main() { imageStore(dst, ivec2(gl_GlobalInvocationID.xy), vec4(1.0)); }",
//!     "fill.comp",
//! )
//! .unwrap();
//! let reflection = rpsl_shaders::reflect(&spirv).unwrap();
//! assert_eq!(reflection.entry_points[0].local_size, Some([8, 4, 1]));
//! assert_eq!(reflection.descriptors[0].kind, rpsl_shaders::DescriptorKind::StorageImage);
//! ```

mod module;

use crate::error::ReflectError;
use module::Module;

/// The stage an entry point runs in.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExecutionModel {
    /// A vertex shader.
    Vertex,
    /// A fragment shader.
    Fragment,
    /// A compute shader.
    GlCompute,
    /// A tessellation control (HLSL hull) shader.
    TessellationControl,
    /// A tessellation evaluation (HLSL domain) shader.
    TessellationEvaluation,
    /// A geometry shader.
    Geometry,
    /// Any other SPIR-V execution model, by number.
    Other(u32),
}

/// One entry point of a module.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EntryPoint {
    /// Its name.
    pub name: String,
    /// Its stage.
    pub model: ExecutionModel,
    /// The workgroup size of a compute entry point (`LocalSize` or constant `LocalSizeId`).
    pub local_size: Option<[u32; 3]>,
}

/// The kind of a descriptor, named as Vulkan's `VkDescriptorType`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum DescriptorKind {
    /// A sampler alone.
    Sampler,
    /// A combined image sampler (GLSL `sampler2D`).
    CombinedImageSampler,
    /// A sampled image (GLSL `texture2D`, HLSL `Texture2D`).
    SampledImage,
    /// A storage image (GLSL `image2D`, HLSL `RWTexture2D`).
    StorageImage,
    /// A uniform texel buffer.
    UniformTexelBuffer,
    /// A storage texel buffer.
    StorageTexelBuffer,
    /// A uniform buffer (GLSL `uniform` block, HLSL `cbuffer`).
    UniformBuffer,
    /// A storage buffer (GLSL `buffer` block, HLSL `(RW)StructuredBuffer`, `ByteAddressBuffer`).
    StorageBuffer,
    /// A subpass input attachment.
    InputAttachment,
    /// A ray-tracing acceleration structure.
    AccelerationStructure,
}

/// Facts about an image descriptor.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ImageInfo {
    /// SPIR-V `Dim`: 0 = 1D, 1 = 2D, 2 = 3D, 3 = Cube, 5 = Buffer, 6 = SubpassData.
    pub dim: u32,
    /// Arrayed (`texture2DArray`).
    pub arrayed: bool,
    /// Multisampled.
    pub multisampled: bool,
    /// SPIR-V `ImageFormat` (0 = Unknown, 1 = Rgba32f, 4 = Rgba8, ...).
    pub format: u32,
}

/// One descriptor binding (a variable in set/binding space).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DescriptorBinding {
    /// Descriptor set.
    pub set: u32,
    /// Binding within the set.
    pub binding: u32,
    /// The variable's name, or its block type's name when the variable has none.
    pub name: String,
    /// The descriptor kind.
    pub kind: DescriptorKind,
    /// The array size: 1 for a single descriptor, 0 for a runtime-sized array.
    pub count: u32,
    /// Whether the shader may write through it (storage images and buffers without `NonWritable`).
    pub writable: bool,
    /// Image facts, for image kinds.
    pub image: Option<ImageInfo>,
    /// The size in bytes of a buffer block (its runtime array counted as 0 elements).
    pub block_size: Option<u32>,
}

/// One member of a push-constant block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BlockMember {
    /// Its name (may be empty).
    pub name: String,
    /// Byte offset.
    pub offset: u32,
    /// Byte size.
    pub size: u32,
}

/// The push-constant block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PushConstantBlock {
    /// The block's type name (or variable name).
    pub name: String,
    /// Its size in bytes: the end of its last member.
    pub size: u32,
    /// Its members, in declaration order.
    pub members: Vec<BlockMember>,
}

/// The scalar type of an interface variable.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// A float of the given bit width.
    Float(u32),
    /// A signed integer of the given bit width.
    Int(u32),
    /// An unsigned integer of the given bit width.
    Uint(u32),
    /// A boolean.
    Bool,
}

/// One fragment-shader output (a render target location).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FragmentOutput {
    /// `Location`.
    pub location: u32,
    /// The variable's name.
    pub name: String,
    /// Components (1 to 4).
    pub components: u32,
    /// Component type.
    pub scalar: ScalarType,
}

/// The type of one location an interface variable occupies: a scalar or vector (a matrix
/// column or an array element).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct LocationSlot {
    /// Component type.
    pub scalar: ScalarType,
    /// Components (1 to 4).
    pub components: u32,
}

impl LocationSlot {
    /// The locations this slot takes: 2 for 64-bit vectors of 3 or 4 components, else 1.
    pub fn locations(&self) -> u32 {
        let wide = matches!(
            self.scalar,
            ScalarType::Float(64) | ScalarType::Int(64) | ScalarType::Uint(64)
        );
        if wide && self.components > 2 {
            2
        } else {
            1
        }
    }
}

/// One input or output variable of an entry point (not a block member: glslang flattens HLSL
/// interface structs into one variable per member).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InterfaceVariable {
    /// The variable's result id (what a `Location` decoration names).
    pub id: u32,
    /// Its debug name (`@entryPointOutput.color`, `color`), empty when stripped.
    pub name: String,
    /// `Location`, for user variables.
    pub location: Option<u32>,
    /// The SPIR-V `BuiltIn`, for system values (`SV_Position` is `Position` = 0).
    pub built_in: Option<u32>,
    /// The HLSL semantic as glslang records it (`UserSemantic`, upper case: `COLOR0`, `TEXCOORD`),
    /// for HLSL shaders.
    pub semantic: Option<String>,
    /// Decorated `Patch` (a per-patch tessellation variable).
    pub patch: bool,
    /// The vertices of a per-vertex arrayed variable (geometry inputs, tessellation control
    /// inputs and outputs, tessellation evaluation inputs): the outer array, stripped from
    /// `slots`. `None` for a variable that is not arrayed per vertex.
    pub vertices: Option<u32>,
    /// The types of the locations it occupies from `location` on, in order (array elements,
    /// matrix columns and struct members flattened). Empty for types without locations.
    pub slots: Vec<LocationSlot>,
}

/// The inputs and outputs of one entry point.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct StageInterface {
    /// The entry point's name.
    pub entry_point: String,
    /// Its `Input` variables, sorted by location (built-ins last, in module order).
    pub inputs: Vec<InterfaceVariable>,
    /// Its `Output` variables, sorted the same way.
    pub outputs: Vec<InterfaceVariable>,
    /// The `OutputVertices` execution mode: a tessellation control shader's output patch size
    /// (HLSL `[outputcontrolpoints(n)]`), a geometry shader's most vertices emitted.
    pub output_vertices: Option<u32>,
    /// The SPIR-V execution modes of the entry point, by number, in module order (a geometry
    /// shader's input primitive: `InputPoints` = 19, `InputLines` = 20,
    /// `InputLinesAdjacency` = 21, `Triangles` = 22, `InputTrianglesAdjacency` = 23).
    pub execution_modes: Vec<u32>,
}

impl StageInterface {
    /// The vertices of the per-vertex arrayed inputs (a tessellation control shader's input
    /// patch size, HLSL `InputPatch<T, n>`; a geometry shader's primitive size), if any.
    pub fn input_vertices(&self) -> Option<u32> {
        self.inputs.iter().find_map(|input| input.vertices)
    }
}

/// Everything reflection found in a module.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Reflection {
    /// Entry points in module order.
    pub entry_points: Vec<EntryPoint>,
    /// Descriptor bindings sorted by (set, binding).
    pub descriptors: Vec<DescriptorBinding>,
    /// The push-constant block, if any.
    pub push_constants: Option<PushConstantBlock>,
    /// Fragment outputs sorted by location (empty for non-fragment modules).
    pub fragment_outputs: Vec<FragmentOutput>,
    /// Whether a fragment entry point writes `FragDepth`.
    pub writes_frag_depth: bool,
    /// The stage interface of each entry point, in module order.
    pub interfaces: Vec<StageInterface>,
}

impl Reflection {
    /// The entry point called `name`.
    pub fn entry_point(&self, name: &str) -> Option<&EntryPoint> {
        self.entry_points.iter().find(|entry| entry.name == name)
    }

    /// The stage interface of the entry point called `name`.
    pub fn interface(&self, name: &str) -> Option<&StageInterface> {
        self.interfaces.iter().find(|i| i.entry_point == name)
    }

    /// The descriptor at `(set, binding)`.
    pub fn descriptor(&self, set: u32, binding: u32) -> Option<&DescriptorBinding> {
        self.descriptors
            .iter()
            .find(|d| d.set == set && d.binding == binding)
    }
}

/// Reflects a SPIR-V module.
pub fn reflect(words: &[u32]) -> Result<Reflection, ReflectError> {
    let module = Module::parse(words)?;
    module.reflect()
}
