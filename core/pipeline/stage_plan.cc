#include "core/pipeline/stage_plan.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/diagnostics/rule_catalog.h"
#include "core/pipeline/layout_parser.h"
#include "core/pipeline/split_options.h"

namespace parplan {
namespace {

class Planner {
 public:
  Planner(const ModelSpec& m, const ResolvedConfig& c, std::vector<Violation>* out) : m_(m), c_(c), out_(out) {}

  std::optional<StagePlan> Run() {
    const bool layout = !c_.pipeline_layout.empty();
    const bool pattern_pipes = MainHybridPattern(m_.hybrid_layer_pattern).find('|') != std::string::npos;
    if (c_.vpp > 1 && c_.pp == 1 && !layout) {
      Report("vpp.requires_pp", {"vpp", "pp"}, absl::StrCat("VPP=", c_.vpp, " needs pipeline parallelism but PP=1"),
             "set PP > 1 or drop VPP");
      return std::nullopt;
    }
    if (c_.vpp > 1 && c_.pp == 2 && !layout) {
      Report("vpp.pp2_needs_p2p_overlap", {"vpp", "pp"},
             "interleaved schedule with PP=2 needs overlap_p2p_comm (Megatron-LM refuses PP<=2 with "
             "VPP otherwise)",
             "keep overlap_p2p_comm on (Megatron Bridge's comm-overlap default) or use PP >= 3");
    }
    if (Accounting() && !CheckAccountingConflicts(layout)) return std::nullopt;
    if (layout) return FromLayout();
    if (pattern_pipes) return FromHybridPipes();
    if (c_.first_stage_layers > 0 || c_.last_stage_layers > 0) return FromUneven();
    if (Accounting()) return FromAccounted();
    return FromEven();
  }

 private:
  // Reports `rule` at the severity the rule catalog gives it
  // (core/diagnostics/rule_catalog.cc; every id used here is listed there,
  // tests/core/validate_test.cc checks it).
  void Report(std::string rule, std::vector<std::string> fields, std::string message, std::string fix) {
    const RuleInfo* info = FindRule(rule);
    const Severity s = info != nullptr ? info->severity : Severity::kError;
    out_->push_back({std::move(rule), s, std::move(fields), std::move(message), std::move(fix)});
    if (s == Severity::kError) failed_ = true;
  }
  StagePlan Empty(StagePlan::Source source, int64_t vpp) const {
    StagePlan p;
    p.source = source;
    p.pp = c_.pp;
    p.vpp = vpp;
    p.decoder_layers.assign(c_.pp, std::vector<int64_t>(vpp, 0));
    p.has_embedding.assign(c_.pp, false);
    p.has_loss.assign(c_.pp, false);
    p.mtp_layers.assign(c_.pp, 0);
    p.has_embedding[0] = true;
    p.has_loss[c_.pp - 1] = true;
    p.mtp_layers[c_.pp - 1] = c_.mtp_num_layers;
    return p;
  }

  bool Accounting() const { return c_.account_for_embedding || c_.account_for_loss; }

  // The combinations Megatron refuses with account_for_*_in_pipeline_split:
  // uneven first/last stage counts and a layout (transformer_config.py
  // __post_init__), a hybrid layer pattern (megatron/training/arguments.py,
  // "should not be used with --hybrid-layer-pattern"). False when any applies.
  bool CheckAccountingConflicts(bool layout) {
    const std::vector<std::string> flags = AccountingFields();
    auto with = [&flags](std::vector<std::string> more) {
      more.insert(more.end(), flags.begin(), flags.end());
      return more;
    };
    if (c_.first_stage_layers > 0 || c_.last_stage_layers > 0) {
      Report("pp.accounting_conflicts_uneven",
             with({"num_layers_in_first_pipeline_stage", "num_layers_in_last_pipeline_stage"}),
             "num_layers_in_first/last_pipeline_stage cannot be set together with "
             "account_for_embedding/loss_in_pipeline_split",
             "use either the first/last stage counts or the accounting switches");
    }
    if (layout) {
      Report("layout.conflicts_accounting", with({"pipeline_layout"}),
             "pipeline_model_parallel_layout cannot be set with account_for_embedding/loss_in_pipeline_split",
             "drop the accounting switches (a layout places E and L itself) or drop the layout");
    }
    if (m_.is_hybrid()) {
      Report("hybrid.accounting_unsupported", with({"model.hybrid_layer_pattern"}),
             "account_for_embedding/loss_in_pipeline_split cannot be used with a hybrid layer pattern",
             "drop the switches; put '|' stage breaks into the hybrid pattern to shape the stages");
    }
    return !failed_;
  }

