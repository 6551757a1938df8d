// Control points in: the vertex shader's outputs in another order, in a nested struct. Patch
// constants: a nested struct.
struct Shade
{
    float4 extra : TEXCOORD3;
    float4 color : COLOR0;
};

struct HSIn
{
    Shade shade;
    float4 position : POSITION;
};

// Per-control-point outputs stay flat: glslang 12 writes a nested struct's members of a hull
// shader's output to the wrong control point (rpsl rejects it, see NestedHull.hull.hlsl).
struct HSOut
{
    float4 position : POSITION;
    float4 color : COLOR0;
    float4 extra : TEXCOORD3;
};

struct Gain
{
    float4 gain : GAIN;
};

struct Patch
{
    float edges[3] : SV_TessFactor;
    float inside : SV_InsideTessFactor;
    float4 bias : BIAS;
    Gain scale;
};

Patch PatchMain(InputPatch<HSIn, 3> patch)
{
    Patch result;
    result.edges[0] = 2.0;
    result.edges[1] = 2.0;
    result.edges[2] = 2.0;
    result.inside = 2.0;
    result.bias = float4(0.0, 0.5, 0.0, 0.0);
    result.scale.gain = float4(0.0, 0.0, 1.0, 0.0);
    return result;
}

[domain("tri")]
[partitioning("integer")]
[outputtopology("triangle_cw")]
[outputcontrolpoints(3)]
[patchconstantfunc("PatchMain")]
HSOut main(InputPatch<HSIn, 3> patch, uint id : SV_OutputControlPointID)
{
    HSOut result;
    result.position = patch[id].position;
    result.color = patch[id].shade.color;
    result.extra = patch[id].shade.extra;
    return result;
}
