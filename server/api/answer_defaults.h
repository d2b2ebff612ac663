// The inputs a request left to their defaults, named in the answer so that
// it stands alone: "precision = bf16 (not given; ...)". One list per answer
// (EstimateMemory, EstimatePerformance, Recommend: their `defaults` field).
#ifndef PARPLAN_SERVER_ANSWER_DEFAULTS_H_
#define PARPLAN_SERVER_ANSWER_DEFAULTS_H_

#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"
#include "parplan/v1/planner.pb.h"

namespace parplan {
namespace api {

// What a call searches over (Recommend: the parallel sizes, MBS and, unless
// pinned, recompute are the search's choices, not defaults).
enum class DefaultsFor { kEstimate, kSearch };

// The config fields of `given` left unset, each as "field = value (why)"
// with the value `resolved` took. `model` may be null.
std::vector<std::string> ConfigDefaults(const v1::ParallelConfig& given, const ResolvedConfig& resolved,
                                        const ModelSpec* model, DefaultsFor what);

// "MFU 41.2% against the FP8 dense peak 1,979 TFLOP/s (precision fp8-cs)."
std::string MfuStatement(double mfu, double peak_tflops, Precision precision);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_ANSWER_DEFAULTS_H_
