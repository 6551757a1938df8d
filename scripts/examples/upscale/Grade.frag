// Grade: a vignette over the upscaled image, written to the backbuffer.
#version 450
#extension GL_EXT_samplerless_texture_functions : require
layout(location = 0) in vec2 uv;
layout(location = 0) out vec4 color;                  // SV_Target0
layout(binding = 0) uniform texture2D image;
layout(push_constant) uniform Params { float vignette; } params;

void main()
{
    ivec2 size = textureSize(image, 0);
    ivec2 p = clamp(ivec2(uv * vec2(size)), ivec2(0), size - 1);
    vec3 rgb = texelFetch(image, p, 0).rgb;
    float edge = length(uv - 0.5) * 1.4;
    color = vec4(rgb * (1.0 - params.vignette * edge * edge), 1.0);
}
