// The array first, then the nested struct with its members swapped, then COLOR0.
struct Inner
{
    float2 uv : TEXCOORD0;
    float4 tint : tint;
};

float4 main(float3 extra[2] : EXTRA, Inner inner, float4 color : COLOR0) : SV_Target0
{
    return color + inner.tint + float4(inner.uv, extra[1].z - extra[0].z, 0.0);
}
