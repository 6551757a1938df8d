// Downsample: one mip of the bloom chain from the level above (or the scene), as the average of
// four bilinear taps (a 4x4 box).
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0, rgba16f) uniform writeonly image2D dst;
layout(binding = 1) uniform texture2D src;
layout(binding = 2) uniform sampler linear_clamp;
layout(push_constant) uniform Params { vec2 invSrcSize; } params;

void main()
{
    ivec2 at = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(dst);
    if (at.x >= size.x || at.y >= size.y)
        return;
    vec2 uv = (vec2(at) + 0.5) / vec2(size);
    vec2 o = params.invSrcSize;
    vec3 sum = texture(sampler2D(src, linear_clamp), uv + vec2(-o.x, -o.y)).rgb
             + texture(sampler2D(src, linear_clamp), uv + vec2( o.x, -o.y)).rgb
             + texture(sampler2D(src, linear_clamp), uv + vec2(-o.x,  o.y)).rgb
             + texture(sampler2D(src, linear_clamp), uv + vec2( o.x,  o.y)).rgb;
    imageStore(dst, at, vec4(sum * 0.25, 1.0));
}
