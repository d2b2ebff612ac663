// Speed of one whole plan search (core Recommend) on the two sizes:
// Llama-3 70B on 64 H100s and DeepSeek-V3 on 1,024 GB200s, plus the
// fewest-GPU search for Llama-3.1 405B, and issue 24's long-context cases
// (DeepSeek-V3 at 131,072 tokens on 256 H100s and 262,144 on 512,
// Qwen3-235B-A22B at 131,072 on 128 GB200s; each must answer in under 2 s,
// CP types and hierarchical splits searched), and issue 35's ranges of world
// sizes (Kimi-K2 on 256..2,048 H100s, Llama-3 70B on 8..64) with the
// execution settings searched: DeepSeek-V3 on 1,024 GB200s must answer in
// 0.3 s and every single-world or up-to-8-world question in 1 s on 2 cores
// (real time: the search uses a second thread). Reports candidates
// evaluated per second as a counter.
#include <benchmark/benchmark.h>

#include "core/catalog/catalog.h"
#include "core/search/recommender.h"

namespace {

using namespace parplan;

SearchRequest Request(const char* model, const char* system, int64_t gpus, int64_t seq, Precision precision) {
  SearchRequest r;
  r.model = new ModelSpec(*Catalog::Get().FindModel(model));  // lives as long as the benchmark
  r.system = *Catalog::Get().FindSystem(system);
  r.gpus = gpus;
  r.base.seq_length = seq;
  r.base.precision = precision;
  r.base.mtp_num_layers = r.model->mtp_num_layers;
  return r;
}

void BM_Recommend(benchmark::State& state, SearchRequest request) {
  int64_t evaluated = 0;
  for (auto _ : state) {
    auto result = Recommend(request);
    if (!result.ok() || !result->feasible) state.SkipWithError("no plan");
    evaluated += result->evaluated;
    benchmark::DoNotOptimize(result->plans);
  }
  state.counters["evaluated"] = benchmark::Counter(static_cast<double>(evaluated) / state.iterations());
  state.counters["evals_per_s"] = benchmark::Counter(static_cast<double>(evaluated), benchmark::Counter::kIsRate);
}

SearchRequest MinGpus(const char* model, const char* system, int64_t seq) {
  SearchRequest r = Request(model, system, 0, seq, Precision::kBf16);
  r.find_min_gpus = true;
  r.objective = Objective::kFewestGpus;
  return r;
}

BENCHMARK_CAPTURE(BM_Recommend, llama3_70b_64_h100, Request("llama3_70b", "h100-sxm", 64, 8192, Precision::kFp8Cs))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Recommend, deepseek_v3_1024_gb200,
                  Request("deepseek_v3", "gb200-nvl72", 1024, 4096, Precision::kFp8Mx))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Recommend, qwen3_30b_a3b_8_b200, Request("qwen3_30b_a3b", "b200", 8, 4096, Precision::kFp8Mx))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Recommend, long_deepseek_v3_256_h100_131k,
                  Request("deepseek_v3", "h100-sxm", 256, 131072, Precision::kBf16))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Recommend, long_deepseek_v3_512_h100_262k,
                  Request("deepseek_v3", "h100-sxm", 512, 262144, Precision::kBf16))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Recommend, long_qwen3_235b_a22b_128_gb200_131k,
                  Request("qwen3_235b_a22b", "gb200-nvl72", 128, 131072, Precision::kBf16))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Recommend, min_gpus_llama31_405b_h100, MinGpus("llama31_405b", "h100-sxm", 8192))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Issue 35: ranges of world sizes, as an assistant asks "on 256 to 2,048
// GPUs" (every whole node in between) or "8 to 64".
SearchRequest Range(const char* model, const char* system, int64_t lo, int64_t hi, int64_t seq, Precision precision) {
  SearchRequest r = Request(model, system, 0, seq, precision);
  r.min_gpus = lo;
  r.max_gpus = hi;
  return r;
}
BENCHMARK_CAPTURE(BM_Recommend, range_kimi_k2_256_2048_h100,
                  Range("kimi_k2", "h100-sxm", 256, 2048, 4096, Precision::kFp8Cs))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_Recommend, range_llama3_70b_8_64_h100,
                  Range("llama3_70b", "h100-sxm", 8, 64, 8192, Precision::kFp8Cs))
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
