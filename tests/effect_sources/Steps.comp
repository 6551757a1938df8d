// Pixel (x, y) = (16 (x % 16), 16 (y % 16), 16 ((x + y) % 16), 255) / 255: multiples of 16, so
// that the test effect Lut's products with its lookup tables (quarters) stay whole numbers.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0, rgba8) uniform writeonly image2D dst;

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(dst);
    if (p.x >= size.x || p.y >= size.y)
        return;
    imageStore(dst, p, vec4(16 * (p.x % 16), 16 * (p.y % 16), 16 * ((p.x + p.y) % 16), 255) / 255.0);
}
