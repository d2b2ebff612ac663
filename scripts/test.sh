#!/usr/bin/env bash
# Sets up, builds and runs every test (unit, service, end-to-end, skill,
# benchmarks' checks) once, on a build with AddressSanitizer +
# UndefinedBehaviorSanitizer in build-asan/: one build keeps CI under 12
# minutes on 2 cores, and every test runs under the sanitizers.
#   scripts/test.sh            the sanitized build (what CI runs)
#   scripts/test.sh --fast     the optimized build in build/ instead
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
if [[ "${1:-}" == "--fast" ]]; then
  scripts/setup.sh --packages-only --test-tools
  scripts/setup.sh
  ctest --test-dir build --output-on-failure -j "$jobs"
  exit 0
fi
scripts/setup.sh --packages-only --test-tools
echo "== sanitizers: address,undefined,float-cast-overflow (build-asan/)"
# -O1 keeps the sanitized build quick to compile on 2 cores; -g1 (line tables only)
# keeps the reports readable with file:line at ~30% less compile time than -g.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DPARPLAN_SANITIZE=address,undefined,float-cast-overflow >/dev/null
cmake --build build-asan -j "$jobs"
# Leak checking on; any report fails the test that printed it.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 900
