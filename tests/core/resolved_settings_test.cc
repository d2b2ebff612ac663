// The one resolution step: front end and Bridge release as inputs, the
// defaults that follow them (ETP, fp8_param_gather, the distributed
// optimizer, the dispatcher), each setting's source and effect class, the
// placement default on rack systems, and the checks keyed on them.
#include "core/config/resolved_settings.h"

#include <map>
#include <string>

#include "core/catalog/catalog.h"
#include "core/config/front_end.h"
#include "core/config/parallel_config.h"
#include "core/mesh/mesh.h"
#include "core/rules/validate.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

ResolvedConfig Resolve(const ParallelConfig& c, const ModelSpec* model = nullptr) {
  auto r = ResolveConfig(c, model, "config");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : ResolvedConfig{};
}

std::map<std::string, ResolvedSetting> ByField(const std::vector<ResolvedSetting>& settings) {
  std::map<std::string, ResolvedSetting> out;
  for (const auto& s : settings) out[s.field] = s;
  return out;
}

TEST(FrontEndTest, VersionsParseAndUnknownOnesNameTheField) {
  EXPECT_EQ(BridgeVersionName(*ParseBridgeVersion("v0.5.1", "config.bridge_version")), "0.5.1");
  EXPECT_EQ(BridgeVersionName(*ParseBridgeVersion("0.6", "config.bridge_version")), "0.6.0");
  EXPECT_EQ(BridgeVersionName(*ParseBridgeVersion("0.6.0rc2", "config.bridge_version")), "0.6.0");
  EXPECT_EQ(BridgeVersionName(*ParseBridgeVersion("", "config.bridge_version")), "0.6.0");
  for (const char* bad : {"latest", "0", "9.0.0", "0.1.0"}) {
    const auto v = ParseBridgeVersion(bad, "config.bridge_version");
    ASSERT_FALSE(v.ok()) << bad;
    EXPECT_NE(std::string(v.status().message()).find("config.bridge_version"), std::string::npos);
    EXPECT_NE(std::string(v.status().message()).find("0.2.0..0.6.0"), std::string::npos) << v.status();
  }
  EXPECT_EQ(*ParseFrontEnd("Megatron_LM", "f"), FrontEnd::kMegatronLm);
  EXPECT_FALSE(ParseFrontEnd("nemo", "config.front_end").ok());
  ParallelConfig c;
  c.bridge_version = "1.2.3";
  EXPECT_FALSE(ResolveConfig(c, nullptr, "config").ok());
}

// min-gpus --tp 2 --pp 4 --ep 32 with ETP unset: 128 under Bridge >= 0.6
// (ETP = 1), 256 under 0.5.1 and Megatron-LM (ETP = TP = 2).
TEST(FrontEndTest, EtpDefaultFollowsTheBridgeRelease) {
  ParallelConfig c;
  c.tp = 2;
  c.pp = 4;
  c.ep = 32;
  const ResolvedConfig now = Resolve(c);
  EXPECT_EQ(now.etp, 1);
  EXPECT_EQ(ComputeMinGpus(MeshOf(now)).min_gpus, 128);
  const auto now_settings = ByField(ListResolvedSettings(now, {}, nullptr, 0, 0, SettingsScope::kConfig));
  EXPECT_EQ(now_settings.at("etp").source, SettingSource::kBridgeDefault);
  EXPECT_NE(now_settings.at("etp").why.find("0.6.0"), std::string::npos);

  c.bridge_version = "0.5.1";
  const ResolvedConfig old = Resolve(c);
  EXPECT_EQ(old.etp, 2);
  EXPECT_EQ(ComputeMinGpus(MeshOf(old)).min_gpus, 256);
  const auto old_settings = ByField(ListResolvedSettings(old, {}, nullptr, 0, 0, SettingsScope::kConfig));
  EXPECT_EQ(old_settings.at("etp").source, SettingSource::kMegatronCoreDefault);
  EXPECT_EQ(old_settings.at("bridge_version").source, SettingSource::kUser);

  c.bridge_version = "";
  c.front_end = "megatron-lm";
  EXPECT_EQ(Resolve(c).etp, 2);
}

