//! The Vulkan backend of rpsl (coming with its issue).
