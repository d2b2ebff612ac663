// The bash reader behind the Megatron-LM launch import: the constructs
// Megatron-LM's example launch scripts use (examples/*/train*.sh at
// Megatron-LM d98e8a64), and its bounds.
#include "core/import/shell_script.h"

#include "core/import/imported_config.h"
#include "core/import/megatron_import.h"

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

ShellScript Read(const std::string& text) {
  auto r = ReadShellScript(text, "text");
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : ShellScript();
}

std::vector<std::string> Words(const ShellCommand& c) {
  std::vector<std::string> out;
  for (const auto& w : c.words) out.push_back(w.text);
  return out;
}

bool AnyNote(const ShellScript& s, const std::string& text) {
  for (const auto& n : s.notes) {
    if (n.find(text) != std::string::npos) return true;
  }
  return false;
}

TEST(ShellScriptTest, AssignmentsDefaultsAndContinuations) {
  ShellScript s = Read(
      "#!/bin/bash\n"
      "# a comment\n"
      "export A=1   # trailing comment\n"
      "B=${B:-8}\n"
      "C=${A}x$B\n"
      "D=$((A * B + 2))\n"
      "run --a $A \\\n"
      "    --b \"$C\" --d $D\n");
  EXPECT_EQ(s.variables["A"], "1");
  EXPECT_EQ(s.variables["B"], "8");
  EXPECT_EQ(s.variables["C"], "1x8");
  EXPECT_EQ(s.variables["D"], "10");
  ASSERT_EQ(s.commands.size(), 1u);
  EXPECT_THAT(Words(s.commands[0]), ::testing::ElementsAre("run", "--a", "1", "--b", "1x8", "--d", "10"));
  EXPECT_EQ(s.commands[0].words[3].line, 8);  // after the continuation
  EXPECT_THAT(s.commands[0].words[2].note, ::testing::HasSubstr("from $A"));
}

TEST(ShellScriptTest, ArraysAppendAndQuotedElementsSplitWhenUnquoted) {
  ShellScript s = Read(
      "ARGS=(\n"
      "  --x 1   # comment inside\n"
      "  --y\n"
      ")\n"
      "MORE=()\n"
      "MORE+=(\"--fp8-format hybrid\" \"--z 2\")\n"
      "ARGS+=(\"${MORE[@]}\")\n"
      "python train.py ${ARGS[@]} \"${MORE[@]}\"\n");
  ASSERT_EQ(s.arrays["ARGS"].size(), 5u);
  EXPECT_EQ(s.arrays["ARGS"][0].line, 2);
  ASSERT_EQ(s.commands.size(), 1u);
  EXPECT_THAT(Words(s.commands[0]), ::testing::ElementsAre("python", "train.py", "--x", "1", "--y", "--fp8-format",
                                                           "hybrid", "--z", "2", "--fp8-format hybrid", "--z 2"));
}

TEST(ShellScriptTest, IfTakesTheBranchTheVariablesDecide) {
  ShellScript s = Read(
      "DTYPE=\"fp8\"\n"
      "TOK=${3:-\"MOCK\"}\n"
      "if [[ \"$DTYPE\" == \"fp8\" ]]; then\n"
      "  P=on\n"
      "elif [ \"$DTYPE\" = bf16 ]; then\n"
      "  P=bf\n"
      "else\n"
      "  P=off\n"
      "fi\n"
      "if [[ \"$TOK\" == \"X\" ]] || [[ -z \"$TOK\" ]]; then Q=1; else Q=2; fi\n"
      "if [ ! -f \"$ENTRY\" ]; then\n"
      "  echo missing\n"
      "  exit 1\n"
      "fi\n"
      "if [ \"${N:-0}\" -gt 4 ]; then R=big; fi\n");
  EXPECT_EQ(s.variables["P"], "on");
  EXPECT_EQ(s.variables["Q"], "2");
  EXPECT_EQ(s.variables.count("R"), 0u);
  // The file test is not decided: neither branch is read, and it is said.
  EXPECT_TRUE(AnyNote(s, "line 11"));
  for (const auto& c : s.commands) EXPECT_NE(c.words[0].text, "exit");
}

