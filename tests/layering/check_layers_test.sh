#!/usr/bin/env bash
# scripts/check_layers.py (run by the build before any core code compiles)
# passes a tree that keeps its declared layering and fails one with a back-
# include or a core file that includes a door.
#   check_layers_test.sh SOURCE_DIR
set -euo pipefail
check="$1/scripts/check_layers.py"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/core/low" "$tree/core/high" "$tree/server"
echo '#include "core/low/a.h"' > "$tree/core/high/b.cc"
echo '#include "core/high/b.h"' > "$tree/server/s.cc"
python3 "$check" "$tree" "$tree/ok" low= high=low || { echo "FAIL: a layered tree was refused"; exit 1; }
echo '#include "core/high/b.h"' > "$tree/core/low/a.cc"
if python3 "$check" "$tree" "$tree/ok2" low= high=low 2>"$tree/err"; then
  echo "FAIL: a back-include (low -> high) passed"; exit 1
fi
grep -q "core/low does not depend on core/high" "$tree/err" || { cat "$tree/err"; exit 1; }
rm "$tree/core/low/a.cc"
echo '#include "server/s.h"' > "$tree/core/low/c.cc"
if python3 "$check" "$tree" "$tree/ok3" low= high=low 2>/dev/null; then
  echo "FAIL: core including server/ passed"; exit 1
fi
echo "check_layers: ok"
