// DrawOpaque: a fan of thin spokes at different depths, one triangle per spoke. Their long
// sloped edges are what 4x MSAA smooths.
#version 450
layout(location = 0) out vec3 tint;

void main()
{
    int spoke = gl_VertexIndex / 3;
    int corner = gl_VertexIndex % 3;
    float angle = float(spoke) * 0.4487989;           // 14 spokes around the circle
    vec2 dir = vec2(cos(angle), sin(angle));
    vec2 side = vec2(-dir.y, dir.x);
    vec2 p = corner == 0 ? dir * 0.08
           : corner == 1 ? dir * 0.92 + side * 0.07
                         : dir * 0.92 - side * 0.07;
    gl_Position = vec4(p, 0.15 + 0.7 * fract(float(spoke) * 0.37), 1.0);
    tint = 0.55 + 0.45 * cos(vec3(0.0, 2.1, 4.2) + float(spoke) * 0.9);
}
