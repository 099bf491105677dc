#!/bin/sh
# Builds ./bot from bot.c (C99 and POSIX: any C compiler).
set -e
cd "$(dirname "$0")"
${CC:-cc} -std=c99 -O2 -Wall -Wextra -o bot bot.c
