//! Per-subresource state over region maps: the structures the dependency builder and discard
//! inference keep for resources that accesses cover only in part.

pub(super) mod map;
pub(super) mod states;
