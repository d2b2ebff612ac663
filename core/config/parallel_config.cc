#include "core/config/parallel_config.h"

#include "absl/strings/str_cat.h"
#include "core/catalog/catalog.h"
#include "core/util/field_error.h"

namespace parplan {

absl::Status CheckConfigBounds(const ParallelConfig& c, const std::string& prefix) {
  FieldErrors errors;
  auto f = [&prefix](const char* name) { return absl::StrCat(prefix, ".", name); };
  // 0 means "not given" for every dimension.
  errors.CheckRange(f("tp"), c.tp, 0, kMaxDim);
  errors.CheckRange(f("pp"), c.pp, 0, kMaxDim);
  errors.CheckRange(f("vpp"), c.vpp, 0, kMaxDim);
  errors.CheckRange(f("cp"), c.cp, 0, kMaxDim);
  errors.CheckRange(f("ep"), c.ep, 0, kMaxDim);
  if (c.etp.has_value()) errors.CheckRange(f("etp"), *c.etp, 1, kMaxDim);
  errors.CheckRange(f("mbs"), c.mbs, 0, kMaxMbs);
  errors.CheckRange(f("gbs"), c.gbs, 0, kMaxGbs);
  errors.CheckRange(f("seq_length"), c.seq_length, 0, kMaxSeqLength);
  errors.CheckRange(f("num_layers_in_first_pipeline_stage"), c.first_stage_layers, 0, 1024);
  errors.CheckRange(f("num_layers_in_last_pipeline_stage"), c.last_stage_layers, 0, 1024);
  if (c.mtp_num_layers.has_value()) errors.CheckRange(f("mtp_num_layers"), *c.mtp_num_layers, 0, 64);
  if (c.pipeline_layout.size() > kMaxLayoutChars) {
    errors.Add(f("pipeline_layout"), absl::StrCat("layout has ", c.pipeline_layout.size(),
                                                  " characters; allowed at most ", kMaxLayoutChars));
  }
  if (c.precision.size() > 64) errors.Add(f("precision"), "precision name longer than 64 characters");
  return errors.ToStatus();
}

absl::StatusOr<ResolvedConfig> ResolveConfig(const ParallelConfig& c, const ModelSpec* model,
                                             const std::string& prefix) {
  if (absl::Status s = CheckConfigBounds(c, prefix); !s.ok()) return s;
  ResolvedConfig r;
  r.tp = c.tp > 0 ? c.tp : 1;
  r.pp = c.pp > 0 ? c.pp : 1;
  r.vpp = c.vpp > 0 ? c.vpp : 1;
  r.vpp_given = c.vpp > 1;
  r.cp = c.cp > 0 ? c.cp : 1;
  r.ep = c.ep > 0 ? c.ep : 1;
  if (c.etp.has_value()) {
    r.etp = *c.etp;
  } else {
    r.etp = r.tp;
    r.etp_defaulted = true;
    if (r.tp > 1 && (r.ep > 1 || (model != nullptr && model->is_moe()))) {
      r.notes.push_back(absl::StrCat("etp not given: Megatron-Core sets expert_tensor_parallel_size = "
                                     "tp = ", r.tp, "; pass etp=1 to keep experts unsplit"));
    }
  }
  if (c.sp.has_value()) {
    r.sp = *c.sp;
  } else {
    r.sp = r.tp > 1;
    r.sp_defaulted = true;
    if (r.tp > 1) r.notes.push_back("sp not given: sequence parallelism assumed on because tp > 1");
  }
  r.mbs = c.mbs > 0 ? c.mbs : 1;
  r.gbs = c.gbs;
  r.seq_length = c.seq_length > 0 ? c.seq_length : (model != nullptr ? model->seq_length : 0);
  if (c.seq_length == 0 && r.seq_length > 0) {
    r.notes.push_back(absl::StrCat("seq_length not given: using the model's ", r.seq_length));
  }
  r.first_stage_layers = c.first_stage_layers;
  r.last_stage_layers = c.last_stage_layers;
  r.pipeline_layout = c.pipeline_layout;
  auto precision = ParsePrecision(c.precision, absl::StrCat(prefix, ".precision"));
  if (!precision.ok()) return precision.status();
  r.precision = *precision;
  if (c.mtp_num_layers.has_value()) {
    r.mtp_num_layers = *c.mtp_num_layers;
  } else if (model != nullptr) {
    r.mtp_num_layers = model->mtp_num_layers;
  }
  return r;
}

absl::StatusOr<ResolvedPlacement> ResolvePlacement(const Placement& p, const std::string& prefix) {
  FieldErrors errors;
  errors.CheckRange(absl::StrCat(prefix, ".gpus"), p.gpus, 0, kMaxGpus);
  errors.CheckRange(absl::StrCat(prefix, ".gpus_per_node"), p.gpus_per_node, 0, kMaxGpusPerNode);
  if (p.system.size() > 256) errors.Add(absl::StrCat(prefix, ".system"), "system name longer than 256 characters");
  if (!errors.empty()) return errors.ToStatus();
  ResolvedPlacement r;
  r.gpus = p.gpus;
  if (!p.system.empty()) {
    auto system = Catalog::Get().FindSystem(p.system);
    if (!system.ok()) return system.status();
    r.system = *system;
    r.gpus_per_node = system->gpus_per_node;
    r.nvlink_domain_size = system->nvlink_domain_size;
  }
  if (p.gpus_per_node > 0) {
    r.gpus_per_node = p.gpus_per_node;
    if (!r.system.has_value()) r.nvlink_domain_size = p.gpus_per_node;
  }
  return r;
}

}  // namespace parplan
