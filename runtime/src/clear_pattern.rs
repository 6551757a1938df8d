//! The bytes a buffer clear writes: rpsl.h's `clear(buffer, float4)`, `clear(buffer, uint4)` and
//! `clear_buffer(buffer, option, uint4)` packed in the format of the cleared view, as one
//! element that repeats over the view; and how a texture clear (`clear_texture`,
//! `clear_texture_regions`) writes its value ([`texture_clear`]), with the same packing.
//!
//! - A view without a format (`RPS_FORMAT_UNKNOWN`, raw bytes) repeats the four 32-bit words of
//!   the value (the bits of the floats for a float clear): a 16-byte pattern.
//! - A `uint4` clear copies the low bits of each component into the channel of the same index
//!   (`R` = x, `G` = y, ...), whatever the channel's type, as D3D12's
//!   `ClearUnorderedAccessViewUint` does.
//! - A `float4` clear converts each component to its channel: `FLOAT` channels round to nearest
//!   even (16-bit halves, the 11- and 10-bit unsigned floats of `R11G11B10_FLOAT`), `UNORM` and
//!   `SNORM` clamp and round (`UNORM_SRGB` encodes R, G and B with the sRGB curve first),
//!   `UINT`/`SINT` truncate toward zero and saturate to the channel's range; NaN becomes 0.
//! - Channels are packed from the lowest bit up in name order (DXGI order: `B5G6R5` keeps blue
//!   in bits 0..5); `X` channels are zero.
//!
//! ```
//! use rpsl_runtime::{buffer_clear_pattern, ClearValue, Format};
//!
//! let r16g16_float = Format::from_name("R16G16_FLOAT").unwrap();
//! let half = buffer_clear_pattern(r16g16_float, ClearValue::Float([1.0, -2.0, 0.0, 0.0]));
//! assert_eq!(half, Ok(vec![0x00, 0x3c, 0x00, 0xc0]));
//! let raw = buffer_clear_pattern(Format::UNKNOWN, ClearValue::Uint([1, 2, 3, 4])).unwrap();
//! assert_eq!(raw.len(), 16);
//! ```

use crate::format::Format;

/// The value of a buffer or texture clear.
#[derive(Copy, Clone, PartialEq, Debug)]
pub enum ClearValue {
    /// `float4`: converted to each channel's type.
    Float([f32; 4]),
    /// `uint4`: the low bits of each component.
    Uint([u32; 4]),
}

/// How a channel's bits are interpreted.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum ChannelType {
    Float,
    Unorm,
    UnormSrgb,
    Snorm,
    Uint,
    Sint,
    Typeless,
}

/// One channel: its index in the value (R 0, G 1, B 2, A 3; `None` for `X` padding) and width.
#[derive(Copy, Clone, Debug)]
struct Channel {
    component: Option<usize>,
    bits: u32,
}

/// Parses `R16G16B16A16_FLOAT`-style names into channels and their type.
fn layout(name: &str) -> Option<(Vec<Channel>, ChannelType)> {
    let (channels, kind) = name.split_once('_')?;
    let kind = match kind {
        "FLOAT" => ChannelType::Float,
        "UNORM" => ChannelType::Unorm,
        "UNORM_SRGB" => ChannelType::UnormSrgb,
        "SNORM" => ChannelType::Snorm,
        "UINT" => ChannelType::Uint,
        "SINT" => ChannelType::Sint,
        "TYPELESS" => ChannelType::Typeless,
        _ => return None,
    };
    let mut parsed = Vec::new();
    let mut rest = channels;
    while let Some(letter) = rest.chars().next() {
        let component = match letter {
            'R' => Some(0),
            'G' => Some(1),
            'B' => Some(2),
            'A' => Some(3),
            'X' => None,
            _ => return None,
        };
        rest = &rest[1..];
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        let bits: u32 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        if bits == 0 || bits > 32 {
            return None;
        }
        parsed.push(Channel { component, bits });
    }
    let total: u32 = parsed.iter().map(|c| c.bits).sum();
    (total.is_multiple_of(8) && !parsed.is_empty()).then_some((parsed, kind))
}

