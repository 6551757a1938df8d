// DrawTransparent: two large triangles at mid depth, tested against the opaque pass's depth
// (read-only), so spokes in front of them cut through.
#version 450
layout(location = 0) out vec3 tint;

void main()
{
    const vec2 corners[6] = vec2[](vec2(-0.9, -0.2), vec2(0.7, -0.8), vec2(0.2, 0.9),
                                   vec2(-0.6, 0.8), vec2(0.9, 0.6), vec2(-0.1, -0.9));
    gl_Position = vec4(corners[gl_VertexIndex % 6], 0.5, 1.0);
    tint = gl_VertexIndex < 3 ? vec3(0.95, 0.95, 0.85) : vec3(0.3, 0.9, 0.5);
}
