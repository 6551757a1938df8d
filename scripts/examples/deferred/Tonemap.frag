// Tonemap: exposure, an ACES-like filmic curve, gamma for the 8-bit backbuffer.
#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;                  // SV_Target0
layout(binding = 0) uniform texture2D hdr;
layout(binding = 1) uniform sampler point_clamp;
layout(push_constant) uniform Params { float exposure; } params;

void main()
{
    vec3 x = texture(sampler2D(hdr, point_clamp), uv).rgb * params.exposure;
    vec3 mapped = clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
    color = vec4(pow(mapped, vec3(1.0 / 2.2)), 1.0);
}
