// The proto <-> core converters keep every field: each field of the request
// messages, set alone to a value other than its default, comes back the
// same after request -> core -> response. A field added to the proto and
// forgotten in server/api/convert.cc fails here by name.
#include "server/api/convert.h"

#include <functional>
#include <string>

#include "gtest/gtest.h"
#include "server/api/schema_rules.h"

namespace parplan {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Companion fields a value needs to survive resolution (Megatron reads it
// only with them): recompute modules and method with their granularity.
void AddCompanions(const std::string& field, v1::ParallelConfig* c) {
  if (field == "recompute_modules") c->set_recompute_granularity("selective");
  if (field == "recompute_method" || field == "recompute_num_layers") c->set_recompute_granularity("full");
}

// Sets `f` of `m` to a value other than its default; `flip` picks the other
// boolean. Strings take the last value of the field's closed set, or `text`.
void SetOther(Message* m, const FieldDescriptor& f, bool flip, const std::string& text) {
  const Reflection& r = *m->GetReflection();
  const api::FieldRule* rule = api::FieldRuleOf(f.containing_type()->name(), f.name());
  const std::string word = rule != nullptr && !rule->choices.empty() ? rule->choices.back() : text;
  if (f.is_repeated()) {
    if (f.cpp_type() == FieldDescriptor::CPPTYPE_INT32) {
      r.AddInt32(m, &f, 3);
      return;
    }
    ASSERT_EQ(f.cpp_type(), FieldDescriptor::CPPTYPE_STRING) << f.name();
    r.AddString(m, &f, word);
    return;
  }
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      r.SetInt32(m, &f, 3);
      break;
    case FieldDescriptor::CPPTYPE_INT64:
      r.SetInt64(m, &f, 3);
      break;
    case FieldDescriptor::CPPTYPE_DOUBLE:
      // Within the field's bound (a share in 0..1 takes 0.5).
      r.SetDouble(m, &f, rule != nullptr && rule->maximum && *rule->maximum < 3.5 ? *rule->maximum / 2 : 3.5);
      break;
    case FieldDescriptor::CPPTYPE_BOOL:
      r.SetBool(m, &f, flip);
      break;
    case FieldDescriptor::CPPTYPE_STRING:
      r.SetString(m, &f, word);
      break;
    default:
      FAIL() << f.name() << ": a field type this test does not set";
  }
}

std::string ValueOf(const Message& m, const FieldDescriptor& f) {
  std::string out;
  const Reflection& r = *m.GetReflection();
  if (f.is_repeated()) {
    for (int i = 0; i < r.FieldSize(m, &f); ++i) {
      out += (f.cpp_type() == FieldDescriptor::CPPTYPE_INT32 ? std::to_string(r.GetRepeatedInt32(m, &f, i))
                                                             : r.GetRepeatedString(m, &f, i)) +
             ",";
    }
    return out;
  }
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return std::to_string(r.GetInt32(m, &f));
    case FieldDescriptor::CPPTYPE_INT64:
      return std::to_string(r.GetInt64(m, &f));
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return std::to_string(r.GetDouble(m, &f));
    case FieldDescriptor::CPPTYPE_BOOL:
      return r.GetBool(m, &f) ? "true" : "false";
    case FieldDescriptor::CPPTYPE_STRING:
      return r.GetString(m, &f);
    default:
      return "?";
  }
}

// Calls `check` for each field of `d`, twice for a boolean (true, false).
void ForEachSetting(const google::protobuf::Descriptor& d,
                    const std::function<void(const FieldDescriptor& f, bool flip)>& check) {
  for (int i = 0; i < d.field_count(); ++i) {
    const FieldDescriptor& f = *d.field(i);
    check(f, true);
    if (f.cpp_type() == FieldDescriptor::CPPTYPE_BOOL) check(f, false);
  }
}

TEST(ConvertTest, EveryConfigFieldSurvivesResolution) {
  ForEachSetting(*v1::ParallelConfig::descriptor(), [](const FieldDescriptor& f, bool flip) {
    v1::ParallelConfig in;
    in.set_pp(4);  // so that VPP, uneven stages and layouts are meaningful
    AddCompanions(f.name(), &in);
    SetOther(&in, f, flip, f.name() == "pipeline_layout" ? "Et*2|t*2|t*2|t*2L" : "x");
    auto resolved = ResolveConfig(ToParallelConfig(in), nullptr, "config");
    ASSERT_TRUE(resolved.ok()) << f.name() << ": " << resolved.status();
    v1::ParallelConfig out;
    ToResolvedConfig(*resolved, &out);
    EXPECT_EQ(ValueOf(out, f), ValueOf(in, f)) << "config." << f.name() << " is lost or changed in convert.cc";
  });
}

TEST(ConvertTest, EveryArchitectureFieldSurvivesTheRoundTrip) {
  ForEachSetting(*v1::ModelArchitecture::descriptor(), [](const FieldDescriptor& f, bool flip) {
    v1::ModelArchitecture in;
    in.set_num_moe_experts(8);  // MoE fields are reported for MoE models
    const std::string text = f.name() == "hybrid_layer_pattern"  ? "M*-E"
                             : f.name() == "window_attn_pattern" ? "SF"
                                                                 : "x";
    SetOther(&in, f, flip, text);
    v1::ModelArchitecture out;
    ToModelArchitecture(FromModelArchitecture(in), &out);
    EXPECT_EQ(ValueOf(out, f), ValueOf(in, f)) << "model.spec." << f.name() << " is lost or changed in convert.cc";
  });
}

TEST(ConvertTest, EverySystemFigureReachesTheCore) {
  const auto* d = v1::SystemSpec::descriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor& f = *d->field(i);
    // SystemInfo's descriptive fields are accepted so a printed system
    // passes back; they describe, they set no figure.
    if (f.name() == "id" || f.name() == "aliases" || f.name() == "description" || f.name() == "sources" ||
        f.name() == "notes") {
      continue;
    }
    v1::SystemSpec in;
    SetOther(&in, f, true, "x");
    const SystemFigures figures = ToSystemFigures(in);
    EXPECT_FALSE(figures.empty()) << "system_spec." << f.name() << " does not reach SystemFigures";
  }
}

}  // namespace
}  // namespace parplan

namespace parplan {
namespace {

// An error names the upstream check it follows (the rule catalog's source).
TEST(ConvertTest, ViolationCitesTheUpstreamCheck) {
  Violation v;
  v.rule = "cuda_graph.full_recompute_needs_full_iteration";
  v.message = "full recompute with cuda_graph_impl = transformer_engine";
  v1::Violation out;
  ToViolation(v, &out);
  EXPECT_EQ(out.source(), "megatron/core/transformer/transformer_config.py:2856");
  v.rule = "no.such_rule";
  v1::Violation none;
  ToViolation(v, &none);
  EXPECT_EQ(none.source(), "");
}

}  // namespace
}  // namespace parplan