/// The repeating element of a buffer clear of a view of `format` with `value`, little-endian,
/// or why the format cannot be cleared (block-compressed, depth/stencil, shared-exponent and
/// other special formats, float clears of typeless formats).
pub fn buffer_clear_pattern(format: Format, value: ClearValue) -> Result<Vec<u8>, String> {
    if format == Format::UNKNOWN {
        let words = match value {
            ClearValue::Float(floats) => floats.map(f32::to_bits),
            ClearValue::Uint(words) => words,
        };
        return Ok(words.iter().flat_map(|w| w.to_le_bytes()).collect());
    }
    let (channels, kind) = clearable_layout(format, value, "buffer")?;
    Ok(pack(&channels, kind, value))
}

/// How a texture clear (`clear_texture`, `clear_texture_regions`) writes its value: the
/// commands a backend records follow from it.
#[derive(Clone, PartialEq, Debug)]
pub enum TextureClear {
    /// An integer format (`UINT`/`SINT`): the value of each channel (R, G, B, A) as the bits of
    /// a `uint32`/`int32` that fits the channel, so a clear through the format writes exactly
    /// it: a `uint4` keeps the low bits of each component (sign-extended from the channel's top
    /// bit for `SINT`), a `float4` is truncated toward zero and saturated.
    Integer([u32; 4]),
    /// A `float4` clear of a float, unorm, snorm or sRGB format: the device converts the value
    /// to the format (as a render-target clear or `ClearUnorderedAccessViewFloat` does).
    Float([f32; 4]),
    /// A `uint4` clear of a format that is not an integer format: one texel's bytes, the low
    /// bits of each component copied into its channel without conversion (D3D12's
    /// `ClearUnorderedAccessViewUint`), to be repeated over the texture.
    Texel(Vec<u8>),
}

/// How a texture view of `format` is cleared to `value`, or why it cannot be (depth/stencil
/// formats, which `clear_depth_stencil` and friends clear; block-compressed and other special
/// formats; a float clear of a typeless format).
///
/// ```
/// use rpsl_runtime::{texture_clear, ClearValue, Format, TextureClear};
///
/// let unorm = Format::from_name("R8G8B8A8_UNORM").unwrap();
/// let bits = texture_clear(unorm, ClearValue::Uint([1, 2, 3, 0x104])).unwrap();
/// assert_eq!(bits, TextureClear::Texel(vec![1, 2, 3, 4]));
/// let sint = Format::from_name("R8G8B8A8_SINT").unwrap();
/// let low_bits = texture_clear(sint, ClearValue::Uint([0x80, 0x7f, 0x1ff, 0])).unwrap();
/// assert_eq!(low_bits, TextureClear::Integer([-128i32 as u32, 127, -1i32 as u32, 0]));
/// ```
pub fn texture_clear(format: Format, value: ClearValue) -> Result<TextureClear, String> {
    if format.is_depth_stencil() {
        let name = format.name().unwrap_or("?");
        return Err(format!(
            "a texture view of format {name} cannot be cleared as a colour texture: clear its planes with clear_depth, clear_stencil or clear_depth_stencil_regions"
        ));
    }
    let (channels, kind) = clearable_layout(format, value, "texture")?;
    Ok(match (kind, value) {
        (ChannelType::Uint | ChannelType::Sint, _) => {
            let mut values = [0u32; 4];
            for channel in &channels {
                if let Some(component) = channel.component {
                    let bits = channel_bits(*channel, kind, value);
                    values[component] = if kind == ChannelType::Sint && channel.bits < 32 {
                        // Sign-extend the channel's bits to an int32.
                        let unused = 32 - channel.bits;
                        (((bits << unused) as i32) >> unused) as u32
                    } else {
                        bits
                    };
                }
            }
            TextureClear::Integer(values)
        }
        (_, ClearValue::Float(floats)) => TextureClear::Float(floats),
        (_, ClearValue::Uint(_)) => TextureClear::Texel(pack(&channels, kind, value)),
    })
}

