// The one converter layer between the API protos and the core types. Every
// door (gRPC service, CLI, MCP) goes through these functions, so a field is
// spelled and valued the same way everywhere.
#ifndef PARPLAN_SERVER_CONVERT_H_
#define PARPLAN_SERVER_CONVERT_H_

#include <string>
#include <vector>

#include "core/config/parallel_config.h"
#include "core/config/resolved_settings.h"
#include "core/memory/memory_planner.h"
#include "core/search/memory_fixes.h"
#include "core/search/split_repair.h"
#include "core/mesh/mesh.h"
#include "core/resolve/model_resolve.h"
#include "core/perf/perf_model.h"
#include "core/pipeline/stage_plan.h"
#include "core/diagnostics/violation.h"
#include "parplan/v1/planner.pb.h"

namespace parplan {

// parplan::v1 (the API protos) is visible here as v1.

// Request -> core.
ModelSource ToModelSource(const v1::ModelRef& ref);
bool HasModel(const v1::ModelRef& ref);
ParallelConfig ToParallelConfig(const v1::ParallelConfig& config);
// The inverse of ToParallelConfig (server/api/convert_given.cc): what the
// caller would send to give exactly `config`.
void FromParallelConfig(const ParallelConfig& config, v1::ParallelConfig* out);
// `top`'s set fields over `base`: scalars and messages merge (a proto3 zero
// is "not given"), a repeated field `top` sets replaces `base`'s.
void OverlayParallelConfig(const v1::ParallelConfig& top, v1::ParallelConfig* base);
// The figures of a v1::SystemSpec (unset optional fields stay unset). A
// figure may be given under SystemInfo's printed name (hbm_gb,
// nvlink_gbps_unidirectional, ...): it is converted to SystemSpec's
// (nvlink both directions = 2 x one direction); the SystemSpec spelling wins
// when both are given (CheckSystemSpecSpellings rejects two that differ).
SystemFigures ToSystemFigures(const v1::SystemSpec& spec);
// INVALID_ARGUMENT naming "<prefix>.<printed name>" for each figure given
// under both spellings with different values.
absl::Status CheckSystemSpecSpellings(const v1::SystemSpec& spec, const std::string& prefix);
// Rewrites the printed spellings of `spec` as SystemSpec's (so single-figure
// overrides, e.g. the CLI's --hbm-gib, replace a printed figure).
void CanonicalizeSystemSpec(v1::SystemSpec* spec);
Placement ToPlacement(const v1::Placement& placement);

// Core -> response.
void ToModelArchitecture(const ModelSpec& model, v1::ModelArchitecture* out);
ModelSpec FromModelArchitecture(const v1::ModelArchitecture& arch);
void ToModelInfo(const ModelSpec& model, v1::ModelInfo* out);
void ToModelSummary(const ModelSpec& model, v1::ModelSummary* out);
void ToSystemInfo(const SystemSpec& system, v1::SystemInfo* out);
void ToViolation(const Violation& violation, v1::Violation* out);
void ToViolations(const std::vector<Violation>& violations, google::protobuf::RepeatedPtrField<v1::Violation>* out);
void ToWorldSizing(const WorldSizing& world, v1::WorldSizing* out);
void ToResolvedConfig(const ResolvedConfig& config, v1::ParallelConfig* out);

// The resolved plan's settings (core/config/resolved_settings.h) as proto.
void ToResolvedSettings(const std::vector<ResolvedSetting>& settings,
                        google::protobuf::RepeatedPtrField<v1::ResolvedSetting>* out);
void ToPerformanceBreakdown(const PerfBreakdown& breakdown, v1::PerformanceBreakdown* out);
void ToLayerComputeTime(const LayerCompute& layer, v1::LayerComputeTime* out);
void ToStageLayers(const StagePlan& plan, google::protobuf::RepeatedPtrField<v1::StageLayers>* out);
void ToStageMemory(const StageMemory& stage, v1::StageMemory* out);
void ToSplitRepair(const SplitRepair& repair, v1::SplitRepair* out);
void ToMemorySuggestion(const MemoryFix& fix, v1::MemorySuggestion* out);

}  // namespace parplan

#endif  // PARPLAN_SERVER_CONVERT_H_
