// Written for rpsl's tests: textures loaded from a PNG and a DDS (half-float RGBA) file, read
// through a wrapping sampler.
//!MAGPIE EFFECT
//!VERSION 4

//!TEXTURE
//!SOURCE lut2x2.png
//!FORMAT R8G8B8A8_UNORM
Texture2D lut;

//!TEXTURE
//!SOURCE lut2x2_f16.dds
//!FORMAT R16G16B16A16_FLOAT
Texture2D lutHalf;

//!SAMPLER
//!FILTER POINT
//!ADDRESS WRAP
SamplerState sam;

//!PASS 1
//!STYLE PS
//!IN INPUT, lut, lutHalf
//!OUT OUTPUT

float4 Pass1(float2 pos) {
	const float2 tiled = pos * GetOutputSize() / 2;
	return INPUT.SampleLevel(sam, pos, 0) * lut.SampleLevel(sam, tiled, 0)
		* lutHalf.SampleLevel(sam, tiled, 0);
}
