// Rules that need the model's architecture: head/width divisibility by TP and
// ETP, experts by EP, sequence parallelism and context parallelism.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/rules/rule_context.h"
#include "core/util/text.h"

namespace parplan {
namespace {

bool Known(const ModelSpec& m, const char* field) {
  for (const auto& f : m.missing_fields) {
    if (f == field) return false;
  }
  return true;
}

// The fix for a sequence SP cannot split: the TPs that divide the tokens of
// a CP rank (<= 2*TP), or the multiples of TP*CP*2^k around seq_length (a
// power-of-two multiple keeps the usual shapes; seq_length + 1 would not).
std::string SeqDivisibleFix(const ResolvedConfig& c) {
  const int64_t local = c.seq_length / c.cp;
  std::vector<std::string> tps;
  for (int64_t t = 2; t <= 2 * c.tp && tps.size() < 2; ++t) {
    if (t != c.tp && local % t == 0 && c.seq_length % c.cp == 0) tps.push_back(absl::StrCat("TP=", t));
  }
  const int64_t unit = c.tp * c.cp;
  int64_t below = unit;
  while (below * 2 <= c.seq_length) below *= 2;
  const int64_t above = below * 2;
  std::string fix;
  if (!tps.empty()) {
    fix = absl::StrCat("use ", absl::StrJoin(tps, " or "), " (divides the ", local, " tokens of each CP rank), or ");
  } else {
    fix = "use ";
  }
  absl::StrAppend(&fix, "a seq_length divisible by TP*CP = ", unit, " (e.g. ", below, " or ", above,
                  "), or turn SP off");
  return fix;
}

void CheckSequenceRules(const RuleContext& ctx) {
  const auto& c = ctx.in.config;
  const ModelSpec* m = ctx.in.model;
  const bool moe = m != nullptr && m->is_moe();
  if (c.sp && c.tp == 1) {
    ctx.Add("sp.requires_tp", {"sp", "tp"},
            "sequence parallelism is on but TP=1: Megatron-LM warns and Megatron Bridge silently turns it off",
            "turn SP off, or set TP > 1");
  }
  // megatron/core/transformer/moe/moe_layer.py MoELayer.forward raises in
  // training whenever the attention TP group is larger than 1 without SP,
  // whatever EP is.
  if (moe && c.tp > 1 && !c.sp) {
    ctx.Add("sp.required_for_moe", {"sp", "tp"},
            absl::StrCat("MoE layers with TP=", c.tp,
                         " need sequence parallelism: Megatron-Core's MoE layer raises in training without it"),
            "set sp=true (or TP=1)");
  } else if (!moe && c.tp > 1 && !c.sp) {
    ctx.Add("sp.recommended", {"sp", "tp"},
            absl::StrCat("TP=", c.tp, " without SP keeps full LayerNorm/dropout activations on every TP rank"),
            "set sp=true: same communication volume, about 1/TP of those activations");
  }
  // SP scatters the embedding output's sequence dimension (seq / CP tokens
  // per CP rank) over the TP group: megatron/core/tensor_parallel/mappings.py
  // _split_along_first_dim asserts it divides.
  if (c.sp && c.tp > 1 && c.seq_length > 0 && (c.seq_length % c.cp != 0 || (c.seq_length / c.cp) % c.tp != 0)) {
    const int64_t local = c.seq_length / c.cp;
    ctx.Add(
        "sp.seq_divisible", {"seq_length", "tp", "cp", "sp"},
        absl::StrCat("sequence parallelism splits the ", local, " tokens of each CP rank (seq_length ", c.seq_length,
                     c.cp > 1 ? absl::StrCat(" / CP ", c.cp) : std::string(), ") over TP=", c.tp, ": not divisible"),
        SeqDivisibleFix(c));
  }
  if (c.cp > 1) {
    if (c.seq_length <= 0) {
      ctx.Add("cp.seq_unknown", {"seq_length", "cp"},
              absl::StrCat("CP=", c.cp, " but no sequence length: seq_length % (2*CP) not checked"), "pass seq_length");
    } else if (c.seq_length % (2 * c.cp) != 0) {
      ctx.Add("cp.seq_divisible", {"seq_length", "cp"},
              absl::StrCat("seq_length ", c.seq_length, " is not divisible by 2*CP = ", 2 * c.cp),
              absl::StrCat("use a sequence length that is a multiple of ", 2 * c.cp, ", or a smaller CP"));
    } else if (c.seq_length < 8192) {
      ctx.Add("cp.short_sequence", {"cp", "seq_length"},
              absl::StrCat("CP=", c.cp, " on a ", c.seq_length, "-token sequence: each rank holds only ",
                           c.seq_length / c.cp, " tokens and the KV exchange is poorly hidden"),
              "CP usually pays off from 8K tokens; prefer TP/PP/DP below that");
    }
  }
}

}  // namespace

void CheckModelRules(const RuleContext& ctx) {
  CheckSequenceRules(ctx);
  const ModelSpec* mp = ctx.in.model;
  const auto& c = ctx.in.config;
  if (mp == nullptr) {
    ctx.Add("model.none", {"model"}, "no model given: head, width and expert checks skipped",
            "pass a model (catalog id, spec, config.json or size)");
    return;
  }
  const ModelSpec& m = *mp;
  if (!m.complete()) {
    ctx.Add("model.incomplete", {"model"},
            absl::StrCat("model '", m.id, "' has unknown ", absl::StrJoin(m.missing_fields, ", "),
                         "; checks that need them are skipped"),
            "pass an inline spec or the config.json to check everything");
  }
  if (m.approximate) {
    ctx.Add("model.approximate", {"model"}, m.approximation_note, "pass the real model for exact checks");
  }
  // Longer sequences than the model's native context (max_position_embeddings,
  // which for YaRN / llama3-scaled models is already the scaled length) need
  // further RoPE scaling or a long-context variant; the planner cannot tell
  // from the shape. Within the scaled context nothing is said: the model's
  // published config runs that length.
  if (m.seq_length > 0 && c.seq_length > m.seq_length) {
    const std::string scaling = RopeScalingText(m);
    ctx.Add("seq.beyond_native_context", {"seq_length"},
            absl::StrCat("seq_length ", WithCommas(c.seq_length), " exceeds ", m.id, "'s native context of ",
                         WithCommas(m.seq_length), " tokens", scaling.empty() ? "" : absl::StrCat(" (", scaling, ")"),
                         ": training at this length needs ", scaling.empty() ? "" : "further ",
                         "RoPE scaling (or a long-context variant of the model), and its published quality does "
                         "not carry over"),
            absl::StrCat("use seq_length <= ", m.seq_length,
                         ", or plan with a long-context variant / RoPE scaling on purpose"));
  }
  if (c.tp > 1 && m.num_attention_heads > 0 && m.num_attention_heads % c.tp != 0) {
    ctx.Add("tp.heads_divisible", {"tp", "model.num_attention_heads"},
            absl::StrCat("num_attention_heads ", m.num_attention_heads, " is not divisible by TP=", c.tp),
            absl::StrCat("use a TP dividing ", m.num_attention_heads));
  }
  if (c.tp > 1 && m.num_query_groups > 0 && Known(m, "num_query_groups")) {
    const int64_t g = m.num_query_groups;
    if (g % c.tp != 0 && c.tp % g != 0) {
      ctx.Add("tp.query_groups_divisible", {"tp", "model.num_query_groups"},
              absl::StrCat("num_query_groups ", g, " is neither a multiple nor a divisor of TP=", c.tp),
              absl::StrCat("use a TP that divides ", g, " or is a multiple of it"));
    } else if (c.tp > g && c.front_end == FrontEnd::kBridge && c.bridge_version < BridgeVersion{0, 3, 0}) {
      // Megatron-Core before 0.16 (the core under Bridge up to 0.2.x) needed
      // num_query_groups % TP == 0 (transformer_config.py:758-760 at
      // core_v0.15.3); f7dfb99795 (core_v0.16.0, Bridge 0.3.0) allows TP to be
      // a multiple of the groups.
      ctx.Add("tp.query_groups_before_core_016", {"tp", "model.num_query_groups", "bridge_version"},
              absl::StrCat("TP=", c.tp, " > ", g, " KV groups: Megatron Bridge ", BridgeVersionName(c.bridge_version),
                           " runs Megatron-Core < 0.16, which needs num_query_groups % TP == 0"),
              absl::StrCat("use a TP dividing ", g, ", or Megatron Bridge >= 0.3.0"));
    } else if (c.tp > g) {
      ctx.Add("tp.kv_heads_replicated", {"tp", "model.num_query_groups"},
              absl::StrCat("TP=", c.tp, " > ", g, " KV groups: each KV head is replicated on ", c.tp / g, " TP ranks"),
              "fine, but KV projections cost more memory and compute than with TP <= groups");
    }
  }
  const LayerCounts layers = CountLayers(m);
  if (c.tp > 1 && layers.dense_mlp > 0 && m.ffn_hidden_size > 0 && m.ffn_hidden_size % c.tp != 0) {
    ctx.Add("tp.ffn_divisible", {"tp", "model.ffn_hidden_size"},
            absl::StrCat("ffn_hidden_size ", m.ffn_hidden_size, " is not divisible by TP=", c.tp),
            absl::StrCat("use a TP dividing ", m.ffn_hidden_size));
  }
  if (layers.mamba > 0 && c.tp > 1) {
    if (m.mamba_num_heads > 0 && m.mamba_num_heads % c.tp != 0) {
      ctx.Add("tp.mamba_heads_divisible", {"tp", "model.mamba_num_heads"},
              absl::StrCat("mamba_num_heads ", m.mamba_num_heads, " is not divisible by TP=", c.tp),
              absl::StrCat("use a TP dividing ", m.mamba_num_heads));
    }
    if (m.mamba_num_groups > 0 && m.mamba_num_groups % c.tp != 0) {
      ctx.Add("tp.mamba_groups_divisible", {"tp", "model.mamba_num_groups"},
              absl::StrCat("mamba_num_groups ", m.mamba_num_groups, " is not divisible by TP=", c.tp),
              absl::StrCat("use a TP dividing ", m.mamba_num_groups));
    }
  }
  if (!m.is_moe()) {
    if (c.ep > 1) {
      ctx.Add("ep.requires_moe", {"ep", "model.num_moe_experts"},
              absl::StrCat("EP=", c.ep, " but '", m.id, "' is a dense model (no experts)"),
              "set EP=1; scale with DP, TP or PP instead");
    }
    if (!c.etp_defaulted && c.etp > 1) {
      ctx.Add("etp.dense_model", {"etp"},
              absl::StrCat("ETP=", c.etp,
                           " on a dense model has no effect but still requires the world "
                           "size to divide by PP*EP*ETP"),
              "drop ETP");
    }
    return;
  }
  if (m.num_moe_experts > 0 && c.ep > 1 && m.num_moe_experts % c.ep != 0) {
    ctx.Add("ep.experts_divisible", {"ep", "model.num_moe_experts"},
            absl::StrCat("num_moe_experts ", m.num_moe_experts, " is not divisible by EP=", c.ep),
            absl::StrCat("use an EP dividing ", m.num_moe_experts));
  }
  if (c.etp > 1 && m.moe_ffn_hidden_size > 0 && m.moe_ffn_hidden_size % c.etp != 0) {
    ctx.Add("etp.moe_ffn_divisible", {"etp", "model.moe_ffn_hidden_size"},
            absl::StrCat("moe_ffn_hidden_size ", m.moe_ffn_hidden_size, " is not divisible by ETP=", c.etp,
                         c.etp_defaulted ? " (ETP defaulted to TP)" : ""),
            absl::StrCat("use an ETP dividing ", m.moe_ffn_hidden_size, c.etp_defaulted ? " (e.g. etp=1)" : ""));
  }
  if (c.tp > 1 && m.moe_shared_expert_intermediate_size > 0 && m.moe_shared_expert_intermediate_size % c.tp != 0) {
    ctx.Add(
        "tp.shared_expert_divisible", {"tp", "model.moe_shared_expert_intermediate_size"},
        absl::StrCat("shared-expert width ", m.moe_shared_expert_intermediate_size, " is not divisible by TP=", c.tp),
        absl::StrCat("use a TP dividing ", m.moe_shared_expert_intermediate_size));
  }
}

}  // namespace parplan
