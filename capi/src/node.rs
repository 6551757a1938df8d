//! Node callbacks from C: a function pointer and `void*` user data bound to a node name, called
//! with an `RpslNodeContext` from which it reads the command buffer, its views (image, image
//! view, layout, subresource range / buffer, offset, size) and its arguments by name and type.

use std::ffi::{c_char, c_void, CStr};

use rpsl::runtime::{ScalarType, ValueType};
use rpsl::vulkan::ash::vk::Handle as _;
use rpsl::vulkan::{BoundResource, NodeContext};

use crate::args::{check_kinds, TypedValues};
use crate::handle::{self, Guarded, Handle};
use crate::program::RpslScalarKind;
use crate::status::{boundary, fail, Failure, Outcome, RpslStatus};
use crate::strings::{out_arg, slice_out, str_arg};

/// What a node callback gets (opaque): valid only during the callback, on its thread (or on
/// threads it waits for before returning).
pub struct RpslNodeContext {
    guarded: Guarded<NodeCall>,
}

impl Handle for RpslNodeContext {
    type Inner = NodeCall;
    const TYPE_NAME: &'static str = "RpslNodeContext";
    fn guarded(&self) -> &Guarded<NodeCall> {
        &self.guarded
    }
}

/// One call of a node callback.
pub(crate) struct NodeCall {
    /// The backend's context of the node; alive while the handle is registered.
    context: *const NodeContext<'static>,
    /// The node's declaration name (NUL-terminated, owned by the binding).
    name: *const c_char,
    /// The message the callback left with [`rpsl_node_set_error`].
    error: Option<String>,
}

impl NodeCall {
    fn context(&self) -> &NodeContext<'_> {
        // SAFETY: `context` points at the `NodeContext` of the running callback: the handle
        // holding this call is registered only while `run_callback` borrows that context.
        unsafe { &*self.context }
    }

    /// The node's declaration name, for messages.
    fn node_name(&self) -> &str {
        self.context().decl().name.as_str()
    }
}

/// A typed-argument error of the backend as a C failure.
fn not_found(error: rpsl::runtime::NodeArgError) -> Failure {
    Failure::new(RpslStatus::NotFound, error.message)
}

/// A node implementation in C. `context` is valid until it returns. Return `RPSL_STATUS_OK` (0) on
/// success; anything else fails the frame (`RPSL_STATUS_CALLBACK` from `rpsl_vulkan_execute`, with the
/// message given to [`rpsl_node_set_error`], if any).
pub type RpslNodeCallback =
    Option<unsafe extern "C" fn(context: *mut RpslNodeContext, user_data: *mut c_void) -> i32>;

/// The user data of a binding, handed back to its callback.
pub(crate) struct UserData(pub *mut c_void);

// SAFETY: rpsl never touches the user data; it only hands it back to the callback, on the thread
// that runs the frame. Whoever binds the callback vouches for that use (the `# Safety` of
// `rpsl_vulkan_bind_node`).
unsafe impl Send for UserData {}

/// Calls a C callback for one node: registers a context handle for the call's duration.
///
/// # Safety
/// `callback` may be called with `user_data` (the binder's contract).
pub(crate) unsafe fn run_callback(
    context: &mut NodeContext<'_>,
    callback: unsafe extern "C" fn(*mut RpslNodeContext, *mut c_void) -> i32,
    user_data: &UserData,
    name: &CStr,
) -> Result<(), String> {
    let pointer: *const NodeContext<'_> = context;
    let handle = RpslNodeContext {
        guarded: Guarded::new(NodeCall {
            context: pointer.cast::<NodeContext<'static>>(),
            name: name.as_ptr(),
            error: None,
        }),
    };
    handle::register_borrowed(&handle);
    let raw = &handle as *const RpslNodeContext as *mut RpslNodeContext;
    // SAFETY: the binder's contract; `raw` is registered, so every rpsl call the callback
    // makes with it is checked.
    let code = unsafe { callback(raw, user_data.0) };
    handle::unregister_borrowed(&handle);
    if code == 0 {
        return Ok(());
    }
    let call = handle.guarded.into_inner();
    // SAFETY: rpsl_status_name returns a static NUL-terminated string.
    let status = unsafe { CStr::from_ptr(crate::status::rpsl_status_name(code)) };
    Err(match call.error {
        Some(message) => message,
        None => format!(
            "the C callback returned {code} ({})",
            status.to_string_lossy()
        ),
    })
}

/// What a view is of.
#[repr(u32)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RpslViewKind {
    /// A texture: `image`, `image_view`, `layout`, `range` are set.
    Texture = 1,
    /// A buffer: `buffer`, `offset`, `size` are set.
    Buffer = 2,
}

