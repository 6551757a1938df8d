// DrawScene: hard-edged shapes over a gradient (edges show what an upscaler does with them).
#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;                  // SV_Target0
layout(push_constant) uniform Params { float time; } params;

void main()
{
    vec3 background = mix(vec3(0.15, 0.22, 0.35), vec3(0.85, 0.75, 0.55), uv.y);
    vec3 result = background;
    for (int i = 0; i < 5; i++)
    {
        float phase = float(i) * 1.3 + params.time * 0.4;
        vec2 centre = vec2(0.2 + 0.15 * float(i), 0.5 + 0.25 * sin(phase));
        float radius = 0.08 + 0.03 * float(i % 2);
        vec3 tint = 0.5 + 0.5 * cos(vec3(0.0, 2.1, 4.2) + float(i) * 1.7);
        if (length((uv - centre) * vec2(1.7, 1.0)) < radius)
            result = tint;
    }
    // A thin diagonal stripe pattern in the lower third.
    if (uv.y > 0.75 && fract((uv.x + uv.y) * 12.0) < 0.5)
        result *= 0.6;
    color = vec4(result, 1.0);
}
