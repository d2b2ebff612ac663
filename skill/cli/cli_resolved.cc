#include "skill/cli/cli_resolved.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "parplan/v1/planner.pb.h"

namespace parplan {
namespace cli {

namespace {

// The defaulted or chosen settings a text answer names (the JSON answer's
// `resolved` has them all): those that change the mesh's arithmetic, the
// traffic or the numbers a reader would otherwise take for Megatron's own.
bool InCompactList(const std::string& field) {
  static const auto* fields = new std::vector<std::string>{"dp",
                                                           "edp",
                                                           "etp",
                                                           "sp",
                                                           "vpp",
                                                           "cp_comm_type",
                                                           "gbs",
                                                           "seq_length",
                                                           "fp8_param_gather",
                                                           "recompute_method",
                                                           "recompute_num_layers",
                                                           "optimizer_cpu_offload",
                                                           "optimizer_offload_fraction",
                                                           "moe_token_dispatcher_type",
                                                           "moe_flex_dispatcher_backend",
                                                           "placement.gpus",
                                                           "placement.gpus_per_nvlink_domain"};
  for (const auto& f : *fields) {
    if (field == f) return true;
  }
  return false;
}

}  // namespace

std::string ResolvedPlanText(const google::protobuf::Message& response) {
  const google::protobuf::Descriptor* d = response.GetDescriptor();
  const google::protobuf::Reflection* r = response.GetReflection();
  const google::protobuf::FieldDescriptor* assumes = d->FindFieldByName("assumes");
  const google::protobuf::FieldDescriptor* resolved = d->FindFieldByName("resolved");
  if (assumes == nullptr || resolved == nullptr) return "";
  std::string out;
  const std::string line = r->GetString(response, assumes);
  if (!line.empty()) absl::StrAppend(&out, "assumes: ", line, "\n");
  std::vector<std::string> chosen;
  for (int i = 0; i < r->FieldSize(response, resolved); ++i) {
    const auto& s = static_cast<const v1::ResolvedSetting&>(r->GetRepeatedMessage(response, resolved, i));
    const bool layout_vpp = s.field() != "vpp" || s.value() != "none";  // VPP only where a layout sets it
    if (s.source() != "user" && InCompactList(s.field()) && layout_vpp) {
      chosen.push_back(
          absl::StrCat(s.field(), "=", s.value(), " (", s.source() == "parplan" ? s.why() : s.source(), ")"));
    }
  }
  if (!chosen.empty()) absl::StrAppend(&out, "resolved (not given): ", absl::StrJoin(chosen, ", "), "\n");
  return out;
}

}  // namespace cli
}  // namespace parplan
