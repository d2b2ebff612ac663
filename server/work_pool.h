// A fixed set of worker threads with a bounded queue, for calls that can run
// long (searches) or that must not wait behind them (layouts, plots): each
// lane of the server (server/work_lanes.h) is one pool, so a cheap call never
// queues behind a search.
//
// Deadlines: a task may carry the caller's deadline and an `expire` action.
// When no worker has started the task by its deadline, a timer thread takes
// it off the queue and runs `expire` instead, at the deadline (within a few
// milliseconds), so a caller that cannot be served in time hears so then,
// not when a worker finally frees up. Exactly one of task and expire runs.
#ifndef PARPLAN_SERVER_WORK_POOL_H_
#define PARPLAN_SERVER_WORK_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/time.h"

namespace parplan {

class WorkPool {
 public:
  // `workers` >= 1 threads; at most `max_queued` tasks waiting (not running).
  // `release_memory`: give freed heap back to the system after each task
  // (the search lane: a search's peak would otherwise stay resident).
  WorkPool(int workers, int max_queued, bool release_memory = false);
  // Runs the tasks already queued (expired ones get their expire action),
  // then joins the threads.
  ~WorkPool();
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  // Queues `task`; false (task not taken) when the queue is full. When
  // `expire` is given and no worker starts `task` by `deadline`, `expire`
  // runs instead (on the pool's timer thread) at the deadline.
  bool TrySubmit(std::function<void()> task, absl::Time deadline = absl::InfiniteFuture(),
                 std::function<void()> expire = {});

  int workers() const { return static_cast<int>(threads_.size()); }
  int max_queued() const { return max_queued_; }
  // Tasks waiting now (not running).
  int queued() const;
  // Tasks running now.
  int running() const;

 private:
  struct Item {
    std::function<void()> task;
    absl::Time deadline;
    std::function<void()> expire;
  };
  void Loop();
  void Timer();

  const int max_queued_;
  const bool release_memory_;
  mutable std::mutex mu_;
  std::condition_variable cv_;        // workers: a task arrived or stopping
  std::condition_variable timer_cv_;  // timer: a new deadline or stopping
  std::deque<Item> queue_;
  int running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
  std::thread timer_;
};

}  // namespace parplan

#endif  // PARPLAN_SERVER_WORK_POOL_H_
