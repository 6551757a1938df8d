//! Buffer clears on Vulkan with the value packed in the view's format (fills where the pattern
//! repeats every 4 bytes, pattern copies otherwise, ranges of any offset and size), read back
//! byte-exactly through `copy_buffer_to_texture` into RGBA8 `out` textures; and buffers past
//! 4 GiB (rpsl.h's 64-bit size): recorded and compiled on the null backend, and on the device
//! either run or refused with the device limit they pass. Skips without a Vulkan device unless
//! `RPSL_REQUIRE_VULKAN=1`.

mod run_vulkan_support;

use run_vulkan_support::{rpsl, scratch, scratch_dir, validated_4x4_outputs, vulkan_available};

/// Runs `main` of `body` (one `out texture` per case, `r0`, `r1`, ...: 64 bytes each as a 4x4
/// RGBA8 texture) under validation and returns the 64 bytes of each case's buffer.
fn cleared_bytes(name: &str, cases: &[&str]) -> Vec<Vec<u8>> {
    let params: Vec<String> = (0..cases.len())
        .map(|i| format!("out texture r{i}"))
        .collect();
    let mut body = String::new();
    for (i, case) in cases.iter().enumerate() {
        body.push_str(&format!(
            "    buffer b{i} = create_buffer(64);\n\
             {}\n\
             r{i} = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);\n\
             copy_buffer_to_texture(r{i}, uint3(0, 0, 0), b{i}, 0, 16, uint3(4, 4, 1), uint3(0, 0, 0), uint3(4, 4, 1));\n",
            case.replace("$B", &format!("b{i}"))
        ));
    }
    let text = format!("export void main({})\n{{\n{body}}}\n", params.join(", "));
    validated_4x4_outputs(name, &text, cases.len())
}

/// `pattern` repeated over 64 bytes.
fn repeated(pattern: &[u8]) -> Vec<u8> {
    pattern.iter().copied().cycle().take(64).collect()
}

#[test]
fn buffer_clears_pack_the_value_in_the_view_format() {
    if !vulkan_available() {
        return;
    }
    let bytes = cleared_bytes(
        "formats",
        &[
            // 8-byte pattern: halves 1.0, -2.0, 0.5, 0.0.
            "clear($B.format(RPS_FORMAT_R16G16B16A16_FLOAT), float4(1, -2, 0.5, 0));",
            // No format: the four words repeat (16 bytes).
            "clear($B, uint4(1, 2, 3, 0x04030201));",
            // 12-byte pattern over 64 bytes (5 whole elements and 4 bytes of a sixth).
            "clear($B.format(RPS_FORMAT_R32G32B32_FLOAT), float4(1, 2, -1, 9));",
            // A fill: 4-byte pattern.
            "clear($B.format(RPS_FORMAT_R8G8B8A8_UNORM), float4(1, 0.5, 0, 0.25));",
            // clear_buffer with float bits, a 2-byte pattern.
            "clear_buffer($B.format(RPS_FORMAT_R16_FLOAT), RPS_CLEAR_UAV_FLOAT, asuint(float4(0.5, 0, 0, 0)));",
            // Packed 10:10:10:2.
            "clear($B.format(RPS_FORMAT_R10G10B10A2_UNORM), float4(1, 0, 1, 0.333));",
            // A range at an odd offset and of an odd size inside a cleared buffer.
            "clear($B, uint4(0x01010101, 0x01010101, 0x01010101, 0x01010101));\n    \
             clear(create_buffer_view($B, 5, 7).format(RPS_FORMAT_R8_UINT), uint4(9, 0, 0, 0));",
            // uint4 into a float format: the low bits of each component.
            "clear($B.format(RPS_FORMAT_R16G16_FLOAT), uint4(0x12345678, 0xabcd, 7, 7));",
        ],
    );
    assert_eq!(
        bytes[0],
        repeated(&[0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38, 0x00, 0x00])
    );
    assert_eq!(
        bytes[1],
        repeated(&[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 1, 2, 3, 4])
    );
    let twelve: Vec<u8> = [1.0f32, 2.0, -1.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    assert_eq!(bytes[2], repeated(&twelve));
    assert_eq!(bytes[3], repeated(&[255, 128, 0, 64]));
    assert_eq!(bytes[4], repeated(&[0x00, 0x38]));
    assert_eq!(bytes[5], repeated(&0x7ff0_03ffu32.to_le_bytes()));
    let mut odd = vec![1u8; 64];
    odd[5..12].fill(9);
    assert_eq!(bytes[6], odd);
    assert_eq!(bytes[7], repeated(&[0x78, 0x56, 0xcd, 0xab]));
}

#[test]
fn a_buffer_clear_of_a_format_without_a_packing_fails_with_its_name() {
    if !vulkan_available() {
        return;
    }
    // A float value has no one packing in a typeless format: the backend says so.
    let script = scratch(
        "typeless.rpsl",
        "export void main()\n{\n    buffer b = create_buffer(64);\n    \
         clear(b.format(RPS_FORMAT_R32_TYPELESS), float4(1, 1, 1, 1));\n}\n",
    );
    let output = rpsl(&["run", script.to_str().unwrap(), "--no-cull"]);
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "error: vulkan: node 0 (`clear`): a float clear of a buffer view of format R32_TYPELESS \
         is ambiguous (typeless): clear it with a uint4 or view it with a typed format\n"
    );
    // A format no clear can write is refused at the call already, on every backend.
    let script = scratch(
        "shared_exponent.rpsl",
        "export void main()\n{\n    buffer b = create_buffer(64);\n    \
         clear(b.format(RPS_FORMAT_R9G9B9E5_SHAREDEXP), float4(1, 1, 1, 1));\n}\n",
    );
    for backend in ["null", "vulkan"] {
        let output = rpsl(&[
            "run",
            script.to_str().unwrap(),
            "--no-cull",
            "--backend",
            backend,
        ]);
        assert_eq!(output.status.code(), Some(3), "{backend}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            stderr.lines().next().unwrap(),
            format!(
                "{}:4:5: error: clear: argument `dst`: a render target or colour clear needs an \
                 uncompressed colour format; view format R9G9B9E5_SHAREDEXP is not one",
                script.display()
            ),
            "{backend}"
        );
    }
}

