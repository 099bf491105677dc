#!/bin/sh
# Builds ./bot from bot.go: a static binary (standard library only, no cgo), so it runs in any sandbox.
set -e
cd "$(dirname "$0")"
CGO_ENABLED=0 go build -o bot .
