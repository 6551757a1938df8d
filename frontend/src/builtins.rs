//! The built-in prelude (RPSL source declaring what rpsl.h declares) and the host built-ins: ids of
//! the prelude's body-less functions and the `texture` / `buffer` view methods, with their signatures.
//!
//! The prelude ([`PRELUDE`], `prelude.rpsl`) declares the access shorthands (`rtv`, `srv`, ...) as
//! macros, the enums, `ResourceDesc`, `SubResourceRange`, `RpsViewport`, the resource functions,
//! the built-in nodes, `viewport`, `sch_barrier` and `abort`. Its functions have no bodies; sema
//! marks each as a host built-in and maps it to a [`Builtin`] with [`builtin_for`]. View methods
//! (`t.mips(1)`) cannot be declared in RPSL, so their signatures are the Rust table [`view_method`].

use crate::sema::suggest::suggestion_length;
use crate::types::{ScalarKind, Type};

/// The prelude's RPSL source; every script is checked after it (the driver preprocesses, parses
/// and declares it once and reuses the result for every script).
pub const PRELUDE: &str = include_str!("prelude.rpsl");

/// The path the prelude is shown under in diagnostics.
pub const PRELUDE_PATH: &str = "<prelude>";

macro_rules! builtins {
    ($($(#[$doc:meta])* $variant:ident = $name:literal;)*) => {
        /// A host built-in: a prelude function without body, or a view method (receiver first).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Builtin {
            $($(#[$doc])* $variant,)*
        }

        impl Builtin {
            /// Every built-in, in declaration order.
            pub const ALL: &'static [Builtin] = &[$(Builtin::$variant,)*];

            /// The name scripts call it by (`create_tex2d`, `mips`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Builtin::$variant => $name,)*
                }
            }
        }
    };
}

builtins! {
    /// `texture create_texture(ResourceDesc desc)`.
    CreateTexture = "create_texture";
    /// `buffer create_buffer(ResourceDesc desc)` (rpsl.h says it returns `texture`, a typo there).
    CreateBufferFromDesc = "create_buffer";
    /// `texture create_tex1d(RPS_FORMAT format, uint width, uint numMips = 1, uint arraySlices = 1,
    /// uint numTemporalLayers = 1, RPS_RESOURCE_FLAGS flags = RPS_RESOURCE_FLAG_NONE)`.
    CreateTex1d = "create_tex1d";
    /// `texture create_tex2d(RPS_FORMAT format, uint width, uint height, uint numMips = 1,
    /// uint arraySlices = 1, uint numTemporalLayers = 1, uint sampleCount = 1, uint sampleQuality = 0,
    /// RPS_RESOURCE_FLAGS flags = RPS_RESOURCE_FLAG_NONE)`.
    CreateTex2d = "create_tex2d";
    /// `texture create_tex3d(RPS_FORMAT format, uint width, uint height, uint depth, uint numMips = 1,
    /// uint numTemporalLayers = 1, RPS_RESOURCE_FLAGS flags = RPS_RESOURCE_FLAG_NONE)`.
    CreateTex3d = "create_tex3d";
    /// `buffer create_buffer(uint64_t width, uint numTemporalLayers = 1,
    /// RPS_RESOURCE_FLAGS flags = RPS_RESOURCE_FLAG_NONE)`.
    CreateBuffer = "create_buffer";
    /// `texture create_texture_view(texture resource, uint baseMipLevel = 0, uint mipLevelCount = 1,
    /// uint baseArrayLayer = 0, uint arrayLayerCount = 1, uint temporalLayer = 0,
    /// RPS_FORMAT format = RPS_FORMAT_UNKNOWN)`.
    CreateTextureView = "create_texture_view";
    /// `buffer create_buffer_view(buffer resource, uint64_t offset = 0, uint64_t sizeInBytes = 0,
    /// uint temporalLayer = 0, RPS_FORMAT format = RPS_FORMAT_UNKNOWN)`.
    CreateBufferView = "create_buffer_view";
    /// `ResourceDesc describe_texture(texture)` and `describe_resource(texture)`.
    DescribeTexture = "describe_texture";
    /// `ResourceDesc describe_buffer(buffer)` and `describe_resource(buffer)`.
    DescribeBuffer = "describe_buffer";
    /// `RpsViewport viewport(float x, float y, float width, float height, float minZ = 0.0f,
    /// float maxZ = 1.0f)`.
    Viewport = "viewport";
    /// `RpsViewport viewport(float width, float height)`: x = y = 0, minZ = 0, maxZ = 1.
    ViewportSize = "viewport";
    /// `void sch_barrier()`: a scheduling barrier.
    SchBarrier = "sch_barrier";
    /// `void abort(int errorCode)`: fails the frame with the code.
    Abort = "abort";
    /// `ResourceDesc texture.desc()`.
    TextureDesc = "desc";
    /// `texture texture.base()`.
    TextureBase = "base";
    /// `texture texture.array(uint baseArrayLayer, int arrayLayerCount)`; -1 means all remaining.
    TextureArray = "array";
    /// `texture texture.array(uint singleLayer)`.
    TextureArraySingle = "array";
    /// `texture texture.mips(uint baseMipLevel, int mipLevelCount)`; -1 means all remaining.
    TextureMips = "mips";
    /// `texture texture.mips(uint singleMipLevel)`.
    TextureMipsSingle = "mips";
    /// `texture texture.format(uint viewFormat)`.
    TextureFormat = "format";
    /// `texture texture.temporal(uint temporalLayer)`.
    TextureTemporal = "temporal";
    /// `texture texture.cubemap()`.
    TextureCubemap = "cubemap";
    /// `ResourceDesc buffer.desc()`.
    BufferDesc = "desc";
    /// `buffer buffer.base()`.
    BufferBase = "base";
    /// `buffer buffer.format(uint viewFormat)`.
    BufferFormat = "format";
    /// `buffer buffer.stride(uint structByteStride)`.
    BufferStride = "stride";
    /// `buffer buffer.bytes(uint64_t offset, uint64_t size)`.
    BufferBytes = "bytes";
    /// `buffer buffer.elements(uint64_t firstElement, uint64_t elementCount)`.
    BufferElements = "elements";
    /// `buffer buffer.temporal(uint temporalLayer)` (rpsl.h says `texture`, a typo there).
    BufferTemporal = "temporal";
}

impl Builtin {
    /// Whether this is a view method (called as `view.name(...)`, the receiver as first argument).
    pub fn is_view_method(self) -> bool {
        self >= Builtin::TextureDesc
    }
}

/// The built-in of a prelude function without body, by name, when the name has one overload (or for
/// `create_buffer`, `describe_resource` and `viewport`, the most common one). Use [`builtin_for`] to
/// tell overloads apart by parameter types.
pub fn builtin_by_name(name: &str) -> Option<Builtin> {
    Some(match name {
        "create_texture" => Builtin::CreateTexture,
        "create_tex1d" => Builtin::CreateTex1d,
        "create_tex2d" => Builtin::CreateTex2d,
        "create_tex3d" => Builtin::CreateTex3d,
        "create_buffer" => Builtin::CreateBuffer,
        "create_texture_view" => Builtin::CreateTextureView,
        "create_buffer_view" => Builtin::CreateBufferView,
        "describe_texture" | "describe_resource" => Builtin::DescribeTexture,
        "describe_buffer" => Builtin::DescribeBuffer,
        "viewport" => Builtin::Viewport,
        "sch_barrier" => Builtin::SchBarrier,
        "abort" => Builtin::Abort,
        _ => return None,
    })
}

/// The built-in of a prelude declaration `name(params)`: tells `create_buffer(ResourceDesc)` from
/// `create_buffer(uint64_t, ...)`, `describe_resource(buffer)` from `describe_resource(texture)` and
/// `viewport(w, h)` from `viewport(x, y, w, h, ...)`.
pub fn builtin_for(name: &str, params: &[Type]) -> Option<Builtin> {
    let first = params.first();
    Some(match name {
        "create_buffer" if matches!(first, Some(Type::Struct(_))) => Builtin::CreateBufferFromDesc,
        "describe_resource" if first == Some(&Type::Buffer) => Builtin::DescribeBuffer,
        "viewport" if params.len() == 2 => Builtin::ViewportSize,
        _ => return builtin_by_name(name),
    })
}

/// The type of a view method parameter or result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MethodType {
    /// A plain type.
    Ty(ScalarKind),
    /// The receiver's own view type.
    View,
    /// `texture` whatever the receiver.
    Texture,
    /// The prelude struct `ResourceDesc` (sema looks up its id by name).
    ResourceDesc,
}

