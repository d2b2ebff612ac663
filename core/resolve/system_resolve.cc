#include "core/resolve/system_resolve.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "core/catalog/catalog.h"
#include "core/util/field_error.h"
#include "core/util/text.h"
#include "core/util/limits.h"

namespace parplan {
namespace {

// The catalog system whose figures an inline system of each architecture
// starts from.
const char* ReferenceSystem(const std::string& arch) {
  if (arch == "ampere") return "a100-80gb";
  if (arch == "hopper") return "h100-sxm";
  return "b200";
}

std::string Num(double v) { return absl::StrFormat("%g", v); }

class Checker {
 public:
  Checker(FieldErrors* errors, std::string prefix) : errors_(errors), prefix_(std::move(prefix)) {}

  // A real number in (lo, hi] (or [lo, hi] when `zero_ok`), finite.
  void Real(const std::optional<double>& v, const char* name, double hi, bool zero_ok, const char* unit) {
    if (!v.has_value()) return;
    const double x = *v;
    const bool ok = std::isfinite(x) && (zero_ok ? x >= 0 : x > 0) && x <= hi;
    if (!ok) {
      errors_->Add(Field(name), absl::StrCat(Num(x), " is out of range; allowed ", zero_ok ? "0" : "more than 0", "..",
                                             Num(hi), " ", unit, zero_ok ? " (0 = none)" : ""));
    }
  }
  void Int(const std::optional<int64_t>& v, const char* name, int64_t lo, int64_t hi) {
    if (v.has_value()) errors_->CheckRange(Field(name), *v, lo, hi);
  }
  std::string Field(const char* name) const { return absl::StrCat(prefix_, ".", name); }

