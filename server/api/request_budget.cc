#include "server/api/request_budget.h"

#include <algorithm>
#include <atomic>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/util/limits.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/reflection.h"

namespace parplan {
namespace api {
namespace {

using google::protobuf::FieldDescriptor;

std::atomic<int64_t> search_memory_bytes{kNoSearchMemoryBudget};

const FieldDescriptor* Field(const google::protobuf::Message& m, const char* name, FieldDescriptor::CppType type,
                             bool repeated = false) {
  const FieldDescriptor* f = m.GetDescriptor()->FindFieldByName(name);
  return f != nullptr && f->cpp_type() == type && f->is_repeated() == repeated ? f : nullptr;
}

std::string Mib(int64_t bytes) { return absl::StrFormat("%.0f MiB", static_cast<double>(bytes) / (1 << 20)); }

}  // namespace

void SetSearchMemoryBytes(int64_t bytes) { search_memory_bytes.store(std::max<int64_t>(1, bytes)); }
int64_t SearchMemoryBytes() { return search_memory_bytes.load(); }

int64_t CandidatesWithin(int64_t bytes) { return std::max<int64_t>(1, bytes / kSearchBytesPerCandidate); }

bool FitToBudget(const google::protobuf::Message& request, std::unique_ptr<google::protobuf::Message>* fitted,
                 int64_t* asked, int64_t* allowed) {
  const FieldDescriptor* f = Field(request, "max_candidates", FieldDescriptor::CPPTYPE_INT64);
  if (f == nullptr) return false;
  const int64_t given = request.GetReflection()->GetInt64(request, f);
  if (given < 0 || given > kMaxCandidates) return false;  // out of range: the call itself refuses it
  *asked = given > 0 ? given : kDefaultCandidates;
  *allowed = CandidatesWithin(SearchMemoryBytes());
  if (*asked <= *allowed) return false;
  fitted->reset(request.New());
  (*fitted)->CopyFrom(request);
  (*fitted)->GetReflection()->SetInt64(fitted->get(), f, *allowed);
  return true;
}

void SayBudgetCut(int64_t asked, int64_t allowed, google::protobuf::Message* response) {
  const auto* evaluated = Field(*response, "evaluated", FieldDescriptor::CPPTYPE_INT64);
  const auto* truncated = Field(*response, "truncated", FieldDescriptor::CPPTYPE_BOOL);
  const auto* why = Field(*response, "truncated_reason", FieldDescriptor::CPPTYPE_STRING);
  const auto* reasons = Field(*response, "reasons", FieldDescriptor::CPPTYPE_STRING, /*repeated=*/true);
  if (evaluated == nullptr || truncated == nullptr || why == nullptr || reasons == nullptr) return;
  const auto* r = response->GetReflection();
  // The search ended before the lowered bound unless it evaluated that many
  // or says the bound cut it (its split bounds skip some of the candidates
  // it holds, core/search/search_steps.h SplitBound).
  const bool cut_by_bound =
      r->GetBool(*response, truncated) && absl::StartsWith(r->GetString(*response, why), "candidate bound of ");
  if (r->GetInt64(*response, evaluated) < allowed && !cut_by_bound) return;
  const std::string said =
      absl::StrCat("max_candidates ", asked, " would hold about ", Mib(asked * kSearchBytesPerCandidate),
                   " while searching; this server's memory budget per search (", Mib(SearchMemoryBytes()),
                   ", parplan-server --search-memory-mib) holds ", allowed, " candidates, so the search stopped there");
  const std::string before = r->GetString(*response, why);
  r->SetBool(response, truncated, true);
  r->SetString(response, why, before.empty() ? said : absl::StrCat(before, " (", said, ")"));
  r->AddString(response, reasons, absl::StrCat("Memory budget: ", said, "."));
}

}  // namespace api
}  // namespace parplan