TEST(FrontEndTest, MegatronLmDefaultsDifferFromBridgesAndSaySo) {
  ParallelConfig c;
  c.tp = 2;
  c.ep = 8;
  c.precision = "fp8-cs";
  const ResolvedConfig bridge = Resolve(c);
  EXPECT_TRUE(bridge.distributed_optimizer);
  EXPECT_TRUE(bridge.fp8_param_gather);  // bf16_with_fp8_current_scaling_mixed sets it
  EXPECT_EQ(bridge.moe_token_dispatcher_type, "alltoall");
  EXPECT_TRUE(bridge.sp);
  c.front_end = "megatron-lm";
  const ResolvedConfig lm = Resolve(c);
  EXPECT_FALSE(lm.distributed_optimizer);
  EXPECT_FALSE(lm.fp8_param_gather);  // --fp8-param-gather not given
  EXPECT_EQ(lm.moe_token_dispatcher_type, "allgather");
  EXPECT_FALSE(lm.moe_permute_fusion);
  EXPECT_FALSE(lm.sp);
  const auto settings = ByField(ListResolvedSettings(lm, {}, nullptr, 0, 0, SettingsScope::kConfig));
  EXPECT_EQ(settings.at("use_distributed_optimizer").source, SettingSource::kMegatronLmDefault);
  EXPECT_EQ(settings.at("fp8_param_gather").source, SettingSource::kMegatronLmDefault);
}

// apply_rope_fusion: Bridge's DeepSeek/Kimi bridges clear it (the default
// under bridge), Megatron-LM's parser sets it unless --no-rope-fusion; the
// settings list shows it where it changes the estimate (MLA) or was given.
TEST(FrontEndTest, RopeFusionFollowsTheFrontEnd) {
  const auto dsv3 = Catalog::Get().FindModel("deepseek_v3");
  const auto llama = Catalog::Get().FindModel("llama3_8b");
  ASSERT_TRUE(dsv3.ok());
  ASSERT_TRUE(llama.ok());
  const ModelSpec* mla = &*dsv3;
  const ModelSpec* gqa = &*llama;
  ParallelConfig c;
  const ResolvedConfig bridge = Resolve(c, mla);
  EXPECT_FALSE(bridge.apply_rope_fusion);
  auto settings = ByField(ListResolvedSettings(bridge, {}, mla, 1, 1, SettingsScope::kConfig));
  ASSERT_TRUE(settings.count("apply_rope_fusion"));
  EXPECT_EQ(settings.at("apply_rope_fusion").source, SettingSource::kBridgeDefault);
  EXPECT_EQ(ByField(ListResolvedSettings(bridge, {}, gqa, 1, 1, SettingsScope::kConfig)).count("apply_rope_fusion"), 0);
  c.front_end = "megatron-lm";
  EXPECT_TRUE(Resolve(c, mla).apply_rope_fusion);
  c.apply_rope_fusion = false;
  const ResolvedConfig cleared = Resolve(c, mla);
  EXPECT_FALSE(cleared.apply_rope_fusion);
  settings = ByField(ListResolvedSettings(cleared, {}, gqa, 1, 1, SettingsScope::kConfig));
  ASSERT_TRUE(settings.count("apply_rope_fusion"));  // given: listed whatever the model
  EXPECT_EQ(settings.at("apply_rope_fusion").source, SettingSource::kUser);
}

TEST(FrontEndTest, Fp8ParamGatherFollowsBridgesPresets) {
  for (const auto& [precision, on] : std::map<std::string, bool>{
           {"fp8-ds", true}, {"fp8-cs", true}, {"fp8-mx", true}, {"fp8-sc", false}, {"bf16", false}}) {
    ParallelConfig c;
    c.precision = precision;
    const ResolvedConfig r = Resolve(c);
    EXPECT_EQ(r.fp8_param_gather, on) << precision;
    EXPECT_EQ(LowPrecisionParamGather(r), on) << precision;
  }
  ParallelConfig fp4;
  fp4.precision = "nvfp4";
  EXPECT_TRUE(LowPrecisionParamGather(Resolve(fp4)));  // fp4_param_gather
  ParallelConfig off;
  off.precision = "fp8-cs";
  off.fp8_param_gather = false;
  const ResolvedConfig r = Resolve(off);
  EXPECT_FALSE(LowPrecisionParamGather(r));
  EXPECT_EQ(GatheredWeightBytes(r), 2.0);  // BF16 weights held, cast per use
}