 private:
  FieldErrors* errors_;
  std::string prefix_;
};

void CheckFigures(const SystemFigures& f, const std::string& prefix, FieldErrors* errors) {
  Checker c(errors, prefix);
  if (!f.gpu_arch.empty()) {
    const auto& known = KnownGpuArchitectures();
    if (std::find(known.begin(), known.end(), NormalizeName(f.gpu_arch)) == known.end()) {
      errors->Add(c.Field("gpu_arch"),
                  absl::StrCat("'", f.gpu_arch.substr(0, 32), "' is unknown; allowed ", absl::StrJoin(known, ", ")));
    }
  }
  if (static_cast<int64_t>(f.name.size()) > kMaxNameChars) {
    errors->Add(c.Field("name"), absl::StrCat("longer than ", kMaxNameChars, " characters"));
  }
  c.Real(f.hbm_gib, "hbm_gib", kMaxHbmGib, false, "GiB");
  c.Real(f.hbm_tbps, "hbm_tbps", kMaxHbmTbps, false, "TB/s");
  c.Real(f.bf16_tflops, "bf16_tflops", kMaxTflops, false, "TFLOP/s");
  c.Real(f.fp8_tflops, "fp8_tflops", kMaxTflops, true, "TFLOP/s");
  c.Real(f.fp4_tflops, "fp4_tflops", kMaxTflops, true, "TFLOP/s");
  c.Int(f.nvlink_domain_size, "nvlink_domain_size", 1, kMaxNvlinkDomain);
  c.Real(f.nvlink_gbps, "nvlink_gbps", kMaxLinkGbytes, true, "GB/s");
  c.Int(f.gpus_per_node, "gpus_per_node", 1, kMaxGpusPerNode);
  c.Real(f.scaleout_gbps, "scaleout_gbps", kMaxNetworkGbits, false, "Gb/s");
  c.Int(f.nics_per_node, "nics_per_node", 1, kMaxNicsPerNode);
  c.Real(f.nic_gbps, "nic_gbps", kMaxNetworkGbits, false, "Gb/s");
  c.Real(f.pcie_gbps, "pcie_gbps", kMaxLinkGbytes, false, "GB/s");
  if (f.nics_per_node.has_value() != f.nic_gbps.has_value()) {
    errors->Add(c.Field(f.nics_per_node.has_value() ? "nic_gbps" : "nics_per_node"),
                "nics_per_node and nic_gbps go together (scale-out per GPU = NICs x Gb/s / GPUs per node)");
  }
  if (f.scaleout_gbps.has_value() && f.nics_per_node.has_value()) {
    errors->Add(c.Field("scaleout_gbps"), "give scaleout_gbps or nics_per_node + nic_gbps, not both");
  }
  if (f.nvlink_gbps.has_value() && *f.nvlink_gbps == 0 && f.nvlink_domain_size.value_or(1) > 1) {
    errors->Add(c.Field("nvlink_domain_size"), absl::StrCat(*f.nvlink_domain_size,
                                                            " GPUs cannot share an NVLink domain without NVLink "
                                                            "(nvlink_gbps = 0); use 1"));
  }
}

}  // namespace

bool SystemFigures::empty() const {
  return name.empty() && gpu_arch.empty() && !hbm_gib && !hbm_tbps && !bf16_tflops && !fp8_tflops && !fp4_tflops &&
         !nvlink_domain_size && !nvlink_gbps && !gpus_per_node && !scaleout_gbps && !nics_per_node && !nic_gbps &&
         !pcie_gbps;
}

const std::vector<std::string>& KnownGpuArchitectures() {
  static const auto* arch = new std::vector<std::string>{"ampere", "hopper", "blackwell"};
  return *arch;
}

absl::StatusOr<ResolvedSystem> ResolveSystem(const SystemRef& ref, const std::string& id_field,
                                             const std::string& prefix) {
  const SystemFigures& f = ref.figures;
  FieldErrors errors;
  if (static_cast<int64_t>(ref.id.size()) > kMaxNameChars) {
    errors.Add(id_field, absl::StrCat("system name longer than ", kMaxNameChars, " characters"));
  }
  CheckFigures(f, prefix, &errors);
  if (ref.id.empty() && f.gpu_arch.empty()) {
    errors.Add(f.empty() ? id_field : absl::StrCat(prefix, ".gpu_arch"),
               absl::StrCat("name a catalog system, or give gpu_arch (", absl::StrJoin(KnownGpuArchitectures(), ", "),
                            ") for an inline one"));
  }
  if (!errors.empty()) return errors.ToStatus();

  ResolvedSystem out;
  SystemSpec& s = out.spec;
  const std::string arch = NormalizeName(f.gpu_arch);
  std::vector<std::string> changed;
  std::vector<std::string> defaulted;
  if (!ref.id.empty()) {
    auto base = Catalog::Get().FindSystem(ref.id);
    if (!base.ok()) return base.status();
    s = *base;
  } else {
    auto base = Catalog::Get().FindSystem(ReferenceSystem(arch));
    if (!base.ok()) return base.status();  // the catalog always has the references
    s = *base;
    s.id = absl::StrCat("custom-", arch);
    s.name = absl::StrCat("inline ", arch, " system");
    s.aliases.clear();
    s.description = absl::StrCat("inline system; figures not given are those of ", base->name);
    s.notes.clear();
    for (auto& [field, source] : s.sources) source = absl::StrCat("default from ", base->id, ": ", source);
  }
  const std::string from = ref.id.empty() ? std::string("inline") : s.id;
  auto note_default = [&](bool given, const std::string& what) {
    if (!given && ref.id.empty()) defaulted.push_back(what);
  };
  auto set = [&](const char* field, const std::string& what_before, const std::string& what_after) {
    changed.push_back(ref.id.empty() ? absl::StrCat(field, " ", what_after)
                                     : absl::StrCat(field, " ", what_before, " -> ", what_after));
    s.sources[field] = "given in the request";
  };
  if (!f.name.empty()) s.name = f.name;
  if (!arch.empty() && arch != s.gpu_arch) {
    set("gpu_arch", s.gpu_arch, arch);
    s.gpu_arch = arch;
  }
  // A real figure: replaced when given; for an inline system, named as a default otherwise.
  auto figure = [&](const char* field, const std::optional<double>& given, double* value, const char* label,
                    const char* unit) {
    if (given) {
      set(field, Num(*value), Num(*given));
      *value = *given;
    }
    note_default(given.has_value(), absl::StrCat(label, Num(*value), unit));
  };
  figure("hbm_gib", f.hbm_gib, &s.hbm_gb, "HBM ", " GiB");
  figure("hbm_tbps", f.hbm_tbps, &s.hbm_bw_tbps, "", " TB/s");
  figure("bf16_tflops", f.bf16_tflops, &s.bf16_dense_tflops, "bf16 ", " TFLOP/s");
  figure("fp8_tflops", f.fp8_tflops, &s.fp8_dense_tflops, "FP8 ", " TFLOP/s");
  figure("fp4_tflops", f.fp4_tflops, &s.fp4_dense_tflops, "FP4 ", " TFLOP/s");
  if (f.nvlink_gbps) {
    set("nvlink_gbps", Num(2 * s.nvlink_gbps_unidirectional), Num(*f.nvlink_gbps));
    s.nvlink_gbps_unidirectional = *f.nvlink_gbps / 2;
    if (*f.nvlink_gbps == 0) s.nvlink_domain_size = 1;
  }
  note_default(f.nvlink_gbps.has_value(), absl::StrCat("NVLink ", Num(2 * s.nvlink_gbps_unidirectional), " GB/s"));
  if (f.nvlink_domain_size) {
    set("nvlink_domain_size", absl::StrCat(s.nvlink_domain_size), absl::StrCat(*f.nvlink_domain_size));
    s.nvlink_domain_size = static_cast<int>(*f.nvlink_domain_size);
  }
  note_default(f.nvlink_domain_size.has_value() || f.nvlink_gbps.value_or(1) == 0,
               absl::StrCat(s.nvlink_domain_size, "-GPU NVLink domain"));
  if (f.gpus_per_node) {
    set("gpus_per_node", absl::StrCat(s.gpus_per_node), absl::StrCat(*f.gpus_per_node));
    s.gpus_per_node = static_cast<int>(*f.gpus_per_node);
  }
  note_default(f.gpus_per_node.has_value(), absl::StrCat(s.gpus_per_node, " GPUs per node"));
  if (f.scaleout_gbps) {
    set("scaleout_gbps", Num(s.scaleout_gbps_per_gpu), Num(*f.scaleout_gbps));
    s.scaleout_gbps_per_gpu = *f.scaleout_gbps;
  } else if (f.nics_per_node) {
    const double per_gpu = *f.nics_per_node * *f.nic_gbps / s.gpus_per_node;
    set("scaleout_gbps", Num(s.scaleout_gbps_per_gpu),
        absl::StrCat(Num(per_gpu), " (", *f.nics_per_node, " NICs x ", Num(*f.nic_gbps), " Gb/s / ", s.gpus_per_node,
                     " GPUs per node)"));
    s.scaleout_gbps_per_gpu = per_gpu;
  }
  note_default(f.scaleout_gbps.has_value() || f.nics_per_node.has_value(),
               absl::StrCat("scale-out ", Num(s.scaleout_gbps_per_gpu), " Gb/s per GPU"));
  figure("pcie_gbps", f.pcie_gbps, &s.pcie_gbps_unidirectional, "PCIe ", " GB/s");
  // A domain larger than the world of GPUs that could share it is still a
  // spec, not an error; a domain without NVLink is not.
  if (s.nvlink_domain_size > 1 && s.nvlink_gbps_unidirectional <= 0) {
    return FieldError(absl::StrCat(prefix, ".nvlink_domain_size"),
                      absl::StrCat(s.nvlink_domain_size,
                                   " GPUs cannot share an NVLink domain without NVLink "
                                   "bandwidth; give nvlink_gbps or use 1"));
  }
  if (!changed.empty()) {
    if (!ref.id.empty()) s.id = absl::StrCat(s.id, "+overrides");
    out.notes.push_back(
        absl::StrCat("System ", from, ref.id.empty() ? " (" : " with overrides (", absl::StrJoin(changed, "; "), ")."));
  }
  if (!defaulted.empty()) {
    out.notes.push_back(absl::StrCat("Not given, taken from the ", arch, " reference (", ReferenceSystem(arch),
                                     "): ", absl::StrJoin(defaulted, ", "), "."));
  }
  return out;
}

}  // namespace parplan
