// NVIDIA NeMo Framework training containers (nvcr.io/nvidia/nemo:YY.MM[.PP])
// as parplan knows them: the Megatron Bridge release each ships, the library
// versions inside it, and where that was read. A request may name a container
// instead of a Bridge release (ParallelConfig::bridge_version "26.04"); the
// container's published known issues are then checked (core/rules/
// container_rules.cc) and every answer names its libraries.
#ifndef PARPLAN_CORE_CONFIG_NEMO_CONTAINERS_H_
#define PARPLAN_CORE_CONFIG_NEMO_CONTAINERS_H_

#include <string>
#include <vector>

#include "core/config/front_end.h"
#include "core/config/parallel_config.h"

namespace parplan {

struct NemoContainer {
  std::string tag;  // "26.04", "26.02.01"
  BridgeVersion bridge;
  // Library versions as the release notes list them ("" = not published for
  // this container, e.g. patch containers and 26.08).
  std::string megatron_core, transformer_engine, pytorch, cuda, cudnn;
  // Where the Bridge release and the versions come from; it says
  // "inferred" when no release note pairs them (a patch container's nearest
  // tag).
  std::string source;
};

// Every container parplan knows, oldest first (25.11 .. 26.08).
const std::vector<NemoContainer>& KnownNemoContainers();

// True for text shaped like a container tag: YY.MM or YY.MM.PP with YY >= 24
// (Bridge releases are 0.x, so the two never collide).
bool LooksLikeContainerTag(const std::string& text);

// The container of `tag` (a leading "nemo:" is accepted), or nullptr.
const NemoContainer* FindNemoContainer(const std::string& tag);

// "NeMo 26.04 container: Megatron Bridge 0.4.0, Megatron-Core 0.17.0,
// Transformer Engine 2.14, PyTorch 2.11, CUDA 13.1.1, cuDNN 9.20 (source)".
std::string DescribeNemoContainer(const NemoContainer& c);

// The container a resolved config names in its given bridge_version, or
// nullptr (a Bridge release or nothing given).
const NemoContainer* ContainerOf(const ResolvedConfig& c);

// What an answer's "assumes" line adds for that container:
// "; NeMo 26.04 container: ..." or "" when none is named.
std::string ContainerAssumes(const ResolvedConfig& c);

}  // namespace parplan

#endif  // PARPLAN_CORE_CONFIG_NEMO_CONTAINERS_H_
