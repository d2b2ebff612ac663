// CP communication by cp_comm_type: what each type moves, and that its time
// follows the links the rank layout gives its groups.
#include "core/perf/context_parallel.h"

#include "core/catalog/catalog.h"
#include "core/mesh/mesh.h"
#include "core/perf/group_links.h"
#include "core/perf/perf_model.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

ResolvedConfig Config(const std::string& type, int64_t cp, std::vector<int64_t> sizes = {}) {
  ResolvedConfig c;
  c.tp = 1;
  c.pp = 1;
  c.cp = cp;
  c.cp_comm_type = type;
  c.hierarchical_cp_sizes = sizes;
  return c;
}

// A 128K-token Llama-70B-like call on one TP rank: 64 query heads, GQA with 8
// KV groups of head dim 128.
AttentionShape LongCall() {
  AttentionShape a;
  a.seq = 131072;
  a.heads = 64;
  a.kv_elements = 2.0 * 8 * 128;
  return a;
}

// CP comm seconds (forward + backward, all of it) of `c` on `s` with `world`
// ranks, and the exposed part.
CpCommSeconds Comm(const ResolvedConfig& c, const SystemSpec& s, int64_t world, const AttentionShape& a) {
  const CpShape shape = CpShapeOf(c);
  MeshDims dims;
  dims.tp = c.tp;
  dims.cp = c.cp;
  dims.pp = c.pp;
  const CpLinks links = CpLinksOf(c, shape, LinksOfGroups(dims, world, s).cp.spread, world, s);
  const CpAttentionWork w = AttentionUnderCp(a, shape, MakeDevice(s, Precision::kBf16));
  return CpCommOf(w, shape, links, s, CalibratedPerfParams());
}

double Sum(const PassSeconds& p) { return p.forward + p.backward; }

// The same job with every NVLink domain holding one rank: every group spans
// the network.
SystemSpec OneRankPerDomain(SystemSpec s) {
  s.nvlink_domain_used = 1;
  return s;
}

TEST(ContextParallelTest, ShapeOfEachType) {
  EXPECT_EQ(CpShapeOf(Config("p2p", 8)).ring, 8);
  EXPECT_EQ(CpShapeOf(Config("a2a", 8)).a2a, 8);
  EXPECT_EQ(CpShapeOf(Config("all_gather", 8)).gather, 8);
  const CpShape h = CpShapeOf(Config("a2a+p2p", 8, {2, 4}));
  EXPECT_EQ(h.a2a, 2);
  EXPECT_EQ(h.ring, 4);
}

TEST(ContextParallelTest, WhatEachTypeMoves) {
  const SystemSpec s = *Catalog::Get().FindSystem("h100-sxm");
  const Device d = MakeDevice(s, Precision::kBf16);
  const AttentionShape a = LongCall();
  const double chunk_kv_bytes = 2.0 * a.kv_elements * a.seq / 8;  // bf16 K and V of one rank's 16K tokens
  const CpAttentionWork p2p = AttentionUnderCp(a, CpShapeOf(Config("p2p", 8)), d);
  EXPECT_EQ(p2p.ring_steps, 7);
  EXPECT_DOUBLE_EQ(p2p.ring_bytes, chunk_kv_bytes);
  EXPECT_EQ(p2p.a2a_in_bytes, 0);
  const CpAttentionWork gather = AttentionUnderCp(a, CpShapeOf(Config("all_gather", 8)), d);
  EXPECT_EQ(gather.ring_steps, 0);
  EXPECT_DOUBLE_EQ(gather.gather_bytes, 8 * chunk_kv_bytes);
  // all_gather holds the whole sequence's K/V; the ring only two chunks.
  EXPECT_GT(gather.working_bytes, 2 * p2p.working_bytes);
  const CpAttentionWork a2a = AttentionUnderCp(a, CpShapeOf(Config("a2a", 8)), d);
  EXPECT_EQ(a2a.ring_steps, 0);
  EXPECT_GT(a2a.a2a_in_bytes, chunk_kv_bytes);  // Q, K and V of the rank's tokens
  EXPECT_GT(a2a.a2a_out_bytes, 0);
}