TEST(ResolvedSettingsTest, EffectClasses) {
  EXPECT_EQ(EffectOf("tp"), EffectClass::kExecution);
  EXPECT_EQ(EffectOf("recompute_granularity"), EffectClass::kExecution);
  EXPECT_EQ(EffectOf("moe_token_dispatcher_type"), EffectClass::kExecution);
  EXPECT_EQ(EffectOf("precision"), EffectClass::kNumerics);
  EXPECT_EQ(EffectOf("fp8_param_gather"), EffectClass::kNumerics);
  EXPECT_EQ(EffectOf("grad_reduce_in_fp32"), EffectClass::kNumerics);
  EXPECT_EQ(EffectOf("gbs"), EffectClass::kSemantics);
  EXPECT_EQ(EffectOf("seq_length"), EffectClass::kSemantics);
  EXPECT_EQ(EffectOf("mtp_num_layers"), EffectClass::kSemantics);
  EXPECT_EQ(EffectOf("moe_router_force_load_balancing"), EffectClass::kBenchmark);

  ParallelConfig c;
  c.ep = 8;
  c.moe_router_force_load_balancing = true;
  const ModelSpec model = *Catalog::Get().FindModel("qwen3_30b_a3b");
  const auto warnings =
      EffectWarnings(ListResolvedSettings(Resolve(c, &model), {}, &model, 0, 0, SettingsScope::kConfig));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("benchmark only"), std::string::npos) << warnings[0];
}

TEST(ResolvedSettingsTest, DenseModelsListNoExpertSettings) {
  const ModelSpec model = *Catalog::Get().FindModel("llama3_70b");
  ParallelConfig c;
  c.tp = 8;
  const auto settings = ByField(ListResolvedSettings(Resolve(c, &model), {}, &model, 8, 8, SettingsScope::kConfig));
  for (const char* field : {"etp", "edp", "ep", "moe_token_dispatcher_type", "moe_router_force_load_balancing"}) {
    EXPECT_EQ(settings.count(field), 0u) << field;
  }
  EXPECT_EQ(settings.at("dp").value, "8");
  EXPECT_EQ(settings.count("cp_comm_type"), 0u);  // CP = 1
}

TEST(ResolvedSettingsTest, FullRecomputeWithoutMethodIsListedAsChosen) {
  ParallelConfig c;
  c.recompute_granularity = "full";
  const ResolvedConfig r = Resolve(c);
  const auto settings = ByField(ListResolvedSettings(r, {}, nullptr, 0, 0, SettingsScope::kConfig));
  EXPECT_EQ(settings.at("recompute_method").value, "uniform");
  EXPECT_EQ(settings.at("recompute_method").source, SettingSource::kParplan);
  EXPECT_EQ(settings.at("recompute_num_layers").value, "1");
}

// On rack systems every method places a job as recommend does: the even
// split (64 of each 72-GPU rack for 256 GPUs), chosen by parplan and said so.
TEST(ResolvedSettingsTest, RackPlacementDefaultsToTheEvenSplit) {
  Placement p;
  p.system = "gb200-nvl72";
  p.gpus = 256;
  const auto placed = ResolvePlacement(p, "placement");
  ASSERT_TRUE(placed.ok()) << placed.status();
  EXPECT_EQ(placed->gpus_per_nvlink_domain, 64);
  EXPECT_EQ(placed->system->nvlink_domain_used, 64);
  const auto settings = ByField(ListResolvedSettings(Resolve({}), *placed, nullptr, 0, 0, SettingsScope::kConfig));
  EXPECT_EQ(settings.at("placement.gpus_per_nvlink_domain").value, "64");
  EXPECT_EQ(settings.at("placement.gpus_per_nvlink_domain").source, SettingSource::kParplan);

  p.gpus_per_nvlink_domain = 72;
  const auto filled = ResolvePlacement(p, "placement");
  ASSERT_TRUE(filled.ok());
  EXPECT_EQ(filled->gpus_per_nvlink_domain, 72);
  EXPECT_EQ(ByField(ListResolvedSettings(Resolve({}), *filled, nullptr, 0, 0, SettingsScope::kConfig))
                .at("placement.gpus_per_nvlink_domain")
                .source,
            SettingSource::kUser);
  // 144 = 2 x 72: already even; H100 nodes: nothing to choose.
  p.gpus_per_nvlink_domain = 0;
  p.gpus = 144;
  EXPECT_EQ(ResolvePlacement(p, "placement")->gpus_per_nvlink_domain, 72);
  p.system = "h100-sxm";
  p.gpus = 256;
  EXPECT_EQ(ResolvePlacement(p, "placement")->gpus_per_nvlink_domain, 8);
}

