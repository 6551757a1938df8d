// Written for rpsl's tests: a texture loaded from an image file and read through a wrapping
// sampler.
//!MAGPIE EFFECT
//!VERSION 4

//!TEXTURE
//!SOURCE lut2x2.png
//!FORMAT R8G8B8A8_UNORM
Texture2D lut;

//!SAMPLER
//!FILTER POINT
//!ADDRESS WRAP
SamplerState sam;

//!PASS 1
//!STYLE PS
//!IN INPUT, lut
//!OUT OUTPUT

float4 Pass1(float2 pos) {
	return INPUT.SampleLevel(sam, pos, 0) * lut.SampleLevel(sam, pos * GetOutputSize() / 2, 0);
}
