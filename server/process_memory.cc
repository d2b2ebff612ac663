#include "server/process_memory.h"

#include <malloc.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>

#include "absl/strings/str_format.h"

namespace parplan {
namespace {
std::atomic<int64_t> max_resident_bytes{0};
}  // namespace

int64_t ResidentBytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  long pages_total = 0, pages_resident = 0;
  const int read = std::fscanf(f, "%ld %ld", &pages_total, &pages_resident);
  std::fclose(f);
  if (read != 2) return 0;
  return static_cast<int64_t>(pages_resident) * sysconf(_SC_PAGESIZE);
}

void SetMaxResidentBytes(int64_t bytes) { max_resident_bytes.store(bytes); }
int64_t MaxResidentBytes() { return max_resident_bytes.load(); }

bool OverMemoryCeiling(std::string* why) {
  const int64_t ceiling = MaxResidentBytes();
  if (ceiling <= 0) return false;
  const int64_t now = ResidentBytes();
  if (now < ceiling) return false;
  *why = absl::StrFormat(
      "server busy: its memory is at %.0f MiB of its %.0f MiB ceiling (--max-rss-mib), so no search starts now; "
      "retry shortly",
      static_cast<double>(now) / (1 << 20), static_cast<double>(ceiling) / (1 << 20));
  return true;
}

void ReleaseFreeMemory() { malloc_trim(0); }

}  // namespace parplan
