#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform texture2D src;
layout(binding = 1, rgba8) uniform writeonly image2D dst;
void main() { ivec2 at = ivec2(gl_GlobalInvocationID.xy); imageStore(dst, at, texelFetch(src, at, 0)); }
