// Written for rpsl's tests: three passes, two render targets, samplers of every filter and
// address mode, MulAdd, an FP16 variant, an include and an output twice the input's size.
//!MAGPIE EFFECT
//!VERSION 4
//!USE MulAdd
//!CAPABILITY FP16

//!PARAMETER
//!LABEL Mix
//!DEFAULT 0
//!MIN 0
//!MAX 1
//!STEP 0.1
float mixAmount;

//!TEXTURE
Texture2D INPUT;

//!TEXTURE
//!WIDTH INPUT_WIDTH * 2
//!HEIGHT INPUT_HEIGHT * 2
Texture2D OUTPUT;

//!TEXTURE
//!WIDTH INPUT_WIDTH
//!HEIGHT INPUT_HEIGHT
//!FORMAT R16G16B16A16_FLOAT
Texture2D luma;

//!TEXTURE
//!WIDTH INPUT_WIDTH
//!HEIGHT INPUT_HEIGHT
//!FORMAT R8G8_UNORM
Texture2D chroma;

//!TEXTURE
//!WIDTH OUTPUT_WIDTH / 2 + 1
//!HEIGHT (OUTPUT_HEIGHT + 1) / 2
//!FORMAT R11G11B10_FLOAT
Texture2D detail;

//!SAMPLER
//!FILTER POINT
SamplerState pointClamp;

//!SAMPLER
//!FILTER LINEAR
//!ADDRESS WRAP
SamplerState linearWrap;

//!SAMPLER
//!FILTER POINT
//!ADDRESS WRAP
SamplerState pointWrap;

//!SAMPLER
//!FILTER LINEAR
//!ADDRESS CLAMP
SamplerState linearClamp;

//!COMMON
#include "lib/blend.hlsli"

static const MF3x3 TO_YUV = {
	0.299, -0.14713, 0.615,
	0.587, -0.28886, -0.51499,
	0.114, 0.436, -0.10001
};

//!PASS 1
//!DESC Split
//!STYLE PS
//!IN INPUT
//!OUT luma, chroma

// Every render target is an `out MF4`; chroma keeps the first two components.
void Pass1(float2 pos, out MF4 lumaOut, out MF4 chromaOut) {
	MF3 rgb = (MF3)INPUT.SampleLevel(pointClamp, pos, 0).rgb;
	MF3 yuv = MulAdd(rgb, TO_YUV, MF3(0, 0.5, 0.5));
	lumaOut = MF4(yuv.x, yuv.x, yuv.x, 1);
	chromaOut = MF4(yuv.yz, 0, 0);
}

//!PASS 2
//!DESC Detail
//!IN INPUT, luma
//!OUT detail
//!BLOCK_SIZE 8
//!NUM_THREADS 64

void Pass2(uint2 blockStart, uint3 threadId) {
	const uint2 pixel = blockStart + Rmp8x8(threadId.x);
	const float2 pos = (pixel + 0.5f) / float2(GetInputSize());
	const MF center = (MF)luma.SampleLevel(pointWrap, pos, 0).x;
	const MF around = (MF)luma.SampleLevel(linearWrap, pos + GetInputPt(), 0).x;
	detail[pixel] = float3(center - around, center, around);
}

//!PASS 3
//!DESC Merge
//!STYLE PS
//!IN INPUT, chroma, detail
//!OUT OUTPUT

float4 Pass3(float2 pos) {
	MF3 rgb = (MF3)INPUT.SampleLevel(linearClamp, pos, 0).rgb;
	MF2 uv = (MF2)chroma.SampleLevel(linearClamp, pos, 0);
	MF3 d = (MF3)detail.SampleLevel(pointClamp, pos * GetScale() / 2, 0);
	return float4(Blend(rgb, MF3(d.y, uv), (MF)mixAmount), 1);
}
