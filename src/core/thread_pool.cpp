#include "core/thread_pool.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/check.hpp"

namespace attnlab {

namespace {

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
constexpr Index kCapacity = 1;
#elif defined(ATTNLAB_MAX_THREADS)
constexpr Index kCapacity = ATTNLAB_MAX_THREADS;
#else
constexpr Index kCapacity = 8;
#endif

thread_local bool inside_region = false;

// How long a thread watches for what it waits for (the next region, its helpers finishing) before
// it sleeps. Waking a sleeping thread costs tens of microseconds in WebAssembly (a futex through
// Atomics.notify), more than a region of a decoded token takes; its regions follow one another
// within this time, so the helpers are still watching when the next one starts.
constexpr std::chrono::microseconds kWatch{200};

// returns once ready() is true or kWatch has passed (the clock read seldom: in WebAssembly it is a
// call out to JavaScript)
template <class Ready>
void watch(const Ready& ready) {
  const auto until = std::chrono::steady_clock::now() + kWatch;
  for (int i = 1; !ready(); ++i)
    if (i % 4096 == 0 && std::chrono::steady_clock::now() > until) return;
}

// Workers wait for a generation counter to change, then claim indices from a shared counter.
// Waiting is watching an atomic for kWatch, then sleeping on a condition variable.
class Pool {
 public:
  static Pool& instance() {
    static Pool pool;
    return pool;
  }

  void set_threads(Index threads) {
    std::lock_guard<std::mutex> lock(submit_);
    active_ = threads;
    while (static_cast<Index>(workers_.size()) < active_ - 1) workers_.emplace_back([this] { work(); });
  }
  Index threads() const { return active_; }

  void run(Index count, const std::function<void(Index)>& body) {
    if (count <= 0) return;
    // nested regions (a head that splits its rows) run on the thread that is already working
    if (active_ <= 1 || count == 1 || inside_region) {
      for (Index i = 0; i < count; ++i) body(i);
      return;
    }
    std::lock_guard<std::mutex> submit(submit_);  // one parallel region at a time
    const Index helpers = std::min<Index>(active_, count) - 1;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      body_ = &body;
      count_ = count;
      next_.store(0);
      pending_ = helpers;
      helpers_wanted_ = helpers;
      error_ = nullptr;
      ++generation_;
    }
    wake_.notify_all();
    claim();
    watch([&] { return pending_.load() == 0; });
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
    body_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  Pool() = default;
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      ++generation_;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  void claim() {
    inside_region = true;
    for (Index i = next_.fetch_add(1); i < count_; i = next_.fetch_add(1)) {
      try {
        (*body_)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
    }
    inside_region = false;
  }

  void work() {
    long long seen = 0;
    for (;;) {
      watch([&] { return generation_.load() != seen; });
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || (generation_ != seen && helpers_wanted_ > 0); });
        if (stopping_) return;
        seen = generation_;
        --helpers_wanted_;
      }
      claim();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        --pending_;
      }
      done_.notify_all();
    }
  }

  std::mutex submit_, mutex_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> workers_;
  Index active_ = 1;
  const std::function<void(Index)>* body_ = nullptr;
  Index count_ = 0;
  std::atomic<Index> next_{0};
  std::atomic<Index> pending_{0};  // changed under mutex_, watched without it
  Index helpers_wanted_ = 0;
  std::atomic<long long> generation_{0};
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace

Index max_threads() { return kCapacity; }

void set_num_threads(Index threads) {
  require(threads >= 1 && threads <= kCapacity,
          "threads: this build can use 1 to ", kCapacity, " threads, asked for ", threads);
  Pool::instance().set_threads(threads);
}

Index num_threads() { return Pool::instance().threads(); }

void parallel_for(Index count, const std::function<void(Index)>& body) { Pool::instance().run(count, body); }

}  // namespace attnlab