/// `RPS_CLEAR_UAV_FLOAT` of a clear node's option (rpsl.h's `RPS_CLEAR_FLAGS`).
pub const CLEAR_UAV_FLOAT: u32 = 1 << 3;
/// `RPS_CLEAR_UAV_UINT` of a clear node's option.
pub const CLEAR_UAV_UINT: u32 = 1 << 4;

/// The value `clear_texture` and `clear_buffer` (`option`, `data`) clear a view of `format` to:
/// with `RPS_CLEAR_UAV_UINT` the words themselves (their low bits per channel), with
/// `RPS_CLEAR_UAV_FLOAT` the floats whose bits they are; with neither, rpsl.h's rule for the
/// data ("the bit representation of the floating point clear values" for a view of a
/// floating-point format), as [`texture_region_clear_value`] reads it.
///
/// ```
/// use rpsl_runtime::{option_clear_value, ClearValue, Format, CLEAR_UAV_UINT};
///
/// let unorm = Format::from_name("R8G8B8A8_UNORM").unwrap();
/// assert_eq!(option_clear_value(unorm, CLEAR_UAV_UINT, [1, 2, 3, 4]), ClearValue::Uint([1, 2, 3, 4]));
/// let half = 0.5f32.to_bits();
/// assert_eq!(option_clear_value(unorm, 0, [half; 4]), ClearValue::Float([0.5; 4]));
/// ```
pub fn option_clear_value(format: Format, option: u32, data: [u32; 4]) -> ClearValue {
    if option & CLEAR_UAV_UINT != 0 {
        ClearValue::Uint(data)
    } else if option & CLEAR_UAV_FLOAT != 0 {
        ClearValue::Float(data.map(f32::from_bits))
    } else {
        texture_region_clear_value(format, data)
    }
}

/// The value `clear_texture_regions` (which has no option: rpsl.h gives "the bit
/// representation of the floating point clear values" for a view of a floating-point format)
/// clears a view of `format` to, from its `data`: the bits of a `float4` for float, unorm,
/// snorm and sRGB formats, a `uint4` for integer and typeless formats (and formats without a
/// per-channel layout, which [`texture_clear`] refuses).
///
/// ```
/// use rpsl_runtime::{texture_region_clear_value, ClearValue, Format};
///
/// let unorm = Format::from_name("R8G8B8A8_UNORM").unwrap();
/// let one = 1.0f32.to_bits();
/// assert_eq!(
///     texture_region_clear_value(unorm, [one, 0, 0, one]),
///     ClearValue::Float([1.0, 0.0, 0.0, 1.0])
/// );
/// let uint = Format::from_name("R8G8B8A8_UINT").unwrap();
/// assert_eq!(texture_region_clear_value(uint, [1, 2, 3, 4]), ClearValue::Uint([1, 2, 3, 4]));
/// ```
pub fn texture_region_clear_value(format: Format, data: [u32; 4]) -> ClearValue {
    let floating = format.name().and_then(layout).is_some_and(|(_, kind)| {
        matches!(
            kind,
            ChannelType::Float | ChannelType::Unorm | ChannelType::UnormSrgb | ChannelType::Snorm
        )
    });
    if floating {
        ClearValue::Float(data.map(f32::from_bits))
    } else {
        ClearValue::Uint(data)
    }
}

