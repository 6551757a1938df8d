#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(location = 0) flat out vec4 value;
vec4 corner() {
    vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    return vec4(uv * 2.0 - 1.0, 0.0, 1.0);
}
layout(binding = 0) uniform texture2D src;
void main() { gl_Position = corner(); value = texelFetch(src, ivec2(gl_VertexIndex, 0), 0); }
