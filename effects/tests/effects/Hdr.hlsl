// Written for rpsl's tests: an OUTPUT with a float format (an rpsl extension of the format),
// writing values outside 0..1 that are exact in half precision.
//!MAGPIE EFFECT
//!VERSION 4

//!TEXTURE
Texture2D INPUT;

//!TEXTURE
//!FORMAT R16G16B16A16_FLOAT
Texture2D OUTPUT;

//!PASS 1
//!STYLE PS
//!IN INPUT
//!OUT OUTPUT

float4 Pass1(float2 pos) {
	const uint2 p = uint2(pos * GetOutputSize());
	const float4 c = INPUT.Load(int3(p, 0));
	return float4(round(c.r * 255) / 64, -round(c.g * 255) / 128, p.x + p.y * 0.5, 1.5);
}
