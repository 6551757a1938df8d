// The shader of frame.c's `Shade` node: binding 0 = dst (its view parameter); push constants =
// color.
#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0, rgba8) uniform writeonly image2D dst;
layout(push_constant) uniform Params { vec4 color; } params;
void main() {
    ivec2 at = ivec2(gl_GlobalInvocationID.xy);
    if (any(greaterThanEqual(at, imageSize(dst)))) return;
    imageStore(dst, at, params.color);
}
