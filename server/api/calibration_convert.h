// A cluster calibration between its proto and core forms, and the step-time
// parameters a request's calibration gives on a system.
#ifndef PARPLAN_SERVER_API_CALIBRATION_CONVERT_H_
#define PARPLAN_SERVER_API_CALIBRATION_CONVERT_H_

#include <string>

#include "core/calibrate/calibration.h"
#include "core/perf/perf_model.h"
#include "core/system/system_spec.h"
#include "parplan/v1/planner.pb.h"

namespace parplan {
namespace api {

namespace v1 = ::parplan::v1;

void ToCalibrationProto(const Calibration& calibration, v1::Calibration* out);
Calibration FromCalibrationProto(const v1::Calibration& calibration);

// True when the request carries a calibration (any run or determined factor).
bool HasCalibration(const v1::Calibration& calibration);

// The parameters for `system`: the published-run fit, with the
// calibration's factors when the request carries one for this GPU. `said`
// (set when a calibration was given) tells which, in words.
PerfParams ParamsForRequest(const v1::Calibration& calibration, const SystemSpec& system, std::string* said);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_API_CALIBRATION_CONVERT_H_
