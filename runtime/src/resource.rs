//! Resource descriptions are `rpsl-types`' (rpsl.h's data model); re-exported here for the
//! runtime's modules.

pub use rpsl_types::resource::*;