TEST(ShellScriptTest, CaseLoopsFunctionsAndHeredocs) {
  ShellScript s = Read(
      "SCALE=\"8B\"\n"
      "case \"${SCALE}\" in\n"
      "  \"800M\") H=1024 ;;\n"
      "  \"8B\"|\"8b\") H=4096 ;;\n"
      "  *) H=0 ;;\n"
      "esac\n"
      "while [[ $# -gt 0 ]]; do\n"
      "  case $1 in --x) X=\"$2\"; shift 2 ;; esac\n"
      "done\n"
      "f() { Y=1; }\n"
      "cat <<EOF\n"
      "python pretrain_gpt.py --num-layers 2\n"
      "EOF\n"
      "after --ok\n");
  EXPECT_EQ(s.variables["H"], "4096");
  EXPECT_EQ(s.variables.count("X"), 0u);
  EXPECT_EQ(s.variables.count("Y"), 0u);
  EXPECT_TRUE(AnyNote(s, "loop is not run"));
  EXPECT_TRUE(AnyNote(s, "function f"));
  EXPECT_TRUE(AnyNote(s, "heredoc"));
  ASSERT_EQ(s.commands.size(), 2u);
  EXPECT_EQ(s.commands[0].words[0].text, "cat");
  EXPECT_THAT(Words(s.commands[1]), ::testing::ElementsAre("after", "--ok"));
  EXPECT_EQ(s.commands[1].line, 14);
}

TEST(ShellScriptTest, UnexpandableValuesAreKeptAndSaid) {
  ShellScript s = Read(
      "CK=$1\n"
      "D=\"$(dirname \"$CK\")\"\n"
      "run --save $CK --dir $D --tp $TP --pp ${PP:-4} `hostname`\n");
  ASSERT_EQ(s.commands.size(), 1u);
  const auto& w = s.commands[0].words;
  ASSERT_EQ(w.size(), 10u);
  EXPECT_EQ(w[2].text, "$1");
  EXPECT_FALSE(w[2].expanded);
  EXPECT_THAT(w[2].note, ::testing::HasSubstr("positional"));
  EXPECT_FALSE(w[4].expanded);
  EXPECT_THAT(w[4].note, ::testing::HasSubstr("command substitution"));
  EXPECT_EQ(w[6].text, "$TP");
  EXPECT_FALSE(w[6].expanded);
  EXPECT_EQ(w[8].text, "4");
  EXPECT_TRUE(w[8].expanded);
  EXPECT_FALSE(w[9].expanded);
}

TEST(ShellScriptTest, MultiLineStringSplitsWordByWord) {
  ShellScript s = Read(
      "TP=2\n"
      "options=\" \\\n"
      "  --tp ${TP} \\\n"
      "  --save ${OUT} \\\n"
      "  --bf16\"\n"
      "torchrun pretrain_hybrid.py ${options}\n");
  ASSERT_EQ(s.commands.size(), 1u);
  const auto& w = s.commands[0].words;
  ASSERT_EQ(w.size(), 7u);
  EXPECT_EQ(w[3].text, "2");
  EXPECT_TRUE(w[3].expanded);  // only the word holding ${OUT} is unknown
  EXPECT_FALSE(w[5].expanded);
  EXPECT_TRUE(w[6].expanded);
  // Each word keeps the line it is written on.
  EXPECT_EQ(w[2].line, 3);  // --tp
  EXPECT_EQ(w[4].line, 4);  // --save
  EXPECT_EQ(w[6].line, 5);  // --bf16
}

TEST(ShellScriptTest, RedirectionsAndPipes) {
  ShellScript s = Read("python pretrain_gpt.py --a 1 2>&1 | tee log.txt > /dev/null\n");
  ASSERT_EQ(s.commands.size(), 2u);
  EXPECT_THAT(Words(s.commands[0]), ::testing::ElementsAre("python", "pretrain_gpt.py", "--a", "1"));
  EXPECT_THAT(Words(s.commands[1]), ::testing::ElementsAre("tee", "log.txt"));
}

