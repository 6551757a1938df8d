/* rpsl from C: a script from a string, typed and textual arguments, a node implemented by a C
 * callback and one by a shader, frames run on the Vulkan backend under validation, and pixels
 * read back.
 *
 *   cc -I capi/include capi/examples/frame.c -L target/debug -lrpsl_capi -l:libvulkan.so.1
 *   ./a.out OUT.png capi/examples/shaders
 *
 * Exits 0 when every step gives what it should, 1 otherwise. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpsl.h"

/* The few Vulkan declarations the callback uses, so the example builds without the Vulkan
 * headers (an engine includes <vulkan/vulkan.h> instead). */
typedef struct VkCommandBuffer_T *VkCommandBuffer;
typedef uint64_t VkImage;
typedef union {
    float float32[4];
    int32_t int32[4];
    uint32_t uint32[4];
} VkClearColorValue;
typedef struct {
    uint32_t aspectMask, baseMipLevel, levelCount, baseArrayLayer, layerCount;
} VkImageSubresourceRange;
extern void vkCmdClearColorImage(VkCommandBuffer, VkImage, uint32_t layout,
                                 const VkClearColorValue *, uint32_t,
                                 const VkImageSubresourceRange *);

static const char *SCRIPT =
    "struct Paint { float4 color; uint scale; };\n"
    "graphics node Fill([writeonly(clear)] texture target, Paint paint);\n"
    "compute node Shade([readwrite(cs)] texture dst, float4 color);\n"
    "export void main(texture backbuffer, float3 tint, uint scale) {\n"
    "    texture shaded = create_tex2d(RPS_FORMAT_R8G8B8A8_UNORM, 4, 4);\n"
    "    Shade(shaded, float4(0, 0.6, 1, 1));\n"
    "    Paint paint;\n"
    "    paint.color = float4(tint * (scale * 0.25), 1);\n"
    "    paint.scale = scale;\n"
    "    Fill(backbuffer, paint);\n"
    "}\n";

/* What the callback saw, for main to check. */
typedef struct {
    int calls;
    uint32_t scale;
    uint32_t layout;
    uint32_t view_kind;
    char wrong_type[160];
} FillState;

/* Clears the node's `target` view to its `color` argument. */
static int32_t fill(RpslNodeContext *context, void *user_data) {
    FillState *state = user_data;
    uint64_t command_buffer = 0;
    RpslView view;
    float color[4];
    if (rpsl_node_command_buffer(context, &command_buffer) != RPSL_STATUS_OK ||
        rpsl_node_view(context, "target", &view) != RPSL_STATUS_OK ||
        rpsl_node_arg_floats(context, "paint.color", color, 4) != RPSL_STATUS_OK ||
        rpsl_node_arg_uints(context, "paint.scale", &state->scale, 1) != RPSL_STATUS_OK) {
        rpsl_node_set_error(context, rpsl_last_error());
        return RPSL_STATUS_CALLBACK;
    }
    VkClearColorValue value;
    memcpy(value.float32, color, sizeof color);
    VkImageSubresourceRange range = {view.range.aspect_mask, view.range.base_mip_level,
                                     view.range.level_count, view.range.base_array_layer,
                                     view.range.layer_count};
    vkCmdClearColorImage((VkCommandBuffer)(uintptr_t)command_buffer, (VkImage)view.image,
                         view.layout, &value, 1, &range);
    /* Asking for the wrong type is an error, not a misread. */
    uint32_t as_uints[4];
    RpslStatus wrong = rpsl_node_arg_uints(context, "paint.color", as_uints, 4);
    snprintf(state->wrong_type, sizeof state->wrong_type, "%s: %s", rpsl_status_name(wrong),
             rpsl_last_error());
    state->calls += 1;
    state->layout = view.layout;
    state->view_kind = view.kind;
    return RPSL_STATUS_OK;
}

/* A callback that refuses, with a message. */
static int32_t refuse(RpslNodeContext *context, void *user_data) {
    (void)user_data;
    rpsl_node_set_error(context, "the C node refuses this frame");
    return RPSL_STATUS_CALLBACK;
}

/* Stops with the last error when `status` is not RPSL_STATUS_OK. */
static void check(RpslStatus status, const char *what) {
    if (status != RPSL_STATUS_OK) {
        printf("%s failed: %s: %s\n", what, rpsl_status_name(status), rpsl_last_error());
        exit(1);
    }
}

/* Reads texture `name` and prints its first and last pixels; returns its first pixel as
 * 0xRRGGBBAA. */
