#include "skill/cli/cli_table.h"

#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/util/text.h"
#include "server/api/api_methods.h"
#include "skill/cli/cli_resolved.h"

namespace parplan {
namespace cli {

std::string Violations(const google::protobuf::RepeatedPtrField<v1::Violation>& vs) {
  std::string out;
  for (const auto& v : vs) {
    absl::StrAppend(&out, absl::StrFormat("  [%-7s] %s: %s\n", v.severity(), v.rule(), v.message()));
    if (!v.fix().empty()) absl::StrAppend(&out, "            fix: ", v.fix(), "\n");
    // Errors cite the upstream check they follow.
    if (v.severity() == "error" && !v.source().empty() && v.source() != "parplan") {
      absl::StrAppend(&out, "            upstream: ", v.source(), "\n");
    }
  }
  return out;
}

std::string Reasons(const google::protobuf::RepeatedPtrField<std::string>& reasons) {
  std::string out;
  for (const auto& r : reasons) absl::StrAppend(&out, "  - ", r, "\n");
  return out;
}

namespace {

// Expert dimensions apply: an MoE model, or EP set anyway.
bool HasExperts(const v1::ModelSummary& m, const v1::ParallelConfig& c) {
  return absl::StrContains(m.kind(), "moe") || c.ep() > 1;
}

// The "config:" header line: expert dimensions only for MoE models (or when
// set), GBS only when known, so an invalid config or a dense model never
// shows zeros or fields that do not apply.
std::string ConfigLine(const v1::ParallelConfig& c, const v1::ModelSummary& m, int64_t gbs, bool with_sp) {
  const bool experts = HasExperts(m, c);
  std::string out = absl::StrFormat("config: TP=%d PP=%d VPP=%d CP=%d", c.tp(), c.pp(), c.vpp(), c.cp());
  if (experts) absl::StrAppend(&out, absl::StrFormat(" EP=%d ETP=%d", c.ep(), c.etp()));
  if (with_sp) absl::StrAppend(&out, " SP=", c.sp() ? "on" : "off");
  absl::StrAppend(&out, " MBS=", c.mbs());
  if (gbs > 0) absl::StrAppend(&out, " GBS=", gbs);
  absl::StrAppend(&out, " seq=", c.seq_length(), " ", c.precision());
  return out;
}

// "; DP=2 EDP=2, 256 microbatches" where the world is known (DP > 0).
std::string DataParallelTail(const v1::ModelSummary& m, const v1::ParallelConfig& c, int64_t dp, int64_t edp,
                             int64_t microbatches) {
  if (dp <= 0) return "";
  std::string out = absl::StrCat("; DP=", dp);
  if (HasExperts(m, c)) absl::StrAppend(&out, " EDP=", edp);
  if (microbatches > 0) absl::StrAppend(&out, ", ", microbatches, " microbatches");
  return out;
}

std::string Summary(const v1::ModelSummary& m) {
  std::string out = absl::StrCat("model: ", m.id(), " (", m.name(), ", ", m.kind());
  if (m.total_params() > 0) {
    absl::StrAppend(&out, ", ", HumanCount(static_cast<double>(m.total_params())), " params");
    if (m.active_params() != m.total_params()) {
      absl::StrAppend(&out, ", ", HumanCount(static_cast<double>(m.active_params())), " active");
    }
  }
  absl::StrAppend(&out, ")\n");
  if (!m.complete()) absl::StrAppend(&out, "  incomplete: unknown ", absl::StrJoin(m.missing_fields(), ", "), "\n");
  if (m.approximate()) absl::StrAppend(&out, "  APPROXIMATE: ", m.approximation_note(), "\n");
  return out;
}

// `experts`: EDP applies (HasExperts); a dense model at EP = 1 shows DP only.
std::string World(const v1::WorldSizing& w, bool experts) {
  std::string out = absl::StrCat("world: ", w.gpus(), " GPUs -> ", w.valid() ? "valid" : "NOT valid");
  if (w.dp() > 0) absl::StrAppend(&out, ", DP=", w.dp());
  if (experts && w.edp() > 0) absl::StrAppend(&out, ", EDP=", w.edp());
  if (w.microbatches() > 0) absl::StrAppend(&out, ", ", w.microbatches(), " microbatches/step");
  if (w.nodes() > 0) {
    absl::StrAppend(&out, ", ", w.nodes(), " node(s) of ", w.gpus_per_node(), w.partial_node() ? " (partial)" : "");
  }
  absl::StrAppend(&out, "\n");
  for (const auto& p : w.problems()) absl::StrAppend(&out, "  problem: ", p, "\n");
  return out;
}

}  // namespace

std::string FormatListModels(const v1::ListModelsResponse& r) {
  std::string out = absl::StrFormat("%-24s %-24s %10s %10s  %s\n", "ID", "KIND", "PARAMS", "ACTIVE", "STATUS");
  for (const auto& m : r.models()) {
    out += absl::StrFormat(
        "%-24s %-24s %10s %10s  %s\n", m.id(), m.kind(),
        m.total_params() > 0 ? HumanCount(static_cast<double>(m.total_params())) : "-",
        m.active_params() > 0 ? HumanCount(static_cast<double>(m.active_params())) : "-",
        m.complete() ? "complete" : absl::StrCat("incomplete: ", absl::StrJoin(m.missing_fields(), ",")));
  }
  return out;
}

std::string FormatGetModel(const v1::GetModelResponse& r) {
  const auto& m = r.model();
  const auto& a = m.arch();
  std::string out = absl::StrCat(m.id(), ": ", m.name(), " [", m.kind(), ", from ", m.origin(), "]\n");
  if (!m.hf_id().empty()) absl::StrAppend(&out, "  hf_id: ", m.hf_id(), "\n");
  if (m.total_params() > 0) {
    absl::StrAppend(&out, "  parameters: ", HumanCount(static_cast<double>(m.total_params())), " total, ",
                    HumanCount(static_cast<double>(m.active_params())), " active (computed)");
    if (!m.published_total_params().empty()) {
      absl::StrAppend(&out, "; published ", m.published_total_params(),
                      m.published_active_params().empty() ? "" : absl::StrCat("/", m.published_active_params()));
    }
    absl::StrAppend(&out, "\n");
  }
  if (!m.complete()) absl::StrAppend(&out, "  INCOMPLETE: unknown ", absl::StrJoin(m.missing_fields(), ", "), "\n");
  if (m.approximate()) absl::StrAppend(&out, "  APPROXIMATE: ", m.approximation_note(), "\n");
  absl::StrAppend(
      &out, absl::StrFormat("  layers %d, hidden %d, ffn %d, heads %d, query groups %d, kv_channels %d, vocab %d\n",
                            a.num_layers(), a.hidden_size(), a.ffn_hidden_size(), a.num_attention_heads(),
                            a.num_query_groups(), a.kv_channels(), a.vocab_size()));
  if (a.seq_length() > 0) {
    absl::StrAppend(&out, "  native context: ", WithCommas(a.seq_length()), " tokens");
    if (!a.rope_scaling_type().empty()) {
      absl::StrAppend(&out, " (RoPE scaling ", a.rope_scaling_type());
      if (a.rope_scaling_factor() > 0) absl::StrAppend(&out, " factor ", a.rope_scaling_factor());
      if (a.rope_original_context() > 0) absl::StrAppend(&out, " on ", WithCommas(a.rope_original_context()));
      absl::StrAppend(&out, ")");
    }
    absl::StrAppend(&out, "\n");
  }
  if (a.num_moe_experts() > 0) {
    absl::StrAppend(&out,
                    absl::StrFormat("  MoE: %d experts, top-%d, expert ffn %d, shared %d, first %d dense layers\n",
                                    a.num_moe_experts(), a.moe_router_topk(), a.moe_ffn_hidden_size(),
                                    a.moe_shared_expert_intermediate_size(), a.first_k_dense_layers()));
  }
  if (a.multi_latent_attention()) {
    absl::StrAppend(&out, absl::StrFormat("  MLA: q_lora %d, kv_lora %d, qk %d+%d, v %d\n", a.q_lora_rank(),
                                          a.kv_lora_rank(), a.qk_head_dim(), a.qk_pos_emb_head_dim(), a.v_head_dim()));
  }
  if (!a.hybrid_layer_pattern().empty()) absl::StrAppend(&out, "  hybrid pattern: ", a.hybrid_layer_pattern(), "\n");
  if (a.mtp_num_layers() > 0) absl::StrAppend(&out, "  MTP layers: ", a.mtp_num_layers(), "\n");
  for (const auto& [field, source] : m.completions()) {
    absl::StrAppend(&out, "  completed ", field, ": ", source, "\n");
  }
  for (const auto& n : m.notes()) absl::StrAppend(&out, "  note: ", n, "\n");
  return out;
}

std::string FormatListSystems(const v1::ListSystemsResponse& r) {
  std::string out = absl::StrFormat("%-12s %-9s %7s %9s %9s %9s %7s %9s  %s\n", "ID", "ARCH", "HBM_GB", "BF16_TF",
                                    "FP8_TF", "FP4_TF", "NVLINK", "GPU/NODE", "ALIASES");
  for (const auto& s : r.systems()) {
    out += absl::StrFormat("%-12s %-9s %7.0f %9.0f %9.0f %9.0f %7d %9d  %s\n", s.id(), s.gpu_arch(), s.hbm_gb(),
                           s.bf16_dense_tflops(), s.fp8_dense_tflops(), s.fp4_dense_tflops(), s.nvlink_domain_size(),
                           s.gpus_per_node(), absl::StrJoin(s.aliases(), ","));
  }
  return out;
}

std::string FormatGetSystem(const v1::GetSystemResponse& r) {
  const auto& s = r.system();
  std::string out = absl::StrCat(s.id(), ": ", s.name(), " [", s.gpu_arch(), "]\n");
  absl::StrAppend(
      &out, absl::StrFormat("  HBM %.0f GiB at %.2f TB/s; dense TFLOP/s bf16 %.0f, fp8 %.0f, fp4 %.0f\n", s.hbm_gb(),
                            s.hbm_bw_tbps(), s.bf16_dense_tflops(), s.fp8_dense_tflops(), s.fp4_dense_tflops()));
  absl::StrAppend(
      &out, absl::StrFormat("  NVLink domain %d GPUs at %.0f GB/s per direction (%.0f both); %d GPUs per "
                            "node; PCIe %.0f GB/s; scale-out %.0f Gb/s per GPU\n",
                            s.nvlink_domain_size(), s.nvlink_gbps_unidirectional(), 2 * s.nvlink_gbps_unidirectional(),
                            s.gpus_per_node(), s.pcie_gbps_unidirectional(), s.scaleout_gbps_per_gpu()));
  if (!s.description().empty()) absl::StrAppend(&out, "  ", s.description(), "\n");
  if (!s.sources().empty()) {
    absl::StrAppend(&out, "sources:\n");
    std::map<std::string, std::string> sorted(s.sources().begin(), s.sources().end());
    for (const auto& [field, source] : sorted) absl::StrAppend(&out, "  ", field, ": ", source, "\n");
  }
  for (const auto& n : s.notes()) absl::StrAppend(&out, "  note: ", n, "\n");
  return out;
}

std::string FormatMinGpus(const v1::MinGpusResponse& r) {
  std::string out =
      absl::StrCat("min GPUs: ", r.min_gpus(), "   (naive product of all dims: ", r.naive_product(), ")\n");
  // expert_mesh is 0 when no expert mesh is in play (core/mesh ExpertMeshInPlay:
  // EP = 1 and ETP = TP, as for a dense model): no EP, ETP or EDP then.
  const bool experts = r.expert_mesh() > 0 || absl::StrContains(r.model().kind(), "moe");
  absl::StrAppend(&out, "dense mesh TP*CP = ", r.dense_mesh());
  if (r.expert_mesh() > 0) {
    absl::StrAppend(&out, ", expert mesh EP*ETP = ", r.expert_mesh(), " (ETP=", r.etp(), ")");
  } else {
    absl::StrAppend(&out, " (EP = 1: no expert mesh of its own)");
  }
  absl::StrAppend(&out, "\nnext valid world sizes: ", absl::StrJoin(r.next_valid_world_sizes(), ", "), "\n");
  if (r.has_world()) out += World(r.world(), experts);
  if (r.has_model()) out += Summary(r.model());
  out += Reasons(r.reasons());
  if (!r.violations().empty()) absl::StrAppend(&out, "model checks:\n", Violations(r.violations()));
  return out;
}

static std::string Stages(const google::protobuf::RepeatedPtrField<v1::StageLayers>& stages) {
  std::string out;
  if (stages.empty()) return out;
  absl::StrAppend(&out, "pipeline stages (decoder layers per VPP chunk):\n");
  for (const auto& s : stages) {
    absl::StrAppend(&out, "  PP rank ", s.pp_rank(), ": ", absl::StrJoin(s.decoder_layers(), "+"),
                    s.has_embedding() ? " +embedding" : "",
                    s.mtp_layers() > 0 ? absl::StrCat(" +", s.mtp_layers(), " MTP") : "", s.has_loss() ? " +loss" : "",
                    "\n");
  }
  return out;
}

// The nearest valid split, when an answer has one; `estimated`: the numbers
// below are for it.
static std::string RepairLine(const v1::SplitRepair& repair, bool estimated) {
  if (repair.change().empty()) return "";
  return absl::StrCat(
      estimated ? "ESTIMATED FOR THE NEAREST VALID SPLIT (not the config as given): " : "nearest valid split: ",
      repair.change(), "\n  as flags: ", repair.cli_flags(), "\n");
}

std::string FormatValidate(const v1::ValidateResponse& r) {
  std::string out = absl::StrCat(r.valid() ? "VALID" : "INVALID", " (", r.errors(), " error(s), ", r.warnings(),
                                 " warning(s), ", r.infos(), " note(s))\n");
  if (r.has_model()) out += Summary(r.model());
  const auto& c = r.resolved_config();
  absl::StrAppend(&out, ConfigLine(c, r.model(), c.gbs(), true), "\n");
  absl::StrAppend(&out, "min GPUs: ", r.min_gpus(), "\n");
  if (r.has_world()) out += World(r.world(), HasExperts(r.model(), c));
  out += Stages(r.stages());
  if (!r.violations().empty()) absl::StrAppend(&out, "findings:\n", Violations(r.violations()));
  if (r.has_nearest_valid_split()) {
    out += RepairLine(r.nearest_valid_split(), false);
    out += Stages(r.nearest_valid_split().stages());
  }
  out += Reasons(r.reasons());
  return out;
}

std::string FormatExplainLayout(const v1::ExplainLayoutResponse& r) {
  std::string out = absl::StrCat(
      "world ", r.world_size(), " GPUs, order ", r.order(), ", ", r.gpus_per_node(), " GPUs/node, NVLink domain ",
      r.nvlink_domain_size(),
      r.gpus_per_nvlink_domain() > 0 && r.gpus_per_nvlink_domain() < r.nvlink_domain_size()
          ? absl::StrCat(" (", r.gpus_per_nvlink_domain(), " used of each, ", r.nvlink_domains(), " domains)")
          : std::string(),
      "\n");
  if (!r.violations().empty()) absl::StrAppend(&out, Violations(r.violations()));
  if (!r.groups().empty()) {
    out += absl::StrFormat("%-6s %6s %7s %12s %14s  %s\n", "GROUP", "SIZE", "COUNT", "CROSS_NODE", "CROSS_NVLINK",
                           "FIRST GROUPS");
  }
  // The expert groups (ep, etp, edp), and the rank table's EP / ETP / EDP
  // columns, only where the answer has expert groups: ExplainLayout lists
  // them for MoE models and for EP or ETP of their own, not for a dense
  // model at EP = 1.
  auto expert_group = [](const std::string& kind) { return kind == "ep" || kind == "etp" || kind == "edp"; };
  bool experts = false;
  for (const auto& g : r.groups()) experts = experts || expert_group(g.kind());
  for (const auto& g : r.groups()) {
    if (g.size() == 1) continue;  // trivial groups: in --json only
    std::vector<std::string> examples;
    for (const auto& e : g.examples()) {
      std::vector<int64_t> ranks(e.ranks().begin(), e.ranks().end());
      if (ranks.size() > 16) {
        examples.push_back(absl::StrCat("[", absl::StrJoin(ranks.begin(), ranks.begin() + 8, ","), ",...]"));
      } else {
        examples.push_back(absl::StrCat("[", absl::StrJoin(ranks, ","), "]"));
      }
    }
    out += absl::StrFormat("%-6s %6d %7d %12d %14d  %s\n", g.kind(), g.size(), g.count(), g.crossing_node(),
                           g.crossing_nvlink_domain(), absl::StrJoin(examples, " "));
  }
  if (!r.ranks().empty()) {
    out += absl::StrFormat("%6s %5s %5s | %4s %4s %4s %4s", "RANK", "NODE", "GPU", "TP", "CP", "DP", "PP");
    out += experts ? absl::StrFormat(" | %4s %4s %4s\n", "EP", "ETP", "EDP") : "\n";
    for (const auto& p : r.ranks()) {
      out += absl::StrFormat("%6d %5d %5d | %4d %4d %4d %4d", p.rank(), p.node(), p.local_gpu(), p.tp(), p.cp(), p.dp(),
                             p.pp());
      out += experts ? absl::StrFormat(" | %4d %4d %4d\n", p.ep(), p.etp(), p.edp()) : "\n";
    }
    if (r.ranks_truncated())
      absl::StrAppend(&out, "  ... (", r.world_size() - r.ranks_size(), " more ranks; --max-ranks)\n");
  }
  out += Stages(r.stages());
  if (r.has_rank_detail()) {
    const auto& d = r.rank_detail();
    absl::StrAppend(&out, "rank ", d.rank(), " (node ", d.node(), ", GPU ", d.local_gpu(), ") groups:\n");
    for (int i = 0; i < r.rank_groups_size() && i < r.groups_size(); ++i) {
      if (r.groups(i).size() == 1) continue;
      std::vector<int64_t> ranks(r.rank_groups(i).ranks().begin(), r.rank_groups(i).ranks().end());
      absl::StrAppend(&out, "  ", r.groups(i).kind(), ": [", absl::StrJoin(ranks, ","), "]",
                      r.rank_groups(i).crosses_nvlink_domain() ? " (crosses NVLink domain)" : "", "\n");
    }
  }
  out += Reasons(r.reasons());
  return out;
}

std::string FormatRenderConfig(const v1::RenderConfigResponse& r) {
  std::string out;
  if (!r.valid()) {
    absl::StrAppend(&out, "NOT RENDERED: Megatron would refuse this config; fix these first:\n");
    out += Violations(r.violations());
    for (const auto& n : r.notes()) absl::StrAppend(&out, "note: ", n, "\n");
    return out;
  }
  out += Violations(r.violations());
  absl::StrAppend(&out, "# Megatron Bridge (Python overrides)\n", r.bridge_python(), "\n");
  absl::StrAppend(&out, "# Megatron Bridge (CLI overrides)\n", r.bridge_cli(), "\n\n");
  absl::StrAppend(&out, "# Megatron-LM flags\n", r.megatron_lm_args(), "\n\n");
  if (!r.slurm_header().empty()) absl::StrAppend(&out, "# Slurm\n", r.slurm_header(), "\n");
  for (const auto& n : r.notes()) absl::StrAppend(&out, "note: ", n, "\n");
  return out;
}

std::string FormatEstimateMemory(const v1::EstimateMemoryResponse& r) {
  auto gib = [](int64_t bytes) { return absl::StrFormat("%.2f", bytes / (1024.0 * 1024.0 * 1024.0)); };
  std::string out;
  if (r.has_model()) out += Summary(r.model());
  const auto& c = r.resolved_config();
  absl::StrAppend(&out, ConfigLine(c, r.model(), c.gbs(), true), ", recompute ", c.recompute_granularity(), ", ",
                  c.use_megatron_fsdp()
                      ? "Megatron FSDP"
                      : (c.use_distributed_optimizer() ? "distributed optimizer" : "no distributed optimizer"),
                  DataParallelTail(r.model(), c, r.dp(), r.edp(), r.microbatches()), "\n");
  out += Violations(r.violations());
  out += RepairLine(r.nearest_valid_split(), true);
  if (!r.stages().empty()) {
    absl::StrAppend(&out, "per-GPU memory by pipeline rank (GiB):\n");
    out += absl::StrFormat("%4s %7s %8s %7s %6s %6s %7s %7s %6s %9s %7s %6s %8s %7s %8s %7s\n", "PP", "layers",
                           "params", "weights", "lowp", "grads", "opt", "optEP", "acts", "inflight", "logits", "other",
                           "dispatch", "graphs", "overhead", "TOTAL");
    for (const auto& s : r.stages()) {
      out += absl::StrFormat(
          "%4d %7s %8s %7s %6s %6s %7s %7s %6s %9.2f %7s %6s %8s %7s %8s %7s%s\n", s.pp_rank(),
          absl::StrJoin(s.decoder_layers(), "+"), HumanCount(static_cast<double>(s.params())), gib(s.weight_bytes()),
          gib(s.low_precision_weight_bytes()), gib(s.grad_bytes()), gib(s.optimizer_dense_bytes()),
          gib(s.optimizer_expert_bytes()), gib(s.activation_bytes()), s.in_flight_microbatches(), gib(s.logits_bytes()),
          gib(s.recompute_working_bytes() + s.embedding_bytes() + s.fsdp_working_bytes() + s.attention_working_bytes()),
          gib(s.dispatcher_buffer_bytes()), gib(s.cuda_graph_bytes()), gib(s.overhead_bytes()), gib(s.total_bytes()),
          s.pp_rank() == r.peak_pp_rank() ? "  <- peak" : "");
    }
    absl::StrAppend(&out, absl::StrFormat("peak %.2f GiB on PP rank %d; capacity %.2f GiB; %s (headroom %.2f GiB)\n",
                                          r.peak_gib(), r.peak_pp_rank(), r.capacity_gib(),
                                          r.capacity_bytes() == 0
                                              ? "capacity unknown"
                                              : (r.fits() ? (r.tight() ? "FITS, TIGHT" : "FITS") : "DOES NOT FIT"),
                                          r.headroom_bytes() / (1024.0 * 1024.0 * 1024.0)));
  }
  if (!r.root_cause().empty() && !r.fits() && r.capacity_bytes() > 0) {
    absl::StrAppend(&out, "root cause:\n");
    for (const auto& line : r.root_cause()) absl::StrAppend(&out, "  ", line, "\n");
  }
  if (!r.suggestions().empty()) {
    absl::StrAppend(&out, absl::StrFormat("changes that would help (fastest predicted step first; now %.2f s, %d "
                                          "changes estimated):\n",
                                          r.current_step_time_s(), r.suggestions_evaluated()));
    for (const auto& s : r.suggestions()) {
      absl::StrAppend(&out, absl::StrFormat("  %-48s %.2f GiB -> %.2f GiB %s%s  (%s)\n", s.change(), r.peak_gib(),
                                            s.peak_gib(), s.fits() ? (s.tight() ? "fits, tight" : "fits") : "short",
                                            s.has_step_time_s()
                                                ? absl::StrFormat(", step %.2f s (%+.2f s, %+.1f%%)", s.step_time_s(),
                                                                  s.step_time_delta_s(), s.step_time_delta_pct())
                                                : std::string(),
                                            s.note()));
    }
  }
  out += Reasons(r.reasons());
  for (const auto& a : r.assumptions()) absl::StrAppend(&out, "  assumption: ", a, "\n");
  for (const auto& d : r.defaults()) absl::StrAppend(&out, "  default: ", d, "\n");
  return out;
}

std::string FormatEstimatePerformance(const v1::EstimatePerformanceResponse& r) {
  std::string out;
  if (r.has_model()) out += Summary(r.model());
  const auto& c = r.resolved_config();
  absl::StrAppend(&out, ConfigLine(c, r.model(), r.gbs() > 0 ? r.gbs() : c.gbs(), false), ", recompute ",
                  c.recompute_granularity(), DataParallelTail(r.model(), c, r.dp(), r.edp(), r.microbatches()), "\n");
  out += Violations(r.violations());
  out += RepairLine(r.nearest_valid_split(), true);
  if (r.step_time_s() > 0) {
    absl::StrAppend(
        &out, absl::StrFormat("step time %.3f s | %.0f tokens/s/GPU | %.0f model TFLOP/s/GPU | MFU %.1f%%\n",
                              r.step_time_s(), r.tokens_per_s_per_gpu(), r.model_tflops_per_gpu(), 100 * r.mfu()));
    const auto& b = r.breakdown();
    absl::StrAppend(&out, "breakdown (s):\n");
    std::vector<std::pair<const char*, double>> parts = {{"compute", b.compute_s()},
                                                         {"  GEMMs", b.gemm_s()},
                                                         {"  attention", b.attention_s()},
                                                         {"  MoE", b.moe_s()},
                                                         {"  element-wise", b.elementwise_s()},
                                                         {"  recompute", b.recompute_s()},
                                                         {"  logits", b.logits_s()},
                                                         {"  fixed overhead", b.overhead_s()},
                                                         {"bubble", b.bubble_s()},
                                                         {"TP comm (exposed)", b.tp_comm_s()},
                                                         {"CP comm (exposed)", b.cp_comm_s()},
                                                         {"EP comm (exposed)", b.ep_comm_s()},
                                                         {"DP comm (exposed)", b.dp_comm_s()},
                                                         {"PP comm (exposed)", b.pp_comm_s()}};
    if (c.use_megatron_fsdp()) parts.push_back({"FSDP comm (exposed)", b.fsdp_comm_s()});
    parts.push_back({"optimizer", b.optimizer_s()});
    for (const auto& [name, seconds] : parts) {
      absl::StrAppend(&out,
                      absl::StrFormat("  %-20s %8.3f  %5.1f%%\n", name, seconds, 100 * seconds / r.step_time_s()));
    }
    if (r.layer_times_size() > 0) {
      absl::StrAppend(&out, "per layer, one microbatch on one GPU (compute only, no communication; ms):\n");
      for (const auto& l : r.layer_times()) {
        absl::StrAppend(
            &out, absl::StrFormat("  %-26s x%-3d fwd %7.3f  bwd %7.3f  (GEMMs %.3f, attention %.3f, MoE %.3f, "
                                  "element-wise %.3f)  host %.3f\n",
                                  l.layer(), static_cast<int>(l.count()), 1e3 * l.forward_s(), 1e3 * l.backward_s(),
                                  1e3 * l.gemm_s(), 1e3 * l.attention_s(), 1e3 * l.moe_s(), 1e3 * l.elementwise_s(),
                                  1e3 * l.host_s()));
      }
    }
    absl::StrAppend(
        &out,
        absl::StrFormat("memory: peak %.1f GiB of %.1f GiB (%s)\n", r.memory_peak_bytes() / (1024.0 * 1024 * 1024),
                        r.memory_capacity_bytes() / (1024.0 * 1024 * 1024), r.fits() ? "fits" : "DOES NOT FIT"));
  }
  out += Reasons(r.reasons());
  for (const auto& a : r.assumptions()) absl::StrAppend(&out, "  assumption: ", a, "\n");
  return out;
}

namespace {

// One plan line: label, GPUs, speed, memory.
std::string PlanLine(const v1::PlanSummary& p) {
  if (!p.valid()) return absl::StrCat(p.label(), " on ", p.gpus(), " GPUs: invalid\n");
  return absl::StrFormat(
      "%s on %d GPUs: %.0f tokens/s/GPU (±%.0f%%), MFU %.1f%%, step %.2f s, peak %.1f of %.1f GiB%s\n", p.label(),
      p.gpus(), p.tokens_per_s_per_gpu(), 100 * p.uncertainty(), 100 * p.mfu(), p.step_time_s(),
      p.memory_peak_bytes() / (1024.0 * 1024 * 1024), p.memory_capacity_bytes() / (1024.0 * 1024 * 1024),
      p.fits() ? (p.tight() ? " (tight)" : "") : " (DOES NOT FIT)");
}

}  // namespace

std::string FormatRecommend(const v1::RecommendResponse& r) {
  std::string out;
  if (r.has_model()) out += Summary(r.model());
  // The sequence length first: a defaulted one is the answer's biggest assumption.
  google::protobuf::RepeatedPtrField<std::string> rest;
  for (const auto& reason : r.reasons()) {
    if (absl::StartsWith(reason, "seq_length not given")) {
      absl::StrAppend(&out, "sequence: ", reason, "\n");
    } else {
      *rest.Add() = reason;
    }
  }
  if (!r.feasible()) absl::StrAppend(&out, "NO FEASIBLE PLAN: ", r.infeasible_reason(), "\n");
  for (const auto& p : r.plans()) {
    absl::StrAppend(&out, "#", p.rank(), " ", PlanLine(p));
    if (r.has_current() && !p.changes().empty()) {
      absl::StrAppend(&out, "     changes from your plan: ", absl::StrJoin(p.changes(), ", "), "\n");
    }
    for (const auto& reason : p.reasons()) absl::StrAppend(&out, "     - ", reason, "\n");
    for (const auto& v : p.violations()) absl::StrAppend(&out, "     ! ", v.rule(), ": ", v.message(), "\n");
  }
  if (!r.plans().empty()) {
    absl::StrAppend(&out, "Megatron Bridge overrides of #1:\n", r.plans(0).bridge_overrides());
    if (!absl::EndsWith(out, "\n")) out += "\n";
  }
  if (r.has_current()) absl::StrAppend(&out, "your plan: ", PlanLine(r.current()), "  ", r.current_comparison(), "\n");
  if (r.has_starting_point()) absl::StrAppend(&out, "starting point: ", PlanLine(r.starting_point()));
  absl::StrAppend(&out, "  ", r.starting_point_comparison(), "\n");
  const auto& j = r.rejected();
  absl::StrAppend(&out, "rejected: ", j.invalid(), " invalid, ", j.does_not_fit(), " do not fit, ", j.dominated(),
                  " dominated\n");
  if (j.has_best_invalid()) {
    absl::StrAppend(&out, "  best invalid: ", j.best_invalid().label(), " -- ",
                    j.best_invalid().violations().empty() ? std::string("split impossible")
                                                          : j.best_invalid().violations(0).message(),
                    "\n");
  }
  if (j.has_best_not_fitting()) absl::StrAppend(&out, "  fastest not fitting: ", PlanLine(j.best_not_fitting()));
  if (j.has_best_dominated()) absl::StrAppend(&out, "  next below: ", PlanLine(j.best_dominated()));
  if (r.truncated()) absl::StrAppend(&out, "SEARCH CUT SHORT: ", r.truncated_reason(), "\n");
  out += Reasons(rest);
  for (const auto& d : r.defaults()) absl::StrAppend(&out, "  default: ", d, "\n");
  return out;
}

namespace {

template <typename Resp, std::string (*F)(const Resp&)>
std::string FormatAs(const google::protobuf::Message& m) {
  return F(static_cast<const Resp&>(m));
}

using Formatter = std::string (*)(const google::protobuf::Message&);

const std::map<std::string, Formatter>& Formatters() {
#define PARPLAN_CLI_FORMATTER(Name, cost) {#Name, &FormatAs<v1::Name##Response, &Format##Name>},
  static const auto* formatters = new std::map<std::string, Formatter>{PARPLAN_PLANNER_RPCS(PARPLAN_CLI_FORMATTER)};
#undef PARPLAN_CLI_FORMATTER
  return *formatters;
}

}  // namespace

std::string FormatAnswer(const std::string& rpc, const google::protobuf::Message& response) {
  const auto it = Formatters().find(rpc);
  return it == Formatters().end() ? "" : absl::StrCat(it->second(response), ResolvedPlanText(response));
}

bool HasFormatter(const std::string& rpc) { return Formatters().count(rpc) > 0; }

}  // namespace cli
}  // namespace parplan
