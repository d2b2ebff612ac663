// Rules from the published known issues of the NeMo container a request
// names (ParallelConfig::bridge_version = "26.02" etc.): Megatron Bridge
// docs/releases/known-issues.md at 067f987df0. They apply only when a
// container is named; a Bridge release alone says nothing about the image.
#include <string>

#include "absl/strings/str_cat.h"
#include "core/config/nemo_containers.h"
#include "core/rules/rule_context.h"

namespace parplan {
namespace {

bool UsesDeepEp(const ResolvedConfig& c) {
  return c.moe_token_dispatcher_type == "flex" && c.moe_flex_dispatcher_backend == "deepep";
}

}  // namespace

void CheckContainerRules(const RuleContext& ctx) {
  const ResolvedConfig& c = ctx.in.config;
  const NemoContainer* image = ContainerOf(c);
  if (image == nullptr) return;
  const std::string& tag = image->tag;
  const ModelSpec* m = ctx.in.model;
  const bool moe = (m != nullptr && m->is_moe()) || c.ep > 1;
  // known-issues.md "26.02": "DeepEP is not supported in the current NeMo
  // framework 26.02 container (nvcr.io/nvidia/nemo:26.02)".
  if (tag == "26.02" && moe && UsesDeepEp(c)) {
    ctx.Add("container.deepep_unavailable", {"moe_flex_dispatcher_backend", "bridge_version"},
            "flex dispatcher backend deepep in the NeMo 26.02 container: NVIDIA lists DeepEP as not supported in "
            "nvcr.io/nvidia/nemo:26.02 (Megatron Bridge docs/releases/known-issues.md, 26.02)",
            "use moe_flex_dispatcher_backend = hybridep or the alltoall dispatcher, or another container (NVIDIA "
            "recommends 25.09 for DeepSeek-V3 on H100)");
  }
  // known-issues.md "25.11": "Deepseek V3 on H100 has an issue when using
  // DeepEP and fails with RuntimeError: DeepEP error: timeout (dispatch CPU)".
  if (tag == "25.11" && moe && UsesDeepEp(c) && ctx.in.placement.system.has_value() &&
      ctx.in.placement.system->gpu_arch == "hopper") {
    ctx.Add("container.deepep_hopper_timeout", {"moe_flex_dispatcher_backend", "bridge_version", "system"},
            absl::StrCat("flex dispatcher backend deepep on ", ctx.in.placement.system->id,
                         " in the NeMo 25.11 container: NVIDIA lists DeepSeek-V3 on H100 with DeepEP as failing with "
                         "'DeepEP error: timeout (dispatch CPU)' (Megatron Bridge docs/releases/known-issues.md, "
                         "25.11); reported for DeepSeek-V3, other MoE models not stated"),
            "use the alltoall dispatcher or HybridEP in 25.11, or a newer container");
  }
  // known-issues.md "26.06": "Moonlight and Nemotron v3 Nano model training
  // recipe shows performance degradation with TP > 1 ... root caused ... to
  // the base PyTorch image upgrade from 26.02 to 26.04" (NeMo 26.06 is the
  // first built on the PyTorch 26.04 image, software-versions.md).
  const bool pytorch_2604_image = tag == "26.06" || tag == "26.06.01";
  if (pytorch_2604_image && c.tp > 1 && m != nullptr && (m->id == "moonlight_16b" || m->id == "nemotron_3_nano")) {
    ctx.Add("container.tp_slowdown_pytorch_image", {"tp", "bridge_version"},
            absl::StrCat("TP=", c.tp, " for ", m->id, " in the NeMo ", tag,
                         " container: NVIDIA lists a performance degradation with TP > 1 for Moonlight and Nemotron "
                         "3 Nano, root-caused to the PyTorch base image upgrade (26.02 -> 26.04) (Megatron Bridge "
                         "docs/releases/known-issues.md, 26.06); its size is not published, so parplan's estimate "
                         "does not include it"),
            "use TP=1 with the HybridEP dispatcher, as NVIDIA's workaround says");
  }
}

}  // namespace parplan
