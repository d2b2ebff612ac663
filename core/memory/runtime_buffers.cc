#include "core/memory/runtime_buffers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/memory/activation_model.h"
#include "core/memory/memory_steps.h"
#include "core/model/layer_kind.h"
#include "core/perf/host_launches.h"
#include "core/util/text.h"

namespace parplan {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// "360.2 MiB" below a GiB, "3.51 GiB" from there.
std::string Size(double bytes) {
  return bytes < kGiB ? absl::StrFormat("%.1f MiB", bytes / kMiB) : absl::StrFormat("%.2f GiB", bytes / kGiB);
}

int64_t AlignUp(int64_t value, int64_t unit) { return (value + unit - 1) / unit * unit; }

// DeepEP (deepseek-ai/DeepEP, branch hybrid-ep at 94a9f8f: the branch
// Megatron-LM's LTS image builds, docker/Dockerfile.ci.lts:95; its dev image
// pins commit de0dd11, not in the snapshot read; the tables and hints below
// are the same in release v1.2.1).
//
// deep_ep/buffer.py get_dispatch_config / get_combine_config: per rank count,
// Config(num_sms, nvl send, nvl recv, rdma send, rdma recv) chunk sizes in tokens.
struct DeepEpConfig {
  int64_t nvl_send, nvl_recv, rdma_send, rdma_recv;
};
const std::map<int64_t, std::pair<DeepEpConfig, DeepEpConfig>>& DeepEpConfigs() {
  static const auto* configs = new std::map<int64_t, std::pair<DeepEpConfig, DeepEpConfig>>{
      // ranks: {dispatch, combine}
      {2, {{24, 256, 6, 128}, {10, 256, 6, 128}}},   {4, {{6, 256, 6, 128}, {9, 256, 6, 128}}},
      {8, {{6, 256, 6, 128}, {4, 256, 6, 128}}},     {16, {{36, 288, 20, 128}, {4, 288, 12, 128}}},
      {24, {{8, 288, 32, 128}, {1, 288, 8, 128}}},   {32, {{32, 288, 32, 128}, {1, 288, 8, 128}}},
      {64, {{20, 288, 28, 128}, {1, 288, 20, 128}}}, {128, {{20, 560, 32, 128}, {1, 560, 12, 128}}},
      {144, {{32, 720, 12, 128}, {2, 720, 8, 128}}}, {160, {{28, 720, 12, 128}, {2, 720, 8, 128}}},
  };
  return *configs;
}

// Megatron-Core runs DeepEP's high-throughput kernels on 20 SMs unless
// moe_flex_dispatcher_num_sms says otherwise (token_dispatcher.py:1287);
// each channel is 2 SMs.
constexpr int64_t kDeepEpSms = 20;
constexpr int64_t kNvlPeers = 8;          // NUM_MAX_NVL_PEERS (csrc/kernels/configs.cuh)
constexpr int64_t kMaxTopK = 128;         // kNumMaxTopK (csrc/config.hpp)
constexpr int64_t kMaxScales = 128;       // kNumMaxScales
constexpr int64_t kSourceMeta = 8;        // sizeof(internode::SourceMeta): two ints
constexpr int64_t kWorkspace = 32 << 20;  // NUM_WORKSPACE_BYTES, cudaMalloc'd by every Buffer

// csrc/config.hpp Config::get_nvl_buffer_size_hint: per channel and NVLink
// peer, a ring of `recv` tokens, each with its hidden row, source meta, top-k
// indices (int64) and weights (fp32) and scales, plus head/tail counters.
int64_t NvlHint(const DeepEpConfig& cfg, int64_t hidden_bytes, int64_t ranks) {
  const int64_t channels = kDeepEpSms / 2;
  const int64_t rdma_ranks = std::max<int64_t>(ranks / kNvlPeers, 1);
  const int64_t nvl_ranks = std::min(ranks, kNvlPeers);
  const int64_t per_token = hidden_bytes + kSourceMeta + kMaxTopK * 8 + kMaxTopK * 4 + kMaxScales * 4;
  const int64_t bytes =
      channels * nvl_ranks * (2 * rdma_ranks + 3) * 4 + channels * nvl_ranks * cfg.nvl_recv * per_token;
  return AlignUp(bytes, 128);
}

// Config::get_rdma_buffer_size_hint: zero within one NVLink group of 8;
// beyond it, per channel and RDMA peer, send and receive rings of `recv`
// tokens (rounded up to a multiple of `send`), with the same per-token
// metadata and an int4 tail.
int64_t RdmaHint(const DeepEpConfig& cfg, int64_t hidden_bytes, int64_t ranks) {
  if (ranks <= kNvlPeers) return 0;
  const int64_t channels = kDeepEpSms / 2;
  const int64_t rdma_ranks = ranks / kNvlPeers;
  const int64_t recv = AlignUp(cfg.rdma_recv, cfg.rdma_send);
  const int64_t per_token = 2 * (hidden_bytes + kSourceMeta + kMaxTopK * 8 + kMaxTopK * 4 + kMaxScales * 4 + 16);
  const int64_t bytes = channels * rdma_ranks * (kNvlPeers * 2 + 2) * 2 * 4 + channels * rdma_ranks * recv * per_token;
  return AlignUp(bytes, 128);
}

// The hidden width the dispatcher moves: the latent width for LatentMoE.
int64_t DispatchedHidden(const ModelSpec& m) { return m.moe_latent_size > 0 ? m.moe_latent_size : m.hidden_size; }

// Tokens of one microbatch on one GPU at the MoE layer: the sequence split by
// CP, and by TP under sequence parallelism (which MoE with TP > 1 needs).
double TokensPerRank(const ResolvedConfig& c) {
  return static_cast<double>(c.seq_length) * c.mbs / c.cp / (c.sp ? c.tp : 1);
}

DispatcherBuffers DeepEp(const ModelSpec& m, const ResolvedConfig& c, bool explain) {
  DispatcherBuffers b;
  const int64_t ranks = c.ep * c.etp;
  // fused_a2a.py:24 get_hidden_bytes: hidden * max(element size, 2).
  const int64_t hidden_bytes = DispatchedHidden(m) * 2;
  const DeepEpSizes sizes = DeepEpBufferSizes(hidden_bytes, ranks);
  if (!sizes.supported) {
    if (explain)
      b.reason = absl::StrCat("DeepEP has no buffer config for ETP x EP = ", ranks,
                              " ranks (deep_ep/buffer.py get_dispatch_config: 2, 4, 8, 16, 24, 32, 64, 128, 144, 160); "
                              "its buffers are not counted");
    return b;
  }
  b.intra_bytes = sizes.nvl_bytes;
  b.inter_bytes = sizes.rdma_bytes;
  b.other_bytes = kWorkspace;
  if (explain)
    b.reason = absl::StrCat(
        "DeepEP buffers (one per GPU, ETP x EP = ", ranks, " ranks, rows of ", DispatchedHidden(m),
        " x 2 B, 20 SMs): NVLink ", Size(b.intra_bytes),
        b.inter_bytes > 0 ? absl::StrCat(" + RDMA ", Size(b.inter_bytes)) : std::string(),
        " + workspace 32.0 MiB = ", Size(b.total()), " (DeepEP's size hints for ", ranks, " ranks",
        b.inter_bytes > 0 ? "; NVSHMEM maps its heap in 512 MiB granules, so the RDMA part may take up to 512 MiB" : "",
        ")");
  return b;
}

// HybridEP (DeepEP branch hybrid-ep, csrc/hybrid_ep): Megatron-Core builds
// one HybridEPBuffer with the first dispatch's token count
// (fused_a2a.py:400-413) and HybridEP sizes its buffers for the worst case,
// every token of the group landing on one rank (buffer/intranode.cu:126).
DispatcherBuffers HybridEp(const ModelSpec& m, const ResolvedConfig& c, const SystemSpec* system, bool explain) {
  DispatcherBuffers b;
  const int64_t ranks = c.ep * c.etp;
  // hybrid_ep_buffer.py update_template_config aligns tokens per rank up to 16.
  const double tokens = static_cast<double>(AlignUp(static_cast<int64_t>(std::ceil(TokensPerRank(c))), 16));
  int64_t domain = ranks;
  if (system != nullptr) {
    const int64_t used = system->nvlink_domain_used > 0 ? system->nvlink_domain_used : system->nvlink_domain_size;
    if (used > 0) domain = std::min(ranks, static_cast<int64_t>(used));
  }
  const int64_t nodes = std::max<int64_t>(1, ranks / std::max<int64_t>(1, domain));
  const double h = static_cast<double>(DispatchedHidden(m));
  const double local_experts = static_cast<double>(m.num_moe_experts) / c.ep;
  const double worst = tokens * ranks;  // max_num_of_tokens
  // buffer/intranode.cu allocate_combine_buffers / allocate_dispatch_buffers
  // (dispatch shares the combine buffers, use_shared_buffer): bf16 token
  // rows, fp32 probabilities for the experts of the NVLink domain, and the
  // fp32 FP8-scale rows (allocated for bf16 too).
  const double token_rows = worst * h * 2;
  const double probs = worst * local_experts * domain * 4;
  const double scales = worst * std::floor(h / 128) * 4;
  b.intra_bytes = token_rows + probs + scales;
  // extension/allgather.cu allocate_ag_buffer: the routing map (bool) of every
  // expert for every token of the group.
  b.other_bytes = local_experts * ranks * tokens * ranks;
  if (nodes > 1) {
    // buffer/internode_doca.cu: the dispatch input and the rows from the
    // other domains, the combine reduction and send rows.
    const double other = static_cast<double>(nodes - 1);
    const double dispatch = tokens * (h * 2 + local_experts * ranks * 4 + std::floor(h / 128) * 4) +
                            other * tokens * (h * 2 + local_experts * domain * 4 + std::floor(h / 128) * 4);
    const double combine = 2 * other * tokens * (h * 2 + local_experts * domain * 4);
    b.inter_bytes = dispatch + combine;
  }
  if (explain)
    b.reason = absl::StrCat(
        "HybridEP buffers (one per GPU, ", WithCommas(static_cast<int64_t>(tokens)), " tokens per rank x ", ranks,
        " ranks, ", domain, " per NVLink domain, rows of ", DispatchedHidden(m),
        " x 2 B, sized for every token of the group landing on one rank): token rows ", Size(token_rows),
        " + probabilities ", Size(probs), " + FP8 scales ", Size(scales), " + routing-map all-gather ",
        Size(b.other_bytes),
        nodes > 1 ? absl::StrCat(" + inter-domain (", nodes, " domains) ", Size(b.inter_bytes)) : std::string(), " = ",
        Size(b.total()));
  return b;
}

}  // namespace

