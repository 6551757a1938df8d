#version 450
layout(local_size_x = 16) in;
layout(binding = 0) readonly buffer Src { uint words[]; } src;
layout(binding = 1) buffer Dst { uint words[]; } dst;
void main() { uint i = gl_GlobalInvocationID.x; dst.words[i] = src.words[i]; }
