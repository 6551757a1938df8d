/* An engine in C running rpsl on its own Vulkan objects: its instance (validation with
 * synchronization validation, its own debug messenger), device and queue, an image standing in
 * for a swapchain image, a timeline semaphore and a fence. rpsl records the first frame (a C node
 * callback clears the image) and submits it, signalling what the engine asks; the engine
 * submits the second itself from command buffers rpsl recorded into. After each, the engine
 * waits on its fence and reads the image's pixels from its memory.
 *
 *   cc -I capi/include capi/examples/engine.c -L target/debug -lrpsl_capi -lvulkan
 *
 * Exits 0 when the pixels are right and validation said nothing, 1 otherwise. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vulkan/vulkan.h>

#include "rpsl.h"

static const char *SCRIPT =
    "struct Paint { float4 color; uint scale; };\n"
    "graphics node Fill([writeonly(clear)] texture target, Paint paint);\n"
    "export void main(texture backbuffer, float3 tint, uint scale) {\n"
    "    Paint paint;\n"
    "    paint.color = float4(tint * (scale * 0.25), 1);\n"
    "    paint.scale = scale;\n"
    "    Fill(backbuffer, paint);\n"
    "}\n";

static int validation_messages = 0;

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT *data, void *user_data) {
    (void)types;
    (void)user_data;
    if (severity & (VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT)) {
        printf("validation: %s\n", data->pMessage);
        validation_messages += 1;
    }
    return VK_FALSE;
}

/* Stops when a Vulkan call fails. */
static void vk_check(VkResult result, const char *what) {
    if (result != VK_SUCCESS) {
        printf("%s failed: VkResult %d\n", what, (int)result);
        exit(1);
    }
}

/* Stops with the last error when an rpsl call fails. */
static void check(RpslStatus status, const char *what) {
    if (status != RPSL_STATUS_OK) {
        printf("%s failed: %s: %s\n", what, rpsl_status_name(status), rpsl_last_error());
        exit(1);
    }
}

/* The Fill node: clears its `target` view to `paint.color`. */
static int32_t fill(RpslNodeContext *context, void *user_data) {
    (void)user_data;
    uint64_t command_buffer = 0;
    RpslView view;
    float color[4];
    if (rpsl_node_command_buffer(context, &command_buffer) != RPSL_STATUS_OK ||
        rpsl_node_view(context, "target", &view) != RPSL_STATUS_OK ||
        rpsl_node_arg_floats(context, "paint.color", color, 4) != RPSL_STATUS_OK) {
        rpsl_node_set_error(context, rpsl_last_error());
        return RPSL_STATUS_CALLBACK;
    }
    VkClearColorValue value;
    memcpy(value.float32, color, sizeof color);
    VkImageSubresourceRange range = {view.range.aspect_mask, view.range.base_mip_level,
                                     view.range.level_count, view.range.base_array_layer,
                                     view.range.layer_count};
    vkCmdClearColorImage((VkCommandBuffer)(uintptr_t)command_buffer, (VkImage)view.image,
                         (VkImageLayout)view.layout, &value, 1, &range);
    return RPSL_STATUS_OK;
}

/* The engine's side of a frame it submits itself: command buffers for rpsl to record into, and
 * its queue and fence. */
typedef struct {
    VkDevice device;
    VkCommandBuffer buffers[4];
    uint32_t used;
    uint32_t family;
    VkFence fence;
    uint32_t submitted;
} Submitter;

/* Hands rpsl the next command buffer of the engine's pool (there is one family here). */
static uint64_t give_command_buffer(uint32_t queue_family, void *user_data) {
    Submitter *submitter = user_data;
    if (queue_family != submitter->family || submitter->used == 4)
        return 0;
    return (uint64_t)(uintptr_t)submitter->buffers[submitter->used++];
}

/* The value the engine's timeline holds after waiting (at most 20 s) for `value`. A fence
 * only orders the batch's commands, not when another thread sees its semaphore signals, so
 * the engine waits on the timeline itself; a frame that never signals it reads lower. */
