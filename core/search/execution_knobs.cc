#include "core/search/execution_knobs.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/rules/validate.h"

namespace parplan {
namespace {

// The rule-id prefixes whose errors refuse each axis's values.
std::vector<const char*> RulePrefixes(KnobAxis axis) {
  switch (axis) {
    case KnobAxis::kDispatcher:
      return {"moe.", "ep.flex", "ep_overlap.", "cuda_graph."};
    case KnobAxis::kEpOverlap:
      return {"ep_overlap.", "overlap_moe_expert_parallel_comm"};
    case KnobAxis::kTpOverlap:
      return {"tp_overlap.", "tp_comm_overlap"};
    case KnobAxis::kCudaGraph:
      return {"cuda_graph.", "ep_overlap."};
    case KnobAxis::kOptimizerOffload:
      return {"optimizer.offload", "cuda_graph."};
  }
  return {};
}

ResolvedConfig WithDispatcher(const ResolvedConfig& c, const std::string& type, const std::string& backend) {
  ResolvedConfig x = c;
  x.moe_token_dispatcher_type = type;
  x.dispatcher_defaulted = false;
  x.dispatch_fields_given = true;
  if (!backend.empty()) {
    x.moe_flex_dispatcher_backend = backend;
    x.flex_backend_given = true;
  } else {
    x.flex_backend_given = false;
  }
  return x;
}

ResolvedConfig WithGraphs(const ResolvedConfig& c, const std::string& impl, std::vector<std::string> modules) {
  ResolvedConfig x = c;
  x.cuda_graph_impl = impl;
  x.cuda_graph_modules = std::move(modules);
  return x;
}

ResolvedConfig WithOffload(const ResolvedConfig& c, double fraction) {
  ResolvedConfig x = c;
  x.optimizer_cpu_offload = fraction > 0;
  x.optimizer_offload_fraction = fraction;
  x.offload_fraction_given = fraction > 0;
  return x;
}

std::string GraphWords(const ResolvedConfig& c) {
  if (c.cuda_graph_impl == "none" || c.cuda_graph_impl.empty()) return "none";
  if (c.cuda_graph_impl == "full_iteration") return "full_iteration";
  if (c.cuda_graph_modules.empty()) return absl::StrCat(c.cuda_graph_impl, " (whole layers)");
  return absl::StrCat(c.cuda_graph_impl, " [", absl::StrJoin(c.cuda_graph_modules, ", "), "]");
}

std::string GraphChange(const ResolvedConfig& c) {
  if (c.cuda_graph_impl == "none") return "cuda_graph_impl = none";
  if (c.cuda_graph_impl == "full_iteration") return "cuda_graph_impl = full_iteration";
  if (c.cuda_graph_modules.empty()) return absl::StrCat("cuda_graph_impl = ", c.cuda_graph_impl, " (whole layers)");
  return absl::StrCat("cuda_graph_impl = ", c.cuda_graph_impl, ", cuda_graph_modules = [",
                      absl::StrJoin(c.cuda_graph_modules, ", "), "]");
}

// The candidate values of `axis` for `c` (its own value included; the
// caller drops it and filters by the checks).
std::vector<KnobOption> Values(const ModelSpec& m, const ResolvedConfig& c, KnobAxis axis) {
  std::vector<KnobOption> out;
  switch (axis) {
    case KnobAxis::kDispatcher: {
      if (!m.is_moe() || c.ep * c.etp <= 1) break;
      out.push_back({axis, "moe_token_dispatcher_type = alltoall", WithDispatcher(c, "alltoall", "")});
      for (const char* backend : {"deepep", "hybridep"}) {
        out.push_back({axis, absl::StrCat("moe_token_dispatcher_type = flex, moe_flex_dispatcher_backend = ", backend),
                       WithDispatcher(c, "flex", backend)});
      }
      break;
    }
    case KnobAxis::kEpOverlap: {
      if (!m.is_moe() || c.ep <= 1) break;
      for (bool on : {false, true}) {
        ResolvedConfig x = c;
        x.overlap_moe_expert_parallel_comm = on;
        out.push_back({axis, absl::StrCat("overlap_moe_expert_parallel_comm = ", on ? "true" : "false"), x});
      }
      break;
    }
    case KnobAxis::kTpOverlap: {
      if (c.tp <= 1 || !c.sp) break;
      for (bool on : {false, true}) {
        ResolvedConfig x = c;
        x.tp_comm_overlap = on;
        out.push_back({axis, absl::StrCat("tp_comm_overlap = ", on ? "true" : "false"), x});
      }
      break;
    }
    case KnobAxis::kCudaGraph: {
      std::vector<ResolvedConfig> graphs = {WithGraphs(c, "none", {}), WithGraphs(c, "transformer_engine", {"attn"})};
      if (m.is_moe()) graphs.push_back(WithGraphs(c, "transformer_engine", {"attn", "moe_router", "moe_preprocess"}));
      graphs.push_back(WithGraphs(c, "transformer_engine", {}));
      graphs.push_back(WithGraphs(c, "full_iteration", {}));
      for (ResolvedConfig& x : graphs) {
        std::string change = GraphChange(x);
        out.push_back({axis, std::move(change), std::move(x)});
      }
      break;
    }
    case KnobAxis::kOptimizerOffload: {
      if (!c.distributed_optimizer || c.fsdp) break;
      out.push_back({axis, "optimizer_cpu_offload = false", WithOffload(c, 0)});
      for (double f : {0.5, 1.0}) {
        out.push_back({axis, absl::StrFormat("optimizer_cpu_offload = true, optimizer_offload_fraction = %.1f", f),
                       WithOffload(c, f)});
      }
      break;
    }
  }
  return out;
}

}  // namespace

const char* KnobAxisName(KnobAxis axis) {
  switch (axis) {
    case KnobAxis::kDispatcher:
      return "dispatcher";
    case KnobAxis::kEpOverlap:
      return "ep_overlap";
    case KnobAxis::kTpOverlap:
      return "tp_overlap";
    case KnobAxis::kCudaGraph:
      return "cuda_graph";
    case KnobAxis::kOptimizerOffload:
      return "optimizer_offload";
  }
  return "";
}

const char* KnobAxisField(KnobAxis axis) {
  switch (axis) {
    case KnobAxis::kDispatcher:
      return "moe_token_dispatcher_type";
    case KnobAxis::kEpOverlap:
      return "overlap_moe_expert_parallel_comm";
    case KnobAxis::kTpOverlap:
      return "tp_comm_overlap";
    case KnobAxis::kCudaGraph:
      return "cuda_graph_impl";
    case KnobAxis::kOptimizerOffload:
      return "optimizer_cpu_offload";
  }
  return "";
}

bool KnobPinned(const ResolvedConfig& c, KnobAxis axis) {
  if (c.given == nullptr) return false;
  const ParallelConfig& g = *c.given;
  switch (axis) {
    case KnobAxis::kDispatcher:
      return !g.moe_token_dispatcher_type.empty() || !g.moe_flex_dispatcher_backend.empty();
    case KnobAxis::kEpOverlap:
      return g.overlap_moe_expert_parallel_comm.has_value();
    case KnobAxis::kTpOverlap:
      return g.tp_comm_overlap.has_value();
    case KnobAxis::kCudaGraph:
      return !g.cuda_graph_impl.empty() || !g.cuda_graph_modules.empty();
    case KnobAxis::kOptimizerOffload:
      return g.optimizer_cpu_offload.has_value() || g.optimizer_offload_fraction.has_value();
  }
  return false;
}

std::string KnobValue(const ResolvedConfig& c, KnobAxis axis) {
  switch (axis) {
    case KnobAxis::kDispatcher:
      return c.moe_token_dispatcher_type == "flex" ? absl::StrCat("flex/", c.moe_flex_dispatcher_backend)
                                                   : c.moe_token_dispatcher_type;
    case KnobAxis::kEpOverlap:
      return c.overlap_moe_expert_parallel_comm ? "on" : "off";
    case KnobAxis::kTpOverlap:
      return c.tp_comm_overlap ? "on" : "off";
    case KnobAxis::kCudaGraph:
      return GraphWords(c);
    case KnobAxis::kOptimizerOffload:
      return c.optimizer_cpu_offload ? absl::StrFormat("%.1f", c.optimizer_offload_fraction) : "off";
  }
  return "";
}

std::optional<KnobOption> WithoutConflict(const ModelSpec& m, const KnobAlternative& alternative,
                                          const SystemSpec& sys) {
  const std::string& rule = alternative.refusal;
  KnobAxis other;
  if (absl::StartsWith(rule, "cuda_graph.")) {
    other = KnobAxis::kCudaGraph;
  } else if (absl::StartsWith(rule, "ep_overlap.")) {
    other = KnobAxis::kEpOverlap;
  } else if (absl::StartsWith(rule, "optimizer.offload")) {
    other = KnobAxis::kOptimizerOffload;
  } else if (absl::StartsWith(rule, "moe.")) {
    other = KnobAxis::kDispatcher;
  } else {
    return std::nullopt;
  }
  const KnobAxis axis = alternative.option.axis;
  if (other == axis) return std::nullopt;
  const ResolvedConfig& c = alternative.option.config;
  KnobOption out = alternative.option;
  switch (other) {
    case KnobAxis::kCudaGraph:
      out.config = WithGraphs(c, "none", {});
      break;
    case KnobAxis::kEpOverlap:
      out.config.overlap_moe_expert_parallel_comm = false;
      break;
    case KnobAxis::kTpOverlap:
      out.config.tp_comm_overlap = false;
      break;
    case KnobAxis::kOptimizerOffload:
      out.config = WithOffload(c, 0);
      break;
    case KnobAxis::kDispatcher:
      out.config = WithDispatcher(c, "alltoall", "");
      break;
  }
  if (!KnobRefusal(m, out.config, sys, axis).empty() || !KnobRefusal(m, out.config, sys, other).empty()) {
    return std::nullopt;
  }
  absl::StrAppend(&out.change, " (with ", KnobAxisName(other), " ", KnobValue(out.config, other), ")");
  return out;
}

std::pair<const char*, double> KnobTerm(KnobAxis axis, const PerfEstimate& p) {
  switch (axis) {
    case KnobAxis::kDispatcher:
    case KnobAxis::kEpOverlap:
      return {"EP comm", p.breakdown.ep_comm_s};
    case KnobAxis::kTpOverlap:
      return {"TP comm", p.breakdown.tp_comm_s};
    case KnobAxis::kCudaGraph:
      return {"host overhead", p.breakdown.overhead_s};
    case KnobAxis::kOptimizerOffload:
      return {"optimizer", p.breakdown.optimizer_s};
  }
  return {"", 0};
}

std::string KnobRefusal(const ModelSpec& m, const ResolvedConfig& c, const SystemSpec& sys, KnobAxis axis) {
  ValidationInput in;
  in.model = &m;
  in.config = c;
  in.placement.system = sys;  // no GPU count: the world's own checks stay with the mesh
  const ValidationResult r = Validate(in);
  for (const Violation& v : r.violations) {
    if (v.severity != Severity::kError) continue;
    for (const char* prefix : RulePrefixes(axis)) {
      if (absl::StartsWith(v.rule, prefix)) return absl::StrCat(v.rule, ": ", v.message);
    }
  }
  return "";
}

std::vector<KnobAlternative> KnobAlternatives(const ModelSpec& m, const ResolvedConfig& c, const SystemSpec& sys,
                                              KnobAxis axis) {
  std::vector<KnobAlternative> out;
  const std::string own = KnobValue(c, axis);
  for (KnobOption& o : Values(m, c, axis)) {
    if (KnobValue(o.config, axis) == own) continue;
    std::string refusal = KnobRefusal(m, o.config, sys, axis);
    out.push_back({std::move(o), std::move(refusal)});
  }
  return out;
}

std::vector<KnobOption> KnobOptions(const ModelSpec& m, const ResolvedConfig& c, const SystemSpec& sys, KnobAxis axis) {
  std::vector<KnobOption> out;
  for (KnobAlternative& a : KnobAlternatives(m, c, sys, axis)) {
    if (a.refusal.empty()) out.push_back(std::move(a.option));
  }
  return out;
}

}  // namespace parplan