  std::vector<std::string> AccountingFields() const {
    std::vector<std::string> f;
    if (c_.account_for_embedding) f.push_back("account_for_embedding_in_pipeline_split");
    if (c_.account_for_loss) f.push_back("account_for_loss_in_pipeline_split");
    return f;
  }

  // Layers counted by the split: the decoder layers plus one per accounted
  // end (megatron/core/transformer/transformer_block.py get_num_layers_to_build).
  std::optional<StagePlan> FromAccounted() {
    const int64_t L = m_.num_layers;
    const int64_t e = c_.account_for_embedding ? 1 : 0;
    const int64_t l = c_.account_for_loss ? 1 : 0;
    const int64_t units = L + e + l;
    const std::string sum = absl::StrCat(L, e ? " + 1 (embedding)" : "", l ? " + 1 (loss)" : "", " = ", units);
    std::vector<std::string> fields = {"pp", "model.num_layers"};
    for (auto& f : AccountingFields()) fields.push_back(f);
    if (units % c_.pp != 0) {
      Report("pp.layers_divisible", fields, absl::StrCat("num_layers ", sum, " is not divisible by PP=", c_.pp),
             WithAlternative(AccountingAlternative(L, c_.pp, c_.vpp, e + l),
                             LayerSplitFix(L, c_.pp, c_.vpp, /*hybrid=*/false)));
      return std::nullopt;
    }
    const int64_t per_rank = units / c_.pp;
    if (c_.vpp > 1 && per_rank % c_.vpp != 0) {
      fields.insert(fields.begin(), "vpp");
      Report("vpp.layers_divisible", fields,
             absl::StrCat(per_rank, " layers per pipeline rank (", sum, " / PP ", c_.pp,
                          ") do not split into VPP=", c_.vpp, " chunks"),
             absl::StrCat("choose VPP dividing ", per_rank, " (", DivisorList(per_rank), ")",
                          AccountingAlternative(L, c_.pp, c_.vpp, e + l)));
      return std::nullopt;
    }
    StagePlan p = Empty(StagePlan::Source::kAccounted, c_.vpp);
    for (auto& rank : p.decoder_layers) {
      for (auto& chunk : rank) chunk = per_rank / c_.vpp;
    }
    // Each chunk holds per_rank / VPP >= 1 units, so neither end goes below
    // zero (Megatron's "Not enough layers" assert cannot fire after the checks above).
    p.decoder_layers[0][0] -= e;
    p.decoder_layers[c_.pp - 1][c_.vpp - 1] -= l;
    return p;
  }

  // ", or set <switches> (<flags>): 94 + 2 = 96 = 8 x 12 per rank" when a
  // different choice of the accounting switches (other than `current`
  // accounted ends) makes the split divide; empty otherwise.
  static std::string AccountingAlternative(int64_t L, int64_t pp, int64_t vpp, int64_t current) {
    for (int64_t k : {int64_t{2}, int64_t{1}}) {
      if (k == current) continue;
      const int64_t units = L + k;
      if (units % pp != 0 || (units / pp) % std::max<int64_t>(1, vpp) != 0) continue;
      const std::string per = vpp > 1 ? absl::StrCat(units / pp, " per rank = ", vpp, " chunks of ", units / pp / vpp)
                                      : absl::StrCat(units / pp, " per rank");
      if (k == 2) {
        return absl::StrCat(
            ", or count the embedding and the loss as layers: "
            "account_for_embedding_in_pipeline_split + account_for_loss_in_pipeline_split "
            "(--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split): ",
            L, " + 2 = ", units, " = PP ", pp, " x ", per);
      }
      return absl::StrCat(
          ", or count the loss as a layer: account_for_loss_in_pipeline_split "
          "(--account-for-loss-in-pipeline-split; or the embedding with "
          "--account-for-embedding-in-pipeline-split): ",
          L, " + 1 = ", units, " = PP ", pp, " x ", per);
    }
    return "";
  }

