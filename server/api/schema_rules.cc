#include "server/api/schema_rules.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/config/front_end.h"
#include "core/config/parallel_config.h"
#include "core/config/precision.h"
#include "core/import/imported_config.h"
#include "core/memory/memory_margin.h"
#include "core/model/hf_config.h"
#include "core/model/model_checks.h"
#include "core/search/search_types.h"
#include "core/resolve/system_resolve.h"
#include "core/runlog/run_log.h"
#include "core/util/limits.h"

namespace parplan {
namespace api {
namespace {

FieldRule Range(double lo, double hi) {
  FieldRule r;
  r.minimum = lo;
  r.maximum = hi;
  return r;
}

// (0, hi]: a physical figure that must be positive.
FieldRule Positive(double hi) {
  FieldRule r;
  r.exclusive_minimum = 0;
  r.maximum = hi;
  return r;
}

FieldRule OneOf(const std::vector<std::string>& choices, int64_t max_items = 0) {
  FieldRule r;
  r.choices = choices;
  if (max_items > 0) r.max_length = max_items;
  return r;
}

FieldRule Chars(int64_t n) {
  FieldRule r;
  r.max_length = n;
  return r;
}

using RuleTable = std::map<std::pair<std::string, std::string>, FieldRule>;

const RuleTable& Rules() {
  static const RuleTable* table = [] {
    auto* t = new RuleTable();
    auto add = [t](const char* message, const char* field, FieldRule rule) {
      (*t)[{message, field}] = std::move(rule);
    };
    // ParallelConfig: core/config/parallel_config.cc CheckConfigBounds; 0 = not given.
    for (const char* dim : {"tp", "pp", "vpp", "cp", "ep"}) add("ParallelConfig", dim, Range(0, kMaxDim));
    add("ParallelConfig", "etp", Range(1, kMaxDim));
    add("ParallelConfig", "mbs", Range(0, kMaxMbs));
    add("ParallelConfig", "gbs", Range(0, kMaxGbs));
    add("ParallelConfig", "seq_length", Range(1, kMaxSeqLength));  // explicit 0 refused (json_codec.cc)
    add("ParallelConfig", "num_layers_in_first_pipeline_stage", Range(0, kMaxStageLayers));
    add("ParallelConfig", "num_layers_in_last_pipeline_stage", Range(0, kMaxStageLayers));
    add("ParallelConfig", "pipeline_layout", Chars(kMaxLayoutChars));
    add("ParallelConfig", "precision", OneOf(PrecisionNames()));
    add("ParallelConfig", "mtp_num_layers", Range(0, kMaxMtpLayers));
    add("ParallelConfig", "recompute_granularity", OneOf(KnownRecomputeGranularities()));
    add("ParallelConfig", "recompute_modules", OneOf(KnownRecomputeModules(), kMaxModules));
    add("ParallelConfig", "recompute_method", OneOf(KnownRecomputeMethods()));
    add("ParallelConfig", "recompute_num_layers", Range(0, kMaxStageLayers));
    add("ParallelConfig", "optimizer_state_dtype", OneOf(KnownOptimizerStateDtypes()));
    add("ParallelConfig", "peft", OneOf(KnownPeftMethods()));
    add("ParallelConfig", "cpu_offloading_num_layers", Range(0, kMaxStageLayers));
    add("ParallelConfig", "offload_modules", OneOf(KnownOffloadModules(), kMaxModules));
    add("ParallelConfig", "cuda_graph_impl", OneOf(KnownCudaGraphImpls()));
    add("ParallelConfig", "cuda_graph_modules", OneOf(KnownCudaGraphModules(), kMaxModules));
    add("ParallelConfig", "attention_backend", OneOf(KnownAttentionBackends()));
    add("ParallelConfig", "moe_token_dispatcher_type", OneOf(KnownTokenDispatchers()));
    add("ParallelConfig", "moe_flex_dispatcher_backend", OneOf(KnownFlexBackends()));
    add("ParallelConfig", "fine_grained_offloading_max_inflight_offloads", Range(0, kMaxInflightOffloads));
    add("ParallelConfig", "cp_comm_type", OneOf(KnownCpCommTypes()));
    add("ParallelConfig", "hierarchical_context_parallel_sizes", Range(1, kMaxDim));
    add("ParallelConfig", "optimizer_offload_fraction", Range(0, 1));
    add("ParallelConfig", "front_end", OneOf(KnownFrontEnds()));
    std::vector<std::string> releases;
    for (const BridgeVersion& v : KnownBridgeReleases()) releases.push_back(BridgeVersionName(v));
    add("ParallelConfig", "bridge_version", OneOf(releases));
    // Placement: core/config/parallel_config.cc CheckPlacementBounds.
    add("Placement", "system", Chars(kMaxNameChars));
    add("Placement", "gpus", Range(1, kMaxGpus));  // explicit 0 refused (json_codec.cc)
    add("Placement", "gpus_per_node", Range(0, kMaxGpusPerNode));
    add("Placement", "gpus_per_nvlink_domain", Range(0, kMaxNvlinkDomain));
    // ModelRef: core/resolve/model_resolve.cc.
    add("ModelRef", "id", Chars(kMaxNameChars));
    add("ModelRef", "size", Chars(kMaxNameChars));
    add("ModelRef", "hf_config_json", Chars(kMaxHfConfigBytes));
    // ModelArchitecture: core/model/model_checks.cc.
    for (const char* f : {"num_layers", "first_k_dense_layers", "moe_layer_freq", "window_attn_skip_freq"}) {
      add("ModelArchitecture", f, Range(0, kMaxLayers));
    }
    for (const char* f : {"hidden_size", "ffn_hidden_size", "num_attention_heads", "num_query_groups", "kv_channels",
                          "q_lora_rank", "kv_lora_rank", "qk_head_dim", "qk_pos_emb_head_dim", "v_head_dim",
                          "moe_ffn_hidden_size", "moe_shared_expert_intermediate_size", "moe_latent_size",
                          "mamba_state_dim", "mamba_head_dim", "mamba_num_heads", "mamba_num_groups"}) {
      add("ModelArchitecture", f, Range(0, kMaxWidth));
    }
    add("ModelArchitecture", "vocab_size", Range(0, kMaxVocab));
    add("ModelArchitecture", "make_vocab_size_divisible_by", Range(0, kMaxVocabMultiple));
    add("ModelArchitecture", "seq_length", Range(0, kMaxTokens));
    add("ModelArchitecture", "num_moe_experts", Range(0, kMaxExperts));
    add("ModelArchitecture", "moe_router_topk", Range(0, kMaxExperts));
    add("ModelArchitecture", "mtp_num_layers", Range(0, kMaxMtpLayers));
    add("ModelArchitecture", "window_size", Range(0, kMaxTokens));
    add("ModelArchitecture", "attention_chunk_size", Range(0, kMaxTokens));
    add("ModelArchitecture", "hybrid_layer_pattern", Chars(kMaxPatternChars));
    add("ModelArchitecture", "window_attn_pattern", Chars(kMaxPatternChars));
    add("ModelArchitecture", "softmax_type", OneOf(KnownSoftmaxTypes()));
    add("ModelArchitecture", "position_embedding_type", OneOf(KnownPositionEmbeddingTypes()));
    add("ModelArchitecture", "normalization", OneOf(KnownNormalizations()));
    add("ModelArchitecture", "activation_func", OneOf(KnownActivations()));
    add("ModelArchitecture", "rope_scaling_type", OneOf(KnownRopeScalingTypes()));
    add("ModelArchitecture", "rope_scaling_factor", Range(0, kMaxRopeScalingFactor));
    add("ModelArchitecture", "rope_original_context", Range(0, kMaxTokens));
    // SystemSpec: core/resolve/system_resolve.cc CheckFigures.
    add("SystemSpec", "name", Chars(kMaxNameChars));
    add("SystemSpec", "gpu_arch", OneOf(KnownGpuArchitectures()));
    add("SystemSpec", "hbm_gib", Positive(kMaxHbmGib));
    add("SystemSpec", "hbm_tbps", Positive(kMaxHbmTbps));
    add("SystemSpec", "bf16_tflops", Positive(kMaxTflops));
    add("SystemSpec", "fp8_tflops", Range(0, kMaxTflops));
    add("SystemSpec", "fp4_tflops", Range(0, kMaxTflops));
    add("SystemSpec", "nvlink_domain_size", Range(1, kMaxNvlinkDomain));
    add("SystemSpec", "nvlink_gbps", Range(0, kMaxLinkGbytes));
    add("SystemSpec", "gpus_per_node", Range(1, kMaxGpusPerNode));
    add("SystemSpec", "scaleout_gbps", Positive(kMaxNetworkGbits));
    add("SystemSpec", "nics_per_node", Range(1, kMaxNicsPerNode));
    add("SystemSpec", "nic_gbps", Positive(kMaxNetworkGbits));
    add("SystemSpec", "pcie_gbps", Positive(kMaxLinkGbytes));
    // The requests' own fields: core/util/limits.h.
    add("ListModelsRequest", "filter", Chars(kMaxNameChars));
    add("GetSystemRequest", "system", Chars(kMaxNameChars));
    add("MinGpusRequest", "num_next_world_sizes", Range(0, kMaxNextWorldSizes));
    add("ExplainLayoutRequest", "max_ranks", Range(0, kMaxRanksListed));
    add("ExplainLayoutRequest", "max_groups", Range(0, kMaxGroupsListed));
    add("ExplainLayoutRequest", "rank", Range(0, kMaxGpus - 1));
    add("EstimateMemoryRequest", "overhead_gib", Range(0, kMaxOverheadGib));
    add("EstimateMemoryRequest", "max_suggestions", Range(0, kMaxSuggestions));
    add("EstimateMemoryRequest", "memory_reserve", Range(0, kMaxMemoryReserve));
    add("RecommendRequest", "min_gpus", Range(0, kMaxGpus));
    add("RecommendRequest", "max_gpus", Range(0, kMaxGpus));
    add("RecommendRequest", "objective", OneOf(ObjectiveNames()));
    add("RecommendRequest", "top_k", Range(0, kMaxTopK));
    add("RecommendRequest", "max_candidates", Range(0, kMaxCandidates));
    add("RecommendRequest", "memory_reserve", Range(0, kMaxMemoryReserve));
    add("RecommendRequest", "current_gpus", Range(0, kMaxGpus));
    // Issue 34's doors: server/api/import_api.cc, run_api.cc.
    add("ImportConfigRequest", "text", Chars(kMaxImportBytes));
    add("ImportConfigRequest", "format", OneOf(ImportFormatNames()));
    add("ImportConfigRequest", "overrides", Chars(512));
    add("CompareRunRequest", "log", Chars(kMaxLogBytes));
    add("CompareRunRequest", "baseline_log", Chars(kMaxLogBytes));
    add("CompareRunRequest", "config_text", Chars(kMaxImportBytes));
    add("CompareRunRequest", "baseline_config_text", Chars(kMaxImportBytes));
    add("CompareRunRequest", "min_steady_iterations", Range(0, 100000));
    add("CalibrateRequest", "runs", Chars(64));
    add("CalibrateRunInput", "log", Chars(kMaxLogBytes));
    add("CalibrateRunInput", "config_text", Chars(kMaxImportBytes));
    add("SearchConstraints", "max_pp", Range(0, kMaxSearchPp));
    return t;
  }();
  return *table;
}

}  // namespace

const FieldRule* FieldRuleOf(absl::string_view message, absl::string_view field) {
  const auto it = Rules().find({std::string(message), std::string(field)});
  return it == Rules().end() ? nullptr : &it->second;
}

std::vector<std::string> RequiredFields(absl::string_view rpc, absl::string_view path) {
  // The checks that name a missing field: server/api/planner_api.cc and
  // server/api/recommend_api.cc ("... needs a model", "needs the world size").
  static const auto* table = new std::map<std::pair<std::string, std::string>, std::vector<std::string>>{
      {{"GetModel", ""}, {"model"}},
      {{"EstimateMemory", ""}, {"model"}},
      {{"EstimatePerformance", ""}, {"model", "placement"}},
      {{"Recommend", ""}, {"model", "placement"}},
      {{"ExplainLayout", ""}, {"placement"}},
      {{"ExplainLayout", "placement"}, {"gpus"}},
      {{"ImportConfig", ""}, {"text"}},
      {{"CompareRun", ""}, {"log"}},
      {{"Calibrate", ""}, {"runs"}},
      {{"Calibrate", "runs"}, {"log", "config_text"}},
  };
  const auto it = table->find({std::string(rpc), std::string(path)});
  return it == table->end() ? std::vector<std::string>{} : it->second;
}

bool NeedsSomeField(absl::string_view rpc) {
  // core/resolve/system_resolve.cc ResolveSystem: a catalog id or inline figures.
  return rpc == "GetSystem";
}

const std::vector<std::string>* ConfigFieldsRead(absl::string_view rpc) {
  // MinGpus sizes meshes and batches (server/api/planner_api.cc MinGpus);
  // ExplainLayout places ranks and, with a model, layers.
  static const auto* min_gpus = new std::vector<std::string>{"tp", "pp", "cp", "ep", "etp", "mbs", "gbs"};
  static const auto* layout = new std::vector<std::string>{"tp",
                                                           "pp",
                                                           "vpp",
                                                           "cp",
                                                           "ep",
                                                           "etp",
                                                           "num_layers_in_first_pipeline_stage",
                                                           "num_layers_in_last_pipeline_stage",
                                                           "pipeline_layout",
                                                           "mtp_num_layers",
                                                           "account_for_embedding_in_pipeline_split",
                                                           "account_for_loss_in_pipeline_split"};
  if (rpc == "MinGpus") return min_gpus;
  if (rpc == "ExplainLayout") return layout;
  return nullptr;
}

bool CollapsedInLeanSchemas(absl::string_view message) {
  return message == "SystemSpec" || message == "ParallelConfig" || message == "Calibration";
}

LeanHome LeanHomeOf(absl::string_view message) {
  if (message == "ModelRef") return {"get_model", "model"};
  if (message == "Placement") return {"validate", "placement"};
  if (message == "ParallelConfig") return {"validate", "config"};
  if (message == "ModelArchitecture") return {"get_model", "answer's model.arch", false};
  if (message == "SystemSpec") return {"get_system", "system_spec"};
  if (message == "Calibration") return {"calibrate", "answer", false};
  return {};
}

bool HiddenInLeanSchemas(absl::string_view message, absl::string_view field) {
  static const auto* printed = new std::vector<std::string>{"hbm_gb",
                                                            "hbm_bw_tbps",
                                                            "bf16_dense_tflops",
                                                            "fp8_dense_tflops",
                                                            "fp4_dense_tflops",
                                                            "nvlink_gbps_unidirectional",
                                                            "scaleout_gbps_per_gpu",
                                                            "pcie_gbps_unidirectional",
                                                            "id",
                                                            "aliases",
                                                            "description",
                                                            "sources",
                                                            "notes"};
  return message == "SystemSpec" && std::find(printed->begin(), printed->end(), field) != printed->end();
}

}  // namespace api
}  // namespace parplan
