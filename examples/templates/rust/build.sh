#!/bin/sh
# Builds ./bot from main.rs with rustc alone (standard library only: no cargo, no crates, no network).
set -e
cd "$(dirname "$0")"
${RUSTC:-rustc} --edition 2021 -O -o bot main.rs
