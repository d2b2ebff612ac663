// Tests of the plan pictures (core/plot): the classes and data attributes a
// page or a test queries, the domain marks, XML escaping, the handling of
// empty and nonsense inputs, and that every SVG is well-formed XML.
#include "core/plot/plan_figure.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace parplan {
namespace {

constexpr int64_t kGiB = int64_t{1} << 30;

// Whether `svg` contains `needle` (the failure message shows only the
// needle: the SVGs are long).
::testing::AssertionResult Contains(const std::string& svg, absl::string_view needle) {
  if (svg.find(needle.data(), 0, needle.size()) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "missing \"" << needle << "\" in " << svg.size() << " bytes of SVG";
}

// Whether `svg` does not contain `needle`.
::testing::AssertionResult Lacks(const std::string& svg, absl::string_view needle) {
  const size_t at = svg.find(needle.data(), 0, needle.size());
  if (at == std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "unexpected \"" << needle << "\" at offset " << at << ": "
                                       << svg.substr(at > 80 ? at - 80 : 0, 200);
}

// Whether `svg` opens as the contract says.
::testing::AssertionResult StartsWithSvg(const std::string& svg) {
  if (svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 ", 0) == 0) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "starts with " << svg.substr(0, 120);
}

// Non-overlapping occurrences of `needle` in `haystack`.
int Count(absl::string_view haystack, absl::string_view needle) {
  int n = 0;
  for (size_t pos = haystack.find(needle); pos != absl::string_view::npos;
       pos = haystack.find(needle, pos + needle.size())) {
    ++n;
  }
  return n;
}

// Whether `text` (character data or an attribute value) has only the five
// predefined entities or numeric references after '&', and no '<'.
bool CleanText(absl::string_view text, std::string* error) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<') {
      *error = absl::StrCat("raw '<' in text at ", i);
      return false;
    }
    if (text[i] != '&') continue;
    const size_t semi = text.find(';', i);
    const absl::string_view ent = semi == absl::string_view::npos ? "" : text.substr(i + 1, semi - i - 1);
    const bool numeric = ent.size() > 1 && ent[0] == '#';
    if (!(ent == "amp" || ent == "lt" || ent == "gt" || ent == "quot" || ent == "apos" || numeric)) {
      *error = absl::StrCat("bad entity at ", i, ": ", text.substr(i, 12));
      return false;
    }
  }
  return true;
}

bool NameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == ':' || c == '.';
}

// A small XML well-formedness check: balanced and properly nested tags,
// quoted attributes without duplicates, valid entities, one root element.
bool WellFormed(absl::string_view xml, std::string* error) {
  std::vector<std::string> open;
  int roots = 0;
  size_t i = 0;
  auto fail = [&](const std::string& why) {
    *error = absl::StrCat(why, " at offset ", i, ": ", xml.substr(i, 40));
    return false;
  };
  while (i < xml.size()) {
    const size_t lt = xml.find('<', i);
    const absl::string_view text = xml.substr(i, lt == absl::string_view::npos ? absl::string_view::npos : lt - i);
    if (!CleanText(text, error)) return false;
    if (open.empty() && text.find_first_not_of(" \t\r\n") != absl::string_view::npos) return fail("text outside root");
    if (lt == absl::string_view::npos) break;
    i = lt + 1;
    if (xml.substr(i, 3) == "!--") {
      const size_t end = xml.find("-->", i);
      if (end == absl::string_view::npos) return fail("unclosed comment");
      i = end + 3;
      continue;
    }
    const bool closing = i < xml.size() && xml[i] == '/';
    if (closing) ++i;
    const size_t name_start = i;
    while (i < xml.size() && NameChar(xml[i])) ++i;
    const std::string name(xml.substr(name_start, i - name_start));
    if (name.empty()) return fail("missing tag name");
    if (closing) {
      if (i >= xml.size() || xml[i] != '>') return fail("bad end tag");
      if (open.empty() || open.back() != name) return fail(absl::StrCat("mismatched </", name, ">"));
      open.pop_back();
      ++i;
      continue;
    }
    std::vector<std::string> attrs;
    while (true) {
      while (i < xml.size() && std::isspace(static_cast<unsigned char>(xml[i]))) ++i;
      if (i >= xml.size()) return fail("unterminated tag");
      if (xml[i] == '>' || xml.substr(i, 2) == "/>") break;
      const size_t attr_start = i;
      while (i < xml.size() && NameChar(xml[i])) ++i;
      const std::string attr(xml.substr(attr_start, i - attr_start));
      if (attr.empty() || i + 1 >= xml.size() || xml[i] != '=' || (xml[i + 1] != '"' && xml[i + 1] != '\'')) {
        return fail("bad attribute");
      }
      for (const std::string& a : attrs) {
        if (a == attr) return fail(absl::StrCat("duplicate attribute ", attr));
      }
      attrs.push_back(attr);
      const char quote = xml[i + 1];
      const size_t end = xml.find(quote, i + 2);
      if (end == absl::string_view::npos) return fail("unterminated attribute value");
      if (!CleanText(xml.substr(i + 2, end - i - 2), error)) return false;
      i = end + 1;
    }
    if (open.empty() && ++roots > 1) return fail("second root element");
    if (xml[i] == '/') {
      i += 2;
    } else {
      open.push_back(name);
      ++i;
    }
  }
  if (!open.empty()) {
    *error = absl::StrCat("unclosed <", open.back(), ">");
    return false;
  }
  if (roots != 1) {
    *error = "no root element";
    return false;
  }
  return true;
}