/// The subresources of a texture view (`VkImageSubresourceRange`).
#[repr(C)]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct RpslSubresourceRange {
    /// `VkImageAspectFlags`.
    pub aspect_mask: u32,
    /// First mip level.
    pub base_mip_level: u32,
    /// Mip levels.
    pub level_count: u32,
    /// First array layer.
    pub base_array_layer: u32,
    /// Array layers.
    pub layer_count: u32,
}

/// One view argument of a node, resolved to Vulkan objects. Handles are raw Vulkan handles
/// (`(VkImage)image`, `(VkImageView)image_view`, `(VkBuffer)buffer`).
#[repr(C)]
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RpslView {
    /// Texture or buffer.
    pub kind: RpslViewKind,
    /// The parameter's index in the node's declaration.
    pub param: u32,
    /// The slot within the parameter (array element).
    pub slot: u32,
    /// The `RPS_FORMAT` of the resource.
    pub format: u32,
    /// `VkImage` (textures).
    pub image: u64,
    /// `VkImageView` of exactly the accessed subresources (textures).
    pub image_view: u64,
    /// The `VkImageLayout` the image is in while the node runs (textures).
    pub layout: u32,
    /// The accessed subresources (textures).
    pub range: RpslSubresourceRange,
    /// `VkBuffer` (buffers).
    pub buffer: u64,
    /// Byte offset of the view (buffers).
    pub offset: u64,
    /// Byte size of the view (buffers).
    pub size: u64,
    /// The identity of the image view or buffer: the same every frame while it lives, never
    /// reused.
    pub id: u64,
}

/// The node's command buffer (`VkCommandBuffer`, inside the node's render pass when it has
/// one).
///
/// # Safety
/// `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_node_command_buffer(
    context: *const RpslNodeContext,
    out: *mut u64,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let out = unsafe { out_arg(out, "out") }?;
        handle::with(context, "context", |call| {
            *out = call.context().command_buffer.as_raw();
            Ok(())
        })
    })
}

/// The `VkDevice` the node records for.
///
/// # Safety
/// `out` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_node_device(
    context: *const RpslNodeContext,
    out: *mut u64,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let out = unsafe { out_arg(out, "out") }?;
        handle::with(context, "context", |call| {
            *out = call.context().device.handle().as_raw();
            Ok(())
        })
    })
}

/// The node's index in the frame (as recorded, from 0) and its declaration name (valid during
/// the callback). Either pointer may be null.
///
/// # Safety
/// `index` and `name` are null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_node_identity(
    context: *const RpslNodeContext,
    index: *mut u32,
    name: *mut *const c_char,
) -> RpslStatus {
    boundary(|| {
        handle::with(context, "context", |call| {
            // SAFETY: the caller's contract.
            if let Some(index) = unsafe { index.as_mut() } {
                *index = call.context().node.0;
            }
            // SAFETY: the caller's contract.
            if let Some(name) = unsafe { name.as_mut() } {
                *name = call.name;
            }
            Ok(())
        })
    })
}

/// How many view slots argument `name` holds: 1 for a `texture` or `buffer`, N for an array
/// of N views, the views of a struct; null views included.
///
/// # Safety
/// `name` is a NUL-terminated string; `count` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_node_view_count(
    context: *const RpslNodeContext,
    name: *const c_char,
    count: *mut u32,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let count = unsafe { out_arg(count, "count") }?;
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        handle::with(context, "context", |call| {
            let views = call.context().views_of(name).map_err(not_found)?;
            *count = views.len() as u32;
            Ok(())
        })
    })
}

/// The view argument `name`: a `texture` or `buffer` parameter, an element of an array of
/// views (`srcs[1]`) or a view in a struct (`gbuf.albedo`). `RPSL_STATUS_NOT_FOUND` when the
/// name is unknown, names no single view, or the view is null.
///
/// # Safety
/// `name` is a NUL-terminated string; `view` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn rpsl_node_view(
    context: *const RpslNodeContext,
    name: *const c_char,
    view: *mut RpslView,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let view = unsafe { out_arg(view, "view") }?;
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        handle::with(context, "context", |call| {
            let context = call.context();
            let bound = context.view(name).map_err(not_found)?;
            let access = context
                .graph
                .node_accesses(context.node)
                .iter()
                .find(|access| access.param == bound.param && access.slot == bound.slot);
            let format = access
                .and_then(|access| context.graph.resources.get(access.resource.index()))
                .map(|record| record.desc.format);
            let mut result = RpslView {
                kind: RpslViewKind::Buffer,
                param: u32::from(bound.param),
                slot: u32::from(bound.slot),
                format: format.map_or(0, |format| format.0),
                image: 0,
                image_view: 0,
                layout: 0,
                range: RpslSubresourceRange::default(),
                buffer: 0,
                offset: 0,
                size: 0,
                id: bound.id.0,
            };
            match &bound.resource {
                BoundResource::Texture(texture) => {
                    result.kind = RpslViewKind::Texture;
                    result.image = texture.image.as_raw();
                    result.image_view = texture.image_view.as_raw();
                    result.layout = texture.layout.as_raw() as u32;
                    result.range = RpslSubresourceRange {
                        aspect_mask: texture.range.aspect_mask.as_raw(),
                        base_mip_level: texture.range.base_mip_level,
                        level_count: texture.range.level_count,
                        base_array_layer: texture.range.base_array_layer,
                        layer_count: texture.range.layer_count,
                    };
                }
                BoundResource::Buffer(buffer) => {
                    result.buffer = buffer.buffer.as_raw();
                    result.offset = buffer.offset;
                    result.size = buffer.size;
                }
            }
            *view = result;
            Ok(())
        })
    })
}

