#include "bench/calibration_rows.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/catalog/catalog.h"
#include "core/perf/flops.h"
#include "core/pipeline/layout_builder.h"
#include "core/rules/validate.h"
#include "core/system/racks.h"
#include "bench/tuned_config_rows.h"
#include "server/api/convert.h"
#include "tests/core/csv_reader.h"

namespace parplan {
namespace {

bool Given(const std::string& v) { return !v.empty() && v != "None"; }

std::string PrecisionOf(const std::string& norm) {
  if (norm == "fp8_mx") return "fp8-mx";
  if (norm == "nvfp4") return "nvfp4";
  if (norm == "bf16") return "bf16";
  if (norm.rfind("fp8_blockwise", 0) == 0) return "fp8-sc";
  return "fp8-cs";  // fp8_cs and the 25.09 tables' unspecified FP8
}

// (container, model_key, system, precision as written) of a measured row.
using RunKey = std::tuple<std::string, std::string, std::string, std::string>;

// The MoE settings each container's Megatron Bridge release ran
// (tests/data/moe_recipe_history.csv, traced through Bridge's history with
// sources; moe_recipe_history.md says how): dispatcher, backend, graphs, EP
// overlap and recompute moved between releases while the parallelism in the
// tables stayed the same, so the head recipe's values are wrong for older rows.
std::map<RunKey, std::map<std::string, std::string>> LoadMoeRecipeHistory(const std::string& path) {
  std::map<RunKey, std::map<std::string, std::string>> out;
  for (const auto& r : ReadCsv(path)) {
    out[RunKey{r.at("container"), r.at("model_key"), r.at("system"), r.at("precision_as_written")}] = r;
  }
  return out;
}

void ApplyMoeRecipe(const std::map<std::string, std::string>& h, ParallelConfig* c) {
  c->moe_token_dispatcher_type = h.at("moe_token_dispatcher_type");
  c->moe_flex_dispatcher_backend = c->moe_token_dispatcher_type == "flex" ? h.at("moe_flex_dispatcher_backend") : "";
  c->moe_permute_fusion = h.at("moe_permute_fusion") == "True";
  c->moe_router_force_load_balancing = h.at("moe_router_force_load_balancing") == "True";
  c->overlap_moe_expert_parallel_comm = h.at("overlap_moe_expert_parallel_comm") == "True";
  c->cuda_graph_impl = h.at("cuda_graph_impl");
  // 25.09's Megatron-Core 0.14 captured each layer with its own (local)
  // graphs; today's Bridge takes 'local' only for full-iteration graphs
  // (utils/cuda_graph.py), and per-layer capture is what its
  // transformer_engine graphs do.
  if (c->cuda_graph_impl == "local" && h.at("cuda_graph_scope").empty()) c->cuda_graph_impl = "transformer_engine";
  c->cuda_graph_modules.clear();
  for (absl::string_view m : absl::StrSplit(h.at("cuda_graph_scope"), ';', absl::SkipEmpty())) {
    c->cuda_graph_modules.emplace_back(m);
  }
  const std::string& recompute = h.at("recompute");
  c->recompute_granularity.clear();
  c->recompute_method.clear();
  c->recompute_num_layers = 0;
  c->recompute_modules.clear();
  if (recompute.rfind("selective:", 0) == 0) {
    c->recompute_granularity = "selective";
    for (absl::string_view m : absl::StrSplit(recompute.substr(10), ';', absl::SkipEmpty())) {
      c->recompute_modules.emplace_back(m);
    }
  }
}

}  // namespace

std::vector<CalibrationRow> LoadCalibrationRows(const std::string& data_dir, std::vector<std::string>* skipped) {
  std::map<std::string, ParallelConfig> recipes;  // recipe name -> its config as filed
  for (const TunedRow& t : LoadTunedRows(data_dir + "/tuned_configs_calibration.csv")) {
    recipes[t.recipe] = ToParallelConfig(t.config);
  }
  const auto history = LoadMoeRecipeHistory(data_dir + "/moe_recipe_history.csv");
  const auto& systems = CatalogSystemIds();
  std::vector<CalibrationRow> out;
  for (const auto& r : ReadCsv(data_dir + "/benchmarks_calibration.csv")) {
    if (r.at("variant") != "primary" || r.at("task") != "pretrain") continue;
    const std::string label = absl::StrCat(r.at("model_key"), "/", r.at("system"), "/", r.at("num_gpus"), "/",
                                           r.at("precision_norm"), "/", r.at("container"));
    auto model = Catalog::Get().FindModel(r.at("model_key"));
    auto sys = systems.count(r.at("system")) ? Catalog::Get().FindSystem(systems.at(r.at("system")))
                                             : absl::StatusOr<SystemSpec>(absl::NotFoundError("system"));
    if (!model.ok() || !model->complete() || !sys.ok()) {
      skipped->push_back(absl::StrCat(label, ": incomplete model or unknown system"));
      continue;
    }
    ParallelConfig c;
    c.tp = std::stoll(r.at("tp"));
    c.pp = std::stoll(r.at("pp"));
    c.cp = std::stoll(r.at("cp"));
    if (Given(r.at("vp"))) c.vpp = std::stoll(r.at("vp"));
    if (Given(r.at("ep"))) c.ep = std::stoll(r.at("ep"));
    if (Given(r.at("etp"))) c.etp = std::stoll(r.at("etp"));  // unset: Megatron Bridge's default
    c.sp = c.tp > 1;
    c.mbs = std::stoll(r.at("mbs"));
    c.gbs = std::stoll(r.at("gbs"));
    c.seq_length = std::stoll(r.at("seq_len"));
    c.precision = PrecisionOf(r.at("precision_norm"));
    c.use_megatron_fsdp = Given(r.at("fsdp")) && r.at("fsdp") != "0";
    c.grad_reduce_in_fp32 = false;  // perf recipes (_benchmark_common)
    c.apply_rope_fusion = PerfRecipeFusesRope(r.at("model_key"));
    // Recompute and layouts from the tuned recipe the table row names, when it matches.
    auto recipe = recipes.find(r.at("head_recipe_function"));
    if (recipe != recipes.end() && r.at("head_recipe_matches_table") == "yes") {
      const ParallelConfig& t = recipe->second;
      if (!t.recompute_granularity.empty()) {
        c.recompute_granularity = t.recompute_granularity;
        c.recompute_method = t.recompute_method;
        c.recompute_num_layers = t.recompute_num_layers;
        c.recompute_modules = t.recompute_modules;
      }
      if (!t.pipeline_layout.empty()) {
        c.pipeline_layout = t.pipeline_layout;
        c.vpp = 0;
      }
      if (t.first_stage_layers > 0) c.first_stage_layers = t.first_stage_layers;
      if (t.last_stage_layers > 0) c.last_stage_layers = t.last_stage_layers;
      if (t.mtp_num_layers.has_value()) c.mtp_num_layers = t.mtp_num_layers;
      c.tp_comm_overlap = t.tp_comm_overlap;
      c.overlap_grad_reduce = t.overlap_grad_reduce;
      c.overlap_moe_expert_parallel_comm = t.overlap_moe_expert_parallel_comm;
      c.cuda_graph_impl = t.cuda_graph_impl;
      c.cuda_graph_modules = t.cuda_graph_modules;
      c.moe_token_dispatcher_type = t.moe_token_dispatcher_type;
      c.moe_flex_dispatcher_backend = t.moe_flex_dispatcher_backend;
      c.moe_router_force_load_balancing = t.moe_router_force_load_balancing;
    }
    auto ran = history.find(RunKey{r.at("container"), r.at("model_key"), r.at("system"), r.at("precision_as_written")});
    if (ran != history.end()) ApplyMoeRecipe(ran->second, &c);
    // Runs whose layers do not divide over PP*VPP used a layout (the DeepSeek
    // recipes build one from (PP, VPP)); rebuild the balanced one.
    const int64_t vstages = c.pp * std::max<int64_t>(1, c.vpp);
    if (c.pipeline_layout.empty() && c.first_stage_layers == 0 && c.last_stage_layers == 0 &&
        model->hybrid_layer_pattern.empty() && model->num_layers % vstages != 0) {
      const int64_t mtp = c.mtp_num_layers.value_or(model->mtp_num_layers);
      c.pipeline_layout =
          BalancedLayout(model->num_layers, mtp, vstages, LastStageEndUnits(*model, c.seq_length, c.tp, mtp));
      c.vpp = 0;
    }
    auto resolved = ResolveConfig(c, &*model, "config");
    if (!resolved.ok()) {
      skipped->push_back(absl::StrCat(label, ": ", resolved.status().message()));
      continue;
    }
    Placement p;
    p.system = sys->id;
    p.gpus = std::stoll(r.at("num_gpus"));
    auto placement = ResolvePlacement(p, "placement");
    ValidationInput in;
    in.model = &*model;
    in.config = *resolved;
    in.placement = *placement;
    const ValidationResult v = Validate(in);
    if (!v.valid || !v.stages.has_value()) {
      std::string why;
      for (const auto& x : v.violations) {
        if (x.severity == Severity::kError) why = x.rule;
      }
      skipped->push_back(absl::StrCat(label, ": invalid as published (", why, ")"));
      continue;
    }
    CalibrationRow row;
    row.label = label;
    row.container = r.at("container");
    row.model_id = model->id;
    row.moe = model->is_moe();
    row.model = *model;
    row.system = *placement->system;
    // NVL72 jobs fill racks evenly (64 of 72 GPUs on 128..1,024-GPU runs):
    // the published runs are taken to as well (core/system/racks.h).
    row.system_as_run = *sys;
    row.system_as_run.nvlink_domain_used = static_cast<int>(EvenDomainUse(*sys, p.gpus));
    row.config = *resolved;
    row.config.vpp = v.stages->vpp;
    row.plan = *v.stages;
    row.gpus = p.gpus;
    row.published_tokens_per_s_per_gpu = std::stod(r.at("tokens_per_sec_per_gpu"));
    out.push_back(std::move(row));
  }
  // Container releases compare as strings (yy.mm[.patch]).
  std::map<std::string, std::string> newest;
  auto group = [](const CalibrationRow& row) { return row.label.substr(0, row.label.rfind('/')); };
  for (const auto& row : out) {
    std::string& n = newest[group(row)];
    n = std::max(n, row.container);
  }
  for (auto& row : out) row.newest = row.container == newest[group(row)];
  return out;
}

}  // namespace parplan
