// A fixed set of worker threads with a bounded queue, for calls that can run
// long (searches, huge layouts): they wait here instead of occupying the
// server's own threads, so short calls stay fast under a search load.
#ifndef PARPLAN_SERVER_WORK_POOL_H_
#define PARPLAN_SERVER_WORK_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace parplan {

class WorkPool {
 public:
  // `workers` >= 1 threads; at most `max_queued` tasks waiting (not running).
  WorkPool(int workers, int max_queued);
  // Runs the tasks already queued, then joins the threads.
  ~WorkPool();
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  // Queues `task`; false (task not taken) when the queue is full.
  bool TrySubmit(std::function<void()> task);

  int workers() const { return static_cast<int>(threads_.size()); }
  int max_queued() const { return max_queued_; }

 private:
  void Loop();

  const int max_queued_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace parplan

#endif  // PARPLAN_SERVER_WORK_POOL_H_
