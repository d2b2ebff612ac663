#include "server/mcp/answer_summary.h"

#include <cctype>
#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/util/text.h"
#include "parplan/v1/planner.pb.h"
#include "server/api/api_methods.h"

namespace parplan {
namespace mcp {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr size_t kReasonChars = 140;  // a reason in a summary: its first sentence, at most this long
constexpr char kRest[] = "Full answer (every field, reason and warning): structuredContent.\n";

std::string GiB(int64_t bytes) { return absl::StrFormat("%.1f GiB", bytes / kGiB); }

// The first sentence of `text`, cut at a clause when longer than kReasonChars.
std::string Short(const std::string& text) {
  std::string out = text;
  // A sentence ends at ". " before a capital ("e.g. 8" goes on).
  for (size_t end = out.find(". "); end != std::string::npos; end = out.find(". ", end + 1)) {
    if (end + 2 < out.size() && std::isupper(static_cast<unsigned char>(out[end + 2]))) {
      out.resize(end + 1);
      break;
    }
  }
  if (out.size() <= kReasonChars) return out;
  size_t cut = out.find_first_of(":;", 40);
  if (cut == std::string::npos || cut > kReasonChars) cut = out.rfind(' ', kReasonChars);
  return absl::StrCat(out.substr(0, cut), " ...");
}

std::string ModelLine(const v1::ModelSummary& m) {
  std::string out = absl::StrCat(m.id(), " (", m.kind());
  if (m.total_params() > 0) absl::StrAppend(&out, ", ", HumanCount(static_cast<double>(m.total_params())), " params");
  if (m.active_params() > 0 && m.active_params() != m.total_params()) {
    absl::StrAppend(&out, ", ", HumanCount(static_cast<double>(m.active_params())), " active");
  }
  absl::StrAppend(&out, m.approximate() ? ", approximate" : "", ")");
  return out;
}

// Errors (with their fix) and warnings, one line each.
std::string Findings(const google::protobuf::RepeatedPtrField<v1::Violation>& vs) {
  std::string out;
  for (const auto& v : vs) {
    if (v.severity() == "info") continue;
    absl::StrAppend(&out, "  [", v.severity(), "] ", v.rule(), ": ", Short(v.message()), "\n");
    if (v.severity() == "error" && !v.fix().empty()) absl::StrAppend(&out, "    fix: ", Short(v.fix()), "\n");
  }
  return out;
}

std::string Reasons(const google::protobuf::RepeatedPtrField<std::string>& reasons, int n) {
  std::string out;
  for (int i = 0; i < reasons.size() && i < n; ++i) absl::StrAppend(&out, "  - ", Short(reasons[i]), "\n");
  return out;
}

std::string Split(const v1::SplitRepair& repair) {
  return repair.change().empty() ? "" : absl::StrCat("nearest valid split: ", repair.change(), "\n");
}

std::string SummarizeListModels(const v1::ListModelsResponse& r) {
  std::string out = absl::StrCat(r.models_size(), " models:\n");
  for (const auto& m : r.models()) absl::StrAppend(&out, "  ", ModelLine(m), "\n");
  return out;
}

std::string SummarizeGetModel(const v1::GetModelResponse& r) {
  const auto& m = r.model();
  const auto& a = m.arch();
  std::string out = absl::StrCat(m.id(), ": ", m.name(), ", ", m.kind());
  if (m.total_params() > 0) absl::StrAppend(&out, ", ", HumanCount(static_cast<double>(m.total_params())), " params");
  if (m.active_params() > 0 && m.active_params() != m.total_params()) {
    absl::StrAppend(&out, ", ", HumanCount(static_cast<double>(m.active_params())), " active");
  }
  absl::StrAppend(&out, "\n  ", a.num_layers(), " layers, hidden ", a.hidden_size(), ", ", a.num_attention_heads(),
                  " heads / ", a.num_query_groups(), " query groups, vocab ", a.vocab_size(), ", seq ", a.seq_length());
  if (a.num_moe_experts() > 0) {
    absl::StrAppend(&out, ", ", a.num_moe_experts(), " experts (top-", a.moe_router_topk(), ")");
  }
  out += "\n";
  if (!m.complete()) absl::StrAppend(&out, "  incomplete: ", absl::StrJoin(m.missing_fields(), ", "), "\n");
  if (m.approximate()) absl::StrAppend(&out, "  approximate: ", Short(m.approximation_note()), "\n");
  return out;
}

std::string SummarizeListSystems(const v1::ListSystemsResponse& r) {
  std::string out = absl::StrCat(r.systems_size(), " systems:\n");
  for (const auto& s : r.systems()) {
    absl::StrAppend(&out,
                    absl::StrFormat("  %s (%s): %s, %.0f GB HBM, NVLink domain %d, %d GPUs/node\n", s.id(), s.name(),
                                    s.gpu_arch(), s.hbm_gb(), s.nvlink_domain_size(), s.gpus_per_node()));
  }
  return out;
}

std::string SummarizeGetSystem(const v1::GetSystemResponse& r) {
  const auto& s = r.system();
  return absl::StrFormat(
      "%s (%s): %s, %.0f GB HBM at %.2f TB/s, BF16 %.0f TFLOP/s, NVLink domain %d at %.0f GB/s per direction, %d "
      "GPUs/node, scale-out %.0f Gb/s per GPU\n",
      s.id(), s.name(), s.gpu_arch(), s.hbm_gb(), s.hbm_bw_tbps(), s.bf16_dense_tflops(), s.nvlink_domain_size(),
      s.nvlink_gbps_unidirectional(), s.gpus_per_node(), s.scaleout_gbps_per_gpu());
}

std::string World(const v1::WorldSizing& w) {
  std::string out = absl::StrCat("world ", w.gpus(), " GPUs: ", w.valid() ? "valid" : "NOT valid");
  if (w.dp() > 0) absl::StrAppend(&out, ", DP ", w.dp());
  if (w.edp() > 0) absl::StrAppend(&out, ", EDP ", w.edp());
  if (w.microbatches() > 0) absl::StrAppend(&out, ", ", w.microbatches(), " microbatches");
  absl::StrAppend(&out, "\n");
  for (const auto& p : w.problems()) absl::StrAppend(&out, "  problem: ", Short(p), "\n");
  return out;
}

std::string SummarizeMinGpus(const v1::MinGpusResponse& r) {
  std::string out =
      absl::StrCat("min GPUs ", r.min_gpus(), " (naive product ", r.naive_product(), "); dense mesh TP*CP ",
                   r.dense_mesh(), ", expert mesh EP*ETP ", r.expert_mesh(), " (ETP ", r.etp(),
                   "); next valid world sizes ", absl::StrJoin(r.next_valid_world_sizes(), ", "), "\n");
  if (r.has_world()) out += World(r.world());
  out += Reasons(r.reasons(), 2);
  out += Findings(r.violations());
  return out;
}

std::string SummarizeValidate(const v1::ValidateResponse& r) {
  std::string out = absl::StrCat(r.valid() ? "VALID" : "INVALID", " (", r.errors(), " errors, ", r.warnings(),
                                 " warnings, ", r.infos(), " notes); min GPUs ", r.min_gpus(), "\n");
  if (r.has_world()) out += World(r.world());
  out += Findings(r.violations());
  if (r.has_nearest_valid_split()) out += Split(r.nearest_valid_split());
  return out;
}

std::string SummarizeExplainLayout(const v1::ExplainLayoutResponse& r) {
  std::string out = absl::StrCat("world ", r.world_size(), " GPUs, order ", r.order(), ", ", r.gpus_per_node(),
                                 " GPUs/node, ", r.gpus_per_nvlink_domain(), " used of each NVLink domain of ",
                                 r.nvlink_domain_size(), " (", r.nvlink_domains(), " domains)\n");
  for (const auto& g : r.groups()) {
    if (g.size() <= 1) continue;
    absl::StrAppend(&out, "  ", g.kind(), ": ", g.count(), " groups of ", g.size(), ", ", g.crossing_node(),
                    " cross nodes, ", g.crossing_nvlink_domain(), " cross NVLink domains\n");
  }
  if (r.has_rank_detail()) {
    const auto& d = r.rank_detail();
    absl::StrAppend(&out, "rank ", d.rank(), ": node ", d.node(), " GPU ", d.local_gpu(), ", TP ", d.tp(), " CP ",
                    d.cp(), " DP ", d.dp(), " PP ", d.pp(), " EP ", d.ep(), "\n");
  }
  out += Findings(r.violations());
  return out;
}

std::string SummarizeRenderConfig(const v1::RenderConfigResponse& r) {
  if (!r.valid()) return absl::StrCat("NOT RENDERED: Megatron would refuse this config:\n", Findings(r.violations()));
  return absl::StrCat(Findings(r.violations()), "Megatron Bridge overrides:\n", r.bridge_python(),
                      absl::EndsWith(r.bridge_python(), "\n") ? "" : "\n",
                      "(also bridge_cli, megatron_lm_args and slurm_header in structuredContent)\n");
}

std::string SummarizeEstimateMemory(const v1::EstimateMemoryResponse& r) {
  std::string out = Split(r.nearest_valid_split());
  absl::StrAppend(&out, absl::StrFormat("peak %.1f GiB on PP rank %d of %.1f GiB: %s (headroom %.1f GiB)\n",
                                        r.peak_gib(), r.peak_pp_rank(), r.capacity_gib(),
                                        r.capacity_bytes() == 0 ? "capacity unknown"
                                        : r.fits()              ? (r.tight() ? "fits, tight" : "fits")
                                                                : "DOES NOT FIT",
                                        r.headroom_bytes() / kGiB));
  std::vector<std::string> stages;
  for (const auto& s : r.stages()) stages.push_back(absl::StrCat("PP", s.pp_rank(), " ", GiB(s.total_bytes())));
  if (!stages.empty()) absl::StrAppend(&out, "per stage: ", absl::StrJoin(stages, ", "), "\n");
  if (!r.fits() && r.capacity_bytes() > 0) {
    for (const auto& line : r.root_cause()) absl::StrAppend(&out, "root cause: ", line, "\n");
  }
  for (const auto& s : r.suggestions()) {
    absl::StrAppend(
        &out, absl::StrFormat("  change: %s -> %.1f GiB%s%s\n", s.change(), s.peak_gib(),
                              s.fits() ? (s.tight() ? " (fits, tight)" : " (fits)") : "",
                              s.has_step_time_s()
                                  ? absl::StrFormat(", step %+.1f%% (%.2f s)", s.step_time_delta_pct(), s.step_time_s())
                                  : std::string()));
  }
  out += Findings(r.violations());
  return out;
}

std::string SummarizeEstimatePerformance(const v1::EstimatePerformanceResponse& r) {
  std::string out = Split(r.nearest_valid_split());
  if (r.step_time_s() > 0) {
    const auto& b = r.breakdown();
    absl::StrAppend(
        &out, absl::StrFormat("%.0f tokens/s/GPU (±%.0f%%), MFU %.1f%%, step %.2f s; compute %.0f%%, exposed comm TP "
                              "%.2f CP %.2f EP %.2f DP %.2f PP %.2f s, bubble %.2f s; peak %s of %s (%s)\n",
                              r.tokens_per_s_per_gpu(), 100 * r.uncertainty(), 100 * r.mfu(), r.step_time_s(),
                              100 * b.compute_s() / r.step_time_s(), b.tp_comm_s(), b.cp_comm_s(), b.ep_comm_s(),
                              b.dp_comm_s(), b.pp_comm_s(), b.bubble_s(), GiB(r.memory_peak_bytes()),
                              GiB(r.memory_capacity_bytes()), r.fits() ? "fits" : "DOES NOT FIT"));
  }
  out += Findings(r.violations());
  return out;
}

// A reason of a plan that its line does not already say.
bool Restates(const v1::PlanSummary& p, const std::string& reason) {
  return absl::StartsWith(reason, absl::StrFormat("%.0f tokens/s/GPU", p.tokens_per_s_per_gpu())) ||
         absl::StartsWith(reason, "Memory: ") || absl::StartsWith(reason, "MFU ") ||
         absl::StartsWith(reason, "Uncertainty ") || absl::StartsWith(reason, "gbs not given");
}

std::string PlanLine(const v1::PlanSummary& p) {
  std::string out = p.label();
  const auto& c = p.config();
  if (c.cp() > 1) {
    absl::StrAppend(&out, " cp_comm_type ", c.cp_comm_type().empty() ? "p2p" : c.cp_comm_type());
    if (!c.hierarchical_context_parallel_sizes().empty()) {
      absl::StrAppend(&out, " [", absl::StrJoin(c.hierarchical_context_parallel_sizes(), ", "), "]");
    }
  }
  absl::StrAppend(&out, " on ", p.gpus(), " GPUs");
  if (!p.valid()) return absl::StrCat(out, ": invalid\n");
  absl::StrAppend(&out, absl::StrFormat(": %.0f tokens/s/GPU (±%.0f%%), MFU %.1f%%, peak %s of %s%s\n",
                                        p.tokens_per_s_per_gpu(), 100 * p.uncertainty(), 100 * p.mfu(),
                                        GiB(p.memory_peak_bytes()), GiB(p.memory_capacity_bytes()),
                                        p.fits() ? (p.tight() ? " (tight)" : "") : " (DOES NOT FIT)"));
  return out;
}

std::string SummarizeRecommend(const v1::RecommendResponse& r) {
  std::string out;
  if (r.has_model()) absl::StrAppend(&out, ModelLine(r.model()), ", seq ", r.seq_length(), ", gbs ", r.gbs(), "\n");
  // A defaulted sequence length is the answer's largest assumption.
  for (const auto& reason : r.reasons()) {
    if (absl::StartsWith(reason, "seq_length not given")) absl::StrAppend(&out, "  ", Short(reason), "\n");
  }
  if (!r.feasible()) absl::StrAppend(&out, "NO FEASIBLE PLAN: ", Short(r.infeasible_reason()), "\n");
  for (const auto& p : r.plans()) {
    absl::StrAppend(&out, "#", p.rank(), " ", PlanLine(p));
    int shown = 0;  // the first plan's two first reasons, one of each other plan's
    for (const auto& reason : p.reasons()) {
      if (shown == (p.rank() == 1 ? 2 : 1) || Restates(p, reason)) continue;
      absl::StrAppend(&out, "  - ", Short(reason), "\n");
      ++shown;
    }
  }
  if (r.has_starting_point()) absl::StrAppend(&out, "rule-of-thumb start: ", PlanLine(r.starting_point()));
  const auto& j = r.rejected();
  absl::StrAppend(&out, "rejected: ", j.invalid(), " invalid, ", j.does_not_fit(), " over memory, ", j.dominated(),
                  " ranked lower\n");
  if (r.truncated()) absl::StrAppend(&out, "SEARCH CUT SHORT: ", Short(r.truncated_reason()), "\n");
  if (!r.plans().empty()) {
    out += "Bridge overrides of #1: plans[0].bridge_overrides; of any plan: render_config on its config.\n";
  }
  return out;
}

std::string SummarizeImportConfig(const v1::ImportConfigResponse& r) {
  std::string out = absl::StrCat("Read as ", r.format(), r.recipe().empty() ? "" : absl::StrCat(" (", r.recipe(), ")"),
                                 ": ", r.mapped(), " mapped, ", r.not_modelled(), " not modelled, ", r.no_effect(),
                                 " without effect; ", r.valid() ? "VALID" : "INVALID", "\n");
  if (r.has_model_summary()) absl::StrAppend(&out, ModelLine(r.model_summary()), "\n");
  for (const auto& w : r.warnings()) absl::StrAppend(&out, "warning: ", Short(w), "\n");
  out += Findings(r.violations());
  out += "Pass model, config and placement to any other tool (they are the imported plan).\n";
  return out;
}

std::string SummarizeCompareRun(const v1::CompareRunResponse& r) {
  std::string out = absl::StrCat("log ", r.log_format(), "; ", Short(r.window().reason()), "\n");
  if (r.has_measured_step_s()) {
    absl::StrAppend(&out, absl::StrFormat("measured step %.3f s", r.measured_step_s()));
    if (r.has_prediction()) {
      absl::StrAppend(&out, absl::StrFormat(", predicted %.3f s (%+.1f%%, %s the p90 band)", r.predicted_step_s(),
                                            100 * r.step_error(), r.within_uncertainty() ? "inside" : "outside"));
    }
    absl::StrAppend(&out, "\n");
  }
  absl::StrAppend(&out, "gate: ", r.valid_measurement() ? "PASS" : "FAIL");
  for (const auto& g : r.gate()) {
    if (g.checked() && !g.ok()) absl::StrAppend(&out, "; ", g.name(), ": ", Short(g.detail()));
  }
  absl::StrAppend(&out, "\n");
  if (r.has_ab()) absl::StrAppend(&out, "A/B: ", Short(r.ab().verdict()), "\n");
  for (const auto& f : r.failures()) {
    absl::StrAppend(&out, "failure: ", Short(f.message()),
                    f.rule_id().empty() ? "" : absl::StrCat(" -> rule ", f.rule_id()), "\n");
  }
  if (r.changes_size() > 0) {
    absl::StrAppend(
        &out, "best change: ", r.changes(0).change(),
        absl::StrFormat(" (%.1f%% faster, %s)\n", 100 * r.changes(0).predicted_gain(), r.changes(0).effect()));
  }
  return out;
}

std::string SummarizeCalibrate(const v1::CalibrateResponse& r) {
  std::string out = absl::StrCat(r.summary(), "\n");
  for (const auto& n : r.calibration().notes()) absl::StrAppend(&out, "  - ", Short(n), "\n");
  out += "Pass calibration to estimate_performance / recommend / compare_run.\n";
  return out;
}

template <typename Resp, std::string (*F)(const Resp&)>
std::string SummarizeAs(const google::protobuf::Message& m) {
  return F(static_cast<const Resp&>(m));
}

using Summarizer = std::string (*)(const google::protobuf::Message&);

const std::map<std::string, Summarizer>& Summarizers() {
#define PARPLAN_MCP_SUMMARY(Name, cost) {#Name, &SummarizeAs<v1::Name##Response, &Summarize##Name>},
  static const auto* table = new std::map<std::string, Summarizer>{PARPLAN_PLANNER_RPCS(PARPLAN_MCP_SUMMARY)};
#undef PARPLAN_MCP_SUMMARY
  return *table;
}

}  // namespace

std::string AnswerSummary(const std::string& rpc, const google::protobuf::Message& response) {
  const auto it = Summarizers().find(rpc);
  if (it == Summarizers().end()) return "";
  return absl::StrCat(it->second(response), kRest);
}

}  // namespace mcp
}  // namespace parplan
