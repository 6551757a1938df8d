#version 450
layout(location = 0) out vec4 color;
layout(binding = 0, rgba8) uniform image2D dst;
void main() { imageStore(dst, ivec2(gl_FragCoord.xy), vec4(0.75)); color = vec4(1.0); }
