#version 450
layout(location = 0) out vec4 color;
layout(binding = 0) buffer Dst { uint words[]; } dst;
void main() { dst.words[uint(gl_FragCoord.x) % 16u] = 0x80808080u; color = vec4(1.0); }
