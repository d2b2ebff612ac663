// The parallel training configuration as a caller gives it (ParallelConfig,
// zeros meaning "not given") and with every default filled (ResolvedConfig).
#ifndef PARPLAN_CORE_CONFIG_PARALLEL_CONFIG_H_
#define PARPLAN_CORE_CONFIG_PARALLEL_CONFIG_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "core/config/front_end.h"
#include "core/config/precision.h"
#include "core/model/model_spec.h"
#include "core/mesh/mesh.h"
#include "core/resolve/system_resolve.h"
#include "core/system/system_spec.h"
#include "core/util/limits.h"

namespace parplan {

// Activation recomputation (megatron/core/transformer/transformer_config.py).
enum class RecomputeGranularity { kNone, kSelective, kFull };
enum class RecomputeMethod { kUniform, kBlock };

// Module names Megatron-Core accepts in recompute_modules / offload_modules.
const std::vector<std::string>& KnownRecomputeModules();
const std::vector<std::string>& KnownOffloadModules();
const std::vector<std::string>& KnownCudaGraphModules();

// The closed sets of the config's string fields ("" also means the default).
const std::vector<std::string>& KnownRecomputeGranularities();  // none selective full
const std::vector<std::string>& KnownRecomputeMethods();        // uniform block
const std::vector<std::string>& KnownOptimizerStateDtypes();    // fp32 bf16
const std::vector<std::string>& KnownPeftMethods();             // none lora
const std::vector<std::string>& KnownCudaGraphImpls();          // none local transformer_engine full_iteration
const std::vector<std::string>& KnownAttentionBackends();       // auto flash fused unfused local
const std::vector<std::string>& KnownTokenDispatchers();        // alltoall allgather flex
const std::vector<std::string>& KnownFlexBackends();            // deepep hybridep ncclep
const std::vector<std::string>& KnownCpCommTypes();             // p2p all_gather a2a a2a+p2p

struct ParallelConfig {
  int64_t tp = 0, pp = 0, vpp = 0, cp = 0, ep = 0;
  std::optional<int64_t> etp;
  std::optional<bool> sp;
  int64_t mbs = 0;
  int64_t gbs = 0;
  int64_t seq_length = 0;
  int64_t first_stage_layers = 0;
  int64_t last_stage_layers = 0;
  // Megatron-Core account_for_embedding_in_pipeline_split /
  // account_for_loss_in_pipeline_split: the embedding (loss) counts as one
  // layer of the first (last) pipeline stage when the layers are split.
  bool account_for_embedding = false;
  bool account_for_loss = false;
  std::string pipeline_layout;
  std::string precision;
  std::optional<int64_t> mtp_num_layers;
  std::string recompute_granularity;           // none | selective | full
  std::vector<std::string> recompute_modules;  // selective only
  std::string recompute_method;                // uniform | block (full only)
  int64_t recompute_num_layers = 0;            // 0 = not given
  std::optional<bool> use_distributed_optimizer;
  bool use_megatron_fsdp = false;
  std::optional<bool> grad_reduce_in_fp32;
  std::string optimizer_state_dtype;         // fp32 | bf16
  std::string peft;                          // none | lora
  int64_t cpu_offloading_num_layers = 0;     // Megatron cpu_offloading
  std::vector<std::string> offload_modules;  // fine-grained activation offloading
  // Communication overlap (Megatron Bridge comm_overlap / ddp switches);
  // unset = Bridge's default (TP and MoE all-to-all overlap off, gradient
  // reduce overlap on).
  std::optional<bool> tp_comm_overlap;
  std::optional<bool> overlap_grad_reduce;
  std::optional<bool> overlap_moe_expert_parallel_comm;
  // CUDA graphs (Megatron-Core cuda_graph_impl / cuda_graph_modules).
  std::string cuda_graph_impl;                  // none | local | transformer_engine | full_iteration
  std::vector<std::string> cuda_graph_modules;  // attn, mlp, moe, moe_router, moe_preprocess, mamba, full
  std::string attention_backend;  // Megatron-Core attention_backend: auto | flash | fused | unfused | local
  // MoE token dispatch (Megatron-Core moe_token_dispatcher_type and friends);
  // empty / unset = Megatron Bridge's default (see ResolvedConfig).
  std::string moe_token_dispatcher_type;    // alltoall | allgather | flex
  std::string moe_flex_dispatcher_backend;  // deepep | hybridep | ncclep (flex only)
  std::optional<bool> moe_permute_fusion;
  std::optional<bool> moe_router_force_load_balancing;
  // Megatron-Core apply_rope_fusion; unset = the front end's default (see ResolvedConfig).
  std::optional<bool> apply_rope_fusion;
  // Megatron-Core use_transformer_engine_op_fuser (Transformer Engine's
  // fused-op API: the fused grouped expert MLP, TEFusedMLP for dense MLPs);
  // unset = False, Megatron-Core's and Bridge's default.
  std::optional<bool> use_transformer_engine_op_fuser;
  // Megatron-Core fine_grained_offloading_max_inflight_offloads: offloads per
  // module name not yet joined on the main stream (0 = join each); unset =
  // None (no joins), which the full-iteration graph refuses with offloading.
  std::optional<int64_t> fine_grained_offloading_max_inflight_offloads;
  // Context-parallel communication (Megatron-Core cp_comm_type, one type for
  // every layer; "" = Megatron's default p2p) and the hierarchical CP split
  // (hierarchical_context_parallel_sizes, inner group first; empty = none).
  std::string cp_comm_type;  // p2p | all_gather | a2a | a2a+p2p
  std::vector<int64_t> hierarchical_context_parallel_sizes;
  // Megatron-Core optimizer_cpu_offload / optimizer_offload_fraction
  // (OptimizerConfig): the share of the optimizer's parameters whose fp32
  // master weights, moments and Adam step live on the host. Unset = off and
  // Megatron-Core's 0.0 (Megatron-LM's --optimizer-offload-fraction is 1.0).
  std::optional<bool> optimizer_cpu_offload;
  std::optional<double> optimizer_offload_fraction;
  // Megatron fp8_param_gather; unset = the precision preset's, as Megatron
  // Bridge's mixed-precision recipes set it (FP8ParamGatherDefault).
  std::optional<bool> fp8_param_gather;
  // PyTorch's caching allocator with expandable segments
  // (PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True); unset = on, as
  // Megatron Bridge's recipes set it (their env_vars).
  std::optional<bool> expandable_segments;
  // The Megatron Bridge release ("" = the newest parplan knows) and the
  // front end ("" = bridge) whose defaults and checks apply (front_end.h).
  std::string bridge_version;
  std::string front_end;
};

// Megatron Bridge's mixed-precision presets
// (src/megatron/bridge/training/mixed_precision.py at 067f987df0):
// fp8_param_gather on for delayed (:231), current/tensorwise (:302) and
// MXFP8 (:264) scaling, off for blockwise/subchannel (:384) and for NVFP4
// (:415, which gathers in FP4 instead: fp4_param_gather :416) and BF16.
bool Fp8ParamGatherDefault(Precision p);

struct ResolvedConfig {
  // What the caller gave (never null after ResolveConfig): every resolved
  // setting's source is read against it (core/config/resolved_settings.h).
  std::shared_ptr<const ParallelConfig> given;
  FrontEnd front_end = FrontEnd::kBridge;
  BridgeVersion bridge_version = NewestKnownBridge();
  int64_t tp = 1, pp = 1, vpp = 1, cp = 1, ep = 1, etp = 1;
  bool sp = false;
  bool etp_defaulted = false;  // ETP not given (Bridge's 1 or Megatron-Core's TP, by front end and version)
  bool sp_defaulted = false;   // SP set by the planner's default (on when TP > 1)
  bool vpp_given = false;      // the caller set vpp (so a layout must agree with it)
  int64_t mbs = 1;
  int64_t gbs = 0;         // 0 = not given
  int64_t seq_length = 0;  // 0 = unknown (no model default either)
  int64_t first_stage_layers = 0;
  int64_t last_stage_layers = 0;
  bool account_for_embedding = false;  // see ParallelConfig
  bool account_for_loss = false;
  std::string pipeline_layout;
  Precision precision = Precision::kBf16;
  int64_t mtp_num_layers = 0;
  RecomputeGranularity recompute = RecomputeGranularity::kNone;
  std::vector<std::string> recompute_modules;  // selective: [core_attn] when not given
  RecomputeMethod recompute_method = RecomputeMethod::kUniform;
  bool recompute_method_given = false;
  int64_t recompute_num_layers = 1;
  bool recompute_num_layers_given = false;
  bool distributed_optimizer = true;
  bool fsdp = false;
  bool grad_fp32 = true;        // gradient buffer dtype
  bool optimizer_bf16 = false;  // Adam moments in bf16
  bool lora = false;            // base weights frozen
  // Communication overlap switches, defaulted as Megatron Bridge does
  // (src/megatron/bridge/training/comm_overlap.py): TP overlap and MoE
  // all-to-all overlap off unless asked for; gradient-reduce overlap on.
  bool tp_comm_overlap = false;
  bool overlap_grad_reduce = true;
  bool overlap_moe_expert_parallel_comm = false;
  std::string cuda_graph_impl = "none";         // normalized; Megatron-Core's default
  std::vector<std::string> cuda_graph_modules;  // empty = the whole layer ("full")
  // True for Megatron's unfused attention (attention_backend unfused or
  // local): batched QK^T and PV GEMMs over the full s x s scores and a
  // separate softmax; false for the fused (flash) kernels ("auto").
  bool unfused_attention = false;
  std::string attention_backend = "auto";
  // MoE token dispatch. Megatron Bridge's model bridges set alltoall with
  // permute fusion for every MoE family (e.g.
  // src/megatron/bridge/models/deepseek/deepseek_v3_bridge.py:67,76);
  // Megatron-Core's own defaults are allgather and no fusion
  // (megatron/core/transformer/transformer_config.py:891,941).
  std::string moe_token_dispatcher_type = "alltoall";
  std::string moe_flex_dispatcher_backend = "deepep";  // used when the dispatcher is flex
  bool moe_permute_fusion = true;
  bool moe_router_force_load_balancing = false;
  // Fused RoPE kernels (Megatron-Core apply_rope_fusion; default:
  // BridgeFusesRope below under bridge, true under megatron-lm, whose parser
  // sets it unless --no-rope-fusion). The step-time model reads it for MLA,
  // whose unfused RoPE is a chain of small kernels.
  bool apply_rope_fusion = false;
  bool dispatcher_defaulted = false;   // moe_token_dispatcher_type not given
  bool dispatch_fields_given = false;  // any of the four dispatch fields given
  bool flex_backend_given = false;     // moe_flex_dispatcher_backend given
  // Transformer Engine's op fuser (Megatron-Core transformer_config.py:525
  // and Bridge models/gpt_provider.py:169 default it to False).
  bool use_transformer_engine_op_fuser = false;
  bool op_fuser_given = false;
  // Unset = Megatron's None (transformer_config.py:1382).
  std::optional<int64_t> fine_grained_offloading_max_inflight_offloads;
  // Context-parallel communication: Megatron-Core's default p2p
  // (model_parallel_config.py cp_comm_type; megatron/training/arguments.py
  // --cp-comm-type defaults to ["p2p"]).
  std::string cp_comm_type = "p2p";
  bool cp_comm_type_given = false;
  std::vector<int64_t> hierarchical_cp_sizes;  // empty = not given
  // Optimizer CPU offload (HybridDeviceOptimizer): `optimizer_offload_fraction`
  // of the parameters' optimizer state and step run on the host.
  bool optimizer_cpu_offload = false;
  double optimizer_offload_fraction = 0.0;  // Megatron-Core's default when not given
  bool offload_fraction_given = false;
  // PyTorch's allocator setting (memory fragmentation allowance,
  // core/memory/README.md section 5): given, else on (Bridge's env_vars).
  bool expandable_segments = true;
  bool expandable_segments_given = false;
  // FP8 (or, under NVFP4, FP4) parameter copies gathered and held instead
  // of BF16 ones: given, else Fp8ParamGatherDefault(precision).
  bool fp8_param_gather = false;
  // NVFP4 parameters gathered in FP4: Bridge's NVFP4 preset sets it
  // (mixed_precision.py:416); Megatron-LM's --fp4-param-gather is off.
  bool fp4_param_gather = false;
  // The share of optimizer state that actually leaves HBM: the fraction when
  // offload is on, else 0.
  double OffloadedOptimizerShare() const { return optimizer_cpu_offload ? optimizer_offload_fraction : 0.0; }
  // Set when seq_length was not given: which length was taken and how to
  // change it (answers state it first).
  std::string seq_length_note;
  // Set when gbs was not given and ResolveWorldAndBatch chose it: how.
  std::string gbs_note;
  int64_t cpu_offloading_num_layers = 0;  // layers per stage whose activations go to host
  std::vector<std::string> offload_modules;
  std::vector<std::string> notes;  // which defaults were applied, in words

