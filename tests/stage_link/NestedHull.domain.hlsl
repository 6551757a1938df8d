// Control points and patch constants read in other orders than the hull shader writes them.
struct Inner
{
    float4 color : COLOR0;
};

struct DSIn
{
    float4 extra : TEXCOORD3;
    Inner inner;
    float4 position : POSITION;
};

struct Gain
{
    float4 gain : GAIN;
};

struct Patch
{
    Gain scale;
    float4 bias : BIAS;
    float edges[3] : SV_TessFactor;
    float inside : SV_InsideTessFactor;
};

struct DSOut
{
    float4 tint : TINT;
    float4 position : SV_Position;
    float4 base : COLOR0;
};

[domain("tri")]
DSOut main(Patch constants, float3 bary : SV_DomainLocation, const OutputPatch<DSIn, 3> patch)
{
    DSOut result;
    result.position = patch[0].position * bary.x + patch[1].position * bary.y
        + patch[2].position * bary.z;
    result.base = patch[0].inner.color + constants.bias;
    result.tint = patch[0].extra * constants.scale.gain;
    return result;
}