  // "<alternative>; <options>": the accounting switches that make this PP
  // work first (without their leading ", or "), then every option.
  static std::string WithAlternative(const std::string& alternative, const std::string& options) {
    if (alternative.empty()) return options;
    return absl::StrCat(absl::StripPrefix(alternative, ", or "), "; ", options);
  }

  // "1, 2, 47, 94" (at most 12 divisors, then "...").
  static std::string DivisorList(int64_t n) {
    std::vector<std::string> d;
    for (int64_t i = 1; i <= n && d.size() <= 12; ++i) {
      if (n % i == 0) d.push_back(absl::StrCat(i));
    }
    if (d.size() > 12) d.back() = "...";
    return absl::StrJoin(d, ", ");
  }

  std::optional<StagePlan> FromEven() {
    const int64_t L = m_.num_layers;
    if (L % c_.pp != 0) {
      Report("pp.layers_divisible", {"pp", "model.num_layers"},
             absl::StrCat("num_layers ", L, " is not divisible by PP=", c_.pp),
             WithAlternative(m_.is_hybrid() ? "" : AccountingAlternative(L, c_.pp, c_.vpp, 0),
                             LayerSplitFix(L, c_.pp, c_.vpp, m_.is_hybrid())));
      return std::nullopt;
    }
    const int64_t per_rank = L / c_.pp;
    if (c_.vpp > 1) {
      if (m_.is_hybrid()) {
        Report("hybrid.vpp_needs_pipes", {"vpp", "model.hybrid_layer_pattern"},
               absl::StrCat("VPP=", c_.vpp, " with a hybrid pattern without '|' stage breaks"),
               "add '|' separators to the hybrid pattern (PP*VPP segments) or drop VPP");
        return std::nullopt;
      }
      if (per_rank % c_.vpp != 0) {
        Report("vpp.layers_divisible", {"vpp", "pp", "model.num_layers"},
               absl::StrCat(per_rank, " layers per pipeline rank (", L, "/", c_.pp, ") do not split into VPP=", c_.vpp,
                            " chunks"),
               absl::StrCat("choose VPP dividing ", per_rank, " (", DivisorList(per_rank), ")",
                            AccountingAlternative(L, c_.pp, c_.vpp, 0), ", or give a pipeline layout"));
        return std::nullopt;
      }
    }
    StagePlan p = Empty(StagePlan::Source::kEven, c_.vpp);
    for (auto& rank : p.decoder_layers) {
      for (auto& chunk : rank) chunk = per_rank / c_.vpp;
    }
    return p;
  }

