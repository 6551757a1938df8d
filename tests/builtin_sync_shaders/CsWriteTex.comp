#version 450
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0, rgba8) uniform image2D dst;
void main() { ivec2 at = ivec2(gl_GlobalInvocationID.xy); imageStore(dst, at, imageLoad(dst, at) + vec4(0.125)); }
