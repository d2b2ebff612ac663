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

std::string MfuStatement(double mfu, double peak_tflops, Precision precision) {
  return absl::StrFormat("MFU %.1f%% against the %s dense peak %s TFLOP/s (precision %s).", 100 * mfu,
                         PeakKind(precision), WithCommas(std::llround(peak_tflops)), PrecisionName(precision));
}

}  // namespace api
}  // namespace parplan