/// The scalar leaves of a node parameter's value: kind and byte offset, in declaration order.
fn value_leaves(ty: &ValueType, offset: u32, out: &mut Vec<(ScalarType, u32)>) {
    match ty {
        ValueType::Scalar(scalar) => out.push((*scalar, offset)),
        ValueType::Vector(scalar, count) => {
            out.extend((0..*count).map(|i| (*scalar, offset + i * scalar.size())));
        }
        ValueType::Matrix(scalar, rows, cols) => {
            out.extend((0..rows * cols).map(|i| (*scalar, offset + i * scalar.size())));
        }
        ValueType::Array(elem, count) => {
            for i in 0..*count {
                value_leaves(elem, offset + i * elem.stride(), out);
            }
        }
        ValueType::Struct(def) => {
            for field in &def.fields {
                value_leaves(&field.value_type, offset + field.offset, out);
            }
        }
        ValueType::NodeHandle => out.push((ScalarType::U32, offset)),
        ValueType::Texture | ValueType::Buffer => {}
    }
}

fn c_kind(scalar: ScalarType) -> RpslScalarKind {
    match scalar {
        ScalarType::Bool => RpslScalarKind::Bool,
        ScalarType::I32 => RpslScalarKind::Int,
        ScalarType::U32 => RpslScalarKind::Uint,
        ScalarType::I64 => RpslScalarKind::Int64,
        ScalarType::U64 => RpslScalarKind::Uint64,
        ScalarType::F32 => RpslScalarKind::Float,
        ScalarType::F64 => RpslScalarKind::Double,
    }
}

/// Reads argument `name` (a parameter, `light.color`, `weights[2]`) of the running node after
/// checking its type against the C values asked for.
fn read_arg<const N: usize>(
    context: *const RpslNodeContext,
    name: &str,
    kind_of: TypedValues<'_>,
    mut store: impl FnMut(usize, [u8; N]),
) -> Outcome {
    handle::with(context, "context", |call| {
        let args = call.context().node_args();
        let field = args.field(name).map_err(not_found)?;
        let mut leaves = Vec::new();
        value_leaves(field.value_type, field.offset, &mut leaves);
        let kinds: Vec<RpslScalarKind> = leaves.iter().map(|(s, _)| c_kind(*s)).collect();
        check_kinds(
            &format!("argument `{name}` of node `{}`", call.node_name()),
            &field.value_type.to_string(),
            &kinds,
            kind_of,
        )?;
        for (index, (_, offset)) in leaves.iter().enumerate() {
            let start = *offset as usize;
            let Some(bytes) = args.bytes().get(start..start + N) else {
                return fail(
                    RpslStatus::Panic,
                    format!("argument `{name}` lies outside the node's argument block"),
                );
            };
            let mut value = [0u8; N];
            value.copy_from_slice(bytes);
            store(index, value);
        }
        Ok(())
    })
}

