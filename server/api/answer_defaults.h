// Answer wording shared by the estimate and search answers. (The inputs a
// request left to their defaults come from the resolved plan:
// core/config/resolved_settings.h.)
#ifndef PARPLAN_SERVER_ANSWER_DEFAULTS_H_
#define PARPLAN_SERVER_ANSWER_DEFAULTS_H_

#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/model/model_spec.h"
#include "parplan/v1/planner.pb.h"

namespace parplan {
namespace api {

// "MFU 41.2% against the FP8 dense peak 1,979 TFLOP/s (precision fp8-cs)."
std::string MfuStatement(double mfu, double peak_tflops, Precision precision);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_ANSWER_DEFAULTS_H_
