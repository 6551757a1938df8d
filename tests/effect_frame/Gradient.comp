// Pixel (x, y) = (9 x, 17 y, 40 + 3 x + 2 y, 255) / 255: exact in 8-bit UNORM up to 26x14.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0, rgba8) uniform writeonly image2D dst;

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(dst);
    if (p.x >= size.x || p.y >= size.y)
        return;
    imageStore(dst, p, vec4(9 * p.x, 17 * p.y, 40 + 3 * p.x + 2 * p.y, 255) / 255.0);
}
