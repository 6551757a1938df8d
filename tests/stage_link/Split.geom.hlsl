// Reads the vertex shader's outputs in another order (TEXCOORD0 first, the nested struct with
// its members swapped) and emits two quads: the left half from COLOR0 and TEXCOORD0, the right
// half from TEXCOORD3 and COLOR0.
struct Shade
{
    float4 extra : TEXCOORD3;
    float4 color : COLOR0;
};

struct GSIn
{
    float4 coord : TEXCOORD0;
    Shade shade;
    float4 position : SV_Position;
};

struct GSOut
{
    float4 tint : TINT;
    float4 position : SV_Position;
    float4 base : COLOR0;
};

void EmitQuad(float left, float4 base, float4 tint, inout TriangleStream<GSOut> stream)
{
    for (uint corner = 0; corner < 4; ++corner)
    {
        GSOut vertex;
        float x = left + float(corner & 1);
        float y = (corner & 2) != 0 ? 1.0 : -1.0;
        vertex.position = float4(x, y, 0.0, 1.0);
        vertex.base = base;
        vertex.tint = tint;
        stream.Append(vertex);
    }
    stream.RestartStrip();
}

[maxvertexcount(8)]
void main(triangle GSIn input[3], inout TriangleStream<GSOut> stream)
{
    GSIn first = input[0];
    EmitQuad(-1.0, first.shade.color + first.coord * 0.5, float4(0.0, 0.0, 0.0, 0.0), stream);
    EmitQuad(0.0, first.shade.extra + first.shade.color * 0.25, float4(0.0, 0.0, 0.0, 0.5), stream);
}