/// A 5 GiB + 16 byte buffer: rpsl.h's `Width` holds the low and `Height` the high 32 bits.
const BIG_BUFFER: &str = "export void main(out texture r)\n{\n    \
    buffer big = create_buffer(0x140000010);\n    \
    clear(create_buffer_view(big, 0x140000000, 16), uint4(1, 2, 3, 4));\n    \
    r = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 1);\n    \
    copy_buffer_to_texture(r, uint3(0, 0, 0), big, 0x140000000, 16, uint3(4, 1, 1), uint3(0, 0, 0), uint3(4, 1, 1));\n}\n";

#[test]
fn buffers_past_4_gib_record_and_compile_on_the_null_backend() {
    let script = scratch("big_null.rpsl", BIG_BUFFER);
    let output = rpsl(&[
        "run",
        script.to_str().unwrap(),
        "--backend",
        "null",
        "--dump",
        "-",
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let dump = String::from_utf8_lossy(&output.stdout);
    assert!(
        dump.contains(
            "{\"id\":0,\"name\":\"big\",\"kind\":\"buffer\",\"format\":\"UNKNOWN\",\"width\":5368709136,"
        ),
        "{dump}"
    );
    // Placed in the transient heap at its size rounded up to 64 KiB.
    assert!(
        dump.contains("\"placement\":{\"offset\":0,\"size\":5368774656}"),
        "{dump}"
    );
    assert!(dump.contains("\"bytes\":[5368709120,16]"), "{dump}");
}

#[test]
fn buffers_past_4_gib_run_or_name_the_device_limit() {
    if !vulkan_available() {
        return;
    }
    let backend = rpsl_vulkan::VulkanBackend::new(rpsl_vulkan::VulkanOptions::default())
        .expect("the device opens");
    let limits = backend.size_limits();
    drop(backend);
    let size = 0x1_4000_0010u64;
    let script = scratch("big_vulkan.rpsl", BIG_BUFFER);
    let dir = scratch_dir().join("big");
    let output = rpsl(&[
        "run",
        script.to_str().unwrap(),
        "--validate",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let refused = [
        ("maxBufferSize", limits.max_buffer_size),
        ("maxMemoryAllocationSize", limits.max_memory_allocation_size),
    ]
    .into_iter()
    .find(|&(_, value)| size > value);
    match refused {
        Some((limit, value)) => {
            assert_eq!(output.status.code(), Some(3), "{stderr}");
            assert_eq!(
                stderr,
                format!(
                    "error: vulkan: unsupported: buffer `big` of {size} bytes exceeds the device's {limit} ({value} bytes)\n"
                )
            );
        }
        None => {
            assert_eq!(output.status.code(), Some(0), "{stderr}");
            let (_, _, bytes) = rpsl_vulkan::read_png(&dir.join("r.png")).unwrap();
            assert_eq!(
                bytes,
                [1u8, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0].to_vec()
            );
        }
    }
}
