#include "core/perf/collectives.h"

#include <algorithm>
#include <cmath>

#include "core/perf/perf_model.h"

namespace parplan {

double StepLatency(Link link, const PerfParams& p) {
  return (link == Link::kNvlink ? p.nvlink_step_latency_us : p.network_step_latency_us) * 1e-6;
}

double RingCollectiveSeconds(double buffer_bytes, const GroupSpread& g, const SystemSpec& s, const PerfParams& p) {
  if (g.size <= 1 || buffer_bytes <= 0) return 0;
  const double n = static_cast<double>(g.size);
  const double gbytes = RingBandwidth(s, g) * p.link_efficiency;
  return (n - 1) / n * buffer_bytes / (gbytes * 1e9) + (n - 1) * StepLatency(LinkOfGroup(s, g), p);
}

double AllToAllSeconds(double send_bytes, const GroupSpread& g, const SystemSpec& s, const PerfParams& p) {
  if (g.size <= 1 || send_bytes <= 0) return 0;
  const double n = static_cast<double>(g.size);
  const double nvlink = LinkGbytesPerSecond(s, Link::kNvlink) * p.link_efficiency * 1e9;
  // The worst-placed member: its peers in its own domain (itself included).
  const double local = nvlink > 0 ? std::min(n, std::max(1.0, static_cast<double>(g.domain_local))) : 1.0;
  const double inside = send_bytes * (local - 1) / n;
  const double outside = send_bytes * (n - local) / n;
  const Link far = LinkOfGroup(s, g);
  const double far_rate = LinkGbytesPerSecond(s, far) * p.link_efficiency * 1e9;
  const double transfer = std::max(inside > 0 ? inside / nvlink : 0.0, outside > 0 ? outside / far_rate : 0.0);
  return transfer + std::ceil(std::log2(n)) * StepLatency(far, p);
}

double SendRecvSeconds(double bytes, Link link, const SystemSpec& s, const PerfParams& p) {
  if (bytes <= 0) return 0;
  return bytes / (LinkGbytesPerSecond(s, link) * p.link_efficiency * 1e9) + StepLatency(link, p);
}

}  // namespace parplan
