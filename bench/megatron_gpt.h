// The GPT models of the published Megatron-LM measurements (vTrain,
// Korthikanti et al. 2022) as planner models: learned positions, a GeLU MLP,
// multi-head attention, Megatron-Core defaults for everything else.
#ifndef PARPLAN_BENCH_MEGATRON_GPT_H_
#define PARPLAN_BENCH_MEGATRON_GPT_H_

#include <map>
#include <string>

#include "core/model/model_checks.h"
#include "core/model/model_spec.h"

namespace parplan {

// From a CSV row with num_layers, hidden_size, num_attention_heads,
// ffn_hidden_size, vocab_size and seq_length columns.
inline ModelSpec MegatronGpt(const std::string& id, const std::map<std::string, std::string>& row) {
  ModelSpec m;
  m.id = id;
  m.num_layers = std::stoll(row.at("num_layers"));
  m.hidden_size = std::stoll(row.at("hidden_size"));
  m.num_attention_heads = std::stoll(row.at("num_attention_heads"));
  m.ffn_hidden_size = std::stoll(row.at("ffn_hidden_size"));
  m.vocab_size = std::stoll(row.at("vocab_size"));
  m.seq_length = std::stoll(row.at("seq_length"));
  m.gated_linear_unit = false;
  ApplyMegatronDefaults(&m);
  m.missing_fields = MissingFields(m);
  return m;
}

}  // namespace parplan

#endif  // PARPLAN_BENCH_MEGATRON_GPT_H_
