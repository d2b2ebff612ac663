// Training precisions and their names in Megatron Bridge / Megatron-LM.
#ifndef PARPLAN_CORE_CONFIG_PRECISION_H_
#define PARPLAN_CORE_CONFIG_PRECISION_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace parplan {

enum class Precision { kBf16, kFp8Cs, kFp8Mx, kFp8Sc, kFp8Ds, kNvfp4 };

// Accepts bf16, fp8-cs (fp8_current, fp8_tensorwise), fp8-mx (mxfp8),
// fp8-sc (fp8_blockwise, fp8_subchannel), fp8-ds (fp8_delayed), nvfp4
// (fp4); case-insensitive, '-' == '_'. Empty means bf16. A bare "fp8" is
// an error naming the four FP8 recipes (it is ambiguous); anything else an
// error listing the accepted names.
absl::StatusOr<Precision> ParsePrecision(absl::string_view text, const std::string& field);

// Every precision's canonical name, in enum order: bf16 fp8-cs fp8-mx fp8-sc
// fp8-ds nvfp4.
const std::vector<std::string>& PrecisionNames();

// Canonical short name: "bf16", "fp8-cs", ...
std::string PrecisionName(Precision p);

// Megatron Bridge mixed-precision recipe (src/megatron/bridge/training/mixed_precision.py).
std::string BridgeMixedPrecisionRecipe(Precision p);

// Megatron-LM flags for the precision ("--bf16 --fp8-format hybrid --fp8-recipe tensorwise").
std::string MegatronLmPrecisionFlags(Precision p);

// Bytes per GEMM weight as stored and as Megatron gathers it. Megatron
// Bridge's FP8/FP4 recipes gather parameters in the low-precision format
// (fp8_param_gather / fp4_param_gather, training/mixed_precision.py): the
// weight itself is FP8 (tensorwise: one copy, its transpose built per use),
// MXFP8/NVFP4 keep row- and column-wise data with their block scales.
// Master weights live in the optimizer.
double GemmWeightBytes(Precision p);

bool IsFp8(Precision p);
bool IsFp4(Precision p);

}  // namespace parplan

#endif  // PARPLAN_CORE_CONFIG_PRECISION_H_