static uint64_t timeline_after_wait(VkDevice device, VkSemaphore timeline, uint64_t value) {
    VkSemaphoreWaitInfo wait = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                                .semaphoreCount = 1,
                                .pSemaphores = &timeline,
                                .pValues = &value};
    VkResult waited = vkWaitSemaphores(device, &wait, 20000000000ull);
    if (waited != VK_SUCCESS && waited != VK_TIMEOUT)
        vk_check(waited, "vkWaitSemaphores");
    uint64_t reached = 0;
    vk_check(vkGetSemaphoreCounterValue(device, timeline, &reached), "counter");
    return reached;
}

/* Submits one recorded batch to the engine's queue, its fence on the last. */
static int32_t submit_batch(const RpslBatch *batch, void *user_data) {
    Submitter *submitter = user_data;
    VkSemaphoreSubmitInfo waits[8], signals[8];
    if (batch->wait_count > 8 || batch->signal_count > 8)
        return 1;
    for (size_t i = 0; i < batch->wait_count; i++)
        waits[i] = (VkSemaphoreSubmitInfo){
            .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
            .semaphore = (VkSemaphore)(uintptr_t)batch->waits[i].semaphore,
            .value = batch->waits[i].value,
            .stageMask = batch->waits[i].stages,
        };
    for (size_t i = 0; i < batch->signal_count; i++)
        signals[i] = (VkSemaphoreSubmitInfo){
            .sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
            .semaphore = (VkSemaphore)(uintptr_t)batch->signals[i].semaphore,
            .value = batch->signals[i].value,
            .stageMask = batch->signals[i].stages,
        };
    VkCommandBufferSubmitInfo command_buffer = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
        .commandBuffer = (VkCommandBuffer)(uintptr_t)batch->command_buffer,
    };
    VkSubmitInfo2 submit = {
        .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
        .waitSemaphoreInfoCount = (uint32_t)batch->wait_count,
        .pWaitSemaphoreInfos = waits,
        .commandBufferInfoCount = 1,
        .pCommandBufferInfos = &command_buffer,
        .signalSemaphoreInfoCount = (uint32_t)batch->signal_count,
        .pSignalSemaphoreInfos = signals,
    };
    VkQueue queue;
    vkGetDeviceQueue(submitter->device, batch->queue_family, 0, &queue);
    VkFence fence = batch->index + 1 == batch->count ? submitter->fence : VK_NULL_HANDLE;
    if (vkQueueSubmit2(queue, 1, &submit, fence) != VK_SUCCESS)
        return 1;
    submitter->submitted += 1;
    return 0;
}

/* Checks that every pixel of the 4x4 image is `rgba`; prints the first. */
static int check_pixels(VkDevice device, VkImage image, VkDeviceMemory memory,
                        const uint8_t rgba[4]) {
    VkImageSubresource subresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0};
    VkSubresourceLayout layout;
    vkGetImageSubresourceLayout(device, image, &subresource, &layout);
    uint8_t *mapped = NULL;
    vk_check(vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, (void **)&mapped), "vkMapMemory");
    int right = 1;
    for (uint32_t y = 0; y < 4; y++) {
        const uint8_t *row = mapped + layout.offset + y * layout.rowPitch;
        for (uint32_t x = 0; x < 4; x++)
            right &= memcmp(row + 4 * x, rgba, 4) == 0;
    }
    const uint8_t *first = mapped + layout.offset;
    printf("pixel 0,0: %u %u %u %u\n", first[0], first[1], first[2], first[3]);
    vkUnmapMemory(device, memory);
    return right;
}

