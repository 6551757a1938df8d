//! [`BuilderHost`]: the VM's [`Host`] calls forwarded to the runtime's [`GraphBuilder`]. Views
//! and resource descriptions cross as their rpsl.h bytes; builder errors become [`HostError`]s,
//! which the VM reports as located runtime faults.

use rpsl_runtime::{
    BuildError, CallFlags, DeclId, GraphBuilder, ResourceDesc as RtDesc, ResourceId,
    RpslResourceDesc,
};
use rpsl_vm::host::NODE_FLAG_ASYNC;
use rpsl_vm::ops::{SUBGRAPH_ATOMIC, SUBGRAPH_SEQUENTIAL};
use rpsl_vm::{
    CallSite, Host, HostError, MarkerKind, NodeDeclId, ResourceDesc as VmDesc, ViewBytes,
};

/// A [`Host`] that records into a [`GraphBuilder`] (which must be between `begin_frame` and
/// `finish`).
#[derive(Debug)]
pub struct BuilderHost<'a> {
    builder: &'a mut GraphBuilder,
}

impl<'a> BuilderHost<'a> {
    /// Wraps a recording builder.
    pub fn new(builder: &'a mut GraphBuilder) -> BuilderHost<'a> {
        BuilderHost { builder }
    }
}

fn host_error(error: BuildError) -> HostError {
    HostError::new(error.to_string())
}

/// The runtime description of the VM's `ResourceDesc`; `None` for an unknown resource type.
pub fn runtime_desc(desc: &VmDesc) -> Option<RtDesc> {
    RtDesc::from_rpsl(&RpslResourceDesc {
        ty: desc.ty,
        temporal_layers: desc.temporal_layers,
        flags: desc.flags,
        width: desc.width,
        height: desc.height,
        depth_or_array_size: desc.depth_or_array_size,
        mip_levels: desc.mip_levels,
        format: desc.format,
        sample_count: desc.sample_count,
    })
}

/// The VM's `ResourceDesc` of a runtime description.
pub fn vm_desc(desc: &RtDesc) -> VmDesc {
    let raw = desc.to_rpsl();
    VmDesc {
        ty: raw.ty,
        temporal_layers: raw.temporal_layers,
        flags: raw.flags,
        width: raw.width,
        height: raw.height,
        depth_or_array_size: raw.depth_or_array_size,
        mip_levels: raw.mip_levels,
        format: raw.format,
        sample_count: raw.sample_count,
    }
}

/// The default (whole-resource) view bytes of a resource of this frame.
pub fn default_view_bytes(
    builder: &GraphBuilder,
    resource: ResourceId,
) -> Result<ViewBytes, BuildError> {
    builder.default_view_bytes(resource)
}

fn view_resource(view: &ViewBytes) -> u32 {
    u32::from_le_bytes([view[0], view[1], view[2], view[3]])
}

impl Host for BuilderHost<'_> {
    fn create_resource(&mut self, site: CallSite, desc: &VmDesc) -> Result<ViewBytes, HostError> {
        let desc = runtime_desc(desc)
            .ok_or_else(|| HostError::new(format!("invalid resource type {}", desc.ty)))?;
        let resource = self
            .builder
            .create_resource(desc, site.key)
            .map_err(host_error)?;
        self.builder
            .default_view_bytes(resource)
            .map_err(host_error)
    }

    fn describe_resource(
        &mut self,
        _site: CallSite,
        view: &ViewBytes,
    ) -> Result<VmDesc, HostError> {
        let resource = view_resource(view);
        if resource == u32::MAX {
            return Err(HostError::new("cannot describe a null view"));
        }
        let desc = self
            .builder
            .describe(ResourceId(resource))
            .map_err(host_error)?;
        Ok(vm_desc(&desc))
    }

    fn call_node(
        &mut self,
        site: CallSite,
        decl: NodeDeclId,
        args: &[u8],
        flags: u32,
    ) -> Result<u32, HostError> {
        let flags = CallFlags {
            prefer_async: flags & NODE_FLAG_ASYNC != 0,
        };
        let node = self
            .builder
            .call_node(DeclId::from_index(decl.index()), args, flags, site.key)
            .map_err(host_error)?;
        Ok(node.0)
    }

    fn marker(&mut self, _site: CallSite, kind: MarkerKind, arg: u32) -> Result<(), HostError> {
        match kind {
            MarkerKind::SchBarrier => self.builder.sch_barrier(),
            MarkerKind::SubgraphBegin => self
                .builder
                .begin_subgraph(arg & SUBGRAPH_ATOMIC != 0, arg & SUBGRAPH_SEQUENTIAL != 0),
            MarkerKind::SubgraphEnd => self.builder.end_subgraph(),
        }
        .map_err(host_error)
    }
}
