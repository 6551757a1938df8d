#version 450
layout(location = 0) out vec4 color;
layout(binding = 0) readonly buffer Src { uint words[]; } src;
void main() { color = unpackUnorm4x8(src.words[uint(gl_FragCoord.x) % 16u]); }
