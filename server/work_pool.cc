#include "server/work_pool.h"

#include <algorithm>

#include "absl/time/clock.h"
#include "server/process_memory.h"

namespace parplan {

WorkPool::WorkPool(int workers, int max_queued, bool release_memory)
    : max_queued_(std::max(0, max_queued)), release_memory_(release_memory) {
  for (int i = 0; i < std::max(1, workers); ++i) threads_.emplace_back([this] { Loop(); });
  timer_ = std::thread([this] { Timer(); });
}

WorkPool::~WorkPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  timer_cv_.notify_all();
  timer_.join();
  for (auto& t : threads_) t.join();
}

bool WorkPool::TrySubmit(std::function<void()> task, absl::Time deadline, std::function<void()> expire) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopping_ || static_cast<int>(queue_.size()) >= max_queued_) return false;
    if (!expire) deadline = absl::InfiniteFuture();
    queue_.push_back(Item{std::move(task), deadline, std::move(expire)});
  }
  cv_.notify_one();
  if (deadline != absl::InfiniteFuture()) timer_cv_.notify_one();
  return true;
}

int WorkPool::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(queue_.size());
}

int WorkPool::running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return running_;
}

void WorkPool::Loop() {
  for (;;) {
    Item item;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      item = std::move(queue_.front());
      queue_.pop_front();
      ++running_;
    }
    // A task whose deadline passed while the timer was about to take it
    // still gets its expire action, never a late start.
    if (item.expire && absl::Now() >= item.deadline) {
      item.expire();
    } else {
      item.task();
      if (release_memory_) ReleaseFreeMemory();
    }
    std::lock_guard<std::mutex> lock(mu_);
    --running_;
  }
}

void WorkPool::Timer() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    absl::Time next = absl::InfiniteFuture();
    for (const Item& item : queue_) next = std::min(next, item.deadline);
    if (next == absl::InfiniteFuture()) {
      timer_cv_.wait(lock);
      continue;
    }
    if (absl::Now() < next) {
      timer_cv_.wait_until(lock, absl::ToChronoTime(next));
      continue;
    }
    // Take every expired task off the queue, then answer them unlocked.
    std::vector<std::function<void()>> expired;
    const absl::Time now = absl::Now();
    for (auto it = queue_.begin(); it != queue_.end();) {
      if (it->deadline <= now) {
        expired.push_back(std::move(it->expire));
        it = queue_.erase(it);
      } else {
        ++it;
      }
    }
    lock.unlock();
    for (auto& expire : expired) expire();
    lock.lock();
  }
}

}  // namespace parplan
