#!/bin/sh
# Renders COUNT pictures of the upscale example's half-resolution scene (its `low` texture), at
# times 0, 1, ..., as DIR/frame_NN.png: the inputs of the effect batch figure of BENCHMARKS.md.
#
#   sh scripts/bench/effect_inputs.sh DIR [COUNT] [WIDTHxHEIGHT of the backbuffer]
#
# RPSL (default: target/release/rpsl) is the binary to run.
set -eu
dir=${1:?usage: effect_inputs.sh DIR [COUNT] [WIDTHxHEIGHT]}
count=${2:-16}
size=${3:-1920x1080}
rpsl=${RPSL:-target/release/rpsl}
mkdir -p "$dir"
i=0
while [ "$i" -lt "$count" ]; do
    name=$(printf 'frame_%02d.png' "$i")
    "$rpsl" run scripts/examples/upscale/upscale.rpsl --arg "backbuffer=$size" \
        --arg "time=$i" --arg sharpness=0.5 --out "low=$dir/$name"
    i=$((i + 1))
done