/// One overload of a view method.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MethodSig {
    /// Its id.
    pub builtin: Builtin,
    /// Parameter types (the receiver not included).
    pub params: &'static [MethodType],
    /// The result type.
    pub result: MethodType,
}

impl MethodType {
    /// The concrete type: `receiver` for [`MethodType::View`], `resource_desc` for
    /// [`MethodType::ResourceDesc`].
    pub fn resolve(self, receiver: &Type, resource_desc: &Type) -> Type {
        match self {
            MethodType::Ty(k) => Type::Scalar(k),
            MethodType::View => receiver.clone(),
            MethodType::Texture => Type::Texture,
            MethodType::ResourceDesc => resource_desc.clone(),
        }
    }
}

const U: MethodType = MethodType::Ty(ScalarKind::Uint);
const I: MethodType = MethodType::Ty(ScalarKind::Int);
const U64: MethodType = MethodType::Ty(ScalarKind::Uint64);

const fn sig(builtin: Builtin, params: &'static [MethodType], result: MethodType) -> MethodSig {
    MethodSig {
        builtin,
        params,
        result,
    }
}

const TEXTURE_METHODS: &[(&str, &[MethodSig])] = &[
    (
        "desc",
        &[sig(Builtin::TextureDesc, &[], MethodType::ResourceDesc)],
    ),
    ("base", &[sig(Builtin::TextureBase, &[], MethodType::View)]),
    (
        "array",
        &[
            sig(Builtin::TextureArraySingle, &[U], MethodType::View),
            sig(Builtin::TextureArray, &[U, I], MethodType::View),
        ],
    ),
    (
        "mips",
        &[
            sig(Builtin::TextureMipsSingle, &[U], MethodType::View),
            sig(Builtin::TextureMips, &[U, I], MethodType::View),
        ],
    ),
    (
        "format",
        &[sig(Builtin::TextureFormat, &[U], MethodType::View)],
    ),
    (
        "temporal",
        &[sig(Builtin::TextureTemporal, &[U], MethodType::View)],
    ),
    (
        "cubemap",
        &[sig(Builtin::TextureCubemap, &[], MethodType::View)],
    ),
];