DeepEpSizes DeepEpBufferSizes(int64_t hidden_bytes, int64_t ranks) {
  DeepEpSizes s;
  auto it = DeepEpConfigs().find(ranks);
  if (it == DeepEpConfigs().end()) return s;
  s.supported = true;
  // fused_a2a.py:48-58: the larger hint of the dispatch and combine configs.
  for (const DeepEpConfig& cfg : {it->second.first, it->second.second}) {
    s.nvl_bytes = std::max(s.nvl_bytes, static_cast<double>(NvlHint(cfg, hidden_bytes, ranks)));
    s.rdma_bytes = std::max(s.rdma_bytes, static_cast<double>(RdmaHint(cfg, hidden_bytes, ranks)));
  }
  return s;
}

DispatcherBuffers DispatcherBufferBytes(const ModelSpec& m, const ResolvedConfig& c, const SystemSpec* system,
                                        bool explain) {
  DispatcherBuffers b;
  if (m.num_moe_experts <= 0) return b;
  const std::string& d = c.moe_token_dispatcher_type;
  const double h = static_cast<double>(DispatchedHidden(m));
  const double tokens = TokensPerRank(c);
  if (d == "flex" && c.moe_flex_dispatcher_backend == "deepep") return DeepEp(m, c, explain);
  if (d == "flex" && c.moe_flex_dispatcher_backend == "hybridep") return HybridEp(m, c, system, explain);
  if (d == "flex") {
    if (explain)
      b.reason =
          "ncclep (Transformer Engine NCCL EP) keeps symmetric-memory buffers that are not modelled "
          "(TE sizes them at run time)";
    return b;
  }
  if (d == "alltoall") {
    // token_dispatcher.py MoEAlltoAllTokenDispatcher: the permuted tokens are
    // sent by all-to-all and freed after it; the received rows are the experts'
    // input the activations already count.
    if (explain)
      b.reason = absl::StrCat(
          "alltoall dispatcher: no persistent buffers; its staging, the permuted copy of one layer's routed tokens (",
          WithCommas(static_cast<int64_t>(tokens)), " tokens x top-", m.moe_router_topk, " x ", DispatchedHidden(m),
          " x 2 B = ", Size(tokens * m.moe_router_topk * h * 2),
          "), lives only while a layer dispatches, within the allocator slack");
    return b;
  }
  // MoEAllGatherTokenDispatcher gathers the tokens of the TP x EP group.
  if (explain)
    b.reason = absl::StrCat("allgather dispatcher: no persistent buffers; the gathered tokens of the ETP x EP group (",
                            c.ep * c.etp, " x ", WithCommas(static_cast<int64_t>(tokens)), " tokens x ",
                            DispatchedHidden(m), " x 2 B = ", Size(tokens * c.ep * c.etp * h * 2),
                            ") live only while a layer dispatches, within the allocator slack");
  return b;
}

