#!/usr/bin/env bash
# Runs the whole test suite: installs the system packages the tests need (Debian 12), then
# `cargo fmt --check`, `cargo clippy -D warnings` and `cargo test --workspace`.
# Usage: bash scripts/test.sh [extra cargo test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
# lavapipe is installed now: the Vulkan tests must run, not skip.
export RPSL_REQUIRE_VULKAN="${RPSL_REQUIRE_VULKAN:-1}"
# A one-off build (CI's fresh clone) gains nothing from incremental state; it only costs disk.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
df -h . | tail -n 1 | awk '{print "disk before the build: " $4 " free"}'
# Habits CI enforces: formatting, then clippy with warnings as errors, then the tests.
bash scripts/check_commits.sh
cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
# The library as an engine embeds it: without the command line's dependencies.
cargo clippy -p rpsl --lib --no-default-features --locked -- -D warnings
cargo test --workspace --locked "$@"
