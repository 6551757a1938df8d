// Tiles src over the render target (shared by the caching tests).
#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 result;
layout(binding = 0) uniform sampler2D src;
void main() {
    ivec2 size = textureSize(src, 0);
    result = texelFetch(src, ivec2(gl_FragCoord.xy) % size, 0);
}
