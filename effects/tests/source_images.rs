//! `//!SOURCE` textures load from PNG, BMP, JPEG and DDS files with their exact texels and
//! formats; unsupported files fail with errors naming the file.

use std::path::{Path, PathBuf};

use ddsfile::{AlphaMode, D3D10ResourceDimension, Dds, DxgiFormat, NewDxgiParams};
use rpsl_effects::{load_source_image, SourceImage};
use rpsl_runtime::Format;

fn test_effects() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/effects")
}

fn load(path: &Path) -> SourceImage {
    load_source_image(path).unwrap_or_else(|error| panic!("{error}"))
}

fn error_of(path: &Path) -> String {
    load_source_image(path).unwrap_err().to_string()
}

fn write_dds(path: &Path, format: DxgiFormat, width: u32, height: u32, fill: u8) {
    let mut dds = Dds::new_dxgi(NewDxgiParams {
        height,
        width,
        depth: None,
        format,
        mipmap_levels: Some(2),
        array_layers: None,
        caps2: None,
        is_cubemap: false,
        resource_dimension: D3D10ResourceDimension::Texture2D,
        alpha_mode: AlphaMode::Straight,
    })
    .unwrap();
    dds.get_mut_data(0).unwrap().fill(fill);
    let mut file = std::fs::File::create(path).unwrap();
    dds.write(&mut file).unwrap();
}

#[test]
fn png_loads_as_rgba8() {
    let image = load(&test_effects().join("lut2x2.png"));
    assert_eq!((image.width, image.height), (2, 2));
    assert_eq!(image.format, Format::R8G8B8A8_UNORM);
    assert_eq!(
        image.data,
        [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 255]
    );
}

