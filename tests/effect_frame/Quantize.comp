// Keeps the high six bits of each colour channel (a node after the effects, reading their output).
#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform texture2D src;
layout(binding = 1, rgba8) uniform writeonly image2D dst;

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(dst);
    if (p.x >= size.x || p.y >= size.y)
        return;
    uvec4 value = uvec4(round(texelFetch(src, p, 0) * 255.0));
    imageStore(dst, p, vec4(value & uvec4(0xFC, 0xFC, 0xFC, 0xFF)) / 255.0);
}
