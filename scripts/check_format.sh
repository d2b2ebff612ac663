#!/usr/bin/env bash
# Fails when a C++ file of parplan differs from .clang-format's layout
# (clang-format 14, Debian 12). Fix with:
#   find core server skill tests bench \( -name '*.cc' -o -name '*.h' \) | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "clang-format missing: run scripts/setup.sh"; exit 1; }
find core server skill tests bench \( -name '*.cc' -o -name '*.h' \) -print0 |
  xargs -0 clang-format --dry-run --Werror
echo "format: ok"
