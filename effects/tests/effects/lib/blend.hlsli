// Written for rpsl's tests; included by Mrt.hlsl from its COMMON block.
MF3 Blend(MF3 a, MF3 b, MF t) {
	return lerp(a, b, t);
}