// gtest assertion form of WellFormed.
::testing::AssertionResult IsWellFormed(const std::string& xml) {
  std::string error;
  if (WellFormed(xml, &error)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << error;
}

// Fills the crossing flags the way the doors do: a group crosses when its
// ranks sit in more than one NVLink domain (rank / domain).
void MarkCrossings(PlanFigure* f) {
  auto crosses = [&](int64_t FigureRank::*group, int64_t id) {
    int64_t first = -1;
    for (const FigureRank& r : f->ranks) {
      if (r.*group != id) continue;
      const int64_t domain = r.rank / f->nvlink_domain;
      if (first >= 0 && domain != first) return true;
      first = domain;
    }
    return false;
  };
  for (FigureRank& r : f->ranks) {
    r.tp_crosses_domain = r.tp_group >= 0 && crosses(&FigureRank::tp_group, r.tp_group);
    r.ep_crosses_domain = r.ep_group >= 0 && crosses(&FigureRank::ep_group, r.ep_group);
  }
}

// `world` ranks in Megatron's default order tp-cp-ep-dp-pp with CP = EP = 1:
// rank r is in TP group r / tp and pipeline stage r / (world / pp).
PlanFigure MegatronFigure(int64_t world, int gpus_per_node, int domain, int tp, int pp) {
  PlanFigure f;
  f.title = absl::StrCat("test model on ", world, " GPUs: TP=", tp, " PP=", pp);
  f.world_size = world;
  f.gpus_per_node = gpus_per_node;
  f.nvlink_domain = domain;
  f.pp = pp;
  for (int64_t r = 0; r < world; ++r) {
    FigureRank rank;
    rank.rank = r;
    rank.node = r / gpus_per_node;
    rank.local_gpu = static_cast<int>(r % gpus_per_node);
    rank.pp_stage = static_cast<int>(r / (world / pp));
    rank.tp_group = tp > 1 ? r / tp : -1;
    f.ranks.push_back(rank);
  }
  MarkCrossings(&f);
  for (int s = 0; s < pp; ++s) {
    FigureStage stage;
    stage.pp_rank = s;
    stage.weight_bytes = 8 * kGiB;
    stage.grad_bytes = 16 * kGiB;
    stage.optimizer_bytes = 12 * kGiB;
    stage.activation_bytes = (30 - 6 * s) * kGiB;
    stage.overhead_bytes = 4 * kGiB;
    stage.total_bytes =
        stage.weight_bytes + stage.grad_bytes + stage.optimizer_bytes + stage.activation_bytes + stage.overhead_bytes;
    f.stages.push_back(stage);
  }
  f.capacity_bytes = 80 * kGiB;
  f.peak_pp_rank = 0;
  f.step_parts = {{"compute", 50.4}, {"tp comm", 3.0}, {"cp comm", 0}, {"bubble", 1.25}, {"optimizer", 0.03}};
  f.step_time_s = 54.68;
  return f;
}

PlanFigure Llama64() { return MegatronFigure(64, 8, 8, 4, 4); }

TEST(PlanFigureTest, RankMapHasOneCellPerRankWithItsStage) {
  const std::string svg = RankMapSvg(Llama64());
  EXPECT_TRUE(StartsWithSvg(svg));
  EXPECT_EQ(Count(svg, "<rect class=\"rank-cell"), 64);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(Count(svg, absl::StrCat("data-stage=\"", s, "\"")), 16) << s;
  EXPECT_TRUE(Contains(svg, "data-rank=\"0\" data-stage=\"0\""));
  EXPECT_TRUE(Contains(svg, "data-rank=\"17\" data-stage=\"1\""));
  EXPECT_TRUE(Contains(svg, "data-rank=\"63\" data-stage=\"3\""));
  EXPECT_TRUE(Contains(svg, ">node 7</text>"));
  EXPECT_TRUE(Contains(svg, ">stage 3</text>"));
  EXPECT_TRUE(Contains(svg, "<path class=\"tp-outline\""));
  EXPECT_TRUE(Lacks(svg, "ep-outline"));       // EP = 1
  EXPECT_TRUE(Lacks(svg, "crosses-domain"));   // TP=4 stays in a node
  EXPECT_TRUE(Lacks(svg, "domain-boundary"));  // domain = node
  EXPECT_TRUE(IsWellFormed(svg));
}

TEST(PlanFigureTest, TpOutlineFollowsGroupEdges) {
  // 8 GPUs on one node, TP=4: two groups of 4 in one row. Their outline is
  // 2 x (4 top + 4 bottom + 1 left + 1 right) = 20 segments.
  PlanFigure f = MegatronFigure(8, 8, 8, 4, 1);
  const std::string svg = RankMapSvg(f);
  const size_t start = svg.find("class=\"tp-outline\" d=\"");
  ASSERT_NE(start, std::string::npos);
  const size_t end = svg.find('"', start + 22);
  EXPECT_EQ(Count(svg.substr(start, end - start), "M"), 20);
}

TEST(PlanFigureTest, TpGroupLeavingTheDomainMarksItsCells) {
  PlanFigure f = MegatronFigure(64, 8, 8, 16, 4);  // TP=16 spans two 8-GPU domains
  const std::string svg = RankMapSvg(f);
  EXPECT_EQ(Count(svg, "class=\"rank-cell crosses-domain\""), 64);
  EXPECT_TRUE(Contains(svg, "class=\"domain-mark\""));
  EXPECT_TRUE(Contains(svg, "leaves its NVLink domain"));
  EXPECT_TRUE(IsWellFormed(svg));

  // Only the crossing group's cells are marked.
  PlanFigure one = MegatronFigure(64, 8, 8, 4, 4);
  for (int r = 16; r < 32; ++r) one.ranks[r].tp_group = 100;
  MarkCrossings(&one);
  EXPECT_EQ(Count(RankMapSvg(one), "crosses-domain\""), 16);
}

TEST(PlanFigureTest, EpOutlineIsDashed) {
  PlanFigure f = Llama64();
  for (FigureRank& r : f.ranks) r.ep_group = r.rank / 8;
  const std::string svg = RankMapSvg(f);
  EXPECT_TRUE(Contains(svg, "<path class=\"ep-outline\""));
  EXPECT_TRUE(Contains(svg, "stroke-dasharray"));
  EXPECT_TRUE(IsWellFormed(svg));
}

TEST(PlanFigureTest, Nvl72DomainsSpanNodesAndLargeWorldsStaySmall) {
  PlanFigure f = MegatronFigure(4096, 4, 72, 16, 16);
  const std::string svg = RankMapSvg(f);
  EXPECT_EQ(Count(svg, "<rect class=\"rank-cell"), 4096);
  EXPECT_TRUE(Contains(svg, "class=\"domain-boundary\""));
  EXPECT_TRUE(Lacks(svg, "class=\"rank-numbers\""));  // cells too small for text
  EXPECT_TRUE(Contains(svg, "crosses-domain"));       // some TP=16 groups straddle the 72-GPU boundaries
  EXPECT_LT(svg.size(), 1500000u);
  EXPECT_TRUE(IsWellFormed(svg));
}

TEST(PlanFigureTest, TruncatedMapSaysSo) {
  PlanFigure f = Llama64();
  f.world_size = 4096;
  f.ranks_truncated = true;
  const std::string svg = RankMapSvg(f);
  EXPECT_TRUE(Contains(svg, "first 64 of 4096 ranks"));
  EXPECT_EQ(Count(svg, "<rect class=\"rank-cell"), 64);
}

TEST(PlanFigureTest, LegendListsOnlyTheStagesDrawn) {
  PlanFigure f = MegatronFigure(64, 8, 8, 4, 16);
  f.ranks.resize(8);  // the first node: stages 0 and 1 only
  f.world_size = 64;
  f.ranks_truncated = true;
  const std::string svg = RankMapSvg(f);
  EXPECT_TRUE(Contains(svg, ">stage 0</text>"));
  EXPECT_TRUE(Contains(svg, ">stage 1</text>"));
  EXPECT_TRUE(Lacks(svg, ">stage 2</text>"));
  EXPECT_TRUE(Lacks(svg, "stages 0"));
}

TEST(PlanFigureTest, GroupKindColoursCellsAndOutlinesRankZerosGroup) {
  PlanFigure f = Llama64();
  f.group_kind = "dp";
  f.group_size = 4;
  f.group_count = 16;
  for (FigureRank& r : f.ranks) r.group = r.rank % 16;  // DP stride 4 in tp-cp-dp-pp order, simplified
  const std::string svg = RankMapSvg(f);
  EXPECT_EQ(Count(svg, "data-group=\""), 64);
  EXPECT_TRUE(Contains(svg, "class=\"group-outline\""));
  EXPECT_TRUE(Lacks(svg, "tp-outline"));
  EXPECT_TRUE(Contains(svg, "colour = DP group (16 groups of 4 ranks; colours repeat)"));
  EXPECT_TRUE(IsWellFormed(svg));
}

// A summarised world: `units` units of `per_unit` GPUs over `pp` stages in
// rank order.
PlanFigure Summarised(int64_t units, int64_t per_unit, int pp, const char* name) {
  PlanFigure f = MegatronFigure(64, 8, 8, 8, 4);
  f.world_size = units * per_unit;
  f.pp = pp;
  f.unit_name = name;
  f.gpus_per_unit = per_unit;
  f.nodes_per_rack = 4;
  f.rack_note = "A rack is drawn as 4 nodes (the system names no rack size); NVLink domain 8 GPUs.";
  const int64_t per_stage = f.world_size / pp;
  for (int64_t i = 0; i < units; ++i) {
    FigureUnit u;
    u.first_rank = i * per_unit;
    u.ranks = per_unit;
    u.first_stage = static_cast<int>(u.first_rank / per_stage);
    u.last_stage = static_cast<int>((u.first_rank + per_unit - 1) / per_stage);
    f.units.push_back(u);
  }
  return f;
}

TEST(PlanFigureTest, SummarisedWorldDrawsOneCellPerNodeOrRack) {
  PlanFigure nodes = Summarised(128, 8, 4, "node");
  std::string svg = RankMapSvg(nodes);
  EXPECT_EQ(Count(svg, "<g class=\"unit-cell"), 128);
  EXPECT_TRUE(Lacks(svg, "rank-cell"));
  EXPECT_TRUE(Contains(svg, "1024 GPUs = 128 nodes of 8 GPUs"));
  EXPECT_TRUE(Contains(svg, ">stage 3</text>"));
  EXPECT_TRUE(Contains(svg, "Pick a group kind"));
  EXPECT_TRUE(IsWellFormed(svg));

  // 100,000 GPUs in racks of 32 over 5 stages: a unit straddling two stages
  // is split; rank 0's group outlined.
  PlanFigure racks = Summarised(3125, 32, 5, "rack");
  racks.group_kind = "dp";
  racks.group_size = 2500;
  racks.group_count = 40;
  for (int64_t i = 0; i < 3125; i += 5) racks.units[i].in_group = true;
  svg = RankMapSvg(racks);
  EXPECT_EQ(Count(svg, "<g class=\"unit-cell"), 3125);
  EXPECT_EQ(Count(svg, "<g class=\"unit-cell in-group\""), 625);
  EXPECT_TRUE(Contains(svg, "class=\"group-outline\""));
  EXPECT_TRUE(Contains(svg, ">stage 4</text>"));
  EXPECT_TRUE(Lacks(svg, ">stage 5"));
  EXPECT_TRUE(Contains(svg, "DP groups: 40 of 2500 ranks; rank 0&apos;s spans 625 racks."));
  EXPECT_LT(svg.size(), 1500000u);
  EXPECT_TRUE(IsWellFormed(svg));
}

TEST(PlanFigureTest, MemoryHasOneBarPerStageAndTheCapacityLine) {
  const std::string svg = MemorySvg(Llama64());
  EXPECT_TRUE(StartsWithSvg(svg));
  EXPECT_EQ(Count(svg, "<g class=\"stage-bar\""), 4);
  for (int s = 0; s < 4; ++s) EXPECT_TRUE(Contains(svg, absl::StrCat("<g class=\"stage-bar\" data-stage=\"", s, "\"")));
  for (const char* kind : {"weights", "gradients", "optimizer", "activations", "overhead"}) {
    EXPECT_EQ(Count(svg, absl::StrCat("class=\"segment segment-", kind, "\"")), 4) << kind;
  }
  EXPECT_EQ(Count(svg, "class=\"capacity-line\""), 1);
  EXPECT_TRUE(Contains(svg, ">HBM 80 GiB</text>"));
  EXPECT_TRUE(Contains(svg, ">70</text>"));  // stage 0 total: 8+16+12+30+4 GiB
  EXPECT_TRUE(Contains(svg, "class=\"peak-highlight\""));
  EXPECT_TRUE(Lacks(svg, "over-capacity"));
  EXPECT_TRUE(IsWellFormed(svg));
}

TEST(PlanFigureTest, MemoryMarksStagesOverCapacityAndOmitsUnknownCapacity) {
  PlanFigure f = Llama64();
  f.stages[0].activation_bytes = 50 * kGiB;
  f.stages[0].total_bytes = 90 * kGiB;
  EXPECT_EQ(Count(MemorySvg(f), "class=\"over-capacity\""), 1);
  f.capacity_bytes = 0;
  const std::string svg = MemorySvg(f);
  EXPECT_TRUE(Lacks(svg, "capacity-line"));
  EXPECT_TRUE(Lacks(svg, "over-capacity"));
  EXPECT_TRUE(IsWellFormed(svg));
}

TEST(PlanFigureTest, StepTimeOmitsZeroParts) {
  PlanFigure f = Llama64();
  f.step_parts.push_back({"dp comm", std::numeric_limits<double>::quiet_NaN()});
  f.step_parts.push_back({"pp comm", -2});
  const std::string svg = StepTimeSvg(f);
  EXPECT_EQ(Count(svg, "<rect class=\"time-part "), 4);
  EXPECT_TRUE(Contains(svg, "class=\"time-part time-part-compute\""));
  EXPECT_TRUE(Contains(svg, "class=\"time-part time-part-tp-comm\""));
  EXPECT_TRUE(Lacks(svg, "time-part-cp-comm"));
  EXPECT_TRUE(Lacks(svg, "time-part-dp-comm"));
  EXPECT_TRUE(Lacks(svg, "time-part-pp-comm"));
  EXPECT_TRUE(Contains(svg, "compute 50.4 s (92.2%)"));  // 50.4 / 54.68
  EXPECT_TRUE(Contains(svg, "Total step time 54.7 s"));
  EXPECT_TRUE(IsWellFormed(svg));
}

TEST(PlanFigureTest, TextIsEscaped) {
  PlanFigure f = Llama64();
  f.title = "a<b & \"c\" 'd'>";
  f.step_parts.push_back({"x<y>&z", 1});
  for (const std::string& svg : {RankMapSvg(f), MemorySvg(f), StepTimeSvg(f), PlanSvg(f)}) {
    EXPECT_TRUE(Contains(svg, "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;"));
    EXPECT_TRUE(Lacks(svg, "a<b"));
    EXPECT_TRUE(IsWellFormed(svg));
  }
  const std::string step = StepTimeSvg(f);
  EXPECT_TRUE(Contains(step, "x&lt;y&gt;&amp;z"));
  EXPECT_TRUE(Contains(step, "time-part-x-y--z"));
}

TEST(PlanFigureTest, PlanSvgHoldsAllThreeInOneDocument) {
  const std::string svg = PlanSvg(Llama64());
  EXPECT_TRUE(StartsWithSvg(svg));
  EXPECT_EQ(Count(svg, "<svg"), 1);
  EXPECT_TRUE(Contains(svg, "<title>test model on 64 GPUs: TP=4 PP=4</title>"));
  EXPECT_EQ(Count(svg, "<rect class=\"rank-cell"), 64);
  EXPECT_EQ(Count(svg, "<g class=\"stage-bar\""), 4);
  EXPECT_EQ(Count(svg, "class=\"capacity-line\""), 1);
  EXPECT_TRUE(Contains(svg, "time-part-compute"));
  EXPECT_TRUE(Lacks(svg, "<script"));
  EXPECT_TRUE(Lacks(svg, "href"));
  EXPECT_TRUE(IsWellFormed(svg));
}

TEST(PlanFigureTest, EmptyFigureSaysNoData) {
  const PlanFigure empty;
  for (const std::string& svg : {RankMapSvg(empty), MemorySvg(empty), StepTimeSvg(empty)}) {
    EXPECT_TRUE(StartsWithSvg(svg));
    EXPECT_TRUE(Contains(svg, "<title>"));
    EXPECT_TRUE(Contains(svg, "no data"));
    EXPECT_TRUE(IsWellFormed(svg));
  }
  const std::string plan = PlanSvg(empty);
  EXPECT_EQ(Count(plan, "no data"), 3);
  EXPECT_TRUE(IsWellFormed(plan));
}

TEST(PlanFigureTest, NonsenseNumbersDrawNothingStrange) {
  PlanFigure f = Llama64();
  f.gpus_per_node = 0;
  f.nvlink_domain = -3;
  f.pp = 0;
  f.ranks[5].local_gpu = -1;  // unplaceable: dropped
  f.ranks[6].pp_stage = -2;   // drawn as stage 0
  f.stages[1].weight_bytes = -5;
  f.stages[2].total_bytes = -1;
  f.capacity_bytes = -1;
  f.step_time_s = std::numeric_limits<double>::infinity();
  f.step_parts = {{"compute", std::numeric_limits<double>::infinity()}, {"bubble", 1}};
  for (const std::string& svg : {RankMapSvg(f), MemorySvg(f), StepTimeSvg(f), PlanSvg(f)}) {
    EXPECT_TRUE(Lacks(svg, "nan"));
    EXPECT_TRUE(Lacks(svg, "inf"));
    EXPECT_TRUE(Lacks(svg, "=\"-"));  // no negative coordinates or sizes
    EXPECT_TRUE(IsWellFormed(svg));
  }
  EXPECT_EQ(Count(RankMapSvg(f), "<rect class=\"rank-cell"), 63);
  EXPECT_TRUE(Contains(RankMapSvg(f), "data-rank=\"6\" data-stage=\"0\""));
}

TEST(PlanFigureTest, CheckerRejectsBrokenXml) {
  std::string error;
  EXPECT_TRUE(WellFormed("<svg a=\"1\"><g/><text>x &amp; y</text></svg>", &error)) << error;
  EXPECT_FALSE(WellFormed("<svg><g></svg>", &error));
  EXPECT_FALSE(WellFormed("<svg><text>a < b</text></svg>", &error));
  EXPECT_FALSE(WellFormed("<svg><text>a & b</text></svg>", &error));
  EXPECT_FALSE(WellFormed("<svg a=\"1\" a=\"2\"/>", &error));
  EXPECT_FALSE(WellFormed("<svg x=1/>", &error));
  EXPECT_FALSE(WellFormed("<svg/><svg/>", &error));
}

}  // namespace
}  // namespace parplan
