#!/usr/bin/env bash
# libFuzzer targets with AddressSanitizer + UBSan (clang), corpora in tests/fuzz/corpus/.
#   scripts/fuzz.sh build                  configure and build into build-fuzz/
#   scripts/fuzz.sh run TARGET SECONDS     fuzz one target, adding new inputs to its corpus
#   scripts/fuzz.sh check                  replay every committed corpus once (no fuzzing)
# TARGET: hf_config_fuzzer | layout_parser_fuzzer | json_request_fuzzer
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
for p in clang libclang-rt-14-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need+=("$p")
done
if ((${#need[@]})); then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
build() {
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -DPARPLAN_FUZZ=ON -DPARPLAN_BUILD_TESTS=OFF \
    -DPARPLAN_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build build-fuzz -j "$(nproc)" --target hf_config_fuzzer layout_parser_fuzzer json_request_fuzzer
}
case "${1:-}" in
  build) build ;;
  run)
    target=$2 seconds=$3
    mkdir -p "tests/fuzz/corpus/$target" build-fuzz/artifacts
    "build-fuzz/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
      -artifact_prefix=build-fuzz/artifacts/ "tests/fuzz/corpus/$target" "tests/fuzz/seeds/$target"
    ;;
  check)
    build
    for t in hf_config_fuzzer layout_parser_fuzzer json_request_fuzzer; do
      "build-fuzz/tests/fuzz/$t" -runs=0 -timeout=10 "tests/fuzz/corpus/$t" "tests/fuzz/seeds/$t"
    done
    ;;
  *) sed -n '2,6p' "$0"; exit 2 ;;
esac