  std::optional<StagePlan> FromUneven() {
    const bool hybrid = m_.is_hybrid();
    const int64_t L = m_.num_layers;
    const bool has_first = c_.first_stage_layers > 0;
    const bool has_last = c_.last_stage_layers > 0;
    if (c_.pp == 1) {
      Report("pp.uneven_requires_pp", {"num_layers_in_first_pipeline_stage", "num_layers_in_last_pipeline_stage", "pp"},
             "first/last pipeline stage layer counts need PP > 1", "drop them or set PP > 1");
      return std::nullopt;
    }
    if (hybrid && c_.vpp > 1) {
      Report("hybrid.vpp_needs_pipes", {"vpp", "model.hybrid_layer_pattern"},
             absl::StrCat("VPP=", c_.vpp, " with a hybrid pattern without '|' stage breaks"),
             "add '|' separators to the hybrid pattern or drop VPP");
      return std::nullopt;
    }
    if (c_.vpp > 1) {
      if (has_first && c_.first_stage_layers % c_.vpp != 0) {
        Report("pp.first_stage_vpp_divisible", {"num_layers_in_first_pipeline_stage", "vpp"},
               absl::StrCat("first stage has ", c_.first_stage_layers, " layers, not divisible by VPP=", c_.vpp),
               "make the first-stage layer count a multiple of VPP");
      }
      if (has_last && c_.last_stage_layers % c_.vpp != 0) {
        Report("pp.last_stage_vpp_divisible", {"num_layers_in_last_pipeline_stage", "vpp"},
               absl::StrCat("last stage has ", c_.last_stage_layers, " layers, not divisible by VPP=", c_.vpp),
               "make the last-stage layer count a multiple of VPP");
      }
    }
    const int64_t middle_layers = L - c_.first_stage_layers - c_.last_stage_layers;
    const int64_t middle_stages = c_.pp - (has_first ? 1 : 0) - (has_last ? 1 : 0);
    if (middle_layers < 0) {
      Report("pp.uneven_too_many_layers", {"num_layers_in_first_pipeline_stage", "num_layers_in_last_pipeline_stage"},
             absl::StrCat("first + last stage layers (", c_.first_stage_layers + c_.last_stage_layers,
                          ") exceed num_layers ", L),
             "lower the first/last stage layer counts");
      return std::nullopt;
    }
    if ((middle_layers != 0) != (middle_stages != 0)) {
      Report(
          "pp.uneven_middle_mismatch",
          {"pp", "num_layers_in_first_pipeline_stage", "num_layers_in_last_pipeline_stage"},
          absl::StrCat(middle_layers, " middle layers remain but there are ", middle_stages, " middle pipeline stages"),
          "make first + last cover all layers only when PP leaves no middle stage, and vice versa");
      return std::nullopt;
    }
    int64_t per_middle = 0;
    if (middle_stages > 0) {
      if (middle_layers % middle_stages != 0) {
        Report("pp.uneven_middle_divisible",
               {"pp", "num_layers_in_first_pipeline_stage", "num_layers_in_last_pipeline_stage"},
               absl::StrCat(middle_layers, " middle layers are not divisible by ", middle_stages,
                            " middle pipeline stages"),
               "adjust the first/last stage counts so the rest splits evenly");
        return std::nullopt;
      }
      per_middle = middle_layers / middle_stages;
      if (c_.vpp > 1 && per_middle % c_.vpp != 0) {
        Report("vpp.middle_layers_divisible", {"vpp"},
               absl::StrCat(per_middle, " layers per middle pipeline rank are not divisible by VPP=", c_.vpp),
               "adjust first/last stage counts or VPP");
      }
    }
    if (failed_) return std::nullopt;
    StagePlan p = Empty(StagePlan::Source::kUneven, c_.vpp);
    for (int64_t r = 0; r < c_.pp; ++r) {
      int64_t layers = per_middle;
      if (r == 0 && has_first) layers = c_.first_stage_layers;
      if (r == c_.pp - 1 && has_last) layers = c_.last_stage_layers;
      for (auto& chunk : p.decoder_layers[r]) chunk = layers / c_.vpp;
    }
    return p;
  }

  std::optional<StagePlan> FromHybridPipes() {
    std::vector<std::string> segments = absl::StrSplit(MainHybridPattern(m_.hybrid_layer_pattern), '|');
    const int64_t n = static_cast<int64_t>(segments.size());
    if (c_.first_stage_layers > 0 || c_.last_stage_layers > 0) {
      Report("hybrid.pipes_conflict_uneven",
             {"num_layers_in_first_pipeline_stage", "num_layers_in_last_pipeline_stage"},
             "first/last stage layer counts cannot be combined with '|' breaks in the hybrid pattern",
             "drop the first/last stage counts; the pattern defines the stages");
      return std::nullopt;
    }
    if (n % c_.pp != 0) {
      Report("hybrid.segments_divisible", {"pp", "model.hybrid_layer_pattern"},
             absl::StrCat("hybrid pattern has ", n, " segments, not divisible by PP=", c_.pp),
             "use a PP that divides the segment count");
      return std::nullopt;
    }
    const int64_t vpp = n / c_.pp;
    if (c_.vpp_given && c_.vpp != vpp) {
      Report("hybrid.vpp_conflict", {"vpp", "model.hybrid_layer_pattern"},
             absl::StrCat("VPP=", c_.vpp, " but the pattern's ", n, " segments over PP=", c_.pp, " mean VPP=", vpp),
             absl::StrCat("drop VPP or set it to ", vpp));
      return std::nullopt;
    }
    StagePlan p = Empty(StagePlan::Source::kHybridPattern, vpp);
    for (int64_t i = 0; i < n; ++i) {
      p.decoder_layers[i % c_.pp][i / c_.pp] = HybridPatternLayers(segments[i]);
    }
    return p;
  }

