struct Shade
{
    float4 color : COLOR0;
    float4 extra : TEXCOORD3;
};

struct Pair
{
    float4 parts[2] : PART;
};

struct GSIn
{
    float4 position : SV_Position;
    Shade shade;
    Pair pair;
};

struct GSOut
{
    float4 position : SV_Position;
    float4 base : COLOR0;
    float4 tint : TINT;
};

[maxvertexcount(3)]
void main(triangle GSIn input[3], inout TriangleStream<GSOut> stream)
{
    for (uint i = 0; i < 3; ++i)
    {
        GSOut vertex;
        vertex.position = input[i].position;
        vertex.base = input[i].shade.color;
        vertex.tint = input[i].pair.parts[1];
        stream.Append(vertex);
    }
}
