// Composite: scene plus bloom, tonemapped (Reinhard on luminance) and gamma-encoded for the
// 8-bit backbuffer.
#version 450
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;                  // SV_Target0
layout(binding = 0) uniform texture2D scene;
layout(binding = 1) uniform texture2D bloom;
layout(binding = 2) uniform sampler linear_clamp;
layout(push_constant) uniform Params { float intensity; } params;

void main()
{
    vec3 hdr = texture(sampler2D(scene, linear_clamp), uv).rgb
             + 0.15 * params.intensity * texture(sampler2D(bloom, linear_clamp), uv).rgb; // the chain sums ~6 levels
    float luminance = dot(hdr, vec3(0.2126, 0.7152, 0.0722));
    vec3 mapped = hdr / (1.0 + luminance);
    color = vec4(pow(clamp(mapped, 0.0, 1.0), vec3(1.0 / 2.2)), 1.0);
}
