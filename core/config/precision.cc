#include "core/config/precision.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/util/field_error.h"
#include "core/util/text.h"

namespace parplan {

absl::StatusOr<Precision> ParsePrecision(absl::string_view text, const std::string& field) {
  const std::string n = NormalizeName(text);
  if (n.empty() || n == "bf16" || n == "bf16_mixed") return Precision::kBf16;
  if (n == "fp8") {
    // Megatron Bridge has four FP8 recipes with different speed and memory;
    // guessing one would silently change the answer.
    return FieldError(field,
                      "precision 'fp8' is ambiguous: say which FP8 recipe: fp8-cs (current / tensorwise "
                      "scaling), fp8-mx (MXFP8, Blackwell), fp8-sc (blockwise / sub-channel), fp8-ds "
                      "(delayed scaling)");
  }
  if (n == "fp8_cs" || n == "fp8_current" || n == "fp8_tensorwise") return Precision::kFp8Cs;
  if (n == "fp8_mx" || n == "mxfp8") return Precision::kFp8Mx;
  if (n == "fp8_sc" || n == "fp8_blockwise" || n == "fp8_subchannel") return Precision::kFp8Sc;
  if (n == "fp8_ds" || n == "fp8_delayed") return Precision::kFp8Ds;
  if (n == "nvfp4" || n == "fp4") return Precision::kNvfp4;
  return FieldError(field, absl::StrCat("precision '", text.substr(0, 64), "' is unknown; allowed ",
                                        absl::StrJoin(PrecisionNames(), ", ")));
}

const std::vector<std::string>& PrecisionNames() {
  static const auto* names = [] {
    auto* out = new std::vector<std::string>();
    for (Precision p : {Precision::kBf16, Precision::kFp8Cs, Precision::kFp8Mx, Precision::kFp8Sc, Precision::kFp8Ds,
                        Precision::kNvfp4}) {
      out->push_back(PrecisionName(p));
    }
    return out;
  }();
  return *names;
}

std::string PrecisionName(Precision p) {
  switch (p) {
    case Precision::kBf16:
      return "bf16";
    case Precision::kFp8Cs:
      return "fp8-cs";
    case Precision::kFp8Mx:
      return "fp8-mx";
    case Precision::kFp8Sc:
      return "fp8-sc";
    case Precision::kFp8Ds:
      return "fp8-ds";
    case Precision::kNvfp4:
      return "nvfp4";
  }
  return "bf16";
}

std::string BridgeMixedPrecisionRecipe(Precision p) {
  switch (p) {
    case Precision::kBf16:
      return "bf16_mixed";
    case Precision::kFp8Cs:
      return "bf16_with_fp8_current_scaling_mixed";
    case Precision::kFp8Mx:
      return "bf16_with_mxfp8_mixed";
    case Precision::kFp8Sc:
      return "bf16_with_fp8_subchannel_scaling_mixed";
    case Precision::kFp8Ds:
      return "bf16_with_fp8_delayed_scaling_mixed";
    case Precision::kNvfp4:
      return "bf16_with_nvfp4_mixed";
  }
  return "bf16_mixed";
}

std::string MegatronLmPrecisionFlags(Precision p) {
  switch (p) {
    case Precision::kBf16:
      return "--bf16";
    case Precision::kFp8Cs:
      return "--bf16 --fp8-format hybrid --fp8-recipe tensorwise";
    case Precision::kFp8Mx:
      return "--bf16 --fp8-format e4m3 --fp8-recipe mxfp8";
    case Precision::kFp8Sc:
      return "--bf16 --fp8-format e4m3 --fp8-recipe blockwise";
    case Precision::kFp8Ds:
      return "--bf16 --fp8-format hybrid --fp8-recipe delayed";
    case Precision::kNvfp4:
      return "--bf16 --fp4-format e2m1 --fp4-recipe nvfp4";
  }
  return "--bf16";
}

bool IsFp8(Precision p) {
  return p == Precision::kFp8Cs || p == Precision::kFp8Mx || p == Precision::kFp8Sc || p == Precision::kFp8Ds;
}

bool IsFp4(Precision p) { return p == Precision::kNvfp4; }

double GemmWeightBytes(Precision p) {
  switch (p) {
    case Precision::kBf16:
      return 2.0;
    case Precision::kFp8Cs:
    case Precision::kFp8Ds:
    case Precision::kFp8Sc:
      return 1.0;
    case Precision::kFp8Mx:
      return 2.0 * (1 + 1.0 / 32);
    case Precision::kNvfp4:
      return 2.0 * (0.5 + 1.0 / 16);
  }
  return 2.0;
}

}  // namespace parplan