  bool Offloads(std::string_view module) const {
    for (const auto& m : offload_modules) {
      if (m == module) return true;
    }
    return false;
  }

  bool Recomputes(std::string_view module) const {
    if (recompute != RecomputeGranularity::kSelective) return false;
    for (const auto& m : recompute_modules) {
      if (m == module) return true;
    }
    return false;
  }
};

// True when GEMM weights are held and gathered in the recipe's low
// precision: FP8 recipes with fp8_param_gather, NVFP4 with
// fp4_param_gather. Otherwise the BF16 weight is held and cast per use.
bool LowPrecisionParamGather(const ResolvedConfig& c);

// Bytes per GEMM weight as held and gathered: GemmWeightBytes(precision)
// under LowPrecisionParamGather, else 2 (BF16).
double GatheredWeightBytes(const ResolvedConfig& c);

// "none" | "selective" | "full"; "uniform" | "block".
std::string RecomputeName(RecomputeGranularity g);
std::string RecomputeMethodName(RecomputeMethod m);

struct Placement {
  std::string system;         // id or alias; empty = none
  int64_t gpus = 0;           // 0 = not given
  int64_t gpus_per_node = 0;  // 0 = the system's
  // GPUs of each NVLink domain the job's ranks fill (core/system/racks.h);
  // 0 = all of it.
  int64_t gpus_per_nvlink_domain = 0;
  // Inline figures: overrides of `system`, or (with gpu_arch and no
  // `system`) a whole inline system. See core/resolve/system_resolve.h.
  SystemFigures system_figures;
};

struct ResolvedPlacement {
  std::optional<SystemSpec> system;
  int64_t gpus = 0;
  int64_t gpus_per_node = 0;       // 0 = unknown
  int64_t nvlink_domain_size = 0;  // 0 = unknown
  // GPUs of each domain the ranks fill: rank r sits in domain r / this
  // (nvlink_domain_size unless given; 0 = unknown). The system carries the
  // same number (SystemSpec::nvlink_domain_used).
  int64_t gpus_per_nvlink_domain = 0;
  bool gpus_given = false;
  bool gpus_per_nvlink_domain_given = false;
  // Set when parplan chose the GPUs per domain (the even split of a rack
  // system, core/system/racks.h ChooseDomainUse): why, in words.
  std::string domain_use_reason;
  std::vector<std::string> notes;  // overrides applied and defaults used, in words
};

// Range checks; field names are prefixed with `prefix` ("config").
absl::Status CheckConfigBounds(const ParallelConfig& config, const std::string& prefix);

// Megatron Bridge's apply_rope_fusion for `model` when not given: its
// DeepSeek-V2/V3, Moonlight and Kimi bridges (the MLA models) clear it
// (models/deepseek/deepseek_v3_bridge.py:78, kimi/kimi_bridge.py:66), except
// DeepSeek-V4's, which sets it (deepseek_v4_bridge.py:428); the others keep
// GPTModelProvider's default, true where Transformer Engine is installed
// (fusions.can_enable_apply_rope_fusion). True without a model. Bridge's
// performance recipes set it true for all (perf_recipes/_common.py:69).
bool BridgeFusesRope(const ModelSpec* model);

// Fills defaults (see proto/parplan/v1/planner.proto ParallelConfig); `model`
// may be null. Fails only on bounds or an unknown precision.
absl::StatusOr<ResolvedConfig> ResolveConfig(const ParallelConfig& config, const ModelSpec* model,
                                             const std::string& prefix);

// What changed from `from` to `to`, in words: "MBS 2 -> 1 + PP 4 -> 8 +
// selective recompute (mlp)" (MBS, EP, PP, TP, CP, VPP, recompute,
// distributed optimizer, FSDP); empty when nothing did.
std::string DescribeConfigChange(const ResolvedConfig& from, const ResolvedConfig& to);

// "embedding + loss" | "embedding" | "loss" | "none": which of Megatron's
// account_for_*_in_pipeline_split switches `c` sets.
std::string SplitAccountingName(const ResolvedConfig& c);

// The default global batch, in tokens per step: a target of 4,194,304 (4M:
// Llama 3's initial batch, 4M tokens, and GPT-3 175B's 3.2M sit there;
// Dubey et al. 2024 section 3.4.1, Brown et al. 2020 Table 2.1), and at most
// 16,777,216 (16M: Llama 3 405B's largest batch, the largest published).
inline constexpr int64_t kDefaultTokensPerStep = int64_t{1} << 22;
inline constexpr int64_t kMaxDefaultTokensPerStep = int64_t{1} << 24;

// Default global batch: the multiple of mbs * dp nearest 4,194,304 /
// seq_length sequences (at least one per DP rank), lowered to stay within
// 16,777,216 tokens per step when a multiple can. When one microbatch per DP
// rank alone is above that, it is mbs * dp (GlobalBatchNote says so).
int64_t DefaultGlobalBatch(const ResolvedConfig& config, int64_t dp);

// The answer's words for a defaulted `gbs` of `config` with `dp` DP ranks:
// the tokens per step, how it was chosen, and (above 16M tokens) that DP
// alone makes the step that large and what would lower it.
std::string GlobalBatchNote(const ResolvedConfig& config, int64_t dp, int64_t gbs);

// Completes a plan that will be estimated, the same way for memory and
// performance: placement.gpus not given = the smallest valid world
// (ComputeMinGpus), with that world's NVLink-domain split (ChooseDomainUse)
// when the GPUs per domain were not given; gbs not given (and the sequence
// length known, the world valid) = DefaultGlobalBatch, its GlobalBatchNote
// in c->notes. Returns the world (0 when the mesh cannot size one).
int64_t ResolveWorldAndBatch(ResolvedConfig* c, ResolvedPlacement* p);

// `gpus` GPUs of `system` with its node and NVLink-domain sizes.
ResolvedPlacement PlacementOn(const SystemSpec& system, int64_t gpus);

// Resolves the system (catalog id, inline figures, or both: see
// ResolveSystem) and checks bounds; NOT_FOUND for an unknown system.
// `gpus_per_node` is the same override as system_figures.gpus_per_node
// (both given and different: INVALID_ARGUMENT). `gpus_per_nvlink_domain` is
// checked by CheckGpusPerDomain (core/system/racks.h). Without a system, a node
// size alone still sizes nodes (the NVLink domain taken as the node).
absl::StatusOr<ResolvedPlacement> ResolvePlacement(const Placement& placement, const std::string& prefix);

// The mesh dimensions of a resolved config (DP and EDP of a world come from
// SizeWorld(MeshOf(config), ...), core/mesh/mesh.h).
MeshDims MeshOf(const ResolvedConfig& config);

}  // namespace parplan

#endif  // PARPLAN_CORE_CONFIG_PARALLEL_CONFIG_H_