TEST(ShellScriptTest, BoundsAndErrors) {
  auto quote = ReadShellScript("X=\"unterminated\n", "text");
  ASSERT_FALSE(quote.ok());
  EXPECT_THAT(quote.status().message(), ::testing::HasSubstr("unterminated double quote"));
  auto array = ReadShellScript("A=( --x 1\n", "text");
  ASSERT_FALSE(array.ok());
  EXPECT_THAT(array.status().message(), ::testing::HasSubstr("array"));
  auto iff = ReadShellScript("if [ 1 ]; then X=1\n", "text");
  ASSERT_FALSE(iff.ok());
  EXPECT_THAT(iff.status().message(), ::testing::HasSubstr("fi"));
  std::string many(kMaxScriptLines + 5, '\n');
  EXPECT_FALSE(ReadShellScript(many, "text").ok());
  std::string huge(kMaxImportBytes + 1, 'x');
  EXPECT_FALSE(ReadShellScript(huge, "text").ok());
  // Nested defaults past the depth bound fail instead of recursing on.
  std::string nested = "X=";
  for (int i = 0; i < kMaxExpansionDepth + 4; ++i) nested += "${U:-";
  nested += "1";
  for (int i = 0; i < kMaxExpansionDepth + 4; ++i) nested += "}";
  auto deep = ReadShellScript(nested + "\n", "text");
  ASSERT_FALSE(deep.ok());
  EXPECT_THAT(deep.status().message(), ::testing::HasSubstr("deeper"));
  // A self-referencing array append stays bounded.
  std::string grow = "A=(x x x x x x x x x x)\n";
  for (int i = 0; i < 20; ++i) grow += "A+=(\"${A[@]}\")\n";
  auto grown = ReadShellScript(grow, "text");
  EXPECT_FALSE(grown.ok());
}

TEST(ShellScriptTest, SplitCommandString) {
  auto cmds = SplitCommandString("cd /x; export P=1;\n python /m/pretrain_gpt.py --a 'b c' --d 2", 7);
  ASSERT_EQ(cmds.size(), 3u);
  EXPECT_THAT(Words(cmds[2]), ::testing::ElementsAre("python", "/m/pretrain_gpt.py", "--a", "b c", "--d", "2"));
  EXPECT_EQ(cmds[2].line, 7);
}

// Every prefix of every fixture, and random bytes, read to an answer or an
// error: nothing crashes or hangs.
TEST(ShellScriptTest, TruncatedAndRandomInputsEndInAnAnswerOrAnError) {
  for (const char* name :
       {"gpt3_175b.sh", "llama3_8b_h100_fp8.sh", "mixtral_8x7b.sh", "mamba_hybrid_800m.sh", "gptoss_20b_proxy.sh",
        "llama3_8b_fsdp_h100_fp8.sh", "deepseek_v3_fsdp.sh", "detoxify_gpt_1p3b_finetune.sh"}) {
    std::ifstream f(std::string(PARPLAN_TEST_DATA_DIR) + "/import/megatron/" + name);
    std::stringstream buf;
    buf << f.rdbuf();
    const std::string text = buf.str();
    ASSERT_FALSE(text.empty()) << name;
    for (size_t cut = 0; cut < text.size(); cut += 53) {
      auto r = ImportMegatronLm(text.substr(0, cut), ImportFormat::kMegatronLmScript, ImportOptions{});
      if (!r.ok()) {
        EXPECT_FALSE(r.status().message().empty());
      }
    }
  }
  std::mt19937 rng(7);
  const std::string alphabet = "$'\"\\(){}[]|&;<>#=+-*/ \n\tabcXYZ019@!`~";
  for (int i = 0; i < 300; ++i) {
    std::string text;
    const int n = static_cast<int>(rng() % 200);
    for (int k = 0; k < n; ++k) text.push_back(alphabet[rng() % alphabet.size()]);
    auto r = ReadShellScript(text, "text");
    if (!r.ok()) {
      EXPECT_FALSE(r.status().message().empty());
    }
  }
}

}  // namespace
}  // namespace parplan
