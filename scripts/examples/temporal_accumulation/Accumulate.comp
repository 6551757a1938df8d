// Accumulate: history = lerp(previous history, current frame, blend). On the first frame blend
// is 1, so the undefined history slice is never read into the result.
#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0, rgba16f) uniform writeonly image2D history;
layout(binding = 1) uniform texture2D previous;
layout(binding = 2) uniform texture2D current;
layout(push_constant) uniform Params { float blend; } params;

void main()
{
    ivec2 at = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(history);
    if (at.x >= size.x || at.y >= size.y)
        return;
    vec3 now = texelFetch(current, at, 0).rgb;
    vec3 before = params.blend >= 1.0 ? now : texelFetch(previous, at, 0).rgb;
    imageStore(history, at, vec4(mix(before, now, params.blend), 1.0));
}
