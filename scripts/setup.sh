#!/usr/bin/env bash
# Installs what building, running and testing rpsl needs on a Debian 12 machine, when it is
# missing: Debian packages, then a Rust toolchain (rustup) if there is none. Sourced by
# scripts/test.sh and scripts/render.sh; safe to run again.
set -euo pipefail

# System packages: a C compiler for the -sys crates (mimalloc); the Vulkan loader, Mesa's CPU
# Vulkan driver (lavapipe) and the Khronos validation layers for the Vulkan backend; shaderc and
# the static glslang / SPIRV-Tools archives that rpsl-shaders links (docs/shaders.md); the X11
# libraries winit loads and a virtual X server for `rpsl run --window` and its tests; curl to
# fetch rustup when no toolchain is installed. libvulkan-dev: the Vulkan headers and libvulkan.so
# that the C API's engine example (capi/examples/engine.c) is compiled against.
missing=()
command -v cc >/dev/null 2>&1 || missing+=(build-essential)
for package in libvulkan1 libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers \
    libshaderc-dev glslang-dev spirv-tools xvfb libx11-6 libxcursor1 libxi6 libxrandr2 \
    libxkbcommon-x11-0 curl ca-certificates; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    else
        sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    fi
fi

if ! command -v cargo >/dev/null 2>&1; then
    if [ ! -x "$HOME/.cargo/bin/cargo" ]; then
        echo "installing a Rust toolchain with rustup (https://rustup.rs)" >&2
        curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal
    fi
    export PATH="$HOME/.cargo/bin:$PATH"
fi

# The test script runs rustfmt and clippy; a minimal rustup profile has neither.
if command -v rustup >/dev/null 2>&1; then
    cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
    cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
fi