// Each type on a CP group inside one NVLink domain vs the same group across
// domains: its traffic goes where the rank layout puts it.
TEST(ContextParallelTest, EachTypeIsSlowerAcrossDomains) {
  const SystemSpec inside = *Catalog::Get().FindSystem("h100-sxm");
  const SystemSpec across = OneRankPerDomain(inside);
  const AttentionShape a = LongCall();
  for (const std::string type : {"p2p", "all_gather", "a2a"}) {
    const double in = Sum(Comm(Config(type, 8), inside, 8, a).total);
    const double out = Sum(Comm(Config(type, 8), across, 8, a).total);
    EXPECT_GT(in, 0) << type;
    // NVLink 450 GB/s against 50 GB/s per GPU of network.
    EXPECT_GT(out, 5 * in) << type;
  }
}

TEST(ContextParallelTest, HierarchicalPutsTheA2aInsideAndTheRingAcross) {
  const SystemSpec h100 = *Catalog::Get().FindSystem("h100-sxm");
  const AttentionShape a = LongCall();
  // CP 16 over 2 nodes: the a2a group of 8 fills a node, the ring of 2 spans them.
  const ResolvedConfig c = Config("a2a+p2p", 16, {8, 2});
  const CpShape shape = CpShapeOf(c);
  MeshDims dims;
  dims.cp = 16;
  const CpLinks links = CpLinksOf(c, shape, LinksOfGroups(dims, 16, h100).cp.spread, 16, h100);
  EXPECT_EQ(LinkOfGroup(h100, links.a2a), Link::kNvlink);
  EXPECT_EQ(LinkOfGroup(h100, links.ring), Link::kNetwork);
  // [2, 8] puts the a2a pairs inside and a ring of 8 across the two nodes:
  // more network steps, slower than [8, 2].
  const double inner_wide = Sum(Comm(c, h100, 16, a).total);
  const double inner_narrow = Sum(Comm(Config("a2a+p2p", 16, {2, 8}), h100, 16, a).total);
  EXPECT_LT(inner_wide, inner_narrow);
  // With one rank per domain the a2a of [8, 2] leaves NVLink too.
  EXPECT_GT(Sum(Comm(c, OneRankPerDomain(h100), 16, a).total), 2 * inner_wide);
}

TEST(ContextParallelTest, RingHidesBehindAttentionOnNvlinkOnly) {
  const SystemSpec inside = *Catalog::Get().FindSystem("h100-sxm");
  const AttentionShape a = LongCall();
  const CpCommSeconds nvlink = Comm(Config("p2p", 8), inside, 8, a);
  EXPECT_LT(Sum(nvlink.exposed), 0.1 * Sum(nvlink.total));
  // GQA's 8 K/V groups are light next to 64 heads' 16K x 16K blocks: the ring
  // hides even across nodes. MLA sends K and V per head (64 x (192 + 128)
  // elements per token, 20x GQA's): across nodes the ring outlasts the step.
  EXPECT_DOUBLE_EQ(Sum(Comm(Config("p2p", 8), OneRankPerDomain(inside), 8, a).exposed), 0);
  AttentionShape mla = a;
  mla.qk_dim = 192;
  mla.kv_elements = 64.0 * (192 + 128);
  const CpCommSeconds mla_network = Comm(Config("p2p", 8), OneRankPerDomain(inside), 8, mla);
  EXPECT_GT(Sum(mla_network.exposed), 0.3 * Sum(mla_network.total));
  EXPECT_LT(Sum(Comm(Config("p2p", 8), inside, 8, mla).exposed), 0.1 * Sum(mla_network.total));
  // a2a and all_gather stand on the critical path: all of it shows.
  const CpCommSeconds a2a = Comm(Config("a2a", 8), inside, 8, a);
  EXPECT_DOUBLE_EQ(Sum(a2a.exposed), Sum(a2a.total));
}

}  // namespace
}  // namespace parplan