int main(void) {
    /* The engine's instance, with validation and its own messenger. */
    const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
    const char *instance_extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME,
                                         VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
    VkValidationFeatureEnableEXT enables[] = {
        VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkDebugUtilsMessengerCreateInfoEXT messenger_info = {
        .sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
        .messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
        .messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
        .pfnUserCallback = on_message,
    };
    VkValidationFeaturesEXT validation = {
        .sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT,
        .pNext = &messenger_info,
        .enabledValidationFeatureCount = 1,
        .pEnabledValidationFeatures = enables,
    };
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo instance_info = {
        .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
        .pNext = &validation,
        .pApplicationInfo = &app,
        .enabledLayerCount = 1,
        .ppEnabledLayerNames = layers,
        .enabledExtensionCount = 2,
        .ppEnabledExtensionNames = instance_extensions,
    };
    VkInstance instance;
    vk_check(vkCreateInstance(&instance_info, NULL, &instance), "vkCreateInstance");
    PFN_vkCreateDebugUtilsMessengerEXT create_messenger =
        (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            instance, "vkCreateDebugUtilsMessengerEXT");
    PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger =
        (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
            instance, "vkDestroyDebugUtilsMessengerEXT");
    VkDebugUtilsMessengerEXT messenger;
    vk_check(create_messenger(instance, &messenger_info, NULL, &messenger), "messenger");

    /* A Vulkan 1.3 device with a graphics and compute queue. */
    uint32_t count = 8;
    VkPhysicalDevice physicals[8];
    vk_check(vkEnumeratePhysicalDevices(instance, &count, physicals), "physical devices");
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    uint32_t family = 0;
    for (uint32_t i = 0; i < count && physical == VK_NULL_HANDLE; i++) {
        VkPhysicalDeviceProperties properties;
        vkGetPhysicalDeviceProperties(physicals[i], &properties);
        if (properties.apiVersion < VK_API_VERSION_1_3)
            continue;
        uint32_t family_count = 16;
        VkQueueFamilyProperties families[16];
        vkGetPhysicalDeviceQueueFamilyProperties(physicals[i], &family_count, families);
        for (uint32_t f = 0; f < family_count; f++) {
            VkQueueFlags wanted = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
            if ((families[f].queueFlags & wanted) == wanted) {
                physical = physicals[i];
                family = f;
                break;
            }
        }
    }
    if (physical == VK_NULL_HANDLE) {
        printf("no Vulkan 1.3 device with a graphics queue\n");
        return 1;
    }
    VkPhysicalDeviceVulkan13Features vulkan13 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES,
        .synchronization2 = VK_TRUE,
        .dynamicRendering = VK_TRUE,
    };
    VkPhysicalDeviceVulkan12Features vulkan12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .pNext = &vulkan13,
        .timelineSemaphore = VK_TRUE,
    };
    VkPhysicalDeviceFeatures2 features = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
        .pNext = &vulkan12,
    };
    float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                          .queueFamilyIndex = family,
                                          .queueCount = 1,
                                          .pQueuePriorities = &priority};
    VkDeviceCreateInfo device_info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                                      .pNext = &features,
                                      .queueCreateInfoCount = 1,
                                      .pQueueCreateInfos = &queue_info};
    VkDevice device;
    vk_check(vkCreateDevice(physical, &device_info, NULL, &device), "vkCreateDevice");

    /* The engine's image (host-visible, so that it reads the pixels directly), a timeline
     * semaphore and a fence. */
    VkImageUsageFlags usage = VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                              VK_IMAGE_USAGE_SAMPLED_BIT;
    VkImageCreateInfo image_info = {.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
                                    .imageType = VK_IMAGE_TYPE_2D,
                                    .format = VK_FORMAT_R8G8B8A8_UNORM,
                                    .extent = {4, 4, 1},
                                    .mipLevels = 1,
                                    .arrayLayers = 1,
                                    .samples = VK_SAMPLE_COUNT_1_BIT,
                                    .tiling = VK_IMAGE_TILING_LINEAR,
                                    .usage = usage,
                                    .initialLayout = VK_IMAGE_LAYOUT_UNDEFINED};
    VkImage image;
    vk_check(vkCreateImage(device, &image_info, NULL, &image), "vkCreateImage");
    VkMemoryRequirements requirements;
    vkGetImageMemoryRequirements(device, image, &requirements);
    VkPhysicalDeviceMemoryProperties memory_properties;
    vkGetPhysicalDeviceMemoryProperties(physical, &memory_properties);
    VkMemoryPropertyFlags host =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t memory_type = 0;
    while (!((requirements.memoryTypeBits >> memory_type) & 1) ||
           (memory_properties.memoryTypes[memory_type].propertyFlags & host) != host)
        memory_type++;
    VkMemoryAllocateInfo allocate_info = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                          .allocationSize = requirements.size,
                                          .memoryTypeIndex = memory_type};
    VkDeviceMemory memory;
    vk_check(vkAllocateMemory(device, &allocate_info, NULL, &memory), "vkAllocateMemory");
    vk_check(vkBindImageMemory(device, image, memory, 0), "vkBindImageMemory");
    VkSemaphoreTypeCreateInfo timeline_type = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                               .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo semaphore_info = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO,
                                            .pNext = &timeline_type};
    VkSemaphore timeline;
    vk_check(vkCreateSemaphore(device, &semaphore_info, NULL, &timeline), "timeline");
    VkFenceCreateInfo fence_info = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    vk_check(vkCreateFence(device, &fence_info, NULL, &fence), "vkCreateFence");

    /* rpsl on those objects. */
    RpslEngineDevice engine = {
        .get_instance_proc_addr = (RpslGetInstanceProcAddr)vkGetInstanceProcAddr,
        .instance = (uint64_t)(uintptr_t)instance,
        .physical_device = (uint64_t)(uintptr_t)physical,
        .device = (uint64_t)(uintptr_t)device,
        .graphics_queue_family = family,
        .graphics_queue_index = 0,
        .compute_queue_family = UINT32_MAX,
        .enabled_features = &features,
        .debug_utils = true,
    };
    RpslVulkan *vulkan = NULL;
    check(rpsl_vulkan_create_on_device(&engine, NULL, &vulkan), "rpsl on the device");
    RpslProgram *program = NULL;
    check(rpsl_program_from_source("engine.rpsl", SCRIPT, NULL, &program), "program");
    RpslSession *session = NULL;
    check(rpsl_session_create(program, NULL, NULL, &session), "session");
    check(rpsl_program_destroy(program), "program destroy");
    RpslTextureDesc desc = {28 /* RPS_FORMAT_R8G8B8A8_UNORM */, 4, 4};
    check(rpsl_session_set_arg_texture(session, "backbuffer", &desc), "backbuffer");
    const float tint[3] = {1.0f, 0.2f, 0.0f};
    check(rpsl_session_set_arg_floats(session, "tint", tint, 3), "tint");
    const uint32_t scale = 3;
    check(rpsl_session_set_arg_uints(session, "scale", &scale, 1), "scale");
    check(rpsl_vulkan_bind_node(vulkan, "Fill", fill, NULL), "bind");

    /* The image goes in undefined and comes out readable by the host. */
    RpslResourceState host_read = {VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_HOST_BIT,
                                   VK_ACCESS_2_HOST_READ_BIT, VK_QUEUE_FAMILY_IGNORED};
    RpslImportedImage imported = {
        .image = (uint64_t)(uintptr_t)image,
        .desc = desc,
        .usage = usage,
        .state = {VK_IMAGE_LAYOUT_UNDEFINED, 0, 0, VK_QUEUE_FAMILY_IGNORED},
        .has_final_state = true,
        .final_state = host_read,
        .debug_name = "engine backbuffer",
    };
    check(rpsl_vulkan_import_image(vulkan, "backbuffer", &imported), "import");
    RpslSemaphoreOp signal = {(uint64_t)(uintptr_t)timeline, 1,
                              VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    check(rpsl_vulkan_set_frame_sync(vulkan, NULL, 0, &signal, 1, (uint64_t)(uintptr_t)fence),
          "frame sync");
    RpslFrameInfo info;
    check(rpsl_session_run_frame(session, &info), "run frame");
    check(rpsl_vulkan_execute(vulkan, session), "execute");

    /* The engine waits as it would for any frame of its own. */
    vk_check(vkWaitForFences(device, 1, &fence, VK_TRUE, 20000000000ull), "vkWaitForFences");
    uint64_t reached = timeline_after_wait(device, timeline, 1);
    RpslResourceState left;
    check(rpsl_vulkan_imported_state(vulkan, "backbuffer", &left), "imported state");
    printf("frame %llu: timeline at %llu, image left in layout %u\n",
           (unsigned long long)info.frame_index, (unsigned long long)reached, left.layout);

    const uint8_t orange[4] = {191, 38, 0, 255};
    int right = check_pixels(device, image, memory, orange);

    /* The next frame the engine submits itself: rpsl records into the engine's command
     * buffers and hands over the batches; the engine submits them, its fence on the last. */
    VkCommandPoolCreateInfo pool_info = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                         .queueFamilyIndex = family};
    VkCommandPool pool;
    vk_check(vkCreateCommandPool(device, &pool_info, NULL, &pool), "vkCreateCommandPool");
    Submitter submitter = {.device = device, .family = family, .fence = fence};
    VkCommandBufferAllocateInfo buffers_info = {
        .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
        .commandPool = pool,
        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
        .commandBufferCount = 4,
    };
    vk_check(vkAllocateCommandBuffers(device, &buffers_info, submitter.buffers), "buffers");
    const float green[3] = {0.0f, 1.0f, 0.0f};
    check(rpsl_session_set_arg_floats(session, "tint", green, 3), "tint");
    const uint32_t four = 4;
    check(rpsl_session_set_arg_uints(session, "scale", &four, 1), "scale");
    imported.state = left; /* where the last frame left it */
    check(rpsl_vulkan_import_image(vulkan, "backbuffer", &imported), "import");
    vk_check(vkResetFences(device, 1, &fence), "vkResetFences");
    signal.value = 2;
    check(rpsl_vulkan_set_frame_sync(vulkan, NULL, 0, &signal, 1, 0), "frame sync");
    check(rpsl_session_run_frame(session, &info), "run frame");
    check(rpsl_vulkan_record_frame(vulkan, session, give_command_buffer, submit_batch,
                                   &submitter),
          "record frame");
    vk_check(vkWaitForFences(device, 1, &fence, VK_TRUE, 20000000000ull), "vkWaitForFences");
    reached = timeline_after_wait(device, timeline, 2);
    printf("frame %llu: %u batch(es) submitted by the engine, timeline at %llu\n",
           (unsigned long long)info.frame_index, submitter.submitted,
           (unsigned long long)reached);
    const uint8_t green_pixel[4] = {0, 255, 0, 255};
    right &= check_pixels(device, image, memory, green_pixel) && reached == 2;

    /* rpsl goes first: it forgets the image, then frees only what it made. */
    check(rpsl_vulkan_release_image(vulkan, (uint64_t)(uintptr_t)image), "release");
    check(rpsl_vulkan_destroy(vulkan), "rpsl destroy");
    check(rpsl_session_destroy(session), "session destroy");
    vkDestroyCommandPool(device, pool, NULL);
    vkDestroyFence(device, fence, NULL);
    vkDestroySemaphore(device, timeline, NULL);
    vkDestroyImage(device, image, NULL);
    vkFreeMemory(device, memory, NULL);
    vkDestroyDevice(device, NULL);
    destroy_messenger(instance, messenger, NULL);
    vkDestroyInstance(instance, NULL);
    printf("validation messages: %d\n", validation_messages);
    right &= validation_messages == 0;
    printf(right ? "engine frame ok\n" : "engine frame WRONG\n");
    return right ? 0 : 1;
}
