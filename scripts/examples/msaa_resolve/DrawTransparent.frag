// The colour the vertex shader chose.
#version 450
layout(location = 0) in vec3 tint;
layout(location = 0) out vec4 color;                  // SV_Target0

void main()
{
    color = vec4(tint, 1.0);
}
