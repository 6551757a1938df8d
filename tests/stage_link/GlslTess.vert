#version 450
layout(location = 0) out vec4 color;
void main()
{
    vec2 uv = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);
    gl_Position = vec4(uv * 2.0 - 1.0, 0.0, 1.0);
    color = vec4(0.0, 0.5, 1.0, 1.0);
}
