// UpsampleAdd: a mip of the chain accumulates the 3x3 tent-filtered mip below it.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0, rgba16f) uniform image2D dst;
layout(binding = 1) uniform texture2D src;
layout(binding = 2) uniform sampler linear_clamp;
layout(push_constant) uniform Params { float radius; } params;

void main()
{
    ivec2 at = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(dst);
    if (at.x >= size.x || at.y >= size.y)
        return;
    vec2 uv = (vec2(at) + 0.5) / vec2(size);
    vec2 o = params.radius / vec2(size);
    vec3 blurred = vec3(0.0);
    for (int y = -1; y <= 1; y++)
        for (int x = -1; x <= 1; x++)
        {
            float w = (x == 0 ? 2.0 : 1.0) * (y == 0 ? 2.0 : 1.0) / 16.0;
            blurred += w * texture(sampler2D(src, linear_clamp), uv + vec2(x, y) * o).rgb;
        }
    vec4 current = imageLoad(dst, at);
    imageStore(dst, at, vec4(current.rgb + blurred, 1.0));
}
