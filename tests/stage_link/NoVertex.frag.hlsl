// Without a vertex shader only TEXCOORD0 (the built-in triangle's uv) is written.
float4 main(float2 uv : TEXCOORD0, float4 color : COLOR0) : SV_Target0
{
    return float4(uv, 0.0, 1.0) * color;
}