/// The channels and type of `format`, or why a view of it (a `what`: "buffer" or "texture")
/// cannot be cleared to `value`.
fn clearable_layout(
    format: Format,
    value: ClearValue,
    what: &str,
) -> Result<(Vec<Channel>, ChannelType), String> {
    let name = format.name().unwrap_or("?");
    let refuse = || format!("a {what} view of format {name} cannot be cleared");
    let info = format.info().ok_or_else(refuse)?;
    if info.block_size > 1 || info.depth || info.stencil || info.plane_view || info.special {
        return Err(refuse());
    }
    let (channels, kind) = layout(name).ok_or_else(refuse)?;
    if kind == ChannelType::Typeless && matches!(value, ClearValue::Float(_)) {
        return Err(format!(
            "a float clear of a {what} view of format {name} is ambiguous (typeless): clear it with a uint4 or view it with a typed format"
        ));
    }
    Ok((channels, kind))
}

/// The bits `value` gives `channel` (of type `kind`), masked to the channel's width.
fn channel_bits(channel: Channel, kind: ChannelType, value: ClearValue) -> u32 {
    let Some(component) = channel.component else {
        return 0;
    };
    let bits = match value {
        ClearValue::Uint(words) => words[component],
        ClearValue::Float(floats) => {
            let srgb = kind == ChannelType::UnormSrgb && component < 3;
            convert_float(floats[component], kind, channel.bits, srgb)
        }
    };
    if channel.bits == 32 {
        bits
    } else {
        bits & ((1u32 << channel.bits) - 1)
    }
}

/// One element of `channels` holding `value`, packed from the lowest bit up, little-endian.
fn pack(channels: &[Channel], kind: ChannelType, value: ClearValue) -> Vec<u8> {
    let total_bits: u32 = channels.iter().map(|c| c.bits).sum();
    let mut bytes = vec![0u8; (total_bits / 8) as usize];
    let mut at = 0u32;
    for channel in channels {
        let mut bits = channel_bits(*channel, kind, value);
        for bit in at..at + channel.bits {
            if bits & 1 != 0 {
                bytes[(bit / 8) as usize] |= 1 << (bit % 8);
            }
            bits >>= 1;
        }
        at += channel.bits;
    }
    bytes
}

/// One float component converted to a channel of `bits` bits of type `kind`.
fn convert_float(value: f32, kind: ChannelType, bits: u32, srgb: bool) -> u32 {
    let value = if value.is_nan() { 0.0 } else { value };
    match kind {
        ChannelType::Float => match bits {
            32 => value.to_bits(),
            16 => small_float(value, 5, 10, true),
            11 => small_float(value, 5, 6, false),
            10 => small_float(value, 5, 5, false),
            _ => 0,
        },
        ChannelType::Unorm | ChannelType::UnormSrgb => {
            let max = ((1u64 << bits) - 1) as f64;
            let mut v = (value as f64).clamp(0.0, 1.0);
            if srgb {
                v = if v <= 0.0031308 {
                    v * 12.92
                } else {
                    1.055 * v.powf(1.0 / 2.4) - 0.055
                };
            }
            (v * max).round_ties_even() as u32
        }
        ChannelType::Snorm => {
            let max = ((1u64 << (bits - 1)) - 1) as f64;
            let v = ((value as f64).clamp(-1.0, 1.0) * max).round_ties_even() as i64;
            v as u32
        }
        ChannelType::Uint => {
            let max = ((1u64 << bits) - 1) as f64;
            (value as f64).trunc().clamp(0.0, max) as u32
        }
        ChannelType::Sint => {
            let max = ((1u64 << (bits - 1)) - 1) as f64;
            (value as f64).trunc().clamp(-max - 1.0, max) as i64 as u32
        }
        ChannelType::Typeless => 0,
    }
}

