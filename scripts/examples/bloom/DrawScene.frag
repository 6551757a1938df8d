// DrawScene: an HDR scene of glowing orbs drifting over a dim gradient. Values above 1 are what
// the bloom picks up.
#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;                  // SV_Target0
layout(push_constant) uniform Params { float time; } params;

void main()
{
    vec3 sky = mix(vec3(0.02, 0.03, 0.06), vec3(0.10, 0.06, 0.12), uv.y);
    vec3 hdr = sky;
    for (int i = 0; i < 7; i++)
    {
        float phase = float(i) * 0.897 + params.time * (0.3 + 0.05 * float(i));
        vec2 centre = vec2(0.5 + 0.35 * cos(phase), 0.5 + 0.3 * sin(phase * 1.3));
        float radius = 0.03 + 0.015 * float(i % 3);
        vec2 d = (uv - centre) * vec2(1.6, 1.0);
        float dist = length(d);
        vec3 tint = 0.5 + 0.5 * cos(vec3(0.0, 2.1, 4.2) + float(i));
        hdr += tint * 6.0 * smoothstep(radius, radius * 0.7, dist);  // the hot core
        hdr += tint * 0.002 / (dist * dist + 0.002);                 // its soft halo
    }
    color = vec4(hdr, 1.0);
}
