float4 main(float4 color : COLOR0,
            float2 extra : texcoord1) : SV_Target0
{
    return color + extra.xyxy;
}
