//! [`BuilderHost`]: the VM's [`Host`] calls forwarded to the runtime's [`GraphBuilder`]. Views
//! and resource descriptions cross as rpsl.h's plain data (`rpsl-types`' [`RpslResourceDesc`] and
//! [`ViewBytes`], the same types on both sides); builder errors become [`HostError`]s, which the
//! VM reports as located runtime faults.

use rpsl_runtime::{BuildError, CallFlags, DeclId, GraphBuilder, ResourceId};
use rpsl_types::{view_resource, RpslResourceDesc, ViewBytes, NULL_RESOURCE};
use rpsl_vm::host::NODE_FLAG_ASYNC;
use rpsl_vm::ops::{SUBGRAPH_ATOMIC, SUBGRAPH_SEQUENTIAL};
use rpsl_vm::{CallSite, Host, HostError, MarkerKind, NodeDeclId};

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

/// The error of a description whose resource type rpsl.h does not define.
#[cold]
fn invalid_resource_type(desc: &RpslResourceDesc) -> HostError {
    HostError::new(format!("invalid resource type {}", desc.ty))
}

fn host_error(error: BuildError) -> HostError {
    HostError::new(error.to_string())
}

/// The default (whole-resource) view bytes of a resource of this frame.
pub fn default_view_bytes(
    builder: &GraphBuilder,
    resource: ResourceId,
) -> Result<ViewBytes, BuildError> {
    builder.default_view_bytes(resource)
}

impl Host for BuilderHost<'_> {
    fn create_resource(
        &mut self,
        site: CallSite,
        desc: &RpslResourceDesc,
    ) -> Result<ViewBytes, HostError> {
        match self.builder.create_script_resource(desc, site.key) {
            Some(view) => view.map_err(host_error),
            None => Err(invalid_resource_type(desc)),
        }
    }

    fn describe_resource(
        &mut self,
        _site: CallSite,
        view: &ViewBytes,
    ) -> Result<RpslResourceDesc, HostError> {
        let resource = view_resource(view);
        if resource == NULL_RESOURCE {
            return Err(HostError::new("cannot describe a null view"));
        }
        let desc = self
            .builder
            .describe(ResourceId(resource))
            .map_err(host_error)?;
        Ok(desc.to_rpsl())
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
