//!MAGPIE EFFECT
//!VERSION 4
// Written for rpsl's examples: a 2x upscale in two passes, bilinear into a half-float
// intermediate texture, then an unsharp mask (strength `sharpness`) into OUTPUT.

//!PARAMETER
//!LABEL Sharpness
//!DEFAULT 0.5
//!MIN 0
//!MAX 2
//!STEP 0.05
float sharpness;

//!TEXTURE
Texture2D INPUT;

//!TEXTURE
//!WIDTH INPUT_WIDTH * 2
//!HEIGHT INPUT_HEIGHT * 2
Texture2D OUTPUT;

//!TEXTURE
//!WIDTH INPUT_WIDTH * 2
//!HEIGHT INPUT_HEIGHT * 2
//!FORMAT R16G16B16A16_FLOAT
Texture2D upscaled;

//!SAMPLER
//!FILTER LINEAR
SamplerState linearSampler;

//!PASS 1
//!DESC Bilinear 2x
//!STYLE PS
//!IN INPUT
//!OUT upscaled

float4 Pass1(float2 pos) {
	return INPUT.SampleLevel(linearSampler, pos, 0);
}

//!PASS 2
//!DESC Unsharp mask
//!STYLE PS
//!IN upscaled
//!OUT OUTPUT

float3 At(int2 p) {
	const int2 last = int2(GetOutputSize()) - 1;
	return upscaled.Load(int3(clamp(p, int2(0, 0), last), 0)).rgb;
}

float4 Pass2(float2 pos) {
	const int2 p = int2(pos * GetOutputSize());
	const float3 centre = At(p);
	const float3 around = At(p + int2(1, 0)) + At(p - int2(1, 0)) + At(p + int2(0, 1)) + At(p - int2(0, 1));
	return float4(saturate(centre + sharpness * (centre - around * 0.25)), 1);
}