/// The body of the typed getters: checks the C arguments, then reads the values.
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` writes.
unsafe fn read_into_c<T: Copy + Default, const N: usize>(
    context: *const RpslNodeContext,
    name: *const c_char,
    values: *mut T,
    count: usize,
    typed: fn(&[T]) -> TypedValues<'_>,
    decode: fn([u8; N]) -> T,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let name = unsafe { str_arg(name, "name") }?;
        // SAFETY: the caller's contract.
        let values = unsafe { slice_out(values, count, "values") }?;
        let shape = vec![T::default(); values.len()];
        read_arg::<N>(context, name, typed(&shape), |index, bytes| {
            values[index] = decode(bytes);
        })
    })
}

/// Reads node argument `name` as `uint32_t`s (`uint`, `uint2`, ..., `node` handles).
/// `count` must be the number of values of the argument's type (1 for a scalar, 4 for a
/// `float4`, the flattened fields of a struct); another count or scalar type is
/// `RPSL_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` writes.
#[no_mangle]
pub unsafe extern "C" fn rpsl_node_arg_uints(
    context: *const RpslNodeContext,
    name: *const c_char,
    values: *mut u32,
    count: usize,
) -> RpslStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        read_into_c::<u32, 4>(
            context,
            name,
            values,
            count,
            |v| TypedValues::Uint(v),
            u32::from_le_bytes,
        )
    }
}

/// Reads node argument `name` as `int32_t`s (`int`, `int4`, ..., enums).
/// `count` must be the number of values of the argument's type (1 for a scalar, 4 for a
/// `float4`, the flattened fields of a struct); another count or scalar type is
/// `RPSL_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` writes.
#[no_mangle]
pub unsafe extern "C" fn rpsl_node_arg_ints(
    context: *const RpslNodeContext,
    name: *const c_char,
    values: *mut i32,
    count: usize,
) -> RpslStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        read_into_c::<i32, 4>(
            context,
            name,
            values,
            count,
            |v| TypedValues::Int(v),
            i32::from_le_bytes,
        )
    }
}

/// Reads node argument `name` as `float`s (`float`, `float4`, `float4x4` row by row, ...).
/// `count` must be the number of values of the argument's type (1 for a scalar, 4 for a
/// `float4`, the flattened fields of a struct); another count or scalar type is
/// `RPSL_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` writes.
#[no_mangle]
pub unsafe extern "C" fn rpsl_node_arg_floats(
    context: *const RpslNodeContext,
    name: *const c_char,
    values: *mut f32,
    count: usize,
) -> RpslStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        read_into_c::<f32, 4>(
            context,
            name,
            values,
            count,
            |v| TypedValues::Float(v),
            f32::from_le_bytes,
        )
    }
}

/// Reads node argument `name` as `bool`s.
/// `count` must be the number of values of the argument's type (1 for a scalar, 4 for a
/// `float4`, the flattened fields of a struct); another count or scalar type is
/// `RPSL_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` writes.
#[no_mangle]
pub unsafe extern "C" fn rpsl_node_arg_bools(
    context: *const RpslNodeContext,
    name: *const c_char,
    values: *mut bool,
    count: usize,
) -> RpslStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        read_into_c::<bool, 4>(
            context,
            name,
            values,
            count,
            |v| TypedValues::Bool(v),
            |bytes| u32::from_le_bytes(bytes) != 0,
        )
    }
}

/// Reads node argument `name` as `uint64_t`s.
/// `count` must be the number of values of the argument's type (1 for a scalar, 4 for a
/// `float4`, the flattened fields of a struct); another count or scalar type is
/// `RPSL_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` writes.
#[no_mangle]
pub unsafe extern "C" fn rpsl_node_arg_uint64s(
    context: *const RpslNodeContext,
    name: *const c_char,
    values: *mut u64,
    count: usize,
) -> RpslStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        read_into_c::<u64, 8>(
            context,
            name,
            values,
            count,
            |v| TypedValues::Uint64(v),
            u64::from_le_bytes,
        )
    }
}

/// Reads node argument `name` as `int64_t`s.
/// `count` must be the number of values of the argument's type (1 for a scalar, 4 for a
/// `float4`, the flattened fields of a struct); another count or scalar type is
/// `RPSL_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` writes.
#[no_mangle]
pub unsafe extern "C" fn rpsl_node_arg_int64s(
    context: *const RpslNodeContext,
    name: *const c_char,
    values: *mut i64,
    count: usize,
) -> RpslStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        read_into_c::<i64, 8>(
            context,
            name,
            values,
            count,
            |v| TypedValues::Int64(v),
            i64::from_le_bytes,
        )
    }
}

/// Reads node argument `name` as `double`s.
/// `count` must be the number of values of the argument's type (1 for a scalar, 4 for a
/// `float4`, the flattened fields of a struct); another count or scalar type is
/// `RPSL_STATUS_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `values` is valid for `count` writes.
#[no_mangle]
pub unsafe extern "C" fn rpsl_node_arg_doubles(
    context: *const RpslNodeContext,
    name: *const c_char,
    values: *mut f64,
    count: usize,
) -> RpslStatus {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        read_into_c::<f64, 8>(
            context,
            name,
            values,
            count,
            |v| TypedValues::Double(v),
            f64::from_le_bytes,
        )
    }
}

/// Sets the message the frame fails with when the callback then returns a status other than
/// `RPSL_STATUS_OK`.
///
/// # Safety
/// `message` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn rpsl_node_set_error(
    context: *mut RpslNodeContext,
    message: *const c_char,
) -> RpslStatus {
    boundary(|| {
        // SAFETY: the caller's contract.
        let message = unsafe { str_arg(message, "message") }?;
        handle::with(context, "context", |call| {
            call.error = Some(message.to_string());
            Ok(())
        })
    })
}
