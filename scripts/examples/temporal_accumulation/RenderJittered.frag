// RenderJittered: a scene full of fine detail (a zone plate, thin rings and a checkerboard),
// shaded once per pixel at a sub-pixel jitter. Any single frame aliases; the history converges.
#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;                  // SV_Target0
layout(push_constant) uniform Params { vec2 jitter; } params;   // in pixels, [-0.5, 0.5)

void main()
{
    vec2 pixel = vec2(dFdx(uv.x), dFdy(uv.y));
    vec2 p = uv + params.jitter * pixel;
    vec2 c = p - vec2(0.5);
    float zone = 0.5 + 0.5 * cos(900.0 * dot(c, c));
    float rings = step(0.5, fract(length(c - vec2(0.2, 0.1)) * 60.0));
    float checker = mod(floor(p.x * 48.0) + floor(p.y * 27.0), 2.0);
    vec3 base = mix(vec3(0.9, 0.45, 0.1), vec3(0.1, 0.35, 0.9), checker);
    vec3 hdr = mix(base * rings, vec3(zone), smoothstep(0.25, 0.2, length(c)));
    color = vec4(hdr, 1.0);
}
