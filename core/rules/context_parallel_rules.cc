// Rules on context parallelism as Megatron runs it: the CP communication
// type (cp_comm_type) and the hierarchical split, what Transformer Engine's
// context-parallel attention accepts for the model's attention (sliding
// windows, attention sinks, heads per a2a group) and each attention backend,
// Megatron Bridge's chunked attention under CP, and the optimizer CPU offload.
// Sources: Megatron-LM d98e8a64dd, Megatron Bridge 067f987df0, and
// Transformer Engine 4329ff84bf (2.17.1, the commit Megatron-LM's
// pyproject.toml:246 pins); TE paths are under
// transformer_engine/pytorch/attention/dot_product_attention/.
// core/rules/MEGATRON_CHECKS.md lists every check.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/config/precision.h"
#include "core/rules/rule_context.h"

namespace parplan {
namespace {

int64_t Product(const std::vector<int64_t>& sizes) {
  int64_t p = 1;
  for (const int64_t s : sizes) p *= s;
  return p;
}

// "cp_comm_type = p2p (not given: Megatron's default)" or "cp_comm_type = a2a".
std::string TypeSaid(const ResolvedConfig& c) {
  return absl::StrCat("cp_comm_type = ", c.cp_comm_type,
                      c.cp_comm_type_given ? "" : " (not given: Megatron's default)");
}

// The type Transformer Engine runs: a2a+p2p whose a2a level has one rank
// runs as p2p, whose p2p level has one rank as a2a (context_parallel.py:4736-
// 4741).
std::string EffectiveType(const ResolvedConfig& c) {
  const auto& sizes = c.hierarchical_cp_sizes;
  if (c.cp_comm_type == "a2a+p2p" && sizes.size() == 2 && Product(sizes) == c.cp) {
    if (sizes[0] == 1) return "p2p";
    if (sizes[1] == 1) return "a2a";
  }
  return c.cp_comm_type;
}

// Which layers of `m` attend locally, by kind.
struct LocalAttention {
  int64_t window_layers = 0;  // sliding window (window_size)
  int64_t chunk_layers = 0;   // chunked (attention_chunk_size)
};

LocalAttention LocalLayers(const ModelSpec& m) {
  LocalAttention out;
  for (int64_t i = 0; i < m.num_layers; ++i) {
    if (!IsLocalAttentionLayer(m, i)) continue;
    if (m.attention_chunk_size > 0) {
      ++out.chunk_layers;
    } else {
      ++out.window_layers;
    }
  }
  return out;
}

// A factorisation of `cp` as [inner, outer] with both > 1 for fix texts
// ("[2, 2]", "[8, 2]"): the largest inner size up to 8 (an NVLink node).
std::string ExampleSplit(int64_t cp) {
  for (int64_t inner = std::min<int64_t>(8, cp / 2); inner >= 2; --inner) {
    if (cp % inner == 0 && cp / inner >= 2) return absl::StrCat("[", inner, ", ", cp / inner, "]");
  }
  return "";
}

void CheckHierarchicalSizes(const RuleContext& ctx) {
  const auto& c = ctx.in.config;
  const auto& sizes = c.hierarchical_cp_sizes;
  const std::string split = ExampleSplit(c.cp);
  // megatron/training/arguments.py:582, megatron/core/parallel_state.py:1128,
  // Bridge training/config.py:1694: the levels multiply to CP.
  if (!sizes.empty() && Product(sizes) != c.cp) {
    ctx.Add("cp.hierarchical_product", {"hierarchical_context_parallel_sizes", "cp"},
            absl::StrCat("hierarchical_context_parallel_sizes [", absl::StrJoin(sizes, ", "), "] multiply to ",
                         Product(sizes), ", but CP = ", c.cp, ": the levels must multiply to CP"),
            split.empty() ? absl::StrCat("give sizes whose product is ", c.cp, ", or drop them")
                          : absl::StrCat("give sizes whose product is ", c.cp, " (e.g. ", split,
                                         ": the inner a2a group first), or drop them"));
  }
  if (c.cp_comm_type == "a2a+p2p") {
    // arguments.py:584, Bridge training/config.py:1683.
    if (sizes.empty()) {
      ctx.Add("cp.a2a_p2p_needs_hierarchical_sizes", {"cp_comm_type", "hierarchical_context_parallel_sizes"},
              "cp_comm_type = a2a+p2p without hierarchical_context_parallel_sizes: Megatron needs the a2a and p2p "
              "group sizes",
              split.empty() ? absl::StrCat("give hierarchical_context_parallel_sizes [a2a size, p2p size] with product "
                                           "CP = ",
                                           c.cp, ", or use cp_comm_type a2a or p2p")
                            : absl::StrCat("give hierarchical_context_parallel_sizes ", split,
                                           " (a2a inside the inner group, the p2p ring across), or use "
                                           "cp_comm_type a2a or p2p"));
    } else if (sizes.size() != 2 && c.cp > 1) {
      // Transformer Engine context_parallel.py:4727: a2a+p2p takes exactly
      // [a2a group, p2p group] (Megatron passes one group per level,
      // megatron/core/extensions/transformer_engine.py:2149).
      ctx.Add("cp.a2a_p2p_two_levels", {"cp_comm_type", "hierarchical_context_parallel_sizes"},
              absl::StrCat("cp_comm_type = a2a+p2p with ", sizes.size(), " hierarchical level(s) [",
                           absl::StrJoin(sizes, ", "),
                           "]: Transformer Engine's a2a+p2p takes exactly two groups, the a2a group and the p2p "
                           "ring"),
              split.empty() ? "give two sizes [a2a size, p2p size] whose product is CP"
                            : absl::StrCat("give two sizes, e.g. ", split));
    }
  } else if (!sizes.empty() && c.cp > 1) {
    // extensions/transformer_engine.py:2143-2153: only a2a+p2p receives the
    // hierarchical groups; other types run over the whole CP group.
    ctx.Add("cp.hierarchical_sizes_unused", {"hierarchical_context_parallel_sizes", "cp_comm_type"},
            absl::StrCat("hierarchical_context_parallel_sizes [", absl::StrJoin(sizes, ", "), "] with ", TypeSaid(c),
                         ": Megatron builds the groups but only a2a+p2p uses them"),
            "set cp_comm_type a2a+p2p to use the split, or drop the sizes");
  }
}

void CheckAttentionUnderCp(const RuleContext& ctx) {
  const auto& c = ctx.in.config;
  if (c.cp <= 1) return;
  // Megatron's attention backends under CP. `local` is Megatron's own
  // DotProductAttention, which asserts CP == 1
  // (megatron/core/transformer/dot_product_attention.py:57); `unfused` turns
  // flash and fused off (megatron/core/models/common/language_module/
  // language_module.py:141) and TE's unfused attention has no CP (utils.py:1074),
  // so no backend is left (dot_product_attention.py:1700).
  if (c.attention_backend == "local") {
    ctx.Add("cp.backend_local", {"attention_backend", "cp"},
            absl::StrCat("attention_backend = local with CP = ", c.cp,
                         ": Megatron's own DotProductAttention does not support context parallelism"),
            "use attention_backend auto, fused or flash (Transformer Engine), or CP = 1");
  } else if (c.attention_backend == "unfused") {
    ctx.Add("cp.backend_unfused", {"attention_backend", "cp"},
            absl::StrCat("attention_backend = unfused with CP = ", c.cp,
                         ": Transformer Engine's unfused attention has no context parallelism, and unfused turns "
                         "flash and fused attention off, so no attention backend is left"),
            "use attention_backend auto, fused or flash, or CP = 1");
  }
  const ModelSpec* m = ctx.in.model;
  if (m == nullptr) return;
  const bool sinks = m->softmax_type != "vanilla" && !m->softmax_type.empty();
  const LocalAttention local = LocalLayers(*m);
  const std::string type = EffectiveType(c);
  // Transformer Engine context_parallel.py:4766 (and utils.py:1174 turning
  // fused attention off): sliding-window attention under CP runs only with
  // a2a or all_gather.
  if (local.window_layers > 0 && (type == "p2p" || type == "a2a+p2p")) {
    ctx.Add("cp.sliding_window_comm_type", {"cp_comm_type", "cp", "model.window_size"},
            absl::StrCat("'", m->id, "' has sliding-window attention (window ", m->window_size, ", ",
                         local.window_layers, " of ", m->num_layers, " layers) and CP = ", c.cp, " with ", TypeSaid(c),
                         ": Transformer Engine's context parallelism runs sliding windows only with a2a or all_gather "
                         "(it asserts at start-up)"),
            sinks ? "set cp_comm_type a2a (all_gather also runs sliding windows, but not this model's attention "
                    "sinks), or CP = 1"
                  : "set cp_comm_type a2a or all_gather, or CP = 1");
  }
  if (sinks) {
    // context_parallel.py:4774 (utils.py:1053): sinks under CP only with a2a.
    if (type != "a2a") {
      ctx.Add("cp.sinks_need_a2a", {"cp_comm_type", "cp", "model.softmax_type"},
              absl::StrCat("'", m->id, "' uses attention sinks (softmax_type ", m->softmax_type, ") and CP = ", c.cp,
                           " with ", TypeSaid(c),
                           ": Transformer Engine's context parallelism supports sinks only with a2a"),
              "set cp_comm_type a2a, or CP = 1");
    }
    // context_parallel.py:4771 (utils.py:1028 turns flash off for sinks):
    // only the fused (cuDNN) backend runs sinks under CP.
    if (c.attention_backend == "flash") {
      ctx.Add("cp.sinks_need_fused", {"attention_backend", "cp", "model.softmax_type"},
              absl::StrCat("attention_backend = flash with attention sinks (softmax_type ", m->softmax_type,
                           ") and CP = ", c.cp,
                           ": flash attention has no sinks; under CP only the fused (cuDNN) backend runs them"),
              "use attention_backend fused or auto (cuDNN >= 9.13.1 for sinks)");
    }
  }
  // The a2a group scatters heads: Q heads and K/V heads (query groups) per TP
  // rank divide by it (context_parallel.py:3952); for a2a+p2p it is the
  // inner hierarchical level (context_parallel.py:1537).
  const bool a2a = c.cp_comm_type == "a2a";
  const bool hierarchical =
      c.cp_comm_type == "a2a+p2p" && c.hierarchical_cp_sizes.size() == 2 && Product(c.hierarchical_cp_sizes) == c.cp;
  const int64_t group = a2a ? c.cp : hierarchical ? c.hierarchical_cp_sizes[0] : 0;
  const int64_t heads = m->num_attention_heads;
  const int64_t groups = m->multi_latent_attention || m->num_query_groups <= 0 ? heads : m->num_query_groups;
  if (group > 1 && heads > 0 && c.tp > 0 && heads % c.tp == 0) {
    const int64_t q_local = heads / c.tp;
    // Megatron replicates K/V heads when TP exceeds the query groups.
    const int64_t kv_local = groups >= c.tp ? groups / c.tp : 1;
    if (q_local % group != 0 || kv_local % group != 0) {
      ctx.Add("cp.a2a_heads_divisible",
              {"cp_comm_type", "cp", "tp", "model.num_attention_heads", "model.num_query_groups"},
              absl::StrCat("cp_comm_type ", c.cp_comm_type, " scatters heads over an a2a group of ", group,
                           hierarchical ? " (the inner hierarchical level)" : " (CP)", ": ", q_local,
                           " attention heads and ", kv_local, " query group(s) per TP rank (TP = ", c.tp,
                           ") must both divide by ", group),
              absl::StrCat("use an a2a group dividing ", std::min(q_local, kv_local),
                           hierarchical ? " (a smaller inner level)" : "",
                           ", a smaller TP, or cp_comm_type p2p / all_gather"));
    } else if (sinks && (q_local % 2 != 0 || kv_local % 2 != 0)) {
      // utils.py:1184: a2a under fused attention needs even heads and query
      // groups per rank; sinks have no other backend under CP.
      ctx.Add("cp.sinks_a2a_even_heads", {"cp_comm_type", "tp", "model.num_query_groups"},
              absl::StrCat("attention sinks under cp_comm_type ", c.cp_comm_type,
                           " need the fused backend, which "
                           "needs an even number of heads and query groups per TP rank: ",
                           q_local, " heads and ", kv_local, " group(s)"),
              "choose TP so that heads and query groups per rank are even");
    }
  }
  // Megatron Bridge's Llama 4 chunked attention folds the chunks into the
  // batch (llama4_utils.py:299-301); under CP, when a rank's sequence is
  // longer than a chunk, it asserts that sequence divides into 2*CP pieces of
  // whole chunks (llama4_utils.py:304-307, on the rank's s/CP tokens).
  if (local.chunk_layers > 0 && c.seq_length > 0 && c.seq_length % c.cp == 0) {
    const int64_t rank_tokens = c.seq_length / c.cp;
    const int64_t chunk = m->attention_chunk_size;
    if (rank_tokens > chunk && (rank_tokens % (2 * c.cp) != 0 || (rank_tokens / (2 * c.cp)) % chunk != 0)) {
      ctx.Add("cp.chunked_attention_divisible", {"seq_length", "cp", "model.attention_chunk_size"},
              absl::StrCat("chunked attention (chunk ", chunk, ") with CP = ", c.cp, ": each rank's ", rank_tokens,
                           " tokens (seq_length / CP) must split into 2*CP = ", 2 * c.cp,
                           " pieces of whole chunks (Megatron Bridge's Llama 4 attention asserts it)"),
              absl::StrCat("use a seq_length that is a multiple of ", 2 * c.cp * c.cp * chunk, " (2*CP^2 x chunk), ",
                           "or a CP with seq_length / CP <= ", chunk));
    }
  }
}

void CheckOptimizerOffload(const RuleContext& ctx) {
  const auto& c = ctx.in.config;
  if (!c.optimizer_cpu_offload) {
    // megatron/core/optimizer/__init__.py:504-536 reads the fraction only
    // with optimizer_cpu_offload.
    if (c.offload_fraction_given) {
      ctx.Add("optimizer.offload_fraction_ignored", {"optimizer_offload_fraction", "optimizer_cpu_offload"},
              absl::StrCat("optimizer_offload_fraction = ", c.optimizer_offload_fraction,
                           " without optimizer_cpu_offload: Megatron ignores it and keeps the optimizer on the GPU"),
              "set optimizer_cpu_offload true to offload, or drop the fraction");
    }
    return;
  }
  // Megatron-LM asserts the precision-aware optimizer with offload
  // (arguments.py:1885; the rendered flags carry it), which needs the
  // distributed optimizer (megatron/core/optimizer/__init__.py:1057); Megatron
  // Bridge's docs/training/cpu-offloading.md:82 lists it as required.
  if (!c.distributed_optimizer && !c.fsdp) {
    ctx.Add("optimizer.offload_needs_dist_opt", {"optimizer_cpu_offload", "use_distributed_optimizer"},
            "optimizer_cpu_offload with use_distributed_optimizer = false: the offloaded (hybrid device) optimizer "
            "runs under the distributed optimizer",
            "keep use_distributed_optimizer on (the default), or turn optimizer_cpu_offload off");
  }
  // arguments.py:1889 (Megatron-LM only): with fp8_param_gather, only the
  // delayed-scaling recipe.
  if (IsFp8(c.precision) && c.fp8_param_gather && c.precision != Precision::kFp8Ds) {
    const bool given = c.given != nullptr && c.given->fp8_param_gather.has_value();
    ctx.Add("optimizer.offload_fp8_param_gather", {"optimizer_cpu_offload", "fp8_param_gather", "precision"},
            absl::StrCat(
                "optimizer_cpu_offload with fp8_param_gather = true",
                given ? "" : absl::StrCat(" (not given: Bridge's ", PrecisionName(c.precision), " preset sets it)"),
                " under precision ", PrecisionName(c.precision),
                ": Megatron-LM allows optimizer offload with FP8 parameter gathering only under delayed "
                "scaling"),
            "set fp8_param_gather = false (BF16 weights gathered, cast per use), or use precision fp8-ds, or turn "
            "optimizer_cpu_offload off");
  }
  // optimizer_config.py:350 defaults the fraction to 0.0: nothing moves.
  if (c.optimizer_offload_fraction <= 0.0) {
    ctx.Add("optimizer.offload_fraction_zero", {"optimizer_offload_fraction", "optimizer_cpu_offload"},
            absl::StrCat("optimizer_cpu_offload with optimizer_offload_fraction = 0",
                         c.offload_fraction_given ? "" : " (not given: Megatron-Core's and Bridge's default)",
                         ": no optimizer state leaves the GPU (Megatron-LM's --optimizer-offload-fraction defaults "
                         "to 1.0)"),
            "set optimizer_offload_fraction (e.g. 1.0 for all of it, 0.5 for half), or turn the offload off");
  }
}

// Attention sinks without CP. Megatron's attention_backend flash sets
// NVTE_FLASH_ATTN=1, NVTE_FUSED_ATTN=0, NVTE_UNFUSED_ATTN=0
// (megatron/core/models/common/language_module/language_module.py:134-136)
// and Transformer Engine turns flash off for sinks (utils.py:1028): no
// backend is left (dot_product_attention.py:1700). Under CP
// cp.sinks_need_fused says the same.
void CheckSinksBackend(const RuleContext& ctx) {
  const auto& c = ctx.in.config;
  const ModelSpec* m = ctx.in.model;
  if (m == nullptr || c.cp > 1 || m->softmax_type.empty() || m->softmax_type == "vanilla") return;
  if (c.attention_backend != "flash") return;
  ctx.Add(
      "attention.sinks_flash_no_backend", {"attention_backend", "model.softmax_type"},
      absl::StrCat("attention_backend = flash with attention sinks (softmax_type ", m->softmax_type, ") in '", m->id,
                   "': flash attention has no sinks and Megatron's flash setting turns fused and unfused "
                   "attention off, so Transformer Engine finds no backend at start-up"),
      "use attention_backend auto or fused (cuDNN fused attention runs sinks from cuDNN 9.13.1), or unfused");
}

}  // namespace

void CheckContextParallelRules(const RuleContext& ctx) {
  CheckHierarchicalSizes(ctx);
  CheckAttentionUnderCp(ctx);
  CheckSinksBackend(ctx);
  CheckOptimizerOffload(ctx);
}

}  // namespace parplan
