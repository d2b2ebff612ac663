// Human-readable rendering of API responses for `parplan` without --json.
#ifndef PARPLAN_SKILL_CLI_CLI_TABLE_H_
#define PARPLAN_SKILL_CLI_CLI_TABLE_H_

#include <string>

#include "parplan/v1/planner.pb.h"

namespace parplan {
namespace cli {

namespace v1 = ::parplan::v1;

std::string FormatModels(const v1::ListModelsResponse& r);
std::string FormatModel(const v1::GetModelResponse& r);
std::string FormatSystems(const v1::ListSystemsResponse& r);
std::string FormatSystem(const v1::GetSystemResponse& r);
std::string FormatMinGpus(const v1::MinGpusResponse& r);
std::string FormatValidate(const v1::ValidateResponse& r);
std::string FormatLayout(const v1::ExplainLayoutResponse& r);
std::string FormatRender(const v1::RenderConfigResponse& r);
std::string FormatMemory(const v1::EstimateMemoryResponse& r);
std::string FormatPerformance(const v1::EstimatePerformanceResponse& r);
std::string FormatRecommend(const v1::RecommendResponse& r);

}  // namespace cli
}  // namespace parplan

#endif  // PARPLAN_SKILL_CLI_CLI_TABLE_H_
