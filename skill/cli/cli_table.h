// Human-readable rendering of API responses for `parplan` without --json:
// Format<Name> for every row <Name> of the method table (server/api/api_methods.h;
// a row without its formatter does not compile), and FormatAnswer to pick
// one by RPC name.
#ifndef PARPLAN_SKILL_CLI_CLI_TABLE_H_
#define PARPLAN_SKILL_CLI_CLI_TABLE_H_

#include <string>

#include "parplan/v1/planner.pb.h"

namespace parplan {
namespace cli {

namespace v1 = ::parplan::v1;

std::string FormatListModels(const v1::ListModelsResponse& r);
std::string FormatGetModel(const v1::GetModelResponse& r);
std::string FormatListSystems(const v1::ListSystemsResponse& r);
std::string FormatGetSystem(const v1::GetSystemResponse& r);
std::string FormatMinGpus(const v1::MinGpusResponse& r);
std::string FormatValidate(const v1::ValidateResponse& r);
std::string FormatExplainLayout(const v1::ExplainLayoutResponse& r);
std::string FormatRenderConfig(const v1::RenderConfigResponse& r);
std::string FormatEstimateMemory(const v1::EstimateMemoryResponse& r);
std::string FormatEstimatePerformance(const v1::EstimatePerformanceResponse& r);
std::string FormatRecommend(const v1::RecommendResponse& r);
// skill/cli/cli_table_runs.cc:
std::string FormatImportConfig(const v1::ImportConfigResponse& r);
std::string FormatCompareRun(const v1::CompareRunResponse& r);
std::string FormatCalibrate(const v1::CalibrateResponse& r);

// Shared pieces: one line per violation (with its fix and upstream source
// for errors), one "  - " line per reason.
std::string Violations(const google::protobuf::RepeatedPtrField<v1::Violation>& vs);
std::string Reasons(const google::protobuf::RepeatedPtrField<std::string>& reasons);

// The text of `response` (of `rpc`'s response type) by the row's formatter;
// "" for an unknown RPC.
std::string FormatAnswer(const std::string& rpc, const google::protobuf::Message& response);
// True when `rpc` has a formatter.
bool HasFormatter(const std::string& rpc);

}  // namespace cli
}  // namespace parplan

#endif  // PARPLAN_SKILL_CLI_CLI_TABLE_H_
