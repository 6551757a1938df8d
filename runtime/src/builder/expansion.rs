//! Node expansions: a declaration whose calls the builder hands to a [`NodeExpansion`], which
//! records other nodes and resources in its place (a MagpieFX effect called from a script
//! becomes one compute node per pass and a transient per intermediate texture). The frame
//! compiler then schedules, barriers and aliases what the expansion recorded like anything
//! else; the expanded declaration itself never appears in the graph.
//!
//! ```
//! use std::sync::Arc;
//! use rpsl_runtime::*;
//!
//! /// `Twice(t)` records `Fill(t)` twice.
//! #[derive(Debug)]
//! struct Twice;
//! impl NodeExpansion for Twice {
//!     fn declarations(&self) -> Vec<NodeDeclDesc> {
//!         vec![NodeDeclDesc::new("Fill", QueueClass::Compute, vec![
//!             ParamDesc::new("t", ValueType::Texture)
//!                 .with_access(AccessDesc::readwrite(AccessFlags::CS)),
//!         ])]
//!     }
//!     fn expand(
//!         &self,
//!         builder: &mut GraphBuilder,
//!         call: &ExpansionCall<'_>,
//!     ) -> Result<NodeId, BuildError> {
//!         builder.call_node(call.decls[0], call.args, call.flags, mix_key(call.identity_key, 1))?;
//!         builder.call_node(call.decls[0], call.args, call.flags, mix_key(call.identity_key, 2))
//!     }
//! }
//!
//! let mut builder = GraphBuilder::new();
//! let twice = builder.declare_node(NodeDeclDesc::new("Twice", QueueClass::Compute, vec![
//!     ParamDesc::new("t", ValueType::Texture).with_access(AccessDesc::readwrite(AccessFlags::CS)),
//! ]));
//! builder.set_node_expansion(twice, Arc::new(Twice));
//! builder.begin_frame(0);
//! let texture = builder
//!     .create_resource(ResourceDesc::tex2d(Format::R8G8B8A8_UNORM, 8, 8), 1)
//!     .unwrap();
//! let mut args = ArgsWriter::new(builder.decl(twice).unwrap());
//! args.write_texture(0, &builder.default_texture_view(texture).unwrap());
//! let last = builder.call_node(twice, args.bytes(), CallFlags::default(), 7).unwrap();
//! let graph = builder.finish().unwrap();
//! assert_eq!((graph.nodes.len(), last), (2, NodeId(1)));
//! assert_eq!(graph.decls[graph.nodes[0].decl.index()].name, "Fill");
//! ```

use std::fmt;
use std::sync::Arc;

use super::GraphBuilder;
use crate::build_error::BuildError;
use crate::decl::NodeDeclDesc;
use crate::graph::CallFlags;
use crate::ids::{DeclId, NodeId};

/// How deep expansions may call expanded declarations (an expansion calling itself would
/// otherwise never end).
const MAX_EXPANSION_DEPTH: u32 = 8;

/// Records the calls of one node declaration as other nodes (see the module doc).
pub trait NodeExpansion: fmt::Debug + Send + Sync {
    /// The declarations of the nodes [`NodeExpansion::expand`] records; the builder declares
    /// them once, when the expansion is set, and passes their ids in [`ExpansionCall::decls`].
    fn declarations(&self) -> Vec<NodeDeclDesc>;

    /// Records one call of the expanded declaration into `builder` (which is recording a
    /// frame): resources, node calls, dependencies. Returns the node that stands for the call
    /// (node handles of the script refer to it), normally the last one recorded. An error fails
    /// the call like any [`GraphBuilder::call_node`] error: the script sees a located fault.
    fn expand(
        &self,
        builder: &mut GraphBuilder,
        call: &ExpansionCall<'_>,
    ) -> Result<NodeId, BuildError>;
}

/// One call of an expanded declaration.
#[derive(Clone, Copy, Debug)]
pub struct ExpansionCall<'a> {
    /// The expanded declaration (its parameters say where each argument is in `args`).
    pub decl: &'a NodeDeclDesc,
    /// The argument block the script passed.
    pub args: &'a [u8],
    /// The call's flags (`async`).
    pub flags: CallFlags,
    /// The call's identity key: mix it ([`crate::mix_key`]) into the keys of what the
    /// expansion creates, so that two calls keep their resources apart.
    pub identity_key: u64,
    /// The ids of [`NodeExpansion::declarations`], in their order.
    pub decls: &'a [DeclId],
}

/// An expansion with the ids of its declarations.
#[derive(Clone, Debug)]
pub(super) struct ExpansionEntry {
    expansion: Arc<dyn NodeExpansion>,
    decls: Arc<[DeclId]>,
}

impl GraphBuilder {
    /// Makes every call of `decl` an expansion: [`GraphBuilder::call_node`] hands it to
    /// `expansion`, which records other nodes in its place. Declares the expansion's own
    /// nodes now (once); setting another expansion on `decl` replaces this one.
    pub fn set_node_expansion(&mut self, decl: DeclId, expansion: Arc<dyn NodeExpansion>) {
        self.settle();
        // Calls of `decl` record other nodes now: the next frame cannot replay the last.
        self.replayable = false;
        let decls: Arc<[DeclId]> = expansion
            .declarations()
            .into_iter()
            .map(|desc| self.declare_node(desc))
            .collect();
        let index = decl.index();
        if self.expansions.len() <= index {
            self.expansions.resize(index + 1, None);
        }
        self.expansions[index] = Some(ExpansionEntry { expansion, decls });
    }

    /// The expansion of `decl`'s calls, if it has one.
    #[inline]
    pub(super) fn expansion_of(&self, decl: DeclId) -> Option<&ExpansionEntry> {
        if self.expansions.is_empty() {
            return None;
        }
        self.expansions.get(decl.index())?.as_ref()
    }

    /// Records a call of an expanded declaration through its expansion.
    #[cold]
    pub(super) fn expand_call(
        &mut self,
        entry: ExpansionEntry,
        decl: &NodeDeclDesc,
        args: &[u8],
        flags: CallFlags,
        identity_key: u64,
    ) -> Result<NodeId, BuildError> {
        if self.expansion_depth >= MAX_EXPANSION_DEPTH {
            return Err(BuildError::Expansion {
                node: decl.name.clone(),
                message: format!("expansions nest more than {MAX_EXPANSION_DEPTH} deep"),
            });
        }
        let call = ExpansionCall {
            decl,
            args,
            flags,
            identity_key,
            decls: &entry.decls,
        };
        self.expansion_depth += 1;
        let result = entry.expansion.expand(self, &call);
        self.expansion_depth -= 1;
        result
    }
}