CudaGraphStage GraphStageBytes(const MemoryInputs& in, int64_t r, const StageMemory& st) {
  const ModelSpec& m = *in.model;
  const ResolvedConfig& c = *in.config;
  const StagePlan& plan = *in.plan;
  CudaGraphStage g;
  if (c.cuda_graph_impl == "none") return g;
  const double rows = in.tokens / (c.sp ? c.tp : 1);  // hidden-state rows of one microbatch on this GPU
  const double hidden_buffer = rows * m.hidden_size * 2;
  double largest = 0;  // one captured layer's activations for one microbatch
  if (c.cuda_graph_impl == "full_iteration") {
    // megatron/core/full_cuda_graph.py StaticBufferLoader: every microbatch's
    // batch (tokens, labels, position ids as int64, loss mask as fp32: 28 B a
    // token, the whole sequence) is copied into static buffers on the ranks
    // that read data.
    if (plan.has_embedding[r] || plan.has_loss[r]) {
      g.static_bytes = 28.0 * c.seq_length * c.mbs * static_cast<double>(in.microbatches);
    }
    for (int64_t v = 0; v < plan.vpp; ++v) {
      for (int64_t k = 0; k < plan.decoder_layers[r][v]; ++k) {
        const LayerKind kind = KindOfLayer(m, in.first_layers[r][v] + k);
        largest = std::max(largest, LayerActivationBytesPerToken(m, kind, c) * in.tokens);
        ++g.captured_layers;
      }
    }
  } else {
    // Per-layer graphs (transformer_engine: cuda_graphs.py TECudaGraphHelper
    // and TE's make_graphed_callables; local: CudaGraphManager). A graph is
    // captured per callable and microbatch (every microbatch of the step when
    // PP > 1, cuda_graphs.py:2597-2603). Each keeps a static input (Megatron's
    // sample args, :2322, reused by a later microbatch once this one's
    // backward ran) that the replay copies its input into
    // (transformer_engine/pytorch/graph.py:1048) and that the graph saves for
    // its backward, and a static output in the pool, held until the graph's
    // backward (graph.py:880-884, _reuse_graph_input_output_buffers). Where a
    // graph's output feeds eager code, that code keeps the output itself, as
    // eager mode would; where it feeds the next graph, the next graph saves
    // its own copy and the output is held besides: one hidden-size buffer per
    // such hand-off (every layer with whole-layer graphs; attn -> mlp /
    // moe_router within a layer, mlp -> the next layer's attn), per in-flight
    // microbatch of the chunk. The backward's static gradient outputs are
    // shared by shape (graph.py:803-818): one buffer.
    // Which graph runs each region of a layer is the host-launch model's
    // GraphOf (core/perf/host_launches.h), so the graphs' buffers and their
    // launches cannot disagree: under an empty scope a dropless MoE layer's
    // dispatch stays eager, and its graph hands its output to eager code.
    for (int64_t v = 0; v < plan.vpp; ++v) {
      const double in_flight =
          static_cast<double>(v < static_cast<int64_t>(st.chunks.size()) ? st.chunks[v].in_flight : 1);
      CapturingGraph previous = CapturingGraph::kNone;
      int64_t handoffs = 0;
      for (int64_t k = 0; k < plan.decoder_layers[r][v]; ++k) {
        const LayerKind kind = KindOfLayer(m, in.first_layers[r][v] + k);
        bool any = false;
        bool first = true;  // a layer's first region starts a new graph
        for (const HostRegion region : LayerRegions(kind, false)) {
          const CapturingGraph graph = GraphOf(c, region);
          const bool captured = graph != CapturingGraph::kNone;
          if (captured && previous != CapturingGraph::kNone && (first || graph != previous)) ++handoffs;
          previous = graph;
          first = false;
          any = any || captured;
        }
        if (!any) continue;
        ++g.captured_layers;
        largest = std::max(largest, LayerActivationBytesPerToken(m, kind, c) * in.tokens);
      }
      g.static_bytes += static_cast<double>(handoffs) * hidden_buffer * in_flight;
    }
    if (g.captured_layers > 0) g.static_bytes += hidden_buffer;  // the shared gradient-output buffer
  }
  // The graphs' private pool stays reserved for them: the temporaries a
  // captured layer allocates and frees inside its graph (GEMM outputs,
  // workspaces) keep their pool memory, which the eager allocator (the
  // non-captured modules, the optimizer step) cannot reuse. One layer's
  // saved activations for one microbatch stand in for that working set.
  if (g.captured_layers > 0) g.pool_bytes = largest;
  return g;
}

}  // namespace parplan
