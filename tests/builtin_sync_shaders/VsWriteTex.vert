#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(location = 0) flat out vec4 value;
vec4 corner() {
    vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    return vec4(uv * 2.0 - 1.0, 0.0, 1.0);
}
layout(binding = 0, rgba8) uniform image2D dst;
void main() { gl_Position = corner(); imageStore(dst, ivec2(gl_VertexIndex, 0), vec4(0.25)); value = vec4(0.5); }
