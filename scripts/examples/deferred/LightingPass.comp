// LightingPass: shades every pixel from the G-buffer: the sun (direction from the script), a sky
// term, and lightCount coloured point lights circling the scene.
#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_samplerless_texture_functions : require
#include "scene.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(binding = 0) uniform texture2D gbuffer[3];     // albedo, normal, material (struct fields)
layout(binding = 1) uniform texture2D depth;
layout(binding = 2, rgba16f) uniform writeonly image2D lit;
layout(push_constant) uniform Params { SceneParams scene; } params;

void main()
{
    ivec2 at = ivec2(gl_GlobalInvocationID.xy);
    ivec2 size = imageSize(lit);
    if (at.x >= size.x || at.y >= size.y)
        return;
    vec2 uv = (vec2(at) + 0.5) / vec2(size);
    vec3 dir = cameraRay(uv, float(size.x) / float(size.y));
    float d = texelFetch(depth, at, 0).r;
    if (d >= 1.0)
    {
        vec3 sky = mix(vec3(0.55, 0.65, 0.85), vec3(0.15, 0.25, 0.55), clamp(dir.y * 2.0 + 0.5, 0.0, 1.0));
        imageStore(lit, at, vec4(sky, 1.0));
        return;
    }
    vec3 albedo = texelFetch(gbuffer[0], at, 0).rgb;
    vec3 n = normalize(texelFetch(gbuffer[1], at, 0).xyz);
    vec4 material = texelFetch(gbuffer[2], at, 0);
    vec3 p = CameraPosition + d * FarDistance * dir;
    vec3 sun = normalize(params.scene.sunDirection);
    vec3 h = normalize(sun - dir);
    float shininess = mix(64.0, 8.0, material.r);
    vec3 colour = albedo * (0.15 + 0.85 * max(dot(n, sun), 0.0) * vec3(1.0, 0.95, 0.85));
    colour += material.g * pow(max(dot(n, h), 0.0), shininess);
    for (uint i = 0u; i < params.scene.lightCount; i++)
    {
        float angle = float(i) * 2.39996;
        vec3 position = vec3(4.0 * cos(angle), 0.4 + 0.15 * float(i % 4u), 2.0 + 4.0 * sin(angle));
        vec3 tint = 0.5 + 0.5 * cos(vec3(0.0, 2.1, 4.2) + float(i));
        vec3 l = position - p;
        float falloff = 1.0 / (1.0 + dot(l, l) * 2.0);
        colour += albedo * tint * max(dot(n, normalize(l)), 0.0) * falloff;
    }
    imageStore(lit, at, vec4(colour, 1.0));
}
