// Reads the vertex shader's outputs in the other order: linked by semantic, not by position.
float4 main(float4 coord : TEXCOORD0, float4 color : COLOR0) : SV_Target0
{
    return color + coord * 0.5;
}