const BUFFER_METHODS: &[(&str, &[MethodSig])] = &[
    (
        "desc",
        &[sig(Builtin::BufferDesc, &[], MethodType::ResourceDesc)],
    ),
    ("base", &[sig(Builtin::BufferBase, &[], MethodType::View)]),
    (
        "format",
        &[sig(Builtin::BufferFormat, &[U], MethodType::View)],
    ),
    (
        "stride",
        &[sig(Builtin::BufferStride, &[U], MethodType::View)],
    ),
    (
        "bytes",
        &[sig(Builtin::BufferBytes, &[U64, U64], MethodType::View)],
    ),
    (
        "elements",
        &[sig(Builtin::BufferElements, &[U64, U64], MethodType::View)],
    ),
    (
        "temporal",
        &[sig(Builtin::BufferTemporal, &[U], MethodType::View)],
    ),
];

fn methods_of(receiver: &Type) -> &'static [(&'static str, &'static [MethodSig])] {
    match receiver {
        Type::Texture => TEXTURE_METHODS,
        Type::Buffer => BUFFER_METHODS,
        _ => &[],
    }
}

/// The names of every view method of textures and buffers (`mips`, `array`, `bytes`, ...), each
/// once, for completion and suggestions.
///
/// ```
/// let names: Vec<&str> = rpsl_frontend::builtins::view_method_names().collect();
/// assert!(names.contains(&"mips") && names.contains(&"bytes"));
/// ```
pub fn view_method_names() -> impl Iterator<Item = &'static str> {
    let mut names: Vec<&'static str> = TEXTURE_METHODS
        .iter()
        .chain(BUFFER_METHODS)
        .map(|(name, _)| *name)
        .collect();
    names.sort_unstable();
    names.dedup();
    names.into_iter()
}

