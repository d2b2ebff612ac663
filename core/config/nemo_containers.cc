#include "core/config/nemo_containers.h"

#include <cctype>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace parplan {

const std::vector<NemoContainer>& KnownNemoContainers() {
  // Megatron Bridge docs/releases/software-versions.md at 067f987df0 lists
  // 25.11, 26.02, 26.04 and 26.06 with their component versions; the patch
  // containers and 26.08 are paired with the Bridge tag their performance
  // summaries were cherry-picked onto (tests/data/moe_recipe_history.md,
  // section 1: docs/releases/known-issues.md "Fixed in 26.02.01 (r0.3.1)",
  // the 26.04.01 / 26.06.01 / 26.08 perf-summary commits). 25.09 shipped
  // Bridge 0.1.0rc3, older than the releases parplan has read.
  static const std::string kVersions = "Bridge docs/releases/software-versions.md";
  static const std::string kFixedIn = "Bridge docs/releases/known-issues.md (\"Fixed in 26.02.01 (r0.3.1)\")";
  static const std::string kHistory = "nearest Bridge tag of its performance summary, inferred";
  static const auto* containers = new std::vector<NemoContainer>{
      {"25.11", {0, 2, 0}, "0.15.0", "2.9", "2.9.0", "13.0.1", "9.13.1", kVersions},
      {"26.02", {0, 3, 0}, "0.16.0", "2.12", "2.10.0", "13.0.2", "9.18.0", kVersions},
      {"26.02.01", {0, 3, 1}, "", "", "", "", "", kFixedIn},
      {"26.04", {0, 4, 0}, "0.17.0", "2.14", "2.11.0", "13.1.1", "9.20.0", kVersions},
      {"26.04.01", {0, 4, 2}, "", "", "", "", "", kHistory},
      {"26.06", {0, 5, 0}, "0.18.0", "2.16", "2.12.0", "13.2.1", "9.21.1", kVersions},
      {"26.06.01", {0, 5, 1}, "", "", "", "", "", kHistory},
      {"26.08", {0, 6, 0}, "", "", "", "", "", kHistory},
  };
  return *containers;
}

namespace {

// The tag without the image name ("nemo:26.04" -> "26.04").
absl::string_view WithoutImageName(absl::string_view text) {
  return absl::StartsWithIgnoreCase(text, "nemo:") ? text.substr(5) : text;
}

}  // namespace

bool LooksLikeContainerTag(const std::string& text) {
  const std::vector<std::string> parts = absl::StrSplit(WithoutImageName(text), '.');
  if (parts.size() < 2 || parts.size() > 3) return false;
  for (const std::string& p : parts) {
    if (p.empty() || p.size() > 2) return false;
    for (char ch : p) {
      if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
    }
  }
  int year = 0;
  return absl::SimpleAtoi(parts[0], &year) && year >= 24;
}

const NemoContainer* FindNemoContainer(const std::string& tag) {
  const absl::string_view t = WithoutImageName(tag);
  for (const NemoContainer& c : KnownNemoContainers()) {
    if (c.tag == t) return &c;
  }
  return nullptr;
}

std::string DescribeNemoContainer(const NemoContainer& c) {
  std::vector<std::string> parts = {absl::StrCat("Megatron Bridge ", BridgeVersionName(c.bridge))};
  auto add = [&](const char* name, const std::string& v) {
    if (!v.empty()) parts.push_back(absl::StrCat(name, " ", v));
  };
  add("Megatron-Core", c.megatron_core);
  add("Transformer Engine", c.transformer_engine);
  add("PyTorch", c.pytorch);
  add("CUDA", c.cuda);
  add("cuDNN", c.cudnn);
  return absl::StrCat("NeMo ", c.tag, " container: ", absl::StrJoin(parts, ", "),
                      c.megatron_core.empty() ? " (library versions not published)" : "", " (", c.source, ")");
}

const NemoContainer* ContainerOf(const ResolvedConfig& c) {
  return c.given == nullptr ? nullptr : FindNemoContainer(c.given->bridge_version);
}

std::string ContainerAssumes(const ResolvedConfig& c) {
  const NemoContainer* image = ContainerOf(c);
  return image == nullptr ? "" : absl::StrCat("; ", DescribeNemoContainer(*image));
}

}  // namespace parplan
