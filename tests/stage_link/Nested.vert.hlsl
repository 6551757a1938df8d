struct Inner
{
    float4 tint : TINT;
    float2 uv : TEXCOORD0;
};

struct VSOut
{
    float4 position : SV_Position;
    float4 color : COLOR0;
    Inner inner;
    float3 extra[2] : EXTRA;
};

VSOut main(uint id : SV_VertexID)
{
    VSOut result;
    float2 uv = float2((id << 1) & 2, id & 2);
    result.position = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    result.color = float4(0.5, 0.0, 0.0, 1.0);
    result.inner.tint = float4(0.0, 0.25, 0.0, 0.0);
    result.inner.uv = float2(0.0, 0.0);
    result.extra[0] = float3(0.0, 0.0, 0.25);
    result.extra[1] = float3(0.0, 0.0, 0.5);
    return result;
}
