// Size-only models: "70B dense", "8b", "235B total, 22B active MoE",
// "671B/37B MoE", "Qwen-style 30B-A3B" -> a documented, approximate shape.
//
// Dense shape (Llama-3 family proportions): head dim 128, heads = h/128,
// 8 KV groups (GQA), SwiGLU MLP of 3.5*h, vocabulary 128,256 untied (tied
// when the model is too small to afford it). h is a multiple of 1024 chosen
// so that layers ~= h/100 (Llama 3: 32 layers at 4096, 80 at 8192); the
// layer count is then solved to hit the requested total and rounded to a
// multiple of 8 (4 below 32 layers, 2 below 8) so common PP sizes divide it;
// the total lands within a few percent of the request.
//
// MoE shape (Qwen3-MoE / DeepSeek proportions without MLA): the same
// attention and vocabulary; (experts, top-k) picked from (8,2) (16,2) (32,4)
// (64,8) (128,8) (256,8) as the pair whose k/E best matches 0.8*active/total;
// every layer MoE, no shared expert; h chosen so layers ~= h/80; layers
// (rounded as above) and expert width solved from total and active.
//
// Every answer built on such a model is marked approximate.
#ifndef PARPLAN_CORE_MODEL_SIZE_MODEL_H_
#define PARPLAN_CORE_MODEL_SIZE_MODEL_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/model/model_spec.h"
#include "core/util/limits.h"

namespace parplan {

// The sizes read from a phrase (0 when absent).
struct SizePhrase {
  double total = 0;
  double active = 0;
  bool moe = false;
};

// Reads numbers with a unit (K, M, B, T): "total"/"active" words, "A22B" and
// "X/Y" forms. Errors name `field`.
absl::StatusOr<SizePhrase> ParseSizePhrase(absl::string_view text, const std::string& field);

// True when `text` reads as a size rather than a model name: it parses as a
// size phrase and is either just a count ("70B") or says dense / MoE /
// total / active / params. Used by the CLI to route --model "70B dense".
bool LooksLikeSizePhrase(absl::string_view text);

// Builds the approximate model for a phrase. Errors name `field`.
absl::StatusOr<ModelSpec> ModelFromSize(absl::string_view text, const std::string& field);

}  // namespace parplan

#endif  // PARPLAN_CORE_MODEL_SIZE_MODEL_H_
