// Reads the domain shader's outputs in the other order.
float4 main(float4 base : COLOR0, float4 tint : TINT) : SV_Target0
{
    return base + tint * 0.5;
}
