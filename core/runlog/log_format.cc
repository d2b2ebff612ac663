#include "core/runlog/run_log.h"

namespace parplan {

const char* LogFormatName(LogFormat format) {
  switch (format) {
    case LogFormat::kMegatronLm:
      return "megatron-lm";
    case LogFormat::kBridge:
      return "megatron-bridge";
    case LogFormat::kNemo:
      return "nemo";
    case LogFormat::kUnknown:
      break;
  }
  return "unknown";
}

}  // namespace parplan
