struct HSIn
{
    float4 position : POSITION;
    float4 color : COLOR0;
    float4 extra : TEXCOORD3;
};

struct Inner
{
    float4 color : COLOR0;
};

struct HSOut
{
    float4 position : POSITION;
    Inner inner;
    float4 extra : TEXCOORD3;
};

struct Patch
{
    float edges[3] : SV_TessFactor;
    float inside : SV_InsideTessFactor;
    float4 bias : BIAS;
    float4 gain : GAIN;
};

Patch PatchMain(InputPatch<HSIn, 3> patch)
{
    Patch result;
    result.edges[0] = 1.0;
    result.edges[1] = 1.0;
    result.edges[2] = 1.0;
    result.inside = 1.0;
    result.bias = 0.0;
    result.gain = 1.0;
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
    result.inner.color = patch[id].color;
    result.extra = patch[id].extra;
    return result;
}
