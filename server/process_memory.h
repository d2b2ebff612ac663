// The server's own memory: its resident set size, a ceiling on it
// (parplan-server --max-rss-mib) that new searches check before they start
// (a search refused for it is answered 503 / UNAVAILABLE with Retry-After,
// never started into an out-of-memory kill), and giving freed heap back to
// the system after a search (glibc keeps it otherwise, so RSS would stay at
// the largest search's peak).
#ifndef PARPLAN_SERVER_PROCESS_MEMORY_H_
#define PARPLAN_SERVER_PROCESS_MEMORY_H_

#include <cstdint>
#include <string>

namespace parplan {

// Resident bytes of this process (/proc/self/statm); 0 when unknown.
int64_t ResidentBytes();

// The ceiling for the whole process (0 = none), set once at start.
void SetMaxResidentBytes(int64_t bytes);
int64_t MaxResidentBytes();

// True, with the message for the caller in *why, when the process is at or
// above its ceiling.
bool OverMemoryCeiling(std::string* why);

// Returns freed heap pages to the system (malloc_trim).
void ReleaseFreeMemory();

}  // namespace parplan

#endif  // PARPLAN_SERVER_PROCESS_MEMORY_H_