/// The overloads of method `name` on a `texture` or `buffer` receiver.
///
/// ```
/// use rpsl_frontend::builtins::{view_method, Builtin};
/// use rpsl_frontend::types::Type;
/// let mips = view_method(&Type::Texture, "mips").unwrap();
/// assert_eq!(mips.iter().map(|m| m.builtin).collect::<Vec<_>>(), [Builtin::TextureMipsSingle, Builtin::TextureMips]);
/// assert!(view_method(&Type::Buffer, "mips").is_none());
/// ```
pub fn view_method(receiver: &Type, name: &str) -> Option<&'static [MethodSig]> {
    methods_of(receiver)
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, sigs)| *sigs)
}

/// The method names of a receiver type.
pub fn method_names(receiver: &Type) -> impl Iterator<Item = &'static str> {
    methods_of(receiver).iter().map(|(n, _)| *n)
}

/// A close method name for "did you mean `mips`?", when `name` is not a method of `receiver`.
pub fn suggest_method(receiver: &Type, name: &str) -> Option<&'static str> {
    suggest(name, method_names(receiver))
}

/// The candidate closest to `name` by edit distance, when close enough (at most a third of the
/// longer name, and at least 1 edit allowed); `None` for an exact match or nothing close. Names
/// longer than [`MAX_SUGGESTION_CHARS`](crate::sema::suggest::MAX_SUGGESTION_CHARS) take no part,
/// and candidates whose length alone differs too much are not compared.
///
/// ```
/// use rpsl_frontend::builtins::suggest;
/// assert_eq!(suggest("mip", ["mips", "array"]), Some("mips"));
/// assert_eq!(suggest("xyz", ["mips", "array"]), None);
/// ```
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    let length = suggestion_length(name)?;
    for candidate in candidates {
        if candidate == name {
            return None;
        }
        let Some(candidate_length) = suggestion_length(candidate) else {
            continue;
        };
        let limit = (name.len().max(candidate.len()) / 3).max(1);
        if candidate_length.abs_diff(length) > limit {
            continue;
        }
        let distance = edit_distance(name, candidate);
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance between two strings, by characters (case-sensitive).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev_diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = prev_diag + usize::from(ca != *cb);
            prev_diag = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::StructId;

    #[test]
    fn builtin_lookup() {
        assert_eq!(builtin_by_name("create_tex2d"), Some(Builtin::CreateTex2d));
        assert_eq!(builtin_by_name("abort"), Some(Builtin::Abort));
        assert_eq!(builtin_by_name("mips"), None);
        assert_eq!(builtin_by_name("clear"), None);
        let desc = Type::Struct(StructId(0));
        assert_eq!(
            builtin_for("create_buffer", &[desc]),
            Some(Builtin::CreateBufferFromDesc)
        );
        assert_eq!(
            builtin_for("create_buffer", &[Type::UINT64, Type::UINT]),
            Some(Builtin::CreateBuffer)
        );
        assert_eq!(
            builtin_for("describe_resource", &[Type::Buffer]),
            Some(Builtin::DescribeBuffer)
        );
        assert_eq!(
            builtin_for("describe_resource", &[Type::Texture]),
            Some(Builtin::DescribeTexture)
        );
        assert_eq!(
            builtin_for("viewport", &[Type::FLOAT, Type::FLOAT]),
            Some(Builtin::ViewportSize)
        );
        assert_eq!(
            builtin_for("viewport", &vec![Type::FLOAT; 6]),
            Some(Builtin::Viewport)
        );
        assert!(Builtin::TextureMips.is_view_method());
        assert!(!Builtin::Abort.is_view_method());
        assert_eq!(Builtin::ALL.len(), 30);
    }

    #[test]
    fn view_methods() {
        let desc = Type::Struct(StructId(7));
        let shown = |recv: &Type, name: &str| -> Vec<String> {
            view_method(recv, name)
                .unwrap()
                .iter()
                .map(|m| {
                    let params: Vec<String> = m
                        .params
                        .iter()
                        .map(|p| p.resolve(recv, &desc).to_string())
                        .collect();
                    format!(
                        "({}) -> {}",
                        params.join(", "),
                        m.result.resolve(recv, &desc)
                    )
                })
                .collect()
        };
        assert_eq!(
            shown(&Type::Texture, "mips"),
            ["(uint) -> texture", "(uint, int) -> texture"]
        );
        assert_eq!(
            shown(&Type::Texture, "array"),
            ["(uint) -> texture", "(uint, int) -> texture"]
        );
        assert_eq!(shown(&Type::Texture, "desc"), ["() -> struct7"]);
        assert_eq!(shown(&Type::Texture, "cubemap"), ["() -> texture"]);
        assert_eq!(
            shown(&Type::Buffer, "bytes"),
            ["(uint64_t, uint64_t) -> buffer"]
        );
        assert_eq!(
            shown(&Type::Buffer, "elements"),
            ["(uint64_t, uint64_t) -> buffer"]
        );
        assert_eq!(shown(&Type::Buffer, "stride"), ["(uint) -> buffer"]);
        assert_eq!(shown(&Type::Buffer, "temporal"), ["(uint) -> buffer"]);
        assert!(view_method(&Type::Buffer, "cubemap").is_none());
        assert!(view_method(&Type::FLOAT, "desc").is_none());
        assert_eq!(method_names(&Type::Buffer).count(), 7);
    }

    #[test]
    fn prelude_preprocesses_and_parses() {
        use crate::ast::Item;
        use crate::preprocess::{MemoryLoader, Preprocessor};
        use crate::source::SourceFiles;
        let mut files = SourceFiles::new();
        let id = files.add(PRELUDE_PATH, PRELUDE.to_string());
        let mut pp = Preprocessor::new();
        let (expanded, mut diags) = pp.run(&mut files, id, &MemoryLoader::new());
        let module = crate::parse::parse_module(&expanded, &mut diags);
        let rendered: Vec<String> = diags.iter().map(|d| d.render(&files)).collect();
        assert!(diags.is_empty(), "{}", rendered.join("\n"));
        for shorthand in [
            "rtv",
            "dsv",
            "discard_rtv",
            "srv",
            "srv_buf",
            "ps_srv",
            "ps_srv_buf",
            "uav",
            "uav_buf",
        ] {
            assert!(
                !pp.is_defined(shorthand),
                "`{shorthand}` is a type name, not a macro"
            );
        }
        let mut enums = Vec::new();
        let mut structs = Vec::new();
        let mut functions = Vec::new();
        for item in &module.items {
            match item {
                Item::Enum(e) => {
                    if e.name.name == "RPS_FORMAT" {
                        // Implicitly numbered from 0, so the position is the value (DXGI numbering).
                        assert!(e.variants.iter().all(|v| v.value.is_none()));
                        let position =
                            |name: &str| e.variants.iter().position(|v| v.name.name == name);
                        assert_eq!(position("RPS_FORMAT_R8G8B8A8_UNORM"), Some(28));
                        assert_eq!(position("RPS_FORMAT_D32_FLOAT"), Some(40));
                        assert_eq!(position("RPS_FORMAT_B8G8R8A8_UNORM"), Some(87));
                        assert_eq!(position("RPS_FORMAT_R10G10B10_XR_BIAS_A2_UNORM"), Some(89));
                        assert_eq!(position("RPS_FORMAT_BC6H_TYPELESS"), Some(94));
                        assert_eq!(position("RPS_FORMAT_B4G4R4A4_UNORM"), Some(115));
                    }
                    enums.push((e.name.name.clone(), e.variants.len()))
                }
                Item::Struct(s) => structs.push((s.name.name.clone(), s.fields.len())),
                Item::Function(f) => {
                    assert!(f.body.is_none(), "{} has a body", f.name.name);
                    functions.push(f.name.name.clone());
                }
                Item::Typedef(t) => assert!(
                    t.name.name == "RpsFormat" || crate::access::shorthand(&t.name.name).is_some(),
                    "unexpected typedef {}",
                    t.name.name
                ),
                other => panic!("unexpected item {other:?}"),
            }
        }
        let enum_names: Vec<(&str, usize)> = enums.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        assert_eq!(
            enum_names,
            [
                ("RPS_FORMAT", 116),
                ("RPS_RESOURCE_TYPE", 4),
                ("RPS_RESOURCE_FLAGS", 6),
                ("RESOURCE_VIEW_FLAGS", 2),
                ("RPS_CLEAR_FLAGS", 6),
                ("RPS_RESOLVE_MODE", 5)
            ]
        );
        let struct_names: Vec<(&str, usize)> =
            structs.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        assert_eq!(
            struct_names,
            [
                ("ResourceDesc", 9),
                ("SubResourceRange", 4),
                ("RpsViewport", 6)
            ]
        );
        assert_eq!(functions.len(), 35);
        // Every prelude host function has a built-in id; nodes do not.
        let node_names = [
            "clear_color_regions",
            "clear_depth_stencil_regions",
            "clear_texture_regions",
            "clear_texture",
            "clear_buffer",
            "copy_texture",
            "copy_buffer",
            "copy_texture_to_buffer",
            "copy_buffer_to_texture",
            "resolve",
            "clear",
            "clear_depth",
            "clear_stencil",
        ];
        for f in &module.items {
            let Item::Function(f) = f else { continue };
            if f.is_node() {
                assert!(
                    node_names.contains(&f.name.name.as_str()),
                    "{}",
                    f.name.name
                );
            } else {
                assert!(builtin_by_name(&f.name.name).is_some(), "{}", f.name.name);
            }
        }
    }

    #[test]
    fn prelude_with_shorthand_types() {
        use crate::ast::{Item, TypeRefKind};
        use crate::preprocess::{MemoryLoader, Preprocessor};
        use crate::source::SourceFiles;
        let mut files = SourceFiles::new();
        let prelude = files.add(PRELUDE_PATH, PRELUDE.to_string());
        let mut pp = Preprocessor::new();
        let (expanded, mut diags) = pp.run(&mut files, prelude, &MemoryLoader::new());
        let module = crate::parse::parse_module(&expanded, &mut diags);
        assert!(diags.is_empty());
        assert!(!pp.is_defined("uav"));
        let typedefs = module
            .items
            .iter()
            .filter(|i| matches!(i, Item::Typedef(_)))
            .count();
        assert_eq!(typedefs, 10);
        // The shorthand names are now free for use as parameter names.
        let script = files.add(
            "s.rpsl",
            "compute node C([relaxed] uav dst, [writeonly(cs)] texture uav);\n".into(),
        );
        let (expanded, mut diags) = pp.run(&mut files, script, &MemoryLoader::new());
        let module = crate::parse::parse_module(&expanded, &mut diags);
        assert!(diags.is_empty());
        let Item::Function(f) = &module.items[0] else {
            panic!("expected a node")
        };
        let TypeRefKind::Named(ty) = &f.params[0].ty.kind else {
            panic!("expected a type name")
        };
        assert_eq!(ty.name, "uav");
        assert_eq!(f.params[1].name.name, "uav");
    }

    #[test]
    fn suggestions() {
        assert_eq!(suggest_method(&Type::Texture, "mip"), Some("mips"));
        assert_eq!(suggest_method(&Type::Texture, "arrays"), Some("array"));
        assert_eq!(suggest_method(&Type::Texture, "fromat"), Some("format"));
        assert_eq!(suggest_method(&Type::Buffer, "strides"), Some("stride"));
        assert_eq!(suggest_method(&Type::Buffer, "mips"), None);
        assert_eq!(suggest_method(&Type::Texture, "mips"), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }
}
