#version 450
// Shade: a moving gradient over the render target (binding-free; `time` is the push constant).
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;
layout(push_constant) uniform Params { float time; } params;
void main() {
    float wave = 0.5 + 0.5 * sin(params.time + uv.x * 6.2831);
    color = vec4(uv.x, uv.y, wave, 1.0);
}
