//! The prelude (rpsl.h written in RPSL, what scripts see) and `rpsl-types` (what the VM, the
//! runtime and the backends read) describe the same data model: every enumerator, flag bit and
//! struct offset the prelude declares must mean the same in `rpsl-types`.

use rpsl::frontend::hir::{Module, StructId};
use rpsl::types::{
    view_offsets, Format, ResourceFlags, ResourceKind, CUBEMAP_VIEW_FLAG, RESOURCE_DESC_SIZE,
};

fn prelude() -> Module {
    let compilation = rpsl::check_source("empty.rpsl", "export void main() {}\n");
    compilation.module.expect("an empty script checks")
}

/// The enumerators of a prelude enum: name and value, in declaration order.
fn enumerators(module: &Module, name: &str) -> Vec<(String, i64)> {
    let id = module
        .types
        .enum_by_name(name)
        .unwrap_or_else(|| panic!("the prelude declares `{name}`"));
    let def = module.types.enum_def(id).expect("the id is valid");
    def.values
        .iter()
        .map(|value| (value.name.clone(), value.value))
        .collect()
}

/// The fields of a prelude struct: name and byte offset, and the struct's size.
fn struct_fields(module: &Module, name: &str) -> (Vec<(String, u32)>, u32) {
    let id: StructId = module
        .types
        .struct_by_name(name)
        .unwrap_or_else(|| panic!("the prelude declares `{name}`"));
    let def = module.types.struct_def(id).expect("the id is valid");
    let fields = def
        .fields
        .iter()
        .map(|field| (field.name.clone(), field.offset))
        .collect();
    (fields, def.layout.size)
}

#[test]
fn every_prelude_format_is_the_same_format_in_rpsl_types() {
    let module = prelude();
    let formats = enumerators(&module, "RPS_FORMAT");
    assert_eq!(formats.len(), 116);
    for (name, value) in &formats {
        let short = name.strip_prefix("RPS_FORMAT_").expect("prefixed");
        let format = Format::from_name(short).unwrap_or_else(|| panic!("{name} is known"));
        assert_eq!(i64::from(format.0), *value, "{name}");
        assert_eq!(Format(*value as u32).name(), Some(short), "{name}");
    }
}

#[test]
fn resource_types_and_flags_match() {
    let module = prelude();
    let kinds = enumerators(&module, "RPS_RESOURCE_TYPE");
    let decoded: Vec<(String, &str)> = kinds
        .iter()
        .map(|(name, value)| {
            let kind = ResourceKind::from_u32(*value as u32).expect("a known type");
            (name.clone(), kind.name())
        })
        .collect();
    assert_eq!(
        decoded,
        [
            ("RPS_RESOURCE_BUFFER".to_string(), "buffer"),
            ("RPS_RESOURCE_TEX1D".to_string(), "tex1d"),
            ("RPS_RESOURCE_TEX2D".to_string(), "tex2d"),
            ("RPS_RESOURCE_TEX3D".to_string(), "tex3d"),
        ]
    );
    let flags = enumerators(&module, "RPS_RESOURCE_FLAGS");
    for (name, value) in &flags {
        let short = name.strip_prefix("RPS_RESOURCE_FLAG_").expect("prefixed");
        let names: Vec<&str> = ResourceFlags(*value as u32).names().collect();
        if short == "NONE" {
            assert_eq!(*value, 0);
            assert!(names.is_empty());
        } else {
            assert_eq!(names, [short.to_ascii_lowercase()], "{name}");
        }
    }
    assert_eq!(flags.len(), 6);
    let view_flags = enumerators(&module, "RESOURCE_VIEW_FLAGS");
    assert_eq!(
        view_flags,
        [
            ("RPS_RESOURCE_VIEW_FLAG_NONE".to_string(), 0),
            (
                "RPS_RESOURCE_VIEW_FLAG_CUBEMAP_BIT".to_string(),
                i64::from(CUBEMAP_VIEW_FLAG)
            ),
        ]
    );
}

#[test]
fn resource_desc_and_view_layouts_match() {
    let module = prelude();
    let (fields, size) = struct_fields(&module, "ResourceDesc");
    let names: Vec<&str> = fields.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Type",
            "TemporalLayers",
            "Flags",
            "Width",
            "Height",
            "DepthOrArraySize",
            "MipLevels",
            "Format",
            "SampleCount"
        ]
    );
    let offsets: Vec<u32> = fields.iter().map(|(_, offset)| *offset).collect();
    assert_eq!(offsets, [0, 4, 8, 12, 16, 20, 24, 28, 32]);
    assert_eq!(size, RESOURCE_DESC_SIZE);
    let (range, _) = struct_fields(&module, "SubResourceRange");
    let range_offsets: Vec<u32> = range
        .iter()
        .map(|(_, offset)| view_offsets::BASE_MIP + offset)
        .collect();
    assert_eq!(
        range_offsets,
        [
            view_offsets::BASE_MIP,
            view_offsets::MIP_COUNT,
            view_offsets::BASE_LAYER,
            view_offsets::LAYER_COUNT
        ]
    );
}
