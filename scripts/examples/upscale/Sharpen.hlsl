//!MAGPIE EFFECT
//!VERSION 4
// Written for rpsl's examples: a contrast-adaptive sharpener in compute style (each group
// of 8x8 threads covers a 16x16 block, four pixels per thread), the second link of the
// upscale + sharpen chain of README.md and BENCHMARKS.md (`rpsl effect Upscale.hlsl --effect
// Sharpen.hlsl ...`).

//!PARAMETER
//!LABEL Sharpness
//!DEFAULT 0.4
//!MIN 0
//!MAX 1
//!STEP 0.05
float sharpness;

//!TEXTURE
Texture2D INPUT;

//!TEXTURE
//!WIDTH INPUT_WIDTH
//!HEIGHT INPUT_HEIGHT
Texture2D OUTPUT;

//!PASS 1
//!DESC Contrast-adaptive sharpen
//!IN INPUT
//!OUT OUTPUT
//!BLOCK_SIZE 16
//!NUM_THREADS 8, 8

float3 At(int2 p, int2 last) {
	return INPUT.Load(int3(clamp(p, int2(0, 0), last), 0)).rgb;
}

void Sharpen(int2 p, int2 last) {
	const float3 centre = At(p, last);
	const float3 north = At(p + int2(0, -1), last);
	const float3 south = At(p + int2(0, 1), last);
	const float3 west = At(p + int2(-1, 0), last);
	const float3 east = At(p + int2(1, 0), last);
	const float3 lo = min(centre, min(min(north, south), min(west, east)));
	const float3 hi = max(centre, max(max(north, south), max(west, east)));
	// Less sharpening where the neighbourhood already spans the whole range.
	const float3 amount = sqrt(saturate(min(lo, 1 - hi) / max(hi, 1e-4)));
	const float3 weight = -amount * lerp(0.125, 0.2, sharpness);
	const float3 sharp = (centre + (north + south + west + east) * weight) / (1 + 4 * weight);
	OUTPUT[p] = float4(saturate(sharp), 1);
}

void Pass1(uint2 blockStart, uint3 threadId) {
	const int2 last = int2(GetInputSize()) - 1;
	const int2 origin = int2(blockStart + threadId.xy * 2);
	[unroll]
	for (uint i = 0; i < 4; ++i) {
		const int2 p = origin + int2(i & 1, i >> 1);
		if (p.x <= last.x && p.y <= last.y) {
			Sharpen(p, last);
		}
	}
}
