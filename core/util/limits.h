// Every limit of parplan's inputs, in one place: the core checks, the doors
// (gRPC, CLI, MCP) and the generated tool schemas (server/api/schema_rules.cc)
// use these constants, and the proto comments state the same numbers
// (tests/server/schema_rules_test.cc compares them). A limit bounds the work
// one request can cause; none is a claim about what hardware or models exist.
#ifndef PARPLAN_CORE_UTIL_LIMITS_H_
#define PARPLAN_CORE_UTIL_LIMITS_H_

#include <cstddef>
#include <cstdint>

namespace parplan {

// ---- parallel config (core/config/parallel_config.cc CheckConfigBounds)
inline constexpr int64_t kMaxDim = 4096;  // tp, pp, vpp, cp, ep, etp
inline constexpr int64_t kMaxMbs = 65536;
inline constexpr int64_t kMaxGbs = int64_t{1} << 30;
inline constexpr int64_t kMaxSeqLength = 1 << 24;       // tokens
inline constexpr size_t kMaxLayoutChars = 65536;        // pipeline_layout
inline constexpr int64_t kMaxStageLayers = 1024;        // first/last stage, recompute and offload layer counts
inline constexpr int64_t kMaxMtpLayers = 64;            // config and model
inline constexpr int64_t kMaxModules = 16;              // entries of a module list
inline constexpr int64_t kMaxInflightOffloads = 1024;   // fine_grained_offloading_max_inflight_offloads
inline constexpr int64_t kMaxHierarchicalCpLevels = 8;  // hierarchical_context_parallel_sizes entries

// ---- placement and system figures (core/resolve/system_resolve.cc)
inline constexpr int64_t kMaxGpus = 1 << 20;  // world size
inline constexpr int64_t kMaxGpusPerNode = 1024;
inline constexpr int64_t kMaxNvlinkDomain = 4096;
inline constexpr int64_t kMaxNicsPerNode = 64;
inline constexpr double kMaxHbmGib = 16384;
inline constexpr double kMaxHbmTbps = 1000;
inline constexpr double kMaxTflops = 1e6;
inline constexpr double kMaxLinkGbytes = 1e5;    // GB/s (NVLink, PCIe)
inline constexpr double kMaxNetworkGbits = 1e6;  // Gb/s (scale-out, NIC)

// ---- model architecture (core/model/model_checks.cc)
inline constexpr int64_t kMaxLayers = 1024;
inline constexpr int64_t kMaxWidth = 1 << 20;  // hidden, FFN, heads, head and rank dims
inline constexpr int64_t kMaxExperts = 16384;
inline constexpr int64_t kMaxVocab = 1 << 22;
inline constexpr int64_t kMaxVocabMultiple = 1 << 16;  // make_vocab_size_divisible_by
inline constexpr int64_t kMaxTokens = 1 << 24;         // model seq_length, window_size, attention_chunk_size
inline constexpr int64_t kMaxPatternChars = 1024;      // hybrid and window-attention patterns
inline constexpr double kMaxRopeScalingFactor = 1024;  // rope_scaling_factor (YaRN, llama3, linear, ...)

// ---- names and documents
inline constexpr int64_t kMaxNameChars = 256;         // model/system ids, size phrases, filters, names
inline constexpr size_t kMaxHfConfigBytes = 1 << 20;  // a Hugging Face config.json
inline constexpr double kMinSizeParams = 0.2e9;       // size phrases ("70B dense"): the family's smallest
inline constexpr double kMaxSizeParams = 20e12;

// ---- the API's own request fields (server/api/planner_api.cc, recommend_api.cc)
inline constexpr int64_t kMaxNextWorldSizes = 64;   // MinGpus num_next_world_sizes
inline constexpr int64_t kMaxRanksListed = 4096;    // ExplainLayout max_ranks
inline constexpr int64_t kMaxGroupsListed = 64;     // ExplainLayout max_groups
inline constexpr int64_t kMaxSuggestions = 16;      // EstimateMemory max_suggestions
inline constexpr double kMaxOverheadGib = 1024;     // EstimateMemory overhead_gib
inline constexpr double kMaxMemoryReserve = 0.5;    // memory_reserve, a share of HBM
inline constexpr int64_t kMaxTopK = 100;            // Recommend top_k
inline constexpr int64_t kMaxCandidates = 2000000;  // Recommend max_candidates
inline constexpr int64_t kDefaultCandidates = 200000;
inline constexpr int64_t kMaxSearchPp = 4096;              // Recommend constraints.max_pp
inline constexpr int64_t kDefaultMaxSearchGpus = 65536;    // Recommend max_gpus when only min_gpus is given
inline constexpr int64_t kMaxSearchWorlds = 256;           // world sizes one search tries
inline constexpr int64_t kMaxSearchSeconds = 20;           // any search, whatever the caller's deadline
inline constexpr int64_t kMaxMemoryFixEvaluations = 3000;  // configs EstimateMemory's fix search estimates
inline constexpr int64_t kMaxClientTimeoutMs = 600000;     // the CLI's --timeout-ms for remote calls

// ---- the answers' own bounds
inline constexpr int64_t kMaxRanksPerGroupListed = 4096;  // ranks shown per example group of a layout
inline constexpr int64_t kMaxLayoutAnswerRanks = 65536;   // ranks in all of a layout answer's example groups

// ---- the server's operator flags (server/main.cc)
inline constexpr int64_t kMaxSearchWorkers = 256;
inline constexpr int64_t kMaxQueuedCalls = 100000;
inline constexpr int64_t kMinMessageBytes = 1024;
inline constexpr int64_t kMaxMessageBytes = int64_t{64} << 20;

// ---- transport (the doors)
inline constexpr int kDefaultMaxMessageBytes = 4 << 20;      // gRPC request, parplan-server --max-message-bytes
inline constexpr size_t kMaxMcpLineBytes = 8 << 20;          // one MCP JSON-RPC line
inline constexpr int kMaxJsonDepth = 64;                     // nesting of any JSON document read (requests, MCP)
inline constexpr size_t kMaxHttpHeaderBytes = 16 << 10;      // an HTTP request's start line and headers
inline constexpr int64_t kDefaultHttpReadTimeoutMs = 10000;  // a whole HTTP request, from its first byte
inline constexpr int64_t kMaxHttpReadTimeoutMs = 300000;
inline constexpr int64_t kMaxHttpConnections = 100000;  // parplan-server --http-max-connections
inline constexpr size_t kMaxMcpHttpSessions = 1024;     // live MCP sessions over HTTP (all clients)

// ---- fair sharing and drain (server/client_limits.h, parplan-server flags)
inline constexpr int kDefaultMaxClientCalls = 64;                          // calls one client has queued or running
inline constexpr int kDefaultMaxClientConnections = 128;                   // open HTTP connections from one address
inline constexpr int kDefaultMaxClientMcpSessions = 32;                    // live MCP sessions of one client
inline constexpr int64_t kMcpEvictableIdleSeconds = 300;                   // idle this long, a session may make room
inline constexpr int64_t kDefaultDrainSeconds = 5;                         // new calls answered 503 after SIGTERM
inline constexpr int64_t kDefaultHttpBodyBudgetBytes = int64_t{64} << 20;  // bodies being received, all clients
inline constexpr size_t kMaxStatusMessageBytes = 2048;  // an error's message (gRPC metadata is 8 KiB)
inline constexpr size_t kMaxFieldViolations = 16;       // per error answer
inline constexpr size_t kMaxViolationBytes = 240;       // per field violation's description

}  // namespace parplan

#endif  // PARPLAN_CORE_UTIL_LIMITS_H_
