// The CLI's import doors: `parplan import FILE`, `--from FILE` with flags on
// top on every method, `recommend --from` as the current plan, `compare --log`
// and `calibrate --runs ... --out` read back by `--calibration`; in-process
// answers equal --server answers.
//
// The script carries the values of Megatron-LM's
// examples/llama/train_llama3_8b_h100_fp8.sh (NVIDIA/Megatron-LM at
// d98e8a64), in its form, with BF16 and the vocabulary given; logs are made up
// in Megatron-LM's training_log format.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "skill/cli/cli_commands.h"
#include "tests/server/server_fixture.h"

namespace parplan {
namespace {

using Json = nlohmann::json;

constexpr char kScript[] = R"(GPUS_PER_NODE=8
NUM_NODES=1
MODEL_ARGS=(
    --num-layers 32 --hidden-size 4096 --ffn-hidden-size 14336
    --num-attention-heads 32 --group-query-attention --num-query-groups 8 --kv-channels 128
    --seq-length 8192 --max-position-embeddings 8192 --position-embedding-type rope
    --swiglu --normalization RMSNorm --untie-embeddings-and-output-weights --disable-bias-linear
    --vocab-size 128256
)
torchrun --nproc_per_node $GPUS_PER_NODE --nnodes $NUM_NODES pretrain_gpt.py ${MODEL_ARGS[@]} \
    --micro-batch-size 1 --global-batch-size 128 --bf16 --use-distributed-optimizer \
    --tensor-model-parallel-size 1 --pipeline-model-parallel-size 1
)";

std::string Log(double step_s) {
  std::string log;
  for (int i = 1; i <= 30; ++i) {
    const double s = i <= 2 ? 3 * step_s : step_s * (1 + 0.003 * (i % 3 - 1));
    absl::StrAppend(&log, absl::StrFormat(" iteration %8d/    1000 | consumed samples: %10d | elapsed time per "
                                          "iteration (ms): %.1f | learning rate: 1.0E-04 | global batch size:   128 | "
                                          "lm loss: 5.0E+00 | loss scale: 1.0 | number of skipped iterations:   0 | "
                                          "number of nan iterations:   0 |\n",
                                          i, 128 * i, 1e3 * s));
  }
  return log;
}

class CliFromTest : public ServerFixture {
 protected:
  void SetUp() override {
    ServerFixture::SetUp();
    dir_ = absl::StrCat(::testing::TempDir(), "/cli_from_", ::getpid());
    std::system(absl::StrCat("mkdir -p ", dir_).c_str());
    script_ = Write("llama3_8b.sh", kScript);
  }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = absl::StrCat(dir_, "/", name);
    std::ofstream(path) << text;
    return path;
  }

  int Run(std::vector<std::string> args, std::string* out, std::string* err) {
    auto flags = cli::ParseFlags(args);
    if (!flags.ok()) {
      *err = std::string(flags.status().message());
      return 2;
    }
    return cli::RunCommand(*flags, out, err);
  }

  // `args` answered in-process and by the server: the same JSON.
  Json Both(std::vector<std::string> args) {
    std::string local, remote, err;
    args.push_back("--json");
    EXPECT_EQ(Run(args, &local, &err), 0) << err;
    args.push_back("--server");
    args.push_back(address_);
    EXPECT_EQ(Run(args, &remote, &err), 0) << err;
    EXPECT_EQ(local, remote);
    return Json::parse(local.empty() ? "{}" : local);
  }

  std::string dir_, script_;
};

TEST_F(CliFromTest, ImportPrintsThePlanAndEveryArgument) {
  const Json answer = Both({"import", script_, "--system", "h100-sxm"});
  EXPECT_EQ(answer.at("format"), "megatron-lm-script");
  EXPECT_EQ(answer.at("placement").at("gpus"), "8");
  EXPECT_TRUE(answer.at("valid").get<bool>());
  std::string out, err;
  ASSERT_EQ(Run({"import", script_}, &out, &err), 0) << err;
  EXPECT_NE(out.find("--num-layers = 32"), std::string::npos) << out;
  EXPECT_NE(out.find("model.num_layers"), std::string::npos) << out;
}

TEST_F(CliFromTest, FromTakesFlagsOnTop) {
  const Json as_is = Both({"perf", "--from", script_, "--system", "h100-sxm"});
  const Json tp2 = Both({"perf", "--from", script_, "--system", "h100-sxm", "--tp", "2"});
  EXPECT_EQ(as_is.at("resolved_config").at("tp"), 1);
  EXPECT_EQ(tp2.at("resolved_config").at("tp"), 2);
  EXPECT_EQ(tp2.at("resolved_config").at("gbs"), "128") << "the script's batch stays under the flag";
  const Json validated = Both({"validate", "--from", script_});
  EXPECT_TRUE(validated.at("valid").get<bool>());
}

TEST_F(CliFromTest, RecommendFromKeepsTheCurrentPlan) {
  const Json answer = Both({"recommend", "--from", script_, "--system", "h100-sxm", "--top", "3"});
  ASSERT_TRUE(answer.contains("current")) << answer.dump();
  EXPECT_FALSE(answer.at("current_comparison").get<std::string>().empty());
}

TEST_F(CliFromTest, CompareAndCalibrateRoundTrip) {
  const Json perf = Both({"perf", "--from", script_, "--system", "h100-sxm"});
  const double predicted = perf.at("step_time_s").get<double>();
  const std::string log = Write("run.log", Log(1.2 * predicted));
  const Json compared = Both({"compare", "--log", log, "--from", script_, "--system", "h100-sxm"});
  EXPECT_NEAR(compared.at("measured_step_s").get<double>(), 1.2 * predicted, 0.01 * predicted);
  EXPECT_DOUBLE_EQ(compared.at("predicted_step_s").get<double>(), predicted);

  const std::string out_file = absl::StrCat(dir_, "/calibration.json");
  std::string out, err;
  ASSERT_EQ(Run({"calibrate", "--runs", absl::StrCat(log, ":", script_), "--system", "h100-sxm", "--out", out_file},
                &out, &err),
            0)
      << err;
  EXPECT_NE(out.find("wrote"), std::string::npos) << out;
  const Json calibrated = Both({"perf", "--from", script_, "--system", "h100-sxm", "--calibration", out_file});
  EXPECT_NEAR(calibrated.at("step_time_s").get<double>(), 1.2 * predicted, 0.03 * predicted);
  EXPECT_NE(calibrated.at("calibration").get<std::string>().find("Calibrated"), std::string::npos);
  // A method a calibration does not change says so.
  ASSERT_EQ(Run({"memory", "--from", script_, "--system", "h100-sxm", "--calibration", out_file}, &out, &err), 0)
      << err;
  EXPECT_NE(out.find("calibration: not used by `memory`"), std::string::npos) << out;
}

TEST_F(CliFromTest, BadSourcesNameTheFlag) {
  std::string out, err;
  EXPECT_EQ(Run({"perf", "--from", "/nonexistent/run.sh", "--system", "h100-sxm"}, &out, &err), 2);
  EXPECT_NE(err.find("--from"), std::string::npos) << err;
  EXPECT_EQ(Run({"import", Write("prose.txt", "my run was slow yesterday")}, &out, &err), 2);
  EXPECT_NE(err.find("not a format parplan reads"), std::string::npos) << err;
  EXPECT_EQ(Run({"compare", "--from", script_}, &out, &err), 2);
  EXPECT_NE(err.find("--log"), std::string::npos) << err;
}

}  // namespace
}  // namespace parplan
