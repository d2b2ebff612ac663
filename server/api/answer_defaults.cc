#include "server/api/answer_defaults.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/config/precision.h"
#include "core/util/text.h"

namespace parplan {
namespace api {
namespace {

std::string OnOff(bool b) { return b ? "true" : "false"; }

// "BF16", "FP8" or "FP4": the tensor-core peak a precision runs at.
std::string PeakKind(Precision p) {
  switch (p) {
    case Precision::kBf16:
      return "BF16";
    case Precision::kNvfp4:
      return "FP4";
    default:
      return "FP8";
  }
}

}  // namespace

std::vector<std::string> ConfigDefaults(const v1::ParallelConfig& g, const ResolvedConfig& r, const ModelSpec* model,
                                        DefaultsFor what) {
  std::vector<std::string> out;
  const bool search = what == DefaultsFor::kSearch;
  if (g.precision().empty()) {
    out.push_back(
        absl::StrCat("precision = ", PrecisionName(r.precision), " (not given; MFU is against the BF16 dense peak)"));
  }
  if (g.seq_length() == 0 && r.seq_length > 0) {
    out.push_back(absl::StrCat("seq_length = ", r.seq_length,
                               " (not given: the model's pretraining length, else its context capped at 8,192)"));
  }
  if (!search) {
    std::vector<std::string> dims;
    if (g.tp() == 0) dims.push_back("tp = 1");
    if (g.pp() == 0) dims.push_back("pp = 1");
    if (g.cp() == 0) dims.push_back("cp = 1");
    if (g.vpp() == 0) dims.push_back("vpp = none");
    if (g.ep() == 0) dims.push_back("ep = 1");
    if (g.mbs() == 0) dims.push_back("mbs = 1");
    if (!dims.empty()) out.push_back(absl::StrCat(absl::StrJoin(dims, ", "), " (not given)"));
    if (g.recompute_granularity().empty()) out.push_back("recompute_granularity = none (not given)");
  }
  const bool moe = model != nullptr && model->is_moe();
  if (!g.has_etp() && moe) {
    out.push_back(search     ? "etp: searched (not pinned; Megatron Bridge's default is ETP = 1 when EP > 1, "
                               "Megatron-Core's ETP = TP)"
                  : r.ep > 1 ? absl::StrCat("etp = 1 (not given: Megatron Bridge's default when EP > 1; "
                                            "Megatron-LM would use ETP = TP = ",
                                            r.tp, ")")
                             : absl::StrCat("etp = ", r.etp,
                                            " (not given: = TP, Megatron-Core's default, "
                                            "kept by Megatron Bridge when EP = 1)"));
  }
  if (!g.has_sp() && !search) out.push_back(absl::StrCat("sp = ", OnOff(r.sp), " (not given: on when TP > 1)"));
  if (!g.has_mtp_num_layers() && r.mtp_num_layers > 0) {
    out.push_back(absl::StrCat("mtp_num_layers = ", r.mtp_num_layers, " (not given: the model's)"));
  }
  if (!g.has_use_distributed_optimizer()) {
    out.push_back(absl::StrCat("use_distributed_optimizer = ", OnOff(r.distributed_optimizer), " (not given)"));
  }
  if (!g.has_grad_reduce_in_fp32()) {
    out.push_back(absl::StrCat("grad_reduce_in_fp32 = ", OnOff(r.grad_fp32),
                               " (not given: Megatron Bridge's bf16_mixed; its perf recipes set false)"));
  }
  if (g.optimizer_state_dtype().empty()) out.push_back("optimizer_state_dtype = fp32 (not given)");
  std::vector<std::string> overlap;
  if (!g.has_tp_comm_overlap()) overlap.push_back(absl::StrCat("tp_comm_overlap = ", OnOff(r.tp_comm_overlap)));
  if (!g.has_overlap_grad_reduce()) {
    overlap.push_back(absl::StrCat("overlap_grad_reduce = ", OnOff(r.overlap_grad_reduce)));
  }
  if (!g.has_overlap_moe_expert_parallel_comm() && moe) {
    overlap.push_back(absl::StrCat("overlap_moe_expert_parallel_comm = ", OnOff(r.overlap_moe_expert_parallel_comm)));
  }
  if (!overlap.empty()) {
    out.push_back(absl::StrCat(absl::StrJoin(overlap, ", "), " (not given: Megatron Bridge's defaults)"));
  }
  if (moe) {
    std::vector<std::string> dispatch;
    if (g.moe_token_dispatcher_type().empty()) dispatch.push_back("moe_token_dispatcher_type = alltoall");
    if (!g.has_moe_permute_fusion()) dispatch.push_back("moe_permute_fusion = on");
    if (!dispatch.empty()) {
      out.push_back(absl::StrCat(absl::StrJoin(dispatch, ", "),
                                 " (not given: Megatron Bridge's model bridges; Megatron-LM's defaults are allgather "
                                 "and no permute fusion)"));
    }
    if (r.moe_token_dispatcher_type == "flex" && g.moe_flex_dispatcher_backend().empty()) {
      out.push_back("moe_flex_dispatcher_backend = deepep (not given: Megatron-Core's default)");
    }
    if (!g.has_moe_router_force_load_balancing()) out.push_back("moe_router_force_load_balancing = off (not given)");
    if (!g.has_use_transformer_engine_op_fuser()) {
      out.push_back("use_transformer_engine_op_fuser = off (not given: Megatron-Core's and Bridge's default)");
    }
  }
  if (!r.offload_modules.empty() && !g.has_fine_grained_offloading_max_inflight_offloads()) {
    out.push_back(
        "fine_grained_offloading_max_inflight_offloads = unset (not given: Megatron's None, no joins; "
        "full_iteration graphs need a value)");
  }
  if (!search && r.cp > 1 && g.cp_comm_type().empty()) {
    out.push_back("cp_comm_type = p2p (not given: Megatron's default)");
  }
  if (r.optimizer_cpu_offload && !g.has_optimizer_offload_fraction()) {
    out.push_back(
        "optimizer_offload_fraction = 0.0 (not given: Megatron-Core's default, which offloads nothing; "
        "Megatron-LM's --optimizer-offload-fraction defaults to 1.0)");
  }
  std::vector<std::string> kernels;
  if (g.cuda_graph_impl().empty()) kernels.push_back("cuda_graph_impl = none");
  if (g.attention_backend().empty()) kernels.push_back("attention_backend = auto");
  if (!kernels.empty()) out.push_back(absl::StrCat(absl::StrJoin(kernels, ", "), " (not given)"));
  return out;
}

std::string MfuStatement(double mfu, double peak_tflops, Precision precision) {
  return absl::StrFormat("MFU %.1f%% against the %s dense peak %s TFLOP/s (precision %s).", 100 * mfu,
                         PeakKind(precision), WithCommas(std::llround(peak_tflops)), PrecisionName(precision));
}

}  // namespace api
}  // namespace parplan
