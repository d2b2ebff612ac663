// Which front end launches the job and which Megatron Bridge release's
// defaults apply. Defaults that differ between them (ETP, the MoE
// dispatcher, the distributed optimizer, the optimizer offload fraction)
// are read from here by ResolveConfig only, so every method answers for the
// same release; every answer names it (AssumesLine).
#ifndef PARPLAN_CORE_CONFIG_FRONT_END_H_
#define PARPLAN_CORE_CONFIG_FRONT_END_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace parplan {

// Megatron Bridge (recipes, ConfigContainer, its model providers' defaults)
// or Megatron-LM (pretrain_gpt.py and its argument parser's defaults).
enum class FrontEnd { kBridge, kMegatronLm };

// "bridge" | "megatron-lm".
std::string FrontEndName(FrontEnd f);
const std::vector<std::string>& KnownFrontEnds();

// Accepts "bridge", "megatron-bridge", "megatron-lm", "mlm" (case and '_'
// insensitive); "" = bridge. Anything else: INVALID_ARGUMENT naming `field`,
// the value and the accepted names.
absl::StatusOr<FrontEnd> ParseFrontEnd(const std::string& text, const std::string& field);

// A Megatron Bridge release, as its tags name it (v0.6.0 -> 0.6.0).
struct BridgeVersion {
  int major = 0, minor = 0, patch = 0;
  bool operator<(const BridgeVersion& o) const;
};

// "0.6.0".
std::string BridgeVersionName(const BridgeVersion& v);

// The releases parplan knows, oldest first, and the newest of them (the
// default when a request names none).
const std::vector<BridgeVersion>& KnownBridgeReleases();
BridgeVersion NewestKnownBridge();

// Accepts "0.6.0", "v0.5.1", "0.6" (patch 0), with an optional pre-release
// suffix ("0.6.0rc1" reads as 0.6.0), or a NeMo container tag ("26.04",
// "nemo:26.02.01": the release it ships, core/config/nemo_containers.h;
// an unknown tag is INVALID_ARGUMENT); "" = NewestKnownBridge(). Versions
// outside KnownBridgeReleases()' range: INVALID_ARGUMENT
// naming `field`, the value and the known range (a newer release may change
// defaults parplan has not read).
absl::StatusOr<BridgeVersion> ParseBridgeVersion(const std::string& text, const std::string& field);

// Megatron Bridge set expert_tensor_parallel_size = 1 when EP > 1 and ETP is
// unset from 0.6.0 (_set_moe_expert_tensor_parallel_default,
// src/megatron/bridge/models/transformer_config.py); up to 0.5.x Megatron-
// Core's default ETP = TP applied.
bool BridgeSetsEtpToOne(const BridgeVersion& v);

// The commit parplan's Bridge checks were read at (core/rules/MEGATRON_CHECKS.md).
inline constexpr const char* kPinnedBridgeCommit = "067f987df0";
inline constexpr const char* kPinnedMegatronCommit = "d98e8a64";

// What every answer says it assumes: "Megatron Bridge 0.6.0 defaults (checks
// read at Bridge 067f987df0, Megatron-Core d98e8a64)" or, for Megatron-LM,
// "Megatron-LM launch (pretrain_gpt.py argument defaults; Megatron-Core
// d98e8a64)". With a NeMo container named, ContainerAssumes
// (core/config/nemo_containers.h) follows it.
std::string AssumesLine(FrontEnd f, const BridgeVersion& v);

}  // namespace parplan

#endif  // PARPLAN_CORE_CONFIG_FRONT_END_H_
