#version 450
layout(local_size_x = 16) in;
layout(binding = 0) buffer Dst { uint words[]; } dst;
void main() { uint i = gl_GlobalInvocationID.x; dst.words[i] = dst.words[i] + 1u; }
