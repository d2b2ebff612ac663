// The CLI: in-process answers equal --server answers; exit codes; JSON names.
#include <array>
#include <fstream>

#include "skill/cli/cli_commands.h"
#include "server/api/utf8.h"
#include "tests/server/server_fixture.h"

namespace parplan {
namespace {

class CliTest : public ServerFixture {
 protected:
  int Run(std::vector<std::string> args, std::string* out, std::string* err) {
    auto flags = cli::ParseFlags(args);
    if (!flags.ok()) {
      *err = std::string(flags.status().message());
      return 2;
    }
    return cli::RunCommand(*flags, out, err);
  }
};

TEST_F(CliTest, MinGpusTableSameInProcessAndServer) {
  const std::vector<std::vector<std::string>> rows = {
      {"--pp", "1", "--tp", "2", "--cp", "1", "--ep", "8", "--etp", "1"},
      {"--pp", "1", "--tp", "4", "--cp", "1", "--ep", "8", "--etp", "1"},
      {"--pp", "1", "--tp", "2", "--cp", "2", "--ep", "8", "--etp", "1"},
      {"--pp", "1", "--tp", "2", "--cp", "4", "--ep", "8", "--etp", "1"},
      {"--pp", "2", "--tp", "2", "--cp", "1", "--ep", "8", "--etp", "1"},
      {"--pp", "1", "--tp", "2", "--cp", "1", "--ep", "4", "--etp", "2"},
      {"--pp", "4", "--tp", "1", "--cp", "1", "--ep", "32", "--etp", "1"}};
  const std::vector<std::string> expected = {"8", "8", "8", "8", "16", "8", "128"};
  for (size_t i = 0; i < rows.size(); ++i) {
    std::vector<std::string> args = {"min-gpus", "--json"};
    args.insert(args.end(), rows[i].begin(), rows[i].end());
    std::string local, remote, err;
    ASSERT_EQ(Run(args, &local, &err), 0) << err;
    args.push_back("--server");
    args.push_back(address_);
    ASSERT_EQ(Run(args, &remote, &err), 0) << err;
    EXPECT_EQ(local, remote);
    EXPECT_NE(local.find("\"min_gpus\": \"" + expected[i] + "\""), std::string::npos) << local;
    EXPECT_NE(local.find("\"naive_product\""), std::string::npos);
  }
}

TEST_F(CliTest, ValidateJsonNamesAndExitCodes) {
  std::string out, err;
  EXPECT_EQ(Run({"validate", "--json", "--model", "llama3_70b", "--tp", "3", "--gpus", "24"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("\"valid\": false"), std::string::npos);
  EXPECT_NE(out.find("\"rule\": \"tp.heads_divisible\""), std::string::npos);
  EXPECT_NE(out.find("\"severity\": \"error\""), std::string::npos);
  // Bad input: exit 2 with the field named.
  EXPECT_EQ(Run({"validate", "--model", "llama3_70b", "--tp", "0"}, &out, &err), 2);
  EXPECT_NE(err.find("--tp"), std::string::npos) << err;
  EXPECT_EQ(Run({"validate", "--model", "llama-9000"}, &out, &err), 2);
  EXPECT_NE(err.find("NOT_FOUND"), std::string::npos) << err;
  EXPECT_EQ(Run({"validate", "--bogus", "1"}, &out, &err), 2);
  EXPECT_EQ(Run({"frobnicate"}, &out, &err), 2);
  // Same bad input through the server: same exit code and field.
  EXPECT_EQ(Run({"validate", "--model", "llama3_70b", "--pp-layout", std::string(70000, 't'), "--server", address_},
                &out, &err),
            2);
  EXPECT_NE(err.find("config.pipeline_layout"), std::string::npos) << err;
}

TEST_F(CliTest, SizePhraseAndTables) {
  std::string out, err;
  ASSERT_EQ(Run({"model", "--model", "70B dense"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("APPROXIMATE"), std::string::npos);
  ASSERT_EQ(Run({"validate", "--model", "deepseek_v3", "--tp", "2", "--pp", "16", "--ep", "64", "--etp", "1", "--gpus",
                 "256", "--system", "dgx-h100"},
                &out, &err),
            0);
  EXPECT_NE(out.find("INVALID"), std::string::npos);
  EXPECT_NE(out.find("mesh.world_expert_divisible"), std::string::npos);
  ASSERT_EQ(Run({"layout", "--gpus", "16", "--tp", "2", "--ep", "8", "--etp", "1", "--system", "h100-sxm"}, &out, &err),
            0);
  EXPECT_NE(out.find("GROUP"), std::string::npos);
  ASSERT_EQ(Run({"render", "--model", "llama3_70b", "--tp", "8", "--pp", "4", "--gpus", "64", "--system", "h100-sxm"},
                &out, &err),
            0);
  EXPECT_NE(out.find("cfg.model.tensor_model_parallel_size = 8"), std::string::npos);
}

TEST_F(CliTest, MemoryCommand) {
  std::string local, remote, err;
  const std::vector<std::string> args = {"memory",
                                         "--json",
                                         "--model",
                                         "qwen3_30b_a3b",
                                         "--system",
                                         "h100-sxm",
                                         "--gpus",
                                         "16",
                                         "--ep",
                                         "16",
                                         "--etp",
                                         "1",
                                         "--gbs",
                                         "1024",
                                         "--seq",
                                         "4096",
                                         "--recompute",
                                         "selective",
                                         "--recompute-modules",
                                         "moe_act",
                                         "--grad-dtype",
                                         "bf16"};
  ASSERT_EQ(Run(args, &local, &err), 0) << err;
  auto with_server = args;
  with_server.push_back("--server");
  with_server.push_back(address_);
  ASSERT_EQ(Run(with_server, &remote, &err), 0) << err;
  EXPECT_EQ(local, remote);
  for (const char* key : {"\"peak_bytes\"", "\"capacity_bytes\"", "\"fits\"", "\"headroom_bytes\"",
                          "\"optimizer_expert_bytes\"", "\"in_flight_microbatches\""}) {
    EXPECT_NE(local.find(key), std::string::npos) << key;
  }
  std::string table;
  ASSERT_EQ(
      Run({"memory", "--model", "llama31_405b", "--system", "h100-sxm", "--gpus", "64", "--tp", "8"}, &table, &err), 0);
  EXPECT_NE(table.find("DOES NOT FIT"), std::string::npos) << table;
  EXPECT_EQ(Run({"memory", "--tp", "8"}, &table, &err), 2);  // a model is required
  EXPECT_EQ(Run({"memory", "--model", "llama3_8b", "--recompute", "sometimes"}, &table, &err), 2);
  EXPECT_NE(err.find("recompute_granularity"), std::string::npos) << err;
  // The memory reserve: a fit inside it is printed as tight; out of range names the flag.
  const std::vector<std::string> roomy = {"memory", "--model", "llama3_70b", "--system", "h100-sxm",
                                          "--gpus", "64",      "--tp",       "8",        "--pp",
                                          "4",      "--seq",   "8192",       "--gbs",    "256"};
  ASSERT_EQ(Run(roomy, &table, &err), 0) << err;
  EXPECT_NE(table.find("; FITS ("), std::string::npos) << table;
  auto reserved = roomy;
  reserved.insert(reserved.end(), {"--memory-reserve", "0.5"});
  ASSERT_EQ(Run(reserved, &table, &err), 0) << err;
  EXPECT_NE(table.find("FITS, TIGHT"), std::string::npos) << table;
  reserved.back() = "half";
  EXPECT_EQ(Run(reserved, &table, &err), 2);
  EXPECT_NE(err.find("--memory-reserve"), std::string::npos) << err;
}

TEST_F(CliTest, PerfCommand) {
  std::string local, remote, err;
  const std::vector<std::string> args = {"perf",   "--json", "--model", "llama3_70b", "--system",    "h100-sxm",
                                         "--gpus", "64",     "--tp",    "4",          "--pp",        "4",
                                         "--vpp",  "5",      "--seq",   "8192",       "--precision", "fp8_cs"};
  ASSERT_EQ(Run(args, &local, &err), 0) << err;
  auto with_server = args;
  with_server.push_back("--server");
  with_server.push_back(address_);
  ASSERT_EQ(Run(with_server, &remote, &err), 0) << err;
  EXPECT_EQ(local, remote);
  for (const char* key : {"\"step_time_s\"", "\"tokens_per_s_per_gpu\"", "\"mfu\"", "\"breakdown\"", "\"bubble_s\"",
                          "\"model_tflops_per_gpu\""}) {
    EXPECT_NE(local.find(key), std::string::npos) << key;
  }
  std::string table;
  ASSERT_EQ(Run({"perf", "--model", "llama3_8b", "--system", "b200", "--gpus", "8"}, &table, &err), 0) << err;
  EXPECT_NE(table.find("tokens/s/GPU"), std::string::npos) << table;
  EXPECT_EQ(Run({"perf", "--model", "llama3_8b", "--gpus", "8"}, &table, &err), 2);  // a system is required
  EXPECT_NE(err.find("placement.system"), std::string::npos) << err;
}

TEST_F(CliTest, RecommendCommand) {
  std::string local, remote, err;
  const std::vector<std::string> args = {"recommend", "--json", "--model", "qwen3_30b_a3b", "--system",    "b200",
                                         "--gpus",    "8",      "--seq",   "4096",          "--precision", "fp8-mx",
                                         "--top",     "3"};
  ASSERT_EQ(Run(args, &local, &err), 0) << err;
  auto with_server = args;
  with_server.push_back("--server");
  with_server.push_back(address_);
  ASSERT_EQ(Run(with_server, &remote, &err), 0) << err;
  EXPECT_EQ(local, remote);
  for (const char* key : {"\"plans\"", "\"starting_point\"", "\"rejected\"", "\"bridge_overrides\"",
                          "\"tokens_per_s_per_gpu\"", "\"feasible\": true"}) {
    EXPECT_NE(local.find(key), std::string::npos) << key;
  }
  std::string table;
  ASSERT_EQ(
      Run({"recommend", "--model", "llama3_8b", "--system", "h100-sxm", "--min-gpus", "--seq", "8192"}, &table, &err),
      0)
      << err;
  EXPECT_NE(table.find("Fewest GPUs: "), std::string::npos) << table;
  EXPECT_NE(table.find("#1 "), std::string::npos) << table;
  EXPECT_EQ(Run({"recommend", "--model", "llama3_8b", "--gpus", "8"}, &table, &err), 2);  // a system is required
  EXPECT_NE(err.find("placement.system"), std::string::npos) << err;
  EXPECT_EQ(Run({"recommend", "--model", "llama3_8b", "--system", "b200", "--gpus-range", "64-8"}, &table, &err), 2);
  EXPECT_NE(err.find("--gpus-range"), std::string::npos) << err;
}

TEST_F(CliTest, AnswersQuotingBrokenUtf8AreValidUtf8AndEqualTheServers) {
  // The layout error quotes one byte of the two-byte 'é': the answer must be
  // valid UTF-8 in every door (the byte becomes '?'), as the service's is.
  const std::vector<std::string> args = {"validate", "--json", "--model",     "llama3_70b",
                                         "--pp",     "2",      "--pp-layout", "Et*40|\xc3\xa9*40L"};
  std::string local, remote, err;
  ASSERT_EQ(Run(args, &local, &err), 0) << err;
  EXPECT_TRUE(IsValidUtf8(local)) << local;
  EXPECT_NE(local.find("layout.syntax"), std::string::npos) << local;
  std::vector<std::string> via_server = args;
  via_server.push_back("--server");
  via_server.push_back(address_);
  ASSERT_EQ(Run(via_server, &remote, &err), 0) << err;
  EXPECT_EQ(local, remote);
}

// --gpus-per-domain: 64 of each GB200 NVL72 rack keeps EP=64 inside racks;
// a value that is not whole trays is refused naming the field, in-process
// and through the server alike.
TEST_F(CliTest, GpusPerDomainFlag) {
  const std::vector<std::string> base = {
      "validate", "--json", "--model", "qwen3_30b_a3b", "--system", "gb200-nvl72", "--gpus",
      "256",      "--tp",   "1",       "--ep",          "64",       "--etp",       "1"};
  std::string out, err;
  // Not given: the even split, 64 of 72 (as --gpus-per-domain 64 below).
  ASSERT_EQ(Run(base, &out, &err), 0) << err;
  EXPECT_EQ(out.find("topology.ep_crosses_nvlink"), std::string::npos) << out;
  std::vector<std::string> filled = base;
  filled.insert(filled.end(), {"--gpus-per-domain", "72"});
  ASSERT_EQ(Run(filled, &out, &err), 0) << err;
  EXPECT_NE(out.find("topology.ep_crosses_nvlink"), std::string::npos) << out;
  std::vector<std::string> racks = base;
  racks.insert(racks.end(), {"--gpus-per-domain", "64"});
  std::string local, remote;
  ASSERT_EQ(Run(racks, &local, &err), 0) << err;
  EXPECT_EQ(local.find("topology.ep_crosses_nvlink"), std::string::npos) << local;
  EXPECT_NE(local.find("64 of each 72-GPU domain's GPUs used"), std::string::npos) << local;
  racks.insert(racks.end(), {"--server", address_});
  ASSERT_EQ(Run(racks, &remote, &err), 0) << err;
  EXPECT_EQ(local, remote);
  std::vector<std::string> bad = base;
  bad.insert(bad.end(), {"--gpus-per-domain", "66"});
  EXPECT_EQ(Run(bad, &out, &err), 2);
  EXPECT_NE(err.find("placement.gpus_per_nvlink_domain"), std::string::npos) << err;
  EXPECT_NE(err.find("use 64 or 68"), std::string::npos) << err;
  bad = base;
  bad.insert(bad.end(), {"--gpus-per-domain", "0"});
  EXPECT_EQ(Run(bad, &out, &err), 2);
  EXPECT_NE(err.find("--gpus-per-domain"), std::string::npos) << err;
  std::string perf;
  std::vector<std::string> perf_args = {
      "perf", "--model", "qwen3_30b_a3b", "--system", "gb200-nvl72",       "--gpus", "256", "--tp", "1",
      "--ep", "64",      "--etp",         "1",        "--gpus-per-domain", "64"};
  ASSERT_EQ(Run(perf_args, &perf, &err), 0) << err;
  EXPECT_NE(perf.find("EP (64): all 4 groups inside one domain"), std::string::npos) << perf;
}

// NVIDIA's Nemotron 3 Ultra GB200 recipe (Bridge perf_recipes/nemotronh/
// gb200/nemotronh.py:224): fused_group_mlp offloaded with the op fuser is
// valid, and the flags reach render in Bridge's and Megatron-LM's spellings;
// without the op fuser it is the error; a bad cap names the flag.
TEST_F(CliTest, OpFuserAndInflightOffloadFlags) {
  const std::vector<std::string> recipe = {"--json",
                                           "--model",
                                           "nemotron_3_ultra",
                                           "--system",
                                           "gb200-nvl72",
                                           "--gpus",
                                           "256",
                                           "--tp",
                                           "2",
                                           "--sp",
                                           "--ep",
                                           "64",
                                           "--etp",
                                           "1",
                                           "--mbs",
                                           "1",
                                           "--gbs",
                                           "256",
                                           "--seq",
                                           "8192",
                                           "--precision",
                                           "fp8-mx",
                                           "--fsdp",
                                           "--moe-token-dispatcher-type",
                                           "flex",
                                           "--moe-flex-dispatcher-backend",
                                           "hybridep",
                                           "--recompute",
                                           "selective",
                                           "--recompute-modules",
                                           "moe_act",
                                           "--offload-modules",
                                           "fused_group_mlp"};
  const std::vector<std::string> fuser = {"--use-transformer-engine-op-fuser",
                                          "--fine-grained-offloading-max-inflight-offloads", "1"};
  std::vector<std::string> args = {"validate"};
  args.insert(args.end(), recipe.begin(), recipe.end());
  args.insert(args.end(), fuser.begin(), fuser.end());
  std::string local, remote, err;
  ASSERT_EQ(Run(args, &local, &err), 0) << err;
  EXPECT_NE(local.find("\"valid\": true"), std::string::npos) << local;
  args.insert(args.end(), {"--server", address_});
  ASSERT_EQ(Run(args, &remote, &err), 0) << err;
  EXPECT_EQ(local, remote);
  std::vector<std::string> render = {"render"};
  render.insert(render.end(), recipe.begin(), recipe.end());
  render.insert(render.end(), fuser.begin(), fuser.end());
  std::string out;
  ASSERT_EQ(Run(render, &out, &err), 0) << err;
  EXPECT_NE(out.find("cfg.model.use_transformer_engine_op_fuser = True"), std::string::npos) << out;
  EXPECT_NE(out.find("cfg.model.fine_grained_offloading_max_inflight_offloads = 1"), std::string::npos) << out;
  EXPECT_NE(out.find("--use-transformer-engine-op-fuser"), std::string::npos) << out;
  EXPECT_NE(out.find("--fine-grained-offloading-max-inflight-offloads 1"), std::string::npos) << out;
  // Without the op fuser, or with =false: the error names the field and the fix.
  for (const char* off : {"", "--use-transformer-engine-op-fuser=false"}) {
    std::vector<std::string> unfused = {"validate"};
    unfused.insert(unfused.end(), recipe.begin(), recipe.end());
    if (*off != '\0') unfused.push_back(off);
    ASSERT_EQ(Run(unfused, &out, &err), 0) << err;
    EXPECT_NE(out.find("\"valid\": false"), std::string::npos) << out;
    EXPECT_NE(out.find("offload.fused_group_mlp_needs_op_fuser"), std::string::npos) << out;
    EXPECT_NE(out.find("use_transformer_engine_op_fuser=true"), std::string::npos) << out;
  }
  std::vector<std::string> bad = {"validate", "--model", "nemotron_3_ultra",
                                  "--fine-grained-offloading-max-inflight-offloads", "-1"};
  EXPECT_EQ(Run(bad, &out, &err), 2);
  EXPECT_NE(err.find("--fine-grained-offloading-max-inflight-offloads"), std::string::npos) << err;
  EXPECT_NE(err.find("0..1024"), std::string::npos) << err;
  bad = {"validate", "--model", "nemotron_3_ultra", "--use-transformer-engine-op-fuser=maybe"};
  EXPECT_EQ(Run(bad, &out, &err), 2);
  EXPECT_NE(err.find("--use-transformer-engine-op-fuser"), std::string::npos) << err;
}

// Long context (issue 24): GPT-OSS with CP = 2 is an error under Megatron's
// default p2p and valid with --cp-comm-type a2a, in process and through the
// server alike; a2a+p2p with --hierarchical-context-parallel-sizes 2,2 and the
// optimizer offload flags reach render in both spellings; bad values name the flag.
TEST_F(CliTest, CpCommTypeHierarchicalSizesAndOptimizerOffloadFlags) {
  const std::vector<std::string> oss = {"validate", "--json", "--model", "gpt_oss_120b", "--system",
                                        "h100-sxm", "--gpus", "16",      "--cp",         "2"};
  std::string out, remote, err;
  ASSERT_EQ(Run(oss, &out, &err), 0) << err;
  EXPECT_NE(out.find("\"valid\": false"), std::string::npos) << out;
  EXPECT_NE(out.find("cp.sliding_window_comm_type"), std::string::npos) << out;
  std::vector<std::string> a2a = oss;
  a2a.insert(a2a.end(), {"--cp-comm-type", "a2a"});
  ASSERT_EQ(Run(a2a, &out, &err), 0) << err;
  EXPECT_NE(out.find("\"valid\": true"), std::string::npos) << out;
  a2a.insert(a2a.end(), {"--server", address_});
  ASSERT_EQ(Run(a2a, &remote, &err), 0) << err;
  EXPECT_EQ(out, remote);
  const std::vector<std::string> hcp = {"render",
                                        "--model",
                                        "llama3_70b",
                                        "--tp",
                                        "4",
                                        "--cp",
                                        "4",
                                        "--cp-comm-type",
                                        "a2a+p2p",
                                        "--hierarchical-context-parallel-sizes",
                                        "2,2",
                                        "--optimizer-cpu-offload",
                                        "--optimizer-offload-fraction",
                                        "0.5"};
  ASSERT_EQ(Run(hcp, &out, &err), 0) << err;
  EXPECT_NE(out.find("cfg.model.cp_comm_type = \"a2a+p2p\""), std::string::npos) << out;
  EXPECT_NE(out.find("cfg.model.hierarchical_context_parallel_sizes = [2, 2]"), std::string::npos) << out;
  EXPECT_NE(out.find("cfg.optimizer.optimizer_cpu_offload = True"), std::string::npos) << out;
  EXPECT_NE(out.find("cfg.optimizer.optimizer_offload_fraction = 0.5"), std::string::npos) << out;
  EXPECT_NE(out.find("--hierarchical-context-parallel-sizes 2 2"), std::string::npos) << out;
  EXPECT_NE(out.find("--optimizer-offload-fraction 0.5"), std::string::npos) << out;
  std::vector<std::string> validate = hcp;
  validate[0] = "validate";
  validate.push_back("--json");
  ASSERT_EQ(Run(validate, &out, &err), 0) << err;
  EXPECT_NE(out.find("\"valid\": true"), std::string::npos) << out;
  // Sizes whose product is not CP: the error names the rule.
  validate[10] = "2,4";
  ASSERT_EQ(Run(validate, &out, &err), 0) << err;
  EXPECT_NE(out.find("cp.hierarchical_product"), std::string::npos) << out;
  for (const auto& [flag, value, text] :
       std::vector<std::array<std::string, 3>>{{"--hierarchical-context-parallel-sizes", "2,x", "'x' is not a size"},
                                               {"--hierarchical-context-parallel-sizes", "0", "1..4096"},
                                               {"--optimizer-offload-fraction", "1.5", "allowed 0..1"},
                                               {"--optimizer-offload-fraction", "half", "not a number"},
                                               {"--optimizer-cpu-offload=maybe", "", "not a boolean"},
                                               {"--cp-comm-type", "ring", "ring"}}) {
    std::vector<std::string> bad = {"validate", "--model", "llama3_8b", flag};
    if (!value.empty()) bad.push_back(value);
    EXPECT_EQ(Run(bad, &out, &err), 2) << flag << " " << value;
    // Flag errors name the flag; the type is checked with the config's
    // bounds, which name the field.
    const std::string named = flag == "--cp-comm-type" ? "cp_comm_type" : flag.substr(0, flag.find('='));
    EXPECT_NE(err.find(named), std::string::npos) << err;
    EXPECT_NE(err.find(text), std::string::npos) << err;
  }
}

TEST_F(CliTest, ServerUnreachableIsExitOne) {
  std::string out, err;
  EXPECT_EQ(Run({"models", "--server", "127.0.0.1:1", "--timeout-ms", "500"}, &out, &err), 1);
}

// NVIDIA's recipes as written (pipeline-split accounting), through every
// command that takes a config, in-process and through the server.
TEST_F(CliTest, AccountedRecipesAnswerEveryCommand) {
  const std::vector<std::vector<std::string>> recipes = {
      {"--model", "llama31_405b", "--system", "b200", "--gpus", "128", "--tp", "4", "--pp", "16", "--vpp", "8", "--sp",
       "--mbs", "1", "--gbs", "768", "--seq", "8192"},
      {"--model",  "qwen3_235b_a22b",
       "--system", "b200",
       "--gpus",   "64",
       "--tp",     "1",
       "--pp",     "8",
       "--vpp",    "4",
       "--ep",     "8",
       "--etp",    "1",
       "--mbs",    "1",
       "--gbs",    "2048",
       "--seq",    "4096"}};
  for (const auto& recipe : recipes) {
    for (const char* command : {"validate", "memory", "perf", "render"}) {
      std::vector<std::string> args = {command};
      args.insert(args.end(), recipe.begin(), recipe.end());
      args.push_back("--account-for-embedding-in-pipeline-split");
      args.push_back("--account-for-loss-in-pipeline-split");
      std::string local, remote, err;
      ASSERT_EQ(Run(args, &local, &err), 0) << command << ": " << err;
      EXPECT_EQ(local.find("INVALID"), std::string::npos) << command << "\n" << local;
      EXPECT_EQ(local.find("[error"), std::string::npos) << command << "\n" << local;
      if (std::string(command) == "render") {
        EXPECT_NE(local.find("cfg.model.account_for_embedding_in_pipeline_split = True"), std::string::npos);
        EXPECT_NE(local.find("--account-for-loss-in-pipeline-split"), std::string::npos);
      }
      if (std::string(command) == "perf") {
        EXPECT_NE(local.find("tokens/s/GPU"), std::string::npos) << local;
      }
      args.push_back("--server");
      args.push_back(address_);
      ASSERT_EQ(Run(args, &remote, &err), 0) << command << ": " << err;
      EXPECT_EQ(local, remote) << command;
    }
  }
}

TEST_F(CliTest, PerfNamesFsdpCommunication) {
  std::string out, err;
  ASSERT_EQ(Run({"perf", "--model", "llama3_70b", "--system", "gb200-nvl72", "--gpus", "64", "--tp", "1", "--fsdp",
                 "--mbs", "2", "--gbs", "256", "--seq", "8192", "--precision", "fp8-cs"},
                &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("FSDP comm (exposed)"), std::string::npos) << out;
  EXPECT_NE(out.find("Megatron FSDP: per microbatch"), std::string::npos) << out;
  ASSERT_EQ(Run({"perf", "--model", "llama3_70b", "--system", "gb200-nvl72", "--gpus", "64", "--tp", "8"}, &out, &err),
            0);
  EXPECT_EQ(out.find("FSDP comm"), std::string::npos);
}

// Every catalog model is complete and gets a performance estimate and a
// search answer (a plan, or the reason none fits).
TEST_F(CliTest, EveryCatalogModelIsEstimatedAndSearched) {
  std::string out, err;
  ASSERT_EQ(Run({"models"}, &out, &err), 0);
  EXPECT_EQ(out.find("incomplete"), std::string::npos) << out;
  ASSERT_EQ(Run({"models", "--json"}, &out, &err), 0);
  std::vector<std::string> ids;
  for (size_t at = out.find("\"id\": \""); at != std::string::npos; at = out.find("\"id\": \"", at + 1)) {
    const size_t start = at + 7;
    ids.push_back(out.substr(start, out.find('"', start) - start));
  }
  ASSERT_GE(ids.size(), 32u);
  for (const auto& id : ids) {
    EXPECT_EQ(Run({"perf", "--model", id, "--system", "gb200-nvl72", "--seq", "4096"}, &out, &err), 0)
        << id << ": " << err;
    EXPECT_EQ(Run({"recommend", "--model", id, "--system", "gb200-nvl72", "--gpus", "64", "--seq", "4096",
                   "--max-candidates", "400", "--top", "1"},
                  &out, &err),
              0)
        << id << ": " << err;
  }
}

TEST_F(CliTest, SystemShowsEachFiguresSourceAndTakesOverrides) {
  std::string out, err;
  ASSERT_EQ(Run({"systems"}, &out, &err), 0);
  for (const char* id : {"h800-sxm", "a100-40gb", "rtx-pro-6000", "gb200-nvl36", "b200-800g", "h200-nvl"}) {
    EXPECT_NE(out.find(id), std::string::npos) << id;
  }
  ASSERT_EQ(Run({"system", "--system", "h800-sxm"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("sources:"), std::string::npos) << out;
  EXPECT_NE(out.find("nvlink_gbps_unidirectional: "), std::string::npos) << out;
  EXPECT_NE(out.find("NVLink domain 8 GPUs at 200 GB/s per direction (400 both)"), std::string::npos) << out;
  ASSERT_EQ(Run({"system", "--system", "h100-sxm", "--nics-per-node", "4", "--nic-gbps", "200"}, &out, &err), 0) << err;
  EXPECT_NE(out.find("scale-out 100 Gb/s per GPU"), std::string::npos) << out;
  EXPECT_NE(out.find("scaleout_gbps: given in the request"), std::string::npos) << out;
  // Bad figures and unknown fields name what is wrong.
  EXPECT_EQ(Run({"system", "--system", "h100-sxm", "--nvlink-gbps", "-3"}, &out, &err), 2);
  EXPECT_NE(err.find("system_spec.nvlink_gbps"), std::string::npos) << err;
  EXPECT_EQ(Run({"system", "--system", "h100-sxm", "--hbm-gib", "lots"}, &out, &err), 2);
  EXPECT_NE(err.find("--hbm-gib"), std::string::npos) << err;
  const std::string path = ::testing::TempDir() + "/bad_system.json";
  {
    std::ofstream f(path);
    f << R"({"gpu_arch": "hopper", "hbm_gigs": 80})";
  }
  EXPECT_EQ(Run({"system", "--system-file", path}, &out, &err), 2);
  EXPECT_NE(err.find("hbm_gigs"), std::string::npos) << err;
  // GetSystem's printed name is accepted (the same figure as hbm_gib).
  {
    std::ofstream f(path);
    f << R"({"gpu_arch": "hopper", "hbm_gb": 96})";
  }
  EXPECT_EQ(Run({"system", "--system-file", path}, &out, &err), 0) << err;
  EXPECT_NE(out.find("96"), std::string::npos) << out;
}

TEST_F(CliTest, PlotWritesTheSvgThePageShows) {
  const std::string path = ::testing::TempDir() + "/cli_plot.svg";
  std::string out, err;
  ASSERT_EQ(Run({"plot", "--model", "llama3_70b", "--system", "h100-sxm", "--gpus", "64", "--tp", "4", "--pp", "4",
                 "--out", path},
                &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("wrote " + path), std::string::npos) << out;
  EXPECT_NE(out.find("TP=4 PP=4"), std::string::npos) << out;
  std::ifstream in(path);
  const std::string svg((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t cells = 0, bars = 0;
  for (size_t at = svg.find("class=\"rank-cell"); at != std::string::npos; at = svg.find("class=\"rank-cell", at + 1))
    ++cells;
  for (size_t at = svg.find("class=\"stage-bar"); at != std::string::npos; at = svg.find("class=\"stage-bar", at + 1))
    ++bars;
  EXPECT_EQ(cells, 64u);
  EXPECT_EQ(bars, 4u);
  // One picture to stdout.
  ASSERT_EQ(
      Run({"plot", "--model", "llama3_70b", "--system", "h100-sxm", "--gpus", "64", "--tp", "4", "--figure", "memory"},
          &out, &err),
      0);
  EXPECT_EQ(out.rfind("<svg", 0), 0u);
  EXPECT_EQ(out.find("rank-cell"), std::string::npos);
  // Bad input names the flag.
  EXPECT_EQ(Run({"plot", "--model", "llama3_70b", "--gpus", "64", "--tp", "4"}, &out, &err), 2);
  EXPECT_NE(err.find("placement.system"), std::string::npos) << err;
  EXPECT_EQ(Run({"plot", "--model", "llama3_70b", "--system", "h100-sxm", "--figure", "pie"}, &out, &err), 2);
  EXPECT_NE(err.find("--figure"), std::string::npos) << err;
  EXPECT_EQ(
      Run({"plot", "--model", "llama3_70b", "--system", "h100-sxm", "--out", "/nonexistent-dir/x.svg"}, &out, &err), 1);
  EXPECT_NE(err.find("--out"), std::string::npos) << err;
  // The rank map's groups.
  ASSERT_EQ(Run({"plot", "--model", "llama3_70b", "--system", "h100-sxm", "--gpus", "64", "--tp", "4", "--pp", "4",
                 "--figure", "ranks", "--groups", "dp"},
                &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("colour = DP group"), std::string::npos);
  EXPECT_NE(out.find("class=\"group-outline\""), std::string::npos);
  EXPECT_EQ(Run({"plot", "--model", "llama3_70b", "--system", "h100-sxm", "--groups", "xp"}, &out, &err), 2);
  EXPECT_NE(err.find("--groups"), std::string::npos) << err;
}

}  // namespace
}  // namespace parplan
