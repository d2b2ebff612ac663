// RenderConfig never writes a config that Validate rejects: over every
// catalog model and a grid of configs (parallel degrees, SP, sequence
// lengths, the pipeline-split switches, offloading and recompute), a rendered
// config is a valid one and an invalid one is not rendered.
#include "core/catalog/catalog.h"
#include "gtest/gtest.h"
#include "server/api/planner_api.h"

namespace parplan {
namespace {

namespace v1 = ::parplan::v1;

struct GridPoint {
  int tp, pp, vpp, cp, ep;
  bool sp;
  int seq;
  bool accounting;
  int cpu_offload;
  const char* recompute;
};

std::vector<GridPoint> Grid() {
  std::vector<GridPoint> out;
  for (int tp : {1, 2, 4, 8}) {
    for (int pp : {1, 2, 4}) {
      for (int vpp : {1, 2}) {
        for (int cp : {1, 2}) {
          for (int ep : {1, 8}) {
            for (bool sp : {true, false}) {
              for (int seq : {4096, 4095}) {
                // The knobs that interact with PP and recompute, on a subset.
                const bool accounting = (tp + pp + cp) % 3 == 0;
                const int offload = (tp + vpp + ep) % 4 == 0 ? 2 : 0;
                const char* recompute = (tp * pp) % 3 == 0 ? "full" : "";
                out.push_back({tp, pp, vpp, cp, ep, sp, seq, accounting, offload, recompute});
              }
            }
          }
        }
      }
    }
  }
  return out;
}

template <typename Request>
void Fill(const std::string& model, const GridPoint& g, Request* req) {
  req->mutable_model()->set_id(model);
  req->mutable_placement()->set_system("h100-sxm");
  req->mutable_placement()->set_gpus(128);
  auto* c = req->mutable_config();
  c->set_tp(g.tp);
  c->set_pp(g.pp);
  c->set_vpp(g.vpp);
  c->set_cp(g.cp);
  c->set_ep(g.ep);
  c->set_sp(g.sp);
  c->set_seq_length(g.seq);
  c->set_account_for_embedding_in_pipeline_split(g.accounting);
  c->set_account_for_loss_in_pipeline_split(g.accounting);
  c->set_cpu_offloading_num_layers(g.cpu_offload);
  c->set_recompute_granularity(g.recompute);
}

TEST(RenderApiTest, NeverRendersAConfigValidateRejects) {
  int rendered = 0, refused = 0;
  for (const auto& m : Catalog::Get().models()) {
    for (const GridPoint& g : Grid()) {
      v1::ValidateRequest vreq;
      Fill(m.id, g, &vreq);
      v1::ValidateResponse v;
      ASSERT_TRUE(api::Validate(vreq, &v).ok()) << m.id;
      v1::RenderConfigRequest rreq;
      Fill(m.id, g, &rreq);
      v1::RenderConfigResponse r;
      ASSERT_TRUE(api::RenderConfig(rreq, &r).ok()) << m.id;
      EXPECT_EQ(r.valid(), v.valid()) << m.id;
      if (v.valid()) {
        ++rendered;
        EXPECT_FALSE(r.bridge_python().empty()) << m.id;
      } else {
        ++refused;
        EXPECT_TRUE(r.bridge_python().empty() && r.bridge_cli().empty() && r.megatron_lm_args().empty())
            << m.id << " rendered a config Megatron refuses: " << v.violations(0).rule();
        EXPECT_GE(r.violations_size(), 1);
      }
    }
  }
  // The grid reaches both sides.
  EXPECT_GT(rendered, 1000);
  EXPECT_GT(refused, 1000);
}

}  // namespace
}  // namespace parplan
