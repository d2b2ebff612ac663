// Each entry: the message as the pinned upstream prints it (Megatron-LM
// d98e8a64ddf34856e74b24714e3bedb2f5a39553, Megatron Bridge
// 067f987df03b8355b03192d88d70f1709fedf51a), the rule that predicts it, and
// the fix. Upstream f-strings often join pieces without a blank ("divisible"
// "by" -> "divisibleby"); matching ignores blanks, so the patterns keep the
// words readable.
#include "core/runlog/failure_templates.h"

#include <cctype>

#include "absl/strings/str_cat.h"

namespace parplan {
namespace {

using V = std::vector<int64_t>;

// "W rounded to a multiple of M: 16 or 32".
std::string Multiples(int64_t w, int64_t m) {
  if (m <= 0) return "";
  const int64_t down = (w / m) * m;
  const int64_t up = down + m;
  if (down <= 0) return absl::StrCat(" (the smallest such world is ", m, " GPUs)");
  return absl::StrCat(" (the nearest are ", down, " and ", up, " GPUs)");
}

std::string DenseWorld(const V& v) {
  return absl::StrCat("world size ", v[0], " is not divisible by TP*PP*CP = ", v[1], ": run on a multiple of ", v[1],
                      " GPUs", Multiples(v[0], v[1]), " or pick TP, PP and CP whose product divides ", v[0], ".");
}

std::string ExpertWorld(const V& v) {
  return absl::StrCat("world size ", v[0], " is not divisible by ETP*EP*PP = ", v[1],
                      " (the expert mesh): run on a multiple of ", v[1], " GPUs", Multiples(v[0], v[1]),
                      " or lower EP or ETP so that ETP*EP*PP divides ", v[0], ".");
}

std::string BridgeWorld(const V& v) {
  const int64_t product = v[1] * v[2] * v[3];
  return absl::StrCat("world size ", v[0], " is not divisible by TP*PP*CP = ", v[1], "*", v[2], "*", v[3], " = ",
                      product, ": run on a multiple of ", product, " GPUs", Multiples(v[0], product),
                      " or change TP, PP or CP.");
}

std::string VppNeedsPp(const V&) {
  return "an interleaved (virtual pipeline) schedule needs PP > 1: unset the virtual pipeline size or raise PP.";
}

std::string VppPp2(const V&) {
  return "with PP = 2 the interleaved schedule needs overlap_p2p_comm: enable it, use PP > 2 or drop VPP.";
}

std::string Heads(const V& v) {
  return absl::StrCat("num_attention_heads ", v[0], " is not a multiple of TP = ", v[1], ": pick a TP that divides ",
                      v[0], ".");
}

std::string QueryGroups(const V& v) {
  return absl::StrCat("num_query_groups ", v[0], " is neither a multiple nor a divisor of TP = ", v[1],
                      ": pick a TP that divides ", v[0], " or is a multiple of it.");
}

std::string EpNeedsMoe(const V&) {
  return "expert parallelism (EP > 1) was set on a model without experts: set EP = 1 (and ETP = 1) for a dense "
         "model.";
}

std::string ExpertsDivisible(const V&) {
  return "the number of experts is not a multiple of EP: pick an EP that divides num_moe_experts.";
}

std::string LayersByPp(const V&) {
  return "num_layers (plus the embedding/loss layers when they are accounted in the split) is not divisible by PP: "
         "pick a PP that divides it, or set first/last-stage layer counts for an uneven split.";
}

std::string LayersByPpSized(const V& v) {
  return absl::StrCat(v[0], " layers (with the accounted embedding/loss) are not divisible by PP = ", v[1],
                      ": pick a PP that divides ", v[0], " or stop accounting the embedding/loss in the split.");
}

std::string LayersByVpp(const V&) {
  return "layers per pipeline stage are not divisible by layers per virtual stage: pick a virtual pipeline size "
         "that divides num_layers / PP.";
}

std::string LayersPerRankByVpp(const V& v) {
  return absl::StrCat(v[0], " layers per pipeline rank are not divisible by VPP = ", v[1], ": pick a VPP that divides ",
                      v[0], ".");
}

std::string FirstStageVpp(const V& v) {
  return absl::StrCat("the first pipeline stage's ", v[0], " layers are not divisible by VPP = ", v[1],
                      ": make the first-stage layer count a multiple of ", v[1], " or change VPP.");
}

std::string LastStageVpp(const V& v) {
  return absl::StrCat("the last pipeline stage's ", v[0], " layers are not divisible by VPP = ", v[1],
                      ": make the last-stage layer count a multiple of ", v[1], " or change VPP.");
}

std::string MiddleMismatch(const V& v) {
  return absl::StrCat("after the first/last-stage layers, ", v[0], " middle layers remain for ", v[1],
                      " middle stages: middle layers must exist exactly when middle stages do; change the "
                      "first/last-stage counts or PP.");
}

std::string MiddleDivisible(const V& v) {
  return absl::StrCat(v[0], " middle layers are not divisible by the ", v[1],
                      " middle pipeline stages: change the first/last-stage layer counts or PP.");
}

std::string MiddleVpp(const V& v) {
  return absl::StrCat(v[0], " layers per middle pipeline rank are not divisible by VPP = ", v[1],
                      ": change VPP or the first/last-stage layer counts.");
}

std::string GlobalBatch(const V& v) {
  const int64_t step = v[1] * v[2];
  return absl::StrCat("global batch ", v[0], " is not divisible by micro batch * DP = ", v[1], "*", v[2], " = ", step,
                      ": use a global batch that is a multiple of ", step,
                      step > 0 && v[0] / step > 0
                          ? absl::StrCat(" (e.g. ", (v[0] / step) * step, " or ", (v[0] / step + 1) * step, ")")
                          : std::string(),
                      ", or change the micro batch or DP.");
}

std::string SeqByCp(const V&) {
  return "with CP > 1 the sequence length must be a multiple of 2*CP (load-balanced chunks): change seq_length or "
         "CP.";
}

std::string VppGroupRange(const V& v) {
  return absl::StrCat("the interleaved schedule has ", v[1], " microbatches for PP = ", v[0],
                      ": it needs at least PP microbatches per step; raise the global batch (or lower the micro "
                      "batch or DP) so that microbatches >= ",
                      v[0], ", or drop VPP.");
}

std::string VppRemainder(const V& v) {
  return absl::StrCat("the microbatch count leaves a remainder of ", v[0],
                      " (below PP) against the interleaved schedule's microbatch groups: make the number of "
                      "microbatches a multiple of PP.");
}

}  // namespace

const std::vector<FailureTemplate>& FailureTemplates() {
  static const auto* table = new std::vector<FailureTemplate>{
      {"world_size ({}) is not divisible by expert_tensor_model_pipeline_parallel size ({})",
       "mesh.world_expert_divisible", "megatron/core/parallel_state.py:883", ExpertWorld},
      {"world_size ({}) is not divisible by {}", "mesh.world_dense_divisible", "megatron/core/parallel_state.py:823",
       DenseWorld},
      {"world size ({}) is not divisible by total_model_size (total_model_size={})", "mesh.world_dense_divisible",
       "megatron/training/arguments.py:433", DenseWorld},
      {"world size ({}) is not divisible by total_model_size (model_cfg.tensor_model_parallel_size={} * "
       "model_cfg.pipeline_model_parallel_size={} * model_cfg.context_parallel_size={})",
       "mesh.world_dense_divisible", "Bridge src/megatron/bridge/training/config.py:1025", BridgeWorld},
      {"pipeline-model-parallel size should be greater than 1 with interleaved schedule", "vpp.requires_pp",
       "megatron/core/parallel_state.py:830", VppNeedsPp},
      {"When interleaved schedule is used and p2p communication overlap is disabled, pipeline-model-parallel size "
       "should be greater than 2",
       "vpp.pp2_needs_p2p_overlap", "megatron/training/arguments.py:1007", VppPp2},
      {"When interleaved schedule is used, pipeline-model-parallel size should be greater than 1", "vpp.requires_pp",
       "megatron/training/arguments.py:1003", VppNeedsPp},
      {"num_attention_heads ({}) must be a multiple of tensor_model_parallel_size ({})", "tp.heads_divisible",
       "megatron/core/transformer/transformer_config.py:1448", Heads},
      {"num_query_groups ({}) must be a multiple or divisor of tensor_model_parallel_size ({})",
       "tp.query_groups_divisible", "megatron/core/transformer/transformer_config.py:1466", QueryGroups},
      {"num_moe_experts must be non None to use expert-parallel", "ep.requires_moe",
       "megatron/core/transformer/transformer_config.py:1596", EpNeedsMoe},
      {"num_experts must be non None to use expert model parallelism", "ep.requires_moe",
       "megatron/training/arguments.py:1656", EpNeedsMoe},
      {"Number of experts should be a multiple of expert model parallel_size", "ep.experts_divisible",
       "megatron/training/arguments.py:1658", ExpertsDivisible},
      {"Number of layers should be divisible by the pipeline-model-parallel size", "pp.layers_divisible",
       "megatron/training/arguments.py:998", LayersByPp},
      {"number of layers of the model must be divisible pipeline model parallel size", "pp.layers_divisible",
       "megatron/training/arguments.py:969", LayersByPp},
      {"number of layers per pipeline stage must be divisible number of layers per virtual pipeline stage",
       "vpp.layers_divisible", "megatron/training/arguments.py:973", LayersByVpp},
      {"number of middle layers: {} must be divisible by middle pipeline_model_parallel_size {}", "pp.layers_divisible",
       "megatron/core/transformer/transformer_config.py:2384", LayersByPpSized},
      {"num_layers: {} after enable account_for_embedding_in_pipeline_split or account_for_loss_in_pipeline_split "
       "must be divisible by pipeline_model_parallel_size {}",
       "pp.layers_divisible", "megatron/core/transformer/transformer_config.py:2397", LayersByPpSized},
      {"number of layers on each pipeline rank: {}(after enable account_for_embedding_in_pipeline_split or "
       "account_for_loss_in_pipeline_split) must be divisible by virtual_pipeline_model_parallel_size {}",
       "vpp.layers_divisible", "megatron/core/transformer/transformer_config.py:2410", LayersPerRankByVpp},
      {"number of layers at first stage: {} must be divisible by virtual pipeline parallel degree {}",
       "pp.first_stage_vpp_divisible", "megatron/core/transformer/transformer_config.py:2313", FirstStageVpp},
      {"number of layers at last stage: {} must be divisible by virtual pipeline parallel degree {}",
       "pp.last_stage_vpp_divisible", "megatron/core/transformer/transformer_config.py:2332", LastStageVpp},
      {"Mismatch: {} middle layers remaining but {} middle PP stages available", "pp.uneven_middle_mismatch",
       "megatron/core/transformer/transformer_config.py:2343", MiddleMismatch},
      {"number of layers at middle stage: {} must be divisible by the middle pipeline model parallel size {}",
       "pp.uneven_middle_divisible", "megatron/core/transformer/transformer_config.py:2351", MiddleDivisible},
      {"number of layers on each middle pipeline rank: {} must be divisible by virtual pipeline parallel degree {}",
       "vpp.middle_layers_divisible", "megatron/core/transformer/transformer_config.py:2365", MiddleVpp},
      {"global batch size ({}) is not divisible by micro batch size ({}) times data parallel size ({})",
       "batch.gbs_divisible", "megatron/core/num_microbatches_calculator.py:382", GlobalBatch},
      {"seq-length should be a multiple of 2 * context-parallel-size if context-parallel-size > 1", "cp.seq_divisible",
       "megatron/training/arguments.py:1337", SeqByCp},
      {"Sequence length must be divisible by 2 * context parallel size if context parallel is used", "cp.seq_divisible",
       "Bridge src/megatron/bridge/training/config.py:1576", SeqByCp},
      {"The number of contiguous micro-batches in a virtual pipeline stage should range in [PP={} , M={}]",
       "vpp.microbatches_below_pp", "megatron/core/pipeline_parallel/schedules.py:1165", VppGroupRange},
      {"The remainder of M (the total micro-batches) divided by N (number of contiguous micro-batches in a "
       "virtual pipeline stage) should be 0, or larger than or equal to the pipeline-parallel size, but it is {}.",
       "vpp.microbatches_divisible", "megatron/core/pipeline_parallel/schedules.py:1174", VppRemainder},
  };
  return *table;
}

namespace {

std::string WithoutBlanks(absl::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (!std::isspace(static_cast<unsigned char>(c))) out.push_back(c);
  }
  return out;
}

// Matches `pattern` (blanks removed, "{}" = an unsigned integer) somewhere in
// `text` (blanks removed). Bounded by |text| * |pattern literals|.
bool MatchAt(const std::string& text, const std::string& pattern, std::vector<int64_t>* values) {
  std::vector<std::string> literals;
  size_t start = 0;
  while (true) {
    const size_t hole = pattern.find("{}", start);
    literals.push_back(pattern.substr(start, hole == std::string::npos ? std::string::npos : hole - start));
    if (hole == std::string::npos) break;
    start = hole + 2;
  }
  size_t from = 0;
  while (true) {
    const size_t first = text.find(literals[0], from);
    if (first == std::string::npos) return false;
    size_t pos = first + literals[0].size();
    values->clear();
    bool ok = true;
    for (size_t i = 1; i < literals.size() && ok; ++i) {
      size_t end = pos;
      while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end])) && end - pos < 18) ++end;
      if (end == pos) {
        ok = false;
        break;
      }
      values->push_back(std::stoll(text.substr(pos, end - pos)));
      if (text.compare(end, literals[i].size(), literals[i]) != 0) ok = false;
      pos = end + literals[i].size();
    }
    if (ok) return true;
    from = first + 1;
  }
}

}  // namespace

TemplateMatch MatchFailureTemplate(absl::string_view message) {
  TemplateMatch match;
  const std::string text = WithoutBlanks(message.substr(0, 4096));
  for (const FailureTemplate& entry : FailureTemplates()) {
    if (MatchAt(text, WithoutBlanks(entry.pattern), &match.values)) {
      match.entry = &entry;
      return match;
    }
  }
  match.values.clear();
  return match;
}

}  // namespace parplan
