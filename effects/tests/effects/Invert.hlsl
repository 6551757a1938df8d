// Written for rpsl's tests: the smallest pixel-shader-style effect.
//!MAGPIE EFFECT
//!VERSION 4

#include "StubDefs.hlsli"

//!TEXTURE
Texture2D INPUT;

//!SAMPLER
//!FILTER POINT
SamplerState sam;

//!PASS 1
//!STYLE PS
//!IN INPUT
//!OUT OUTPUT

float4 Pass1(float2 pos) {
	float4 color = INPUT.SampleLevel(sam, pos, 0);
	return float4(1 - color.rgb, color.a);
}
