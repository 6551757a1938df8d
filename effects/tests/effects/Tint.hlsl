// Written for rpsl's tests: a compute-style pass with blocks and thread groups that are not
// powers of two, and parameters of both types.
//!MAGPIE EFFECT
//!VERSION 4
//!SORT_NAME tint-cs

//!PARAMETER
//!LABEL Strength
//!DEFAULT 0.5
//!MIN 0
//!MAX 1
//!STEP 0.05
float strength;

//!PARAMETER
//!LABEL Channel
//!DEFAULT 2
//!MIN 0
//!MAX 2
//!STEP 1
int channel;

//!TEXTURE
Texture2D INPUT;

//!TEXTURE
//!WIDTH INPUT_WIDTH
//!HEIGHT INPUT_HEIGHT
Texture2D OUTPUT;

//!COMMON
// Global constants from a parameter and a size: D3D compilers evaluate them at run time.
static const float kLift = strength * 0.5;
static const float kTarget = 1.0 - kLift * GetOutputPt().x;

//!PASS 1
//!DESC Tint one channel
//!IN INPUT
//!OUT OUTPUT
//!BLOCK_SIZE 12, 10
//!NUM_THREADS 6, 5

void Pass1(uint2 blockStart, uint3 threadId) {
	// Each of the 6x5 threads covers a 2x2 square of the 12x10 block.
	const uint2 size = GetOutputSize();
	[unroll]
	for (uint i = 0; i < 4; ++i) {
		const uint2 pixel = blockStart + threadId.xy * 2 + uint2(i & 1, i >> 1);
		if (pixel.x >= size.x || pixel.y >= size.y) {
			continue;
		}
		float4 color = INPUT[pixel];
		color[channel] = lerp(color[channel], kTarget, strength);
		OUTPUT[pixel] = color;
	}
}