bool HasRule(const ValidationResult& v, const std::string& rule, Severity severity) {
  for (const auto& x : v.violations) {
    if (x.rule == rule && x.severity == severity) return true;
  }
  return false;
}

// NVIDIA's long-context layout for DeepSeek-V3 (FP8 current scaling,
// optimizer CPU offload): valid with fp8_param_gather off; with it on the
// check names fp8_param_gather, an error only where it lives (Megatron-LM).
TEST(FrontEndTest, OffloadWithFp8ParamGatherIsAMegatronLmCheck) {
  const ModelSpec model = *Catalog::Get().FindModel("deepseek_v3");
  ParallelConfig c;
  c.tp = 1;
  c.pp = 8;
  c.vpp = 4;
  c.cp = 32;
  c.ep = 32;
  c.seq_length = 131072;
  c.precision = "fp8-cs";
  c.optimizer_cpu_offload = true;
  c.optimizer_offload_fraction = 1.0;
  c.pipeline_layout = "Et|(t*2|)*30mL";
  c.fp8_param_gather = false;
  ValidationInput in;
  in.model = &model;
  Placement p;
  p.system = "h100-sxm";
  p.gpus = 1024;
  in.placement = *ResolvePlacement(p, "placement");
  in.config = Resolve(c, &model);
  const ValidationResult off = Validate(in);
  EXPECT_FALSE(HasRule(off, "optimizer.offload_fp8_param_gather", Severity::kError));
  EXPECT_FALSE(HasRule(off, "optimizer.offload_fp8_param_gather", Severity::kWarning));
  for (const auto& v : off.violations) {
    EXPECT_NE(v.severity, Severity::kError) << v.rule << ": " << v.message;
  }

  c.fp8_param_gather = true;
  in.config = Resolve(c, &model);
  const ValidationResult bridge = Validate(in);
  EXPECT_TRUE(HasRule(bridge, "optimizer.offload_fp8_param_gather", Severity::kWarning));
  for (const auto& v : bridge.violations) {
    if (v.rule != "optimizer.offload_fp8_param_gather") continue;
    EXPECT_NE(v.message.find("fp8_param_gather"), std::string::npos);
    EXPECT_NE(v.message.find("Megatron Bridge launch does not check it"), std::string::npos);
  }
  c.front_end = "megatron-lm";
  c.use_distributed_optimizer = true;
  in.config = Resolve(c, &model);
  EXPECT_TRUE(HasRule(Validate(in), "optimizer.offload_fp8_param_gather", Severity::kError));
}

TEST(FrontEndTest, OlderBridgeNeedsQueryGroupsDivisibleByTp) {
  const ModelSpec model = *Catalog::Get().FindModel("llama3_8b");  // 8 KV groups
  ParallelConfig c;
  c.tp = 16;
  c.bridge_version = "0.2.2";
  ValidationInput in;
  in.model = &model;
  in.config = Resolve(c, &model);
  EXPECT_TRUE(HasRule(Validate(in), "tp.query_groups_before_core_016", Severity::kError));
  c.bridge_version = "0.3.0";
  in.config = Resolve(c, &model);
  EXPECT_FALSE(HasRule(Validate(in), "tp.query_groups_before_core_016", Severity::kError));
}

}  // namespace
}  // namespace parplan
