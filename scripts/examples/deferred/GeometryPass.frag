// GeometryPass: ray-marches the scene and writes the G-buffer (albedo, normal, material) and the
// hit distance as depth. Sky pixels keep the clear values (depth 1).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "scene.glsl"

layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 albedo;     // SV_Target0
layout(location = 1) out vec4 normal;     // SV_Target1
layout(location = 2) out vec4 material;   // SV_Target2
layout(push_constant) uniform Params { SceneParams scene; } params;

void main()
{
    float aspect = dFdy(uv.y) / dFdx(uv.x);
    vec3 dir = cameraRay(uv, aspect);
    float t = 0.0;
    vec2 hit = vec2(1.0, -1.0);
    for (int step = 0; step < 96 && t < FarDistance; step++)
    {
        hit = sceneDistance(CameraPosition + t * dir);
        if (hit.x < 0.001 * t)
            break;
        t += hit.x;
    }
    if (t >= FarDistance || hit.x >= 0.01 * t)
    {
        albedo = vec4(0.0);
        normal = vec4(0.0);
        material = vec4(0.0);
        gl_FragDepth = 1.0;
        return;
    }
    vec3 p = CameraPosition + t * dir;
    int id = int(hit.y);
    vec3 colour;
    if (id == 0)
        colour = mod(floor(p.x) + floor(p.z), 2.0) < 1.0 ? vec3(0.8) : vec3(0.25);
    else
        colour = 0.5 + 0.45 * cos(vec3(0.0, 2.1, 4.2) + float(id) * 1.7);
    albedo = vec4(colour, 1.0);
    normal = vec4(sceneNormal(p), 1.0);
    material = vec4(id == 5 ? 0.2 : 0.6, id == 0 ? 0.0 : 0.5, 0.0, 1.0); // roughness, specular
    gl_FragDepth = t / FarDistance;
}
