#include "core/memory/memory_root_cause.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/util/text.h"

namespace parplan {

namespace {

// A term counts as large from this share of the peak stage on: a reason is
// given for it. (A quarter: the four model-state and activation terms of a
// typical tuned config each sit below it; bench/results/memory_fit.txt.)
constexpr double kLargeShare = 0.25;

std::string Pct(double share) { return absl::StrFormat("%.0f%%", 100 * share); }

}  // namespace

MemoryRootCause ExplainMemoryPeak(const ModelSpec& m, const ResolvedConfig& c, const MemoryEstimate& e) {
  MemoryRootCause out;
  const StageMemory& st = e.stages[e.peak_pp_rank];
  const double total = st.total_bytes > 0 ? st.total_bytes : 1;
  const double optimizer = st.optimizer_dense_bytes + st.optimizer_expert_bytes;
  const double activations =
      st.activation_bytes + st.recompute_working_bytes + st.attention_working_bytes + st.logits_bytes;
  const double buffers = st.dispatcher_buffer_bytes + st.cuda_graph_bytes + st.fsdp_working_bytes + st.embedding_bytes;
  out.terms = {{"weights", st.weight_bytes, 0}, {"gradients", st.grad_bytes, 0}, {"optimizer state", optimizer, 0},
               {"activations", activations, 0}, {"buffers", buffers, 0},         {"overhead", st.overhead_bytes, 0}};
  for (auto& t : out.terms) t.share = t.bytes / total;
  std::stable_sort(out.terms.begin(), out.terms.end(),
                   [](const MemoryTermShare& a, const MemoryTermShare& b) { return a.bytes > b.bytes; });
  const MemoryTermShare& top = out.terms.front();
  out.reasons.push_back(absl::StrCat("PP rank ", e.peak_pp_rank, " peaks at ", HumanGiB(st.total_bytes), ": ", top.term,
                                     " ", HumanGiB(top.bytes), " (", Pct(top.share), "), then ", out.terms[1].term, " ",
                                     HumanGiB(out.terms[1].bytes), " (", Pct(out.terms[1].share), ")."));
  // The structural reasons, each with the bytes it explains; said largest first.
  std::vector<std::pair<double, std::string>> why;
  auto say = [&why](double bytes, std::string line) { why.emplace_back(bytes, std::move(line)); };
  int64_t stage_layers = 0;
  for (int64_t n : st.decoder_layers) stage_layers += n;
  auto large = [&](double bytes) { return bytes / total >= kLargeShare; };
  // Model state: what fails to shard it.
  const double model_state = st.weight_bytes + st.grad_bytes + optimizer;
  if (large(optimizer)) {
    const int64_t dense_shards = c.distributed_optimizer || c.fsdp ? e.dp * c.cp : 1;
    if (!c.distributed_optimizer && !c.fsdp) {
      say(optimizer, absl::StrCat("The distributed optimizer is off: every one of the ", e.dp,
                                  " DP ranks holds the full Adam state (", HumanGiB(optimizer), ", ",
                                  Pct(optimizer / total), " of the peak)."));
    } else if (dense_shards == 1 && (!m.is_moe() || e.edp == 1)) {
      say(optimizer,
          absl::StrCat("DP=1: the distributed optimizer has nothing to shard over; the Adam state (",
                       HumanGiB(optimizer), ", ", Pct(optimizer / total), " of the peak) stays whole on every GPU."));
    } else if (m.is_moe() && st.optimizer_expert_bytes > st.optimizer_dense_bytes && e.edp <= 2) {
      say(st.optimizer_expert_bytes,
          absl::StrCat(
              "Expert DP=", e.edp, ": the experts' Adam state (", HumanGiB(st.optimizer_expert_bytes), ") is ",
              e.edp == 1 ? std::string("not sharded at all") : absl::StrCat("sharded over only ", e.edp, " ranks"),
              " (expert DP = GPUs / (PP x EP x ETP))."));
    } else {
      say(optimizer, absl::StrCat("Adam state ", HumanGiB(optimizer), " is ", Pct(optimizer / total),
                                  " of the peak even sharded over DP x CP = ", dense_shards, "."));
    }
  }
  if (large(st.weight_bytes + st.grad_bytes) || large(model_state)) {
    if (c.pp == 1) {
      say(st.weight_bytes + st.grad_bytes,
          absl::StrCat("PP=1: all ", stage_layers, " layers' weights and gradients on every GPU (",
                       HumanGiB(st.weight_bytes + st.grad_bytes), ", ", Pct((st.weight_bytes + st.grad_bytes) / total),
                       " of the peak)",
                       c.tp == 1 ? ", unsplit by TP." : absl::StrCat(", split only by TP=", c.tp, ".")));
    } else {
      say(st.weight_bytes + st.grad_bytes,
          absl::StrCat("PP rank ", e.peak_pp_rank, " holds ", stage_layers, " of ", m.num_layers,
                       " layers: weights and gradients ", HumanGiB(st.weight_bytes + st.grad_bytes), " (",
                       Pct((st.weight_bytes + st.grad_bytes) / total), ") with TP=", c.tp,
                       m.is_moe() ? absl::StrCat(", EP=", c.ep) : std::string(), "."));
    }
    if (m.is_moe() && st.expert_params > st.dense_params) {
      say(st.weight_bytes + st.grad_bytes - 1,
          absl::StrCat("Experts dominate the parameters: ", m.num_moe_experts / std::max<int64_t>(c.ep, 1), " of ",
                       m.num_moe_experts, " experts per GPU at EP=", c.ep, " (", HumanCount(st.expert_params),
                       " expert parameters vs ", HumanCount(st.dense_params), " dense)."));
    }
  }
  if (large(activations)) {
    std::string recompute =
        c.recompute == RecomputeGranularity::kNone
            ? "no recompute"
            : (c.recompute == RecomputeGranularity::kFull ? "full recompute" : "selective recompute");
    say(activations,
        absl::StrCat("MBS ", c.mbs, " x seq ", c.seq_length, c.cp > 1 ? absl::StrCat(" / CP ", c.cp) : std::string(),
                     ": activations are ", Pct(activations / total), " of the peak (", HumanGiB(activations), "; ",
                     recompute, absl::StrFormat(", %.2f microbatches in flight", st.in_flight_microbatches),
                     c.tp > 1 && c.sp ? absl::StrCat(", split by TP=", c.tp, " with SP") : std::string(), ")."));
  }
  if (large(st.logits_bytes)) {
    say(st.logits_bytes, absl::StrCat("The logits (vocabulary ", m.vocab_size, " / TP ", c.tp, ") take ",
                                      HumanGiB(st.logits_bytes), " on the loss rank."));
  }
  if (large(buffers)) {
    say(buffers, absl::StrCat("Runtime buffers (dispatcher ", HumanGiB(st.dispatcher_buffer_bytes), ", CUDA graphs ",
                              HumanGiB(st.cuda_graph_bytes), ", FSDP working set ", HumanGiB(st.fsdp_working_bytes),
                              ") are ", Pct(buffers / total), " of the peak."));
  }
  std::stable_sort(why.begin(), why.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (auto& w : why) out.reasons.push_back(std::move(w.second));
  return out;
}

}  // namespace parplan
