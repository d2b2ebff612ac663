// The server's lanes: one worker pool for searches (Recommend) and one for
// the light pooled calls (ExplainLayout, plots), so that a layout or a plot
// never waits behind a queue of searches. The cheapest calls (MinGpus,
// Validate, estimates, health) run on the door's own threads and wait for
// neither. Both doors (gRPC, HTTP with MCP) share the same two pools.
#ifndef PARPLAN_SERVER_WORK_LANES_H_
#define PARPLAN_SERVER_WORK_LANES_H_

#include "server/api/api_methods.h"
#include "server/work_pool.h"

namespace parplan {

struct WorkLanes {
  WorkPool* search = nullptr;  // not owned
  WorkPool* light = nullptr;   // not owned
  // The pool for a pooled call of cost `cost` (kLight or kSearch).
  WorkPool* For(api::CallCost cost) const { return cost == api::CallCost::kSearch ? search : light; }
};

}  // namespace parplan

#endif  // PARPLAN_SERVER_WORK_LANES_H_
