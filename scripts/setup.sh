#!/usr/bin/env bash
# Installs what building and testing rpsl needs on a Debian 12 machine, when it is missing.
# Sourced by scripts/test.sh; safe to run again.
set -euo pipefail

if ! command -v cargo >/dev/null 2>&1; then
    if [ -x "$HOME/.cargo/bin/cargo" ]; then
        export PATH="$HOME/.cargo/bin:$PATH"
    else
        echo "rpsl needs a Rust toolchain (1.80 or newer): install it with rustup (https://rustup.rs)" >&2
        exit 1
    fi
fi

# System packages: a C compiler for the -sys crates (mimalloc); the Vulkan loader, Mesa's CPU
# Vulkan driver (lavapipe) and the Khronos validation layers for the Vulkan backend's tests.
missing=()
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
for package in libvulkan1 mesa-vulkan-drivers vulkan-validationlayers; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    else
        sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    fi
fi
