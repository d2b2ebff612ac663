// Readers for one line (after the launcher's rank prefix is removed) of each
// printer parplan knows. Each returns nullopt when the line is not of its
// kind; none allocates more than the line's size.
#ifndef PARPLAN_CORE_RUNLOG_LOG_LINES_H_
#define PARPLAN_CORE_RUNLOG_LOG_LINES_H_

#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <utility>

#include "core/runlog/run_log.h"

namespace parplan {

// True when the line starts an iteration line of any format (used to tell a
// wrapped continuation from a new record).
bool StartsIterationLine(absl::string_view line);

// Megatron-LM / Bridge training_log line (Megatron-LM
// megatron/training/training.py:3567-3641, Bridge
// src/megatron/bridge/training/utils/train_utils.py:1088-1136):
// "[ts] iteration N/ M | consumed samples: ... | elapsed time per iteration
// (ms): ... | ...". Format is set to kMegatronLm (the caller decides Bridge).
// `complete` (optional) says whether the line ends with the closing " |".
std::optional<IterationRecord> ParseMegatronIterationLine(absl::string_view line, bool* complete = nullptr);

// NeMo 2 MegatronProgressBar line "Training epoch E, iteration N/M | key: v |
// ..." or a tqdm bar "Epoch 0: 12%| | 120/1000 [..., 5.12s/it, key=v, ...]".
std::optional<IterationRecord> ParseNemoIterationLine(absl::string_view line);

// Bridge's "Step Time : 5.12s GPU utilization: 401.2MODEL_TFLOP/s/GPU"
// (train_utils.py:1049-1051; older Bridge printed "TFLOP/s/GPU").
struct StepTimeLine {
  double step_s = kNotLogged;
  double tflops_per_gpu = kNotLogged;
};
std::optional<StepTimeLine> ParseBridgeStepTimeLine(absl::string_view line);

// "[Rank R] (after N iterations) memory (MB) | allocated: ... | max allocated:
// ... | reserved: ... | max reserved: ..." (Megatron-LM
// megatron/training/utils/common_utils.py:313-333, MiB labelled MB; the old
// form has no "[Rank R]") or Bridge's "memory (GB) | mem-allocated-gigabytes:
// ..." (train_utils.py:1146-1150, 1160-1212: decimal GB, 5 significant
// digits). `complete` says whether the last expected field was present.
std::optional<MemoryReport> ParseMemoryLine(absl::string_view line, bool* complete = nullptr);

// One line of Megatron-LM's argument block (arguments.py:1990-2001):
// "  name ........ value". nullopt for anything else.
std::optional<std::pair<std::string, std::string>> ParseArgumentLine(absl::string_view line);

// The block's markers: "------------------------ arguments ------------------------"
// and "-------------------- end of arguments ---------------------".
bool IsArgumentsBlockStart(absl::string_view line);
bool IsArgumentsBlockEnd(absl::string_view line);

}  // namespace parplan

#endif  // PARPLAN_CORE_RUNLOG_LOG_LINES_H_