  std::optional<StagePlan> FromLayout() {
    const std::vector<std::string> fields = {"pipeline_layout"};
    if (m_.is_hybrid()) {
      Report("layout.hybrid_unsupported", {"pipeline_layout", "model.hybrid_layer_pattern"},
             "pipeline_model_parallel_layout cannot be used with a hybrid layer pattern",
             "put '|' stage breaks into the hybrid pattern instead");
      return std::nullopt;
    }
    if (c_.first_stage_layers > 0 || c_.last_stage_layers > 0) {
      Report("layout.conflicts_uneven",
             {"pipeline_layout", "num_layers_in_first_pipeline_stage", "num_layers_in_last_pipeline_stage"},
             "pipeline_model_parallel_layout cannot be set with first/last pipeline stage layer counts",
             "use either the layout or the first/last stage counts");
      return std::nullopt;
    }
    auto parsed = ParseLayoutStages(c_.pipeline_layout, "pipeline_layout");
    if (!parsed.ok()) {
      Report("layout.syntax", fields, std::string(parsed.status().message()),
             "fix the layout string (E, t, m, L, '|', '(...)*n', 'x*n') or list");
      return std::nullopt;
    }
    const std::vector<LayoutStage>& stages = *parsed;
    const int64_t n = static_cast<int64_t>(stages.size());
    if (n % c_.pp != 0) {
      Report("layout.stages_divisible", {"pipeline_layout", "pp"},
             absl::StrCat("layout has ", n, " stages, not divisible by PP=", c_.pp),
             absl::StrCat("use a layout with a multiple of ", c_.pp, " stages, or a PP dividing ", n));
      return std::nullopt;
    }
    const int64_t vpp = n / c_.pp;
    if (c_.vpp_given && c_.vpp != vpp) {
      Report("layout.vpp_conflict", {"pipeline_layout", "vpp", "pp"},
             absl::StrCat("VPP=", c_.vpp, " conflicts with the layout: ", n, " stages / PP=", c_.pp, " = VPP ", vpp),
             absl::StrCat("drop VPP (the layout defines it) or use a layout with ", c_.pp * c_.vpp, " stages"));
      return std::nullopt;
    }
    std::vector<LayerType> flat;
    for (const auto& s : stages) flat.insert(flat.end(), s.begin(), s.end());
    auto count = [&flat](LayerType t) { return std::count(flat.begin(), flat.end(), t); };
    if (flat.empty() || flat.front() != LayerType::kEmbedding) {
      Report("layout.first_not_embedding", fields, "the first layer of the layout must be embedding (E)",
             "start the layout with E");
    }
    if (flat.empty() || flat.back() != LayerType::kLoss) {
      Report("layout.last_not_loss", fields, "the last layer of the layout must be loss (L)", "end the layout with L");
    }
    if (count(LayerType::kEmbedding) != 1) {
      Report("layout.embedding_count", fields,
             absl::StrCat("embedding appears ", count(LayerType::kEmbedding), " times; exactly once allowed"),
             "keep one E");
    }
    if (count(LayerType::kLoss) != 1) {
      Report("layout.loss_count", fields,
             absl::StrCat("loss appears ", count(LayerType::kLoss), " times; exactly once allowed"), "keep one L");
    }
    if (count(LayerType::kDecoder) != m_.num_layers) {
      Report("layout.decoder_count", {"pipeline_layout", "model.num_layers"},
             absl::StrCat("layout holds ", count(LayerType::kDecoder), " decoder layers but the model has ",
                          m_.num_layers),
             absl::StrCat("place exactly ", m_.num_layers, " t layers"));
    }
    const int64_t mtp = count(LayerType::kMtp);
    if (mtp != c_.mtp_num_layers) {
      Report("layout.mtp_count", {"pipeline_layout", "mtp_num_layers"},
             absl::StrCat("layout holds ", mtp, " MTP layers but mtp_num_layers = ", c_.mtp_num_layers),
             absl::StrCat("place exactly ", c_.mtp_num_layers, " m layers, or set mtp_num_layers = ", mtp));
    }
    auto first_mtp = std::find(flat.begin(), flat.end(), LayerType::kMtp);
    if (first_mtp != flat.end() && std::find(first_mtp, flat.end(), LayerType::kDecoder) != flat.end()) {
      Report("layout.decoder_after_mtp", fields, "decoder layers must be placed before MTP layers",
             "move every m after the last t");
    }
    if (count(LayerType::kEncoder) > 0) {
      Report("layout.encoder_unsupported", fields, "encoder layers are not supported by flexible pipeline layouts",
             "remove encoder stages");
    }
    // Megatron keeps MTP in the last virtual stage of a rank, all in one stage.
    bool split_reported = false;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t rank = i % c_.pp, chunk = i / c_.pp;
      const int64_t here = std::count(stages[i].begin(), stages[i].end(), LayerType::kMtp);
      if (here == 0) continue;
      if (chunk != vpp - 1) {
        Report("layout.mtp_not_last_chunk", fields,
               absl::StrCat("stage ", i, " (PP rank ", rank, ", VPP chunk ", chunk,
                            ") holds MTP; MTP must sit in a rank's last virtual stage"),
               "move the m layers to a stage of the last virtual chunk");
      } else if (here != c_.mtp_num_layers && !split_reported) {
        split_reported = true;
        Report("layout.mtp_split", fields, "all MTP layers must be in the same virtual pipeline stage",
               "put every m in one stage");
      }
    }
    if (failed_) return std::nullopt;
    StagePlan p = Empty(StagePlan::Source::kLayout, vpp);
    std::fill(p.has_embedding.begin(), p.has_embedding.end(), false);
    std::fill(p.has_loss.begin(), p.has_loss.end(), false);
    std::fill(p.mtp_layers.begin(), p.mtp_layers.end(), 0);
    for (int64_t i = 0; i < n; ++i) {
      const int64_t rank = i % c_.pp, chunk = i / c_.pp;
      for (LayerType t : stages[i]) {
        if (t == LayerType::kDecoder) ++p.decoder_layers[rank][chunk];
        if (t == LayerType::kEmbedding) p.has_embedding[rank] = true;
        if (t == LayerType::kLoss) p.has_loss[rank] = true;
        if (t == LayerType::kMtp) ++p.mtp_layers[rank];
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      if (stages[i].empty()) {
        Report("layout.empty_stage", fields,
               absl::StrCat("stage ", i, " (PP rank ", i % c_.pp, ", VPP chunk ", i / c_.pp, ") is empty"),
               "fine when intended (e.g. to balance embedding/loss cost)");
        break;
      }
    }
    return p;
  }

  const ModelSpec& m_;
  const ResolvedConfig& c_;
  std::vector<Violation>* out_;
  bool failed_ = false;
};

}  // namespace

std::optional<StagePlan> PlanStages(const ModelSpec& model, const ResolvedConfig& config,
                                    std::vector<Violation>* violations) {
  return Planner(model, config, violations).Run();
}

std::vector<std::vector<int64_t>> FirstLayerIndices(const StagePlan& plan) {
  std::vector<std::vector<int64_t>> first(plan.pp, std::vector<int64_t>(plan.vpp, 0));
  int64_t next = 0;
  for (int64_t v = 0; v < plan.vpp; ++v) {
    for (int64_t r = 0; r < plan.pp; ++r) {
      first[r][v] = next;
      next += plan.decoder_layers[r][v];
    }
  }
  return first;
}

std::optional<StagePlan> PlanStages(const ModelSpec& model, const ResolvedConfig& config) {
  std::vector<Violation> ignored;
  return PlanStages(model, config, &ignored);
}

}  // namespace parplan
