#!/usr/bin/env bash
# Runs the whole test suite: installs the system packages the tests need (Debian 12), then
# `cargo test --workspace`. Usage: bash scripts/test.sh [extra cargo test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# lavapipe is installed now: the Vulkan tests must run, not skip.
export RPSL_REQUIRE_VULKAN="${RPSL_REQUIRE_VULKAN:-1}"
cargo test --workspace --locked "$@"
