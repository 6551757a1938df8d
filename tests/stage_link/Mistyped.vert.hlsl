struct VSOut
{
    float4 position : SV_Position;
    float4 color : COLOR0;
    float4 coord : TEXCOORD0;
};

VSOut main(uint id : SV_VertexID)
{
    VSOut result;
    float2 uv = float2((id << 1) & 2, id & 2);
    result.position = float4(uv * 2.0 - 1.0, 0.0, 1.0);
    result.color = float4(1.0, 0.0, 0.0, 1.0);
    result.coord = float4(0.0, 1.0, 0.0, 0.0);
    return result;
}
