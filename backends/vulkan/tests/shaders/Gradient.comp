// Writes (16 x, 16 y, blue, 255) at texel (x, y) of dst (shared by the caching tests).
#version 450
layout(local_size_x = 4, local_size_y = 4) in;
layout(binding = 0, rgba8) uniform writeonly image2D dst;
layout(push_constant) uniform P { float blue; } p;
void main() {
    ivec2 at = ivec2(gl_GlobalInvocationID.xy);
    imageStore(dst, at, vec4(float(at.x * 16) / 255.0, float(at.y * 16) / 255.0, p.blue, 1.0));
}
