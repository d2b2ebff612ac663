// CompareRun and Calibrate over API protos: a training log read and set
// beside the prediction for its config; compared runs fitted into a cluster
// calibration.
#ifndef PARPLAN_SERVER_API_RUN_API_H_
#define PARPLAN_SERVER_API_RUN_API_H_

#include "absl/status/status.h"
#include "parplan/v1/planner.pb.h"

namespace parplan {
namespace api {

namespace v1 = ::parplan::v1;

absl::Status CompareRun(const v1::CompareRunRequest& request, v1::CompareRunResponse* response);
absl::Status Calibrate(const v1::CalibrateRequest& request, v1::CalibrateResponse* response);

}  // namespace api
}  // namespace parplan

#endif  // PARPLAN_SERVER_API_RUN_API_H_
