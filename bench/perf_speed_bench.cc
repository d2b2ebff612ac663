// Speed of one evaluation inside the core: memory + performance of one
// config whose split is already planned (what a search evaluates per
// candidate), and of the full EstimatePerformance answer.
#include <benchmark/benchmark.h>

#include "core/catalog/catalog.h"
#include "core/memory/memory_model.h"
#include "core/perf/perf_model.h"
#include "core/pipeline/stage_plan.h"
#include "server/api/planner_api.h"

namespace {

using namespace parplan;

struct Prepared {
  ModelSpec model;
  SystemSpec system;
  ResolvedConfig config;
  StagePlan plan;
  int64_t world;
};

Prepared Prepare(const char* model, const char* system, int64_t tp, int64_t pp, int64_t vpp, int64_t ep, int64_t world,
                 int64_t gbs, int64_t seq, const char* layout = "") {
  Prepared p{*Catalog::Get().FindModel(model), *Catalog::Get().FindSystem(system), {}, {}, world};
  p.config.tp = tp;
  p.config.pp = pp;
  p.config.vpp = vpp;
  p.config.ep = ep;
  p.config.etp = 1;
  p.config.sp = tp > 1;
  p.config.gbs = gbs;
  p.config.seq_length = seq;
  p.config.precision = Precision::kFp8Mx;
  p.config.mtp_num_layers = p.model.mtp_num_layers;
  p.config.pipeline_layout = layout;
  std::vector<Violation> v;
  p.plan = *PlanStages(p.model, p.config, &v);
  p.config.vpp = p.plan.vpp;
  return p;
}

void BM_CoreMemoryAndPerformance(benchmark::State& state, Prepared p) {
  const PerfParams& params = CalibratedPerfParams();
  for (auto _ : state) {
    MemoryEstimate m = EstimateMemory(p.model, p.config, p.plan, p.world, &p.system, MemoryOptions{});
    PerfEstimate e = EstimatePerformance(p.model, p.config, p.plan, p.world, p.system, params);
    benchmark::DoNotOptimize(m.peak_bytes);
    benchmark::DoNotOptimize(e.step_time_s);
  }
}

BENCHMARK_CAPTURE(BM_CoreMemoryAndPerformance, llama3_70b_tp8_pp4_vpp5,
                  Prepare("llama3_70b", "h100-sxm", 8, 4, 5, 1, 64, 256, 8192));
BENCHMARK_CAPTURE(BM_CoreMemoryAndPerformance, llama3_8b_tp1, Prepare("llama3_8b", "b200", 1, 1, 1, 1, 8, 128, 8192));
BENCHMARK_CAPTURE(BM_CoreMemoryAndPerformance, deepseek_v3_pp4_layout_ep64,
                  Prepare("deepseek_v3", "gb200-nvl72", 1, 4, 1, 64, 256, 4096, 4096, "Et*4|(t*4|)*14tmL"));
BENCHMARK_CAPTURE(BM_CoreMemoryAndPerformance, qwen3_30b_ep8,
                  Prepare("qwen3_30b_a3b", "gb300-nvl72", 1, 1, 1, 8, 8, 512, 4096));

void BM_EstimatePerformanceApi(benchmark::State& state) {
  v1::EstimatePerformanceRequest req;
  req.mutable_model()->set_id("deepseek_v3");
  req.mutable_placement()->set_system("h100-sxm");
  req.mutable_placement()->set_gpus(1024);
  req.mutable_config()->set_tp(2);
  req.mutable_config()->set_pp(8);
  req.mutable_config()->set_vpp(4);
  req.mutable_config()->set_ep(64);
  req.mutable_config()->set_etp(1);
  req.mutable_config()->set_gbs(8192);
  req.mutable_config()->set_seq_length(4096);
  req.mutable_config()->set_pipeline_layout("Et|(tt|)*30mL");
  req.mutable_config()->set_vpp(0);
  for (auto _ : state) {
    v1::EstimatePerformanceResponse resp;
    benchmark::DoNotOptimize(api::EstimatePerformance(req, &resp));
  }
}
BENCHMARK(BM_EstimatePerformanceApi);

}  // namespace

BENCHMARK_MAIN();
