//! Helpers shared by the Vulkan backend's tests: a validating backend (or a skip when no Vulkan
//! driver exists), built-in declarations, a small graph-building wrapper and pixel helpers.
#![allow(dead_code, reason = "each test binary uses a subset")]

use rpsl_runtime::*;
use rpsl_vulkan::{VulkanBackend, VulkanOptions};

pub fn backend() -> Option<VulkanBackend> {
    backend_with(VulkanOptions::default().frames_in_flight)
}

/// A validating backend with `frames_in_flight` frame slots, or `None` (with a note) when no
/// Vulkan driver exists.
pub fn backend_with(frames_in_flight: u32) -> Option<VulkanBackend> {
    let options = VulkanOptions {
        validate: true,
        frames_in_flight,
        ..VulkanOptions::default()
    };
    match VulkanBackend::new(options) {
        Ok(backend) => Some(backend),
        Err(BackendError::NoDevice(message)) => {
            eprintln!("skipping: no Vulkan driver on this machine ({message})");
            None
        }
        Err(error) => panic!("cannot create the Vulkan backend: {error}"),
    }
}

/// The built-in declaration `name` whose first parameter has `flag` (overloads of `clear`) and
/// `params` parameters.
pub fn builtin(name: &str, params: usize, flag: AccessFlags) -> NodeDeclDesc {
    builtin_declarations()
        .into_iter()
        .find(|decl| {
            decl.name == name
                && decl.params.len() == params
                && decl.params[0]
                    .access
                    .is_some_and(|access| access.flags.contains(flag))
        })
        .unwrap_or_else(|| panic!("no built-in {name}/{params}"))
}

pub struct Frame {
    pub builder: GraphBuilder,
    pub key: u64,
}

impl Frame {
    pub fn new() -> Frame {
        Frame {
            builder: GraphBuilder::new(),
            key: 100,
        }
    }

    pub fn call(&mut self, decl: DeclId, fill: impl FnOnce(&mut ArgsWriter)) -> NodeId {
        let mut args = ArgsWriter::new(self.builder.decl(decl).unwrap());
        fill(&mut args);
        self.key += 1;
        self.builder
            .call_node(decl, args.bytes(), CallFlags::default(), self.key)
            .unwrap()
    }

    pub fn texture(&mut self, desc: ResourceDesc) -> TextureView {
        self.key += 1;
        let id = self.builder.create_resource(desc, self.key).unwrap();
        self.builder.default_texture_view(id).unwrap()
    }

    pub fn external_texture(&mut self, name: &str, desc: ResourceDesc) -> TextureView {
        let id = self.builder.import_external(name, desc).unwrap();
        self.builder.default_texture_view(id).unwrap()
    }

    pub fn external_buffer(&mut self, name: &str, size: u64) -> BufferView {
        let id = self
            .builder
            .import_external(name, ResourceDesc::buffer(size))
            .unwrap();
        self.builder.default_buffer_view(id).unwrap()
    }
}

pub fn write_f32x4(args: &mut ArgsWriter, param: usize, value: [f32; 4]) {
    for (index, v) in value.iter().enumerate() {
        args.write_f32(param, index as u32 * 4, *v);
    }
}

pub fn write_u32s(args: &mut ArgsWriter, param: usize, values: &[u32]) {
    for (index, v) in values.iter().enumerate() {
        args.write_raw(param, index as u32 * 4, &v.to_le_bytes());
    }
}

pub fn run(
    backend: &mut VulkanBackend,
    graph: &RecordedGraph,
    options: CompileOptions,
) -> CompiledFrame {
    let mut compiler = FrameCompiler::new(options);
    let frame = compiler.compile(graph).unwrap().clone();
    backend
        .execute_frame(graph, &frame)
        .unwrap_or_else(|error| panic!("frame failed: {error}"));
    frame
}

pub fn rgba8(size: u32) -> ResourceDesc {
    ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, size, size)
}

pub fn solid(size: u32, pixel: [u8; 4]) -> Vec<u8> {
    (0..size * size).flat_map(|_| pixel).collect()
}
