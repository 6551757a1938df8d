// Sharpen (async compute): an unsharp mask over the accumulated history, written as 8-bit colour.
#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0, rgba8) uniform writeonly image2D dst;
layout(binding = 1) uniform texture2D src;
layout(push_constant) uniform Params { float amount; } params;

vec3 at(ivec2 p, ivec2 size)
{
    return texelFetch(src, clamp(p, ivec2(0), size - 1), 0).rgb;
}

void main()
{
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(dst);
    if (p.x >= size.x || p.y >= size.y)
        return;
    vec3 centre = at(p, size);
    vec3 around = at(p + ivec2(1, 0), size) + at(p - ivec2(1, 0), size)
                + at(p + ivec2(0, 1), size) + at(p - ivec2(0, 1), size);
    vec3 sharp = centre + params.amount * (4.0 * centre - around);
    imageStore(dst, p, vec4(clamp(sharp, 0.0, 1.0), 1.0));
}