#[test]
fn half_float_dds_keeps_its_format_and_texels() {
    let path = test_effects().join("lut2x2_f16.dds");
    let image = load(&path);
    assert_eq!((image.width, image.height), (2, 2));
    assert_eq!(Some(image.format), Format::from_name("R16G16B16A16_FLOAT"));
    let file = std::fs::read(&path).unwrap();
    assert_eq!(image.data, file[file.len() - 32..]);
    let first: Vec<u16> = image.data[..8]
        .chunks(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .collect();
    assert_eq!(first, [0x0000, 0x3400, 0x3800, 0x3c00]);
}

#[test]
fn bmp_and_jpeg_load_as_rgba8() {
    let folder = tempfile::tempdir().unwrap();
    let pixels: Vec<u8> = (0..4 * 3 * 3).map(|i| (i * 7) as u8).collect();
    let bmp = folder.path().join("pattern.bmp");
    image::save_buffer(&bmp, &pixels, 4, 3, image::ExtendedColorType::Rgb8).unwrap();
    let image = load(&bmp);
    assert_eq!(
        (image.width, image.height, image.format),
        (4, 3, Format::R8G8B8A8_UNORM)
    );
    let expected: Vec<u8> = pixels
        .chunks(3)
        .flat_map(|rgb| [rgb[0], rgb[1], rgb[2], 255])
        .collect();
    assert_eq!(image.data, expected);

    // A flat grey JPEG decodes to that grey exactly.
    let jpeg = folder.path().join("grey.jpg");
    image::save_buffer(
        &jpeg,
        &[128u8; 16 * 8 * 3],
        16,
        8,
        image::ExtendedColorType::Rgb8,
    )
    .unwrap();
    let image = load(&jpeg);
    assert_eq!(
        (image.width, image.height, image.format),
        (16, 8, Format::R8G8B8A8_UNORM)
    );
    assert_eq!(image.data, [128, 128, 128, 255].repeat(16 * 8));
}

#[test]
fn sixteen_bit_png_loads_as_rgba16() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("deep.png");
    let texels: Vec<u16> = vec![0, 1000, 65535, 65535, 300, 40000, 2, 7];
    let bytes: Vec<u8> = texels.iter().flat_map(|v| v.to_ne_bytes()).collect();
    image::save_buffer(&path, &bytes, 2, 1, image::ExtendedColorType::Rgba16).unwrap();
    let image = load(&path);
    assert_eq!(Some(image.format), Format::from_name("R16G16B16A16_UNORM"));
    let loaded: Vec<u16> = image
        .data
        .chunks(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .collect();
    assert_eq!(loaded, texels);
}

#[test]
fn block_compressed_dds_keeps_mip0_blocks() {
    let folder = tempfile::tempdir().unwrap();
    let bc1 = folder.path().join("bc1.dds");
    write_dds(&bc1, DxgiFormat::BC1_UNorm, 6, 5, 0xab);
    let image = load(&bc1);
    assert_eq!((image.width, image.height), (6, 5));
    assert_eq!(Some(image.format), Format::from_name("BC1_UNORM"));
    // 2x2 blocks of 8 bytes; the second mip is left out.
    assert_eq!(image.data, vec![0xab; 32]);

    let bc7 = folder.path().join("bc7.dds");
    write_dds(&bc7, DxgiFormat::BC7_UNorm, 4, 4, 0x11);
    let image = load(&bc7);
    assert_eq!(Some(image.format), Format::from_name("BC7_UNORM"));
    assert_eq!(image.data, vec![0x11; 16]);

    let rgba32 = folder.path().join("float.dds");
    write_dds(&rgba32, DxgiFormat::R32G32B32A32_Float, 3, 1, 0);
    let image = load(&rgba32);
    assert_eq!(Some(image.format), Format::from_name("R32G32B32A32_FLOAT"));
    assert_eq!(image.data.len(), 48);
}

#[test]
fn unsupported_files_fail_naming_the_file() {
    let folder = tempfile::tempdir().unwrap();
    let packed = folder.path().join("packed.dds");
    write_dds(&packed, DxgiFormat::R10G10B10A2_UNorm, 2, 2, 0);
    assert_eq!(
        error_of(&packed),
        format!(
            "{}: DDS textures of R10G10B10A2_UNorm are not supported (supported: RGBA8, BGRA8, \
             RGBA16F, RGBA16, RGBA32F, RG16F, RG32F, RG8, R16F, R32F, R8 and BC1 to BC7)",
            packed.display()
        )
    );

    let text = folder.path().join("notes.png");
    std::fs::write(&text, "not a picture").unwrap();
    assert_eq!(
        error_of(&text),
        format!(
            "{}: not an image file this program reads (PNG, BMP, JPEG, OpenEXR or DDS)",
            text.display()
        )
    );

    let broken = folder.path().join("broken.dds");
    std::fs::write(&broken, b"DDS \x01\x02").unwrap();
    assert!(
        error_of(&broken).starts_with(&format!("{}: not a readable DDS file: ", broken.display()))
    );

    let missing = folder.path().join("missing.bmp");
    assert!(error_of(&missing).starts_with(&format!("{}: cannot read: ", missing.display())));
}

#[test]
fn luminance_dds_loads_as_r8() {
    // A 4x2 L8 DDS: the LUMINANCE flag, 8 bits, red mask 0xff.
    let mut bytes = Vec::new();
    let words: [u32; 31] = [
        124, 0x1007, 2, 4, 4, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0x20000, 0, 8, 0xff, 0, 0,
        0, 0x1000, 0, 0, 0, 0,
    ];
    bytes.extend(b"DDS ");
    for word in words {
        bytes.extend(word.to_le_bytes());
    }
    bytes.extend([0, 32, 64, 96, 128, 160, 192, 255]);
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("search.dds");
    std::fs::write(&path, bytes).unwrap();
    let image = load(&path);
    assert_eq!((image.width, image.height), (4, 2));
    assert_eq!(Some(image.format), Format::from_name("R8_UNORM"));
    assert_eq!(image.data, [0, 32, 64, 96, 128, 160, 192, 255]);
}