static uint32_t print_pixels(RpslVulkan *vulkan, const char *name) {
    uint32_t width = 0, height = 0;
    size_t bytes = 0;
    check(rpsl_vulkan_read_rgba8(vulkan, name, &width, &height, NULL, 0, &bytes), "pixel size");
    uint8_t *pixels = malloc(bytes);
    check(rpsl_vulkan_read_rgba8(vulkan, name, NULL, NULL, pixels, bytes, NULL), "pixels");
    const uint8_t *last = pixels + bytes - 4;
    printf("%s %ux%u: first %u %u %u %u, last %u %u %u %u\n", name, width, height, pixels[0],
           pixels[1], pixels[2], pixels[3], last[0], last[1], last[2], last[3]);
    uint32_t first = (uint32_t)pixels[0] << 24 | (uint32_t)pixels[1] << 16 |
                     (uint32_t)pixels[2] << 8 | pixels[3];
    free(pixels);
    return first;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        printf("usage: frame OUT.png SHADER_DIR\n");
        return 1;
    }
    if (rpsl_version() != RPSL_VERSION) {
        printf("header and library versions differ\n");
        return 1;
    }
    RpslProgram *program = NULL;
    check(rpsl_program_from_source("frame.rpsl", SCRIPT, NULL, &program), "program");

    size_t params = 0;
    check(rpsl_program_param_count(program, NULL, &params), "param count");
    for (size_t i = 0; i < params; i++) {
        RpslParamInfo info;
        check(rpsl_program_param_info(program, NULL, i, &info), "param info");
        printf("param %s: %s, %u value(s)\n", info.name, info.type_name, info.value_count);
    }

    RpslSessionOptions options;
    check(rpsl_session_options_default(&options), "session options");
    options.mode = RPSL_MODE_INTERP;
    RpslSession *session = NULL;
    check(rpsl_session_create(program, NULL, &options, &session), "session");

    RpslTextureDesc backbuffer = {28 /* RPS_FORMAT_R8G8B8A8_UNORM */, 4, 4};
    check(rpsl_session_set_arg_texture(session, "backbuffer", &backbuffer), "backbuffer");
    const float tint[3] = {1.0f, 0.2f, 0.0f};
    check(rpsl_session_set_arg_floats(session, "tint", tint, 3), "tint");
    check(rpsl_session_set_arg(session, "scale", "3"), "scale");
    check(rpsl_session_keep_resource(session, "shaded"), "keep");

    RpslVulkanOptions vulkan_options;
    check(rpsl_vulkan_options_default(&vulkan_options), "vulkan options");
    vulkan_options.validate = true;
    RpslVulkan *vulkan = NULL;
    check(rpsl_vulkan_create(&vulkan_options, &vulkan), "vulkan");
    FillState state = {0, 0, 0, 0, ""};
    check(rpsl_vulkan_bind_node(vulkan, "Fill", fill, &state), "bind");
    uint32_t bound = 0;
    check(rpsl_vulkan_bind_shader_nodes(vulkan, program, argv[2], &bound), "shader nodes");
    printf("shader nodes bound: %u\n", bound);
    /* The session keeps what it needs of the program. */
    check(rpsl_program_destroy(program), "program destroy");

    RpslFrameInfo info;
    for (int frame = 0; frame < 3; frame++) {
        check(rpsl_session_run_frame(session, &info), "run frame");
        check(rpsl_vulkan_execute(vulkan, session), "execute");
    }
    printf("frame %llu: %u node(s), %u resource(s), %u scheduled, %u culled\n",
           (unsigned long long)info.frame_index, info.node_count, info.resource_count,
           info.scheduled_count, info.culled_count);
    uint32_t order[4];
    size_t count = 0;
    check(rpsl_session_frame_order(session, order, 4, &count), "order");
    printf("order:");
    for (size_t i = 0; i < count; i++) {
        char name[32];
        check(rpsl_session_node_name(session, order[i], name, sizeof name, NULL), "node name");
        printf(" %s", name);
    }
    printf("\n");
    printf("callback: %d call(s), scale %u, layout %u, view kind %u\n", state.calls,
           state.scale, state.layout, state.view_kind);
    printf("callback, wrong type: %s\n", state.wrong_type);

    size_t json_size = 0;
    check(rpsl_session_frame_json(session, NULL, 0, &json_size), "json size");
    char *json = malloc(json_size);
    check(rpsl_session_frame_json(session, json, json_size, NULL), "json");
    printf("json: %s\n", strstr(json, "\"name\":\"Fill\"") ? "names Fill" : "no Fill");
    free(json);

    int right = print_pixels(vulkan, "backbuffer") == 0xBF2600FFu &&
                print_pixels(vulkan, "shaded") == 0x0099FFFFu;
    check(rpsl_vulkan_write_png(vulkan, "backbuffer", argv[1]), "png");

    /* A callback that fails fails the frame with its message; the session goes on. */
    check(rpsl_vulkan_bind_node(vulkan, "Fill", refuse, NULL), "rebind");
    check(rpsl_session_run_frame(session, &info), "run frame");
    RpslStatus status = rpsl_vulkan_execute(vulkan, session);
    printf("refusing callback: %s: %s\n", rpsl_status_name(status), rpsl_last_error());

    check(rpsl_vulkan_destroy(vulkan), "vulkan destroy");
    check(rpsl_session_destroy(session), "session destroy");
    printf(right ? "pixels ok\n" : "pixels WRONG\n");
    return right ? 0 : 1;
}
