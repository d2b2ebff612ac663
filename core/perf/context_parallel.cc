#include "core/perf/context_parallel.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/config/parallel_config.h"
#include "core/mesh/mesh.h"
#include "core/perf/collectives.h"
#include "core/perf/group_links.h"
#include "core/perf/perf_model.h"

namespace parplan {
namespace {

constexpr double kBf16 = 2.0;

// A causal call of `a`'s batch and head dims: `heads` heads, `tokens`
// queries against as many keys.
AttentionCall CausalCall(const AttentionShape& a, double heads, double tokens) {
  AttentionCall call;
  call.batch = a.batch;
  call.heads = heads;
  call.qk_dim = a.qk_dim;
  call.v_dim = a.v_dim;
  call.q_len = call.k_len = tokens;
  return call;
}

// The keys-per-query shape of one call over `tokens` queries of `a`: the
// sliding window or the chunk as the model defines them.
AttentionCall LocalCall(const AttentionShape& a, double heads, double tokens) {
  AttentionCall call = CausalCall(a, heads, tokens);
  if (a.chunk > 0 && a.chunk < tokens) {
    call.q_len = call.k_len = a.chunk;
    call.batch *= tokens / a.chunk;
  } else if (a.window > 0) {
    call.window = a.window;
  }
  return call;
}

PassSeconds Plus(PassSeconds x, const PassSeconds& y, double times = 1.0) {
  x.forward += times * y.forward;
  x.backward += times * y.backward;
  return x;
}

}  // namespace

CpShape CpShapeOf(const ResolvedConfig& c) {
  CpShape s;
  if (c.cp <= 1) return s;
  s.type = c.cp_comm_type;
  if (s.type == "a2a") {
    s.a2a = c.cp;
  } else if (s.type == "all_gather") {
    s.gather = c.cp;
  } else if (s.type == "a2a+p2p") {
    // TE's a2a+p2p: the a2a over the first level, the ring over the product
    // of the others (megatron/core/parallel_state.py builds one group per
    // level; transformer_engine context_parallel.py takes cp_group[0] as
    // the a2a group and cp_group[1] as the ring).
    const int64_t inner =
        c.hierarchical_cp_sizes.empty() ? c.cp : std::max<int64_t>(1, c.hierarchical_cp_sizes.front());
    s.a2a = std::min(inner, c.cp);
    s.ring = std::max<int64_t>(1, c.cp / s.a2a);
  } else {
    s.ring = c.cp;
  }
  return s;
}

AttentionShape AttentionShapeOf(const ModelSpec& m, const ResolvedConfig& c, int64_t index) {
  AttentionShape shape;
  const double tp = static_cast<double>(c.tp);
  shape.batch = static_cast<double>(c.mbs);
  shape.seq = static_cast<double>(c.seq_length);
  shape.heads = m.num_attention_heads / tp;
  if (m.multi_latent_attention) {
    // MLA: every head has its own K (nope + rope) and V after kv_up
    // (megatron/core/transformer/multi_latent_attention.py).
    shape.qk_dim = static_cast<double>(m.qk_head_dim + m.qk_pos_emb_head_dim);
    shape.v_dim = static_cast<double>(m.v_head_dim);
    shape.kv_elements = shape.heads * (shape.qk_dim + shape.v_dim);
  } else {
    const double d_head = static_cast<double>(m.kv_channels);
    const double groups = std::max(1.0, m.num_query_groups / tp);
    shape.qk_dim = shape.v_dim = d_head;
    shape.kv_elements = 2 * groups * d_head;
  }
  if (IsLocalAttentionLayer(m, index)) {
    if (m.attention_chunk_size > 0) {
      shape.chunk = static_cast<double>(m.attention_chunk_size);
    } else {
      shape.window = static_cast<double>(m.window_size) + 1;
    }
  }
  return shape;
}

CpAttentionWork CpAttentionBytes(const AttentionShape& a, const CpShape& cp) {
  CpAttentionWork w;
  const double cp_size = static_cast<double>(cp.a2a * cp.ring * cp.gather);
  const double local_tokens = a.batch * a.seq / cp_size;  // tokens one rank holds outside attention
  if (cp.a2a > 1) {
    w.a2a_in_bytes = local_tokens * (a.heads * a.qk_dim + a.kv_elements) * kBf16;
    w.a2a_out_bytes = local_tokens * a.heads * a.v_dim * kBf16;
    // The head-scattered copies of Q, K, V and O live beside the originals.
    w.working_bytes += w.a2a_in_bytes + w.a2a_out_bytes;
  }
  if (cp.ring > 1) {
    const double chunk = a.seq / static_cast<double>(cp.ring);
    w.ring_steps = static_cast<double>(cp.ring - 1);
    w.ring_bytes = a.batch * chunk * a.kv_elements / static_cast<double>(cp.a2a) * kBf16;
    w.working_bytes += 2 * w.ring_bytes;  // the chunk being sent and the one arriving
  } else if (cp.gather > 1) {
    w.gather_bytes = a.batch * a.seq * a.kv_elements * kBf16;
    // Gathered K and V, and in the backward their full-length gradients
    // before the reduce-scatter.
    w.working_bytes += 2 * w.gather_bytes;
  }
  return w;
}

CpAttentionWork AttentionUnderCp(const AttentionShape& a, const CpShape& cp, const Device& d) {
  CpAttentionWork w = CpAttentionBytes(a, cp);
  const double cp_size = static_cast<double>(cp.a2a * cp.ring * cp.gather);
  const double heads = a.heads / static_cast<double>(cp.a2a);
  if (cp.ring > 1) {
    // Two load-balanced chunks per rank: the own chunks causally, then per
    // step the queries against half of a peer's keys (or half the queries
    // against all of them), unmasked. Windows are not applied (TE refuses
    // sliding windows on the ring).
    const double chunk = a.seq / static_cast<double>(cp.ring);
    const AttentionCall own = CausalCall(a, heads, chunk);
    AttentionCall step = own;
    step.causal = false;
    step.k_len = chunk / 2;
    w.ring_step = FusedAttentionSeconds(step, d);
    w.compute = Plus(FusedAttentionSeconds(own, d), w.ring_step, static_cast<double>(cp.ring - 1));
    return w;
  }
  if (cp.gather > 1) {
    // Each rank's two query chunks (i and 2CP-1-i of 2CP) attend to their
    // whole prefix of the gathered keys, bottom-right causal; the work is the
    // same on every rank, so rank 0's: its first chunk against itself, its
    // last against the whole sequence. Windows cut the keys.
    const double q = a.seq / (2 * cp_size);
    for (const double keys : {q, a.seq}) {
      AttentionCall call = LocalCall(a, heads, keys);
      if (call.batch == a.batch) {  // not chunked: q queries against `keys` keys
        call.q_len = q;
        call.k_len = call.window > 0 ? std::min(keys, q + call.window) : keys;
      } else {  // chunked local attention: each query chunk sees its own chunk
        call.batch = a.batch * q / std::min(q, a.chunk);
        call.q_len = call.k_len = std::min(q, a.chunk);
      }
      w.compute = Plus(w.compute, FusedAttentionSeconds(call, d));
    }
    return w;
  }
  // No ring or gather: the whole sequence (after the a2a, for heads / a2a).
  w.compute = FusedAttentionSeconds(LocalCall(a, heads, a.seq), d);
  return w;
}

CpLinks CpLinksOf(const ResolvedConfig& c, const CpShape& cp, const GroupSpread& cp_group, int64_t world,
                  const SystemSpec& s) {
  CpLinks l{cp_group, cp_group, cp_group};
  if (cp.a2a <= 1 || cp.ring <= 1) return l;
  // Under Megatron's order the a2a group's ranks sit TP apart (the CP group
  // of a mesh whose CP is the a2a size) and the ring's TP x a2a apart (the
  // CP group of a mesh whose TP block is TP x a2a).
  MeshDims inner;
  inner.tp = c.tp;
  inner.cp = cp.a2a;
  inner.pp = c.pp;
  MeshDims outer;
  outer.tp = c.tp * cp.a2a;
  outer.cp = cp.ring;
  outer.pp = c.pp;
  l.a2a = LinksOfGroups(inner, world, s).cp.spread;
  l.ring = LinksOfGroups(outer, world, s).cp.spread;
  return l;
}

CpCommSeconds CpCommOf(const CpAttentionWork& w, const CpShape& cp, const CpLinks& links, const SystemSpec& s,
                       const PerfParams& P) {
  CpCommSeconds out;
  if (cp.a2a > 1) {
    const double in = AllToAllSeconds(w.a2a_in_bytes, links.a2a, s, P);
    const double back = AllToAllSeconds(w.a2a_out_bytes, links.a2a, s, P);
    out.total.forward += in + back;
    out.total.backward += in + back;
    out.exposed = out.total;
  }
  if (w.ring_steps > 0) {
    const Link link = LinkOfGroup(s, links.ring);
    const double forward = SendRecvSeconds(w.ring_bytes, link, s, P);
    const double backward = SendRecvSeconds(2 * w.ring_bytes, link, s, P);
    out.total.forward += w.ring_steps * forward;
    out.total.backward += w.ring_steps * backward;
    out.exposed.forward += w.ring_steps * std::max(0.0, forward - w.ring_step.forward);
    out.exposed.backward += w.ring_steps * std::max(0.0, backward - w.ring_step.backward);
  }
  if (w.gather_bytes > 0) {
    const double gather = RingCollectiveSeconds(w.gather_bytes, links.gather, s, P);
    out.total.forward += gather;
    out.total.backward += 2 * gather;  // gather again, reduce-scatter dK, dV
    out.exposed.forward += gather;
    out.exposed.backward += 2 * gather;
  }
  return out;
}

std::string DescribeCp(const CpShape& cp, const CpLinks& links, const SystemSpec& s) {
  if (cp.type.empty()) return "";
  auto where = [&s](const GroupSpread& g) { return absl::StrCat("on ", DescribeLink(s, LinkOfGroup(s, g))); };
  if (cp.type == "a2a") return absl::StrCat("a2a over ", cp.a2a, " ranks ", where(links.a2a));
  if (cp.type == "all_gather") return absl::StrCat("all_gather over ", cp.gather, " ranks ", where(links.gather));
  if (cp.type == "a2a+p2p") {
    return absl::StrCat("a2a over ", cp.a2a, " ranks ", where(links.a2a), " and a p2p ring of ", cp.ring, " ",
                        where(links.ring));
  }
  return absl::StrCat("p2p ring of ", cp.ring, " ranks ", where(links.ring));
}

}  // namespace parplan
