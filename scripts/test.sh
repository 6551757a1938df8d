#!/usr/bin/env bash
# Runs the whole test suite: installs the system packages the tests need (Debian 12), then
# `cargo test --workspace`. Usage: bash scripts/test.sh [extra cargo test arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
cargo test --workspace --locked "$@"
