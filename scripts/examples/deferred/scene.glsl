// The procedural scene shared by the G-buffer and lighting passes: a camera and a signed distance
// field of spheres and a box on a checkered floor, ray-marched per pixel.

struct SceneParams
{
    vec3 sunDirection;   // byte 0
    float exposure;      // byte 12
    uint lightCount;     // byte 16
};

const vec3 CameraPosition = vec3(0.0, 1.6, -5.0);
const float FarDistance = 30.0;

// The view ray through a pixel (uv in [0,1], y down), for an image of the given aspect ratio.
vec3 cameraRay(vec2 uv, float aspect)
{
    vec2 ndc = vec2(uv.x * 2.0 - 1.0, 1.0 - uv.y * 2.0);
    vec3 forward = normalize(vec3(0.0, -0.22, 1.0));
    vec3 right = normalize(cross(vec3(0.0, 1.0, 0.0), forward));
    vec3 up = cross(forward, right);
    return normalize(forward + 0.75 * (ndc.x * aspect * right + ndc.y * up));
}

float sdSphere(vec3 p, vec3 centre, float radius)
{
    return length(p - centre) - radius;
}

float sdBox(vec3 p, vec3 centre, vec3 half_size)
{
    vec3 q = abs(p - centre) - half_size;
    return length(max(q, 0.0)) + min(max(q.x, max(q.y, q.z)), 0.0);
}

// Distance to the scene and the id of the closest object (0 floor, 1-4 spheres, 5 box).
vec2 sceneDistance(vec3 p)
{
    vec2 best = vec2(p.y, 0.0);
    for (int i = 0; i < 4; i++)
    {
        float angle = float(i) * 1.5708 + 0.4;
        vec3 centre = vec3(2.2 * cos(angle), 0.7 + 0.25 * float(i), 2.0 + 2.2 * sin(angle));
        float d = sdSphere(p, centre, 0.7 + 0.1 * float(i));
        if (d < best.x)
            best = vec2(d, float(i + 1));
    }
    float box = sdBox(p, vec3(0.0, 0.6, 2.0), vec3(0.6));
    if (box < best.x)
        best = vec2(box, 5.0);
    return best;
}

vec3 sceneNormal(vec3 p)
{
    const vec2 e = vec2(0.001, 0.0);
    return normalize(vec3(sceneDistance(p + e.xyy).x - sceneDistance(p - e.xyy).x,
                          sceneDistance(p + e.yxy).x - sceneDistance(p - e.yxy).x,
                          sceneDistance(p + e.yyx).x - sceneDistance(p - e.yyx).x));
}