/// `value` as a float with `exponent` exponent bits and `mantissa` mantissa bits (and a sign bit
/// when `signed`), rounded to nearest even; out-of-range values become infinity, negative values
/// of unsigned formats 0.
fn small_float(value: f32, exponent: u32, mantissa: u32, signed: bool) -> u32 {
    let sign = if value.is_sign_negative() { 1u32 } else { 0 };
    if !signed && sign == 1 {
        return 0;
    }
    let sign_bit = if signed {
        sign << (exponent + mantissa)
    } else {
        0
    };
    let magnitude = value.abs();
    let max_exponent = (1u32 << exponent) - 1;
    if magnitude.is_infinite() {
        return sign_bit | max_exponent << mantissa;
    }
    let bias = (1i32 << (exponent - 1)) - 1;
    let bits = magnitude.to_bits();
    let f32_exponent = (bits >> 23) as i32 - 127;
    let f32_mantissa = (bits & 0x7f_ffff) | if bits >> 23 != 0 { 0x80_0000 } else { 0 };
    if f32_mantissa == 0 {
        return sign_bit;
    }
    // The value is f32_mantissa * 2^(f32_exponent - 23); in the target a normal number is
    // (1.m) * 2^e with e >= 1 - bias, a subnormal 0.m * 2^(1 - bias).
    let target_exponent = f32_exponent.max(1 - bias);
    // Shift so that the target's mantissa (with the hidden bit) is left.
    let shift = (23 - mantissa as i32) + (target_exponent - f32_exponent);
    let rounded = if shift >= 32 {
        0
    } else if shift <= 0 {
        f32_mantissa << (-shift) as u32
    } else {
        let shift = shift as u32;
        let kept = f32_mantissa >> shift;
        let rest = f32_mantissa & ((1 << shift) - 1);
        let half = 1 << (shift - 1);
        if rest > half || (rest == half && kept & 1 == 1) {
            kept + 1
        } else {
            kept
        }
    };
    // `rounded` has the hidden bit at bit `mantissa` for normal results; a carry moves it up.
    let (mut biased, mut mant) = if rounded >> mantissa == 0 {
        (0i32, rounded)
    } else {
        (target_exponent + bias, rounded & ((1 << mantissa) - 1))
    };
    if rounded >> (mantissa + 1) != 0 {
        biased += 1;
        mant = (rounded >> 1) & ((1 << mantissa) - 1);
    }
    if biased >= max_exponent as i32 {
        return sign_bit | max_exponent << mantissa;
    }
    sign_bit | (biased as u32) << mantissa | mant
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(name: &str, value: ClearValue) -> Result<Vec<u8>, String> {
        buffer_clear_pattern(Format::from_name(name).unwrap(), value)
    }

    #[test]
    fn halves_and_small_floats_round_to_nearest_even() {
        let half = |v: f32| small_float(v, 5, 10, true);
        assert_eq!(half(1.0), 0x3c00);
        assert_eq!(half(-2.0), 0xc000);
        assert_eq!(half(0.5), 0x3800);
        assert_eq!(half(65504.0), 0x7bff);
        assert_eq!(half(65520.0), 0x7c00);
        assert_eq!(half(1e-7), 0x0002);
        assert_eq!(half(5.960_464_5e-8), 0x0001);
        assert_eq!(half(1.000_488_3), 0x3c00);
        assert_eq!(half(1.000_976_6), 0x3c01);
        assert_eq!(half(f32::INFINITY), 0x7c00);
        assert_eq!(half(-0.0), 0x8000);
        // 11-bit: 5 exponent, 6 mantissa bits; 10-bit: 5 and 5.
        assert_eq!(small_float(1.0, 5, 6, false), 0x3c0);
        assert_eq!(small_float(1.0, 5, 5, false), 0x1e0);
        assert_eq!(small_float(-1.0, 5, 6, false), 0);
    }

    #[test]
    fn patterns_per_format() {
        let float = |v| ClearValue::Float(v);
        let uint = |v| ClearValue::Uint(v);
        assert_eq!(
            pattern("R32_UINT", uint([7, 8, 9, 10])),
            Ok(vec![7, 0, 0, 0])
        );
        assert_eq!(
            pattern("R8G8B8A8_UNORM", float([1.0, 0.5, 0.0, -3.0])),
            Ok(vec![255, 128, 0, 0])
        );
        assert_eq!(
            pattern("B8G8R8A8_UNORM", float([1.0, 0.0, 0.25, 1.0])),
            Ok(vec![64, 0, 255, 255])
        );
        assert_eq!(
            pattern("R8G8B8A8_UNORM_SRGB", float([0.5, 0.0, 1.0, 0.5])),
            Ok(vec![188, 0, 255, 128])
        );
        assert_eq!(
            pattern("R8G8_SNORM", float([-1.0, 0.5, 0.0, 0.0])),
            Ok(vec![0x81, 64])
        );
        assert_eq!(
            pattern("R16G16B16A16_SINT", float([-70000.0, 3.9, -3.9, 1.0])),
            Ok(vec![0x00, 0x80, 3, 0, 0xfd, 0xff, 1, 0])
        );
        assert_eq!(
            pattern("R32G32B32_FLOAT", float([1.0, 2.0, -1.0, 9.0])),
            Ok([1.0f32, 2.0, -1.0]
                .iter()
                .flat_map(|f| f.to_bits().to_le_bytes())
                .collect())
        );
        // R in bits 0..10, G 10..20, B 20..30, A 30..32.
        assert_eq!(
            pattern("R10G10B10A2_UINT", uint([0x3ff, 1, 2, 3])),
            Ok((0x3ffu32 | 1 << 10 | 2 << 20 | 3 << 30)
                .to_le_bytes()
                .to_vec())
        );
        // B in bits 0..5, G 5..11, R 11..16.
        assert_eq!(
            pattern("B5G6R5_UNORM", float([1.0, 0.0, 0.0, 0.0])),
            Ok(0xf800u16.to_le_bytes().to_vec())
        );
        assert_eq!(
            pattern("R11G11B10_FLOAT", float([1.0, 1.0, 1.0, 0.0])),
            Ok((0x3c0u32 | 0x3c0 << 11 | 0x1e0 << 22)
                .to_le_bytes()
                .to_vec())
        );
        assert_eq!(
            pattern("R16G16_TYPELESS", uint([0x12345, 6, 0, 0])),
            Ok(vec![0x45, 0x23, 6, 0])
        );
        assert_eq!(
            pattern("R16G16_TYPELESS", float([1.0, 0.0, 0.0, 0.0])),
            Err("a float clear of a buffer view of format R16G16_TYPELESS is ambiguous (typeless): clear it with a uint4 or view it with a typed format".to_string())
        );
        assert_eq!(
            pattern("BC1_UNORM", uint([0; 4])),
            Err("a buffer view of format BC1_UNORM cannot be cleared".to_string())
        );
        assert_eq!(
            pattern("R9G9B9E5_SHAREDEXP", uint([0; 4])),
            Err("a buffer view of format R9G9B9E5_SHAREDEXP cannot be cleared".to_string())
        );
        assert_eq!(
            buffer_clear_pattern(Format::UNKNOWN, float([1.0, 0.0, 0.0, 0.0])),
            Ok([1.0f32, 0.0, 0.0, 0.0]
                .iter()
                .flat_map(|f| f.to_bits().to_le_bytes())
                .collect())
        );
    }

    fn texture(name: &str, value: ClearValue) -> Result<TextureClear, String> {
        texture_clear(Format::from_name(name).unwrap(), value)
    }

    #[test]
    fn texture_clears_of_integer_formats_keep_the_low_bits_of_each_channel() {
        let uint = |v| ClearValue::Uint(v);
        assert_eq!(
            texture("R8G8B8A8_UINT", uint([0x1ff, 2, 0x300, 4])),
            Ok(TextureClear::Integer([0xff, 2, 0, 4]))
        );
        // SINT: the channel's bits sign-extended to an int32.
        assert_eq!(
            texture("R8G8B8A8_SINT", uint([0x80, 0x17f, 0xff, 0x100])),
            Ok(TextureClear::Integer([
                -128i32 as u32,
                127,
                -1i32 as u32,
                0
            ]))
        );
        assert_eq!(
            texture("R16G16_SINT", uint([0x8000, 0xffff_7fff, 9, 9])),
            Ok(TextureClear::Integer([-32768i32 as u32, 0x7fff, 0, 0]))
        );
        assert_eq!(
            texture("R32G32B32A32_SINT", uint([0x8000_0000, 1, 0xffff_ffff, 7])),
            Ok(TextureClear::Integer([0x8000_0000, 1, 0xffff_ffff, 7]))
        );
        // A float clear of an integer format truncates and saturates, as for buffers.
        assert_eq!(
            texture("R8G8B8A8_UINT", ClearValue::Float([300.0, 2.9, -1.0, 4.0])),
            Ok(TextureClear::Integer([255, 2, 0, 4]))
        );
        assert_eq!(
            texture("R16G16_SINT", ClearValue::Float([-70000.0, -3.9, 0.0, 0.0])),
            Ok(TextureClear::Integer([
                -32768i32 as u32,
                -3i32 as u32,
                0,
                0
            ]))
        );
    }

    #[test]
    fn uint_texture_clears_of_other_formats_are_texel_bytes() {
        let uint = |v| ClearValue::Uint(v);
        assert_eq!(
            texture("R8G8B8A8_UNORM", uint([1, 2, 3, 4])),
            Ok(TextureClear::Texel(vec![1, 2, 3, 4]))
        );
        assert_eq!(
            texture("R8G8B8A8_SNORM", uint([0x80, 0x80, 0x80, 0x80])),
            Ok(TextureClear::Texel(vec![0x80; 4]))
        );
        // B8G8R8A8: blue (z) is the first byte.
        assert_eq!(
            texture("B8G8R8A8_UNORM", uint([1, 2, 3, 4])),
            Ok(TextureClear::Texel(vec![3, 2, 1, 4]))
        );
        assert_eq!(
            texture("R32_FLOAT", uint([0x7fc0_1234, 5, 6, 7])),
            Ok(TextureClear::Texel(0x7fc0_1234u32.to_le_bytes().to_vec()))
        );
        assert_eq!(
            texture("R10G10B10A2_UNORM", uint([0x7ff, 1, 0x3ff, 6])),
            Ok(TextureClear::Texel(
                (0x3ffu32 | 1 << 10 | 0x3ff << 20 | 2 << 30)
                    .to_le_bytes()
                    .to_vec()
            ))
        );
        assert_eq!(
            texture("R16G16_TYPELESS", uint([0x12345, 6, 0, 0])),
            Ok(TextureClear::Texel(vec![0x45, 0x23, 6, 0]))
        );
        assert_eq!(
            texture("R8G8B8A8_UNORM", ClearValue::Float([1.0, 0.5, 0.0, 1.0])),
            Ok(TextureClear::Float([1.0, 0.5, 0.0, 1.0]))
        );
    }

    #[test]
    fn texture_clears_refuse_depth_special_and_ambiguous_formats() {
        assert_eq!(
            texture("D32_FLOAT", ClearValue::Float([1.0; 4])),
            Err("a texture view of format D32_FLOAT cannot be cleared as a colour texture: clear its planes with clear_depth, clear_stencil or clear_depth_stencil_regions".to_string())
        );
        assert_eq!(
            texture("BC1_UNORM", ClearValue::Uint([0; 4])),
            Err("a texture view of format BC1_UNORM cannot be cleared".to_string())
        );
        assert_eq!(
            texture("R8G8B8A8_TYPELESS", ClearValue::Float([0.0; 4])),
            Err("a float clear of a texture view of format R8G8B8A8_TYPELESS is ambiguous (typeless): clear it with a uint4 or view it with a typed format".to_string())
        );
    }
}
