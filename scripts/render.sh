#!/usr/bin/env bash
# The main job: renders an example frame to a PNG on a fresh Debian 12 machine. Installs what it
# needs (scripts/setup.sh), builds rpsl, runs the example's script and shaders on Vulkan (Mesa's
# CPU driver when there is no GPU) with the validation layers on, and writes
# out/<example>/backbuffer.png.
# Usage: bash scripts/render.sh [EXAMPLE] [WIDTHxHEIGHT]
#   EXAMPLE: deferred (default), bloom, temporal_accumulation, msaa_resolve (scripts/examples/)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
example="${1:-deferred}"
size="${2:-1280x720}"
script="scripts/examples/$example/$example.rpsl"
if [ ! -f "$script" ]; then
    echo "no example \`$example\`; try one of: $(ls scripts/examples | tr '\n' ' ')" >&2
    exit 2
fi
cargo run --release --locked --quiet --bin rpsl -- \
    run "$script" --arg "backbuffer=$size" --frames 8 --validate --out "out/$example"
echo "wrote out/$example/backbuffer.png"
