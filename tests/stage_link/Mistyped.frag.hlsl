float4 main(float4 coord : TEXCOORD0,
            int4 color : Color) : SV_Target0
{
    return coord + float4(color);
}
