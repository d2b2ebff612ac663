#include "server/mcp/answer_view.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "parplan/v1/planner.pb.h"
#include "server/api/json_codec.h"

namespace parplan {
namespace mcp {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using Json = nlohmann::ordered_json;

// Whether a printed value is its field's default (0, false, "", "0", []).
bool IsDefault(const Json& v) {
  if (v.is_boolean()) return !v.get<bool>();
  if (v.is_number()) return v == 0;
  if (v.is_string()) return v.get<std::string>().empty() || v.get<std::string>() == "0";
  if (v.is_array() || v.is_object()) return v.empty();
  return v.is_null();
}

// Walks `json` (printed from a message of type `d`) and leaves out the
// default-valued fields without presence of every ParallelConfig in it.
void DropConfigDefaults(const Descriptor& d, Json* json) {
  if (!json->is_object()) return;
  for (int i = 0; i < d.field_count(); ++i) {
    const FieldDescriptor& f = *d.field(i);
    auto it = json->find(f.name());
    if (it == json->end()) continue;
    if (d.name() == "ParallelConfig" && !f.has_presence() && IsDefault(*it)) {
      json->erase(it);
      continue;
    }
    if (f.cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE || f.is_map()) continue;
    if (f.is_repeated()) {
      for (Json& item : *it) DropConfigDefaults(*f.message_type(), &item);
    } else {
      DropConfigDefaults(*f.message_type(), &*it);
    }
  }
}

// A reason of `p` that says again what its own fields say.
bool RestatesFields(const v1::PlanSummary& p, const std::string& reason) {
  const std::string headline = absl::StrFormat("%.0f tokens/s/GPU, MFU %.1f%%, step %.2f s", p.tokens_per_s_per_gpu(),
                                               100 * p.mfu(), p.step_time_s());
  return absl::StartsWith(reason, headline) || absl::StartsWith(reason, "Memory: peak ") ||
         absl::StartsWith(reason, absl::StrFormat("MFU %.1f%% against the ", 100 * p.mfu())) ||
         reason == absl::StrCat("Uncertainty of the step time ", p.uncertainty_basis()) ||
         absl::StartsWith(reason, "gbs not given: ") ||
         absl::StartsWith(reason, "Execution settings (searched on this mesh");  // its config's fields
}

// Every plan: the reasons its own fields say again are left out.
void CutRestated(v1::PlanSummary* p) {
  google::protobuf::RepeatedPtrField<std::string> kept;
  for (const std::string& r : p->reasons()) {
    if (!RestatesFields(*p, r)) *kept.Add() = r;
  }
  p->mutable_reasons()->Swap(&kept);
}

// A plan below the first: what ranks it, without what one call on its
// config gives back.
void CutAlternative(v1::PlanSummary* p) {
  p->clear_bridge_overrides();
  p->clear_breakdown();
  for (auto& v : *p->mutable_violations()) {
    if (v.severity() == "error") continue;
    v.clear_fields();
    v.clear_fix();
    v.clear_source();
    v.clear_message();  // the rule id names it; validate on the plan's config says it in full
  }
}

// The starting point and the rejected examples: label, config, numbers, errors.
void CutExample(v1::PlanSummary* p) {
  p->clear_bridge_overrides();
  p->clear_breakdown();
  p->clear_reasons();
  google::protobuf::RepeatedPtrField<v1::Violation> errors;
  for (const auto& v : p->violations()) {
    if (v.severity() == "error") *errors.Add() = v;
  }
  p->mutable_violations()->Swap(&errors);
}

void CutRecommend(v1::RecommendResponse* r) {
  // Every plan of one answer shares its uncertainty basis: plan 1 says it.
  const std::string basis = r->plans().empty() ? "" : r->plans(0).uncertainty_basis();
  auto shared_basis = [&](v1::PlanSummary* p) {
    if (!basis.empty() && p->uncertainty_basis() == basis) p->clear_uncertainty_basis();
  };
  for (int i = 0; i < r->plans_size(); ++i) {
    CutRestated(r->mutable_plans(i));
    if (i > 0) {
      CutAlternative(r->mutable_plans(i));
      shared_basis(r->mutable_plans(i));
    }
  }
  std::vector<v1::PlanSummary*> examples;
  if (r->has_starting_point()) examples.push_back(r->mutable_starting_point());
  auto* rejected = r->mutable_rejected();
  if (rejected->has_best_invalid()) examples.push_back(rejected->mutable_best_invalid());
  if (rejected->has_best_not_fitting()) examples.push_back(rejected->mutable_best_not_fitting());
  if (rejected->has_best_dominated()) examples.push_back(rejected->mutable_best_dominated());
  for (v1::PlanSummary* p : examples) {
    CutExample(p);
    shared_basis(p);
  }
}

// The catalog's systems: their figures; each one's sources and notes come
// with get_system.
void CutListSystems(v1::ListSystemsResponse* r) {
  for (auto& system : *r->mutable_systems()) {
    system.clear_sources();
    system.clear_notes();
  }
}

// A copy of `response` with `cut` applied, when it is a `Response`.
template <typename Response>
void CutAs(const google::protobuf::Message& response, void (*cut)(Response*),
           std::unique_ptr<google::protobuf::Message>* copy) {
  if (const auto* r = dynamic_cast<const Response*>(&response)) {
    auto cut_copy = std::make_unique<Response>(*r);
    cut(cut_copy.get());
    *copy = std::move(cut_copy);
  }
}

}  // namespace

Json StructuredAnswer(const google::protobuf::Message& response) {
  std::unique_ptr<google::protobuf::Message> copy;
  CutAs<v1::RecommendResponse>(response, &CutRecommend, &copy);
  CutAs<v1::ListSystemsResponse>(response, &CutListSystems, &copy);
  const google::protobuf::Message* shown = copy != nullptr ? copy.get() : &response;
  Json json = Json::parse(api::MessageToJson(*shown, /*pretty=*/false), nullptr, /*allow_exceptions=*/false);
  DropConfigDefaults(*shown->GetDescriptor(), &json);
  return json;
}

}  // namespace mcp
}  // namespace parplan
