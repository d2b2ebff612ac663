#include "core/config/front_end.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/config/nemo_containers.h"
#include "core/util/field_error.h"
#include "core/util/text.h"

namespace parplan {

std::string FrontEndName(FrontEnd f) { return f == FrontEnd::kMegatronLm ? "megatron-lm" : "bridge"; }

const std::vector<std::string>& KnownFrontEnds() {
  static const auto* names = new std::vector<std::string>{"bridge", "megatron-lm"};
  return *names;
}

absl::StatusOr<FrontEnd> ParseFrontEnd(const std::string& text, const std::string& field) {
  const std::string v = NormalizeName(text);
  if (v.empty() || v == "bridge" || v == "megatron_bridge" || v == "megatron-bridge") return FrontEnd::kBridge;
  if (v == "megatron-lm" || v == "megatron_lm" || v == "mlm") return FrontEnd::kMegatronLm;
  return FieldError(field, absl::StrCat("'", text.substr(0, 32), "' is not a front end; allowed ",
                                        absl::StrJoin(KnownFrontEnds(), ", "), " [bridge]"));
}

bool BridgeVersion::operator<(const BridgeVersion& o) const {
  if (major != o.major) return major < o.major;
  if (minor != o.minor) return minor < o.minor;
  return patch < o.patch;
}

std::string BridgeVersionName(const BridgeVersion& v) { return absl::StrCat(v.major, ".", v.minor, ".", v.patch); }

const std::vector<BridgeVersion>& KnownBridgeReleases() {
  // The release tags of NVIDIA-NeMo/Megatron-Bridge up to the pinned commit
  // 067f987df0 (main after v0.6.0, tagged 2026-08-19; its package_info.py
  // says 0.7.0, unreleased).
  static const auto* releases =
      new std::vector<BridgeVersion>{{0, 2, 0}, {0, 2, 1}, {0, 2, 2}, {0, 3, 0}, {0, 3, 1}, {0, 4, 0},
                                     {0, 4, 1}, {0, 4, 2}, {0, 5, 0}, {0, 5, 1}, {0, 6, 0}};
  return *releases;
}

BridgeVersion NewestKnownBridge() { return KnownBridgeReleases().back(); }

absl::StatusOr<BridgeVersion> ParseBridgeVersion(const std::string& text, const std::string& field) {
  if (text.empty()) return NewestKnownBridge();
  if (LooksLikeContainerTag(text)) {
    if (const NemoContainer* c = FindNemoContainer(text)) return c->bridge;
    const auto& all = KnownNemoContainers();
    return FieldError(
        field, absl::StrCat("NeMo container '", text.substr(0, 32), "' is not one parplan knows (", all.front().tag,
                            "..", all.back().tag, "; 25.09 and older ship Megatron Bridge releases before ",
                            BridgeVersionName(KnownBridgeReleases().front()),
                            ", whose defaults parplan has not read): give a known container or a "
                            "Bridge release"));
  }
  const std::string known =
      absl::StrCat(BridgeVersionName(KnownBridgeReleases().front()), "..", BridgeVersionName(NewestKnownBridge()));
  std::string v = text.substr(0, 32);
  if (!v.empty() && (v[0] == 'v' || v[0] == 'V')) v = v.substr(1);
  // A pre-release suffix (0.6.0rc1) reads as its release.
  const size_t suffix = v.find_first_not_of("0123456789.");
  if (suffix != std::string::npos) v = v.substr(0, suffix);
  std::vector<std::string> parts = absl::StrSplit(v, '.');
  BridgeVersion out;
  int* fields[] = {&out.major, &out.minor, &out.patch};
  bool ok = parts.size() >= 2 && parts.size() <= 3;
  for (size_t i = 0; ok && i < parts.size(); ++i) ok = absl::SimpleAtoi(parts[i], fields[i]) && *fields[i] >= 0;
  if (!ok) {
    return FieldError(field, absl::StrCat("'", text.substr(0, 32),
                                          "' is not a Megatron Bridge version; give MAJOR.MINOR[.PATCH], e.g. 0.6.0 "
                                          "(known: ",
                                          known, ")"));
  }
  if (out < KnownBridgeReleases().front() || NewestKnownBridge() < out) {
    return FieldError(
        field, absl::StrCat("Megatron Bridge ", BridgeVersionName(out), " is outside the releases parplan knows (",
                            known, "); a newer release may change defaults parplan has not read: give ",
                            BridgeVersionName(NewestKnownBridge()), " to plan with the newest"));
  }
  return out;
}

bool BridgeSetsEtpToOne(const BridgeVersion& v) { return !(v < BridgeVersion{0, 6, 0}); }

std::string AssumesLine(FrontEnd f, const BridgeVersion& v) {
  if (f == FrontEnd::kMegatronLm) {
    return absl::StrCat("Megatron-LM launch (pretrain_gpt.py argument defaults and checks at Megatron-LM ",
                        kPinnedMegatronCommit, ")");
  }
  return absl::StrCat("Megatron Bridge ", BridgeVersionName(v), " defaults (checks read at Bridge ",
                      kPinnedBridgeCommit, ", Megatron-Core ", kPinnedMegatronCommit, ")");
}

}  // namespace parplan
