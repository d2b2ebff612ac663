// Speed of one EstimateMemory answer (validation, per-stage memory and, when
// it does not fit, the search for changes), per catalog model.
#include <benchmark/benchmark.h>

#include "server/api/planner_api.h"

namespace {

void BM_EstimateMemory(benchmark::State& state, const char* model, int tp, int pp, int ep, int gpus, int gbs) {
  parplan::v1::EstimateMemoryRequest req;
  req.mutable_model()->set_id(model);
  req.mutable_config()->set_tp(tp);
  req.mutable_config()->set_pp(pp);
  req.mutable_config()->set_ep(ep);
  req.mutable_config()->set_etp(1);
  req.mutable_config()->set_gbs(gbs);
  req.mutable_config()->set_seq_length(4096);
  req.mutable_placement()->set_system("h100-sxm");
  req.mutable_placement()->set_gpus(gpus);
  for (auto _ : state) {
    parplan::v1::EstimateMemoryResponse resp;
    benchmark::DoNotOptimize(parplan::api::EstimateMemory(req, &resp));
    benchmark::DoNotOptimize(resp.peak_bytes());
  }
}

BENCHMARK_CAPTURE(BM_EstimateMemory, llama3_8b_fits, "llama3_8b", 1, 1, 1, 8, 128);
BENCHMARK_CAPTURE(BM_EstimateMemory, llama3_70b_fits, "llama3_70b", 8, 4, 1, 64, 256);
BENCHMARK_CAPTURE(BM_EstimateMemory, llama31_405b_oom_with_suggestions, "llama31_405b", 8, 1, 1, 64, 256);
BENCHMARK_CAPTURE(BM_EstimateMemory, deepseek_v3_1024, "deepseek_v3", 2, 8, 64, 1024, 8192);
BENCHMARK_CAPTURE(BM_EstimateMemory, deepseek_v3_oom_with_suggestions, "deepseek_v3", 1, 4, 8, 64, 1024);
BENCHMARK_CAPTURE(BM_EstimateMemory, kimi_k2_2048, "kimi_k2", 2, 16, 32, 2048, 4096);
BENCHMARK_CAPTURE(BM_EstimateMemory, nemotronh_56b, "nemotronh_56b", 8, 2, 1, 64, 256);

}  // namespace

BENCHMARK_MAIN();
