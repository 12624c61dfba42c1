// pthreadpool's Linux back end (third_party/xnnpack/pthreadpool_join.c): every
// item of every parallelize call runs exactly once, whether the workers are
// spinning, asleep, or join after the caller has taken all the work; the
// multi-dimensional calls see their own parameters (written only while no
// worker is inside a job). Under --config=wasm pthreadpool is the
// single-threaded shim (no pool of 2+ threads): the tests are skipped.
#include <atomic>
#include <chrono>
#include <cstddef>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "pthreadpool.h"

namespace {

#ifdef __EMSCRIPTEN__
TEST(ThreadPool, SkippedUnderTheSingleThreadedShim) { GTEST_SKIP() << "pthreadpool_create(2) is null there"; }
#else

struct Counts {
  std::vector<std::atomic<int>> hits;
  explicit Counts(size_t n) : hits(n) {}
  bool AllOnce() const {
    for (const std::atomic<int>& h : hits) {
      if (h.load() != 1) return false;
    }
    return true;
  }
};

void Hit1d(void* context, size_t i) { static_cast<Counts*>(context)->hits[i].fetch_add(1); }

struct Grid {
  Counts counts;
  size_t cols;
  Grid(size_t rows, size_t c) : counts(rows * c), cols(c) {}
};

void HitTile2d(void* context, size_t i, size_t j, size_t tile_i, size_t tile_j) {
  Grid* grid = static_cast<Grid*>(context);
  for (size_t a = i; a < i + tile_i; ++a) {
    for (size_t b = j; b < j + tile_j; ++b) grid->counts.hits[a * grid->cols + b].fetch_add(1);
  }
}

// Slow items, so that workers really run some of them.
void SlowHit1d(void* context, size_t i) {
  volatile double x = 0;
  for (int k = 0; k < 2000; ++k) x = x + k;
  static_cast<Counts*>(context)->hits[i].fetch_add(1);
}

TEST(ThreadPool, EveryItemOnceAcrossManyCalls) {
  for (size_t threads : {2, 3, 4}) {
    pthreadpool_t pool = pthreadpool_create(threads);
    ASSERT_NE(pool, nullptr);
    EXPECT_EQ(pthreadpool_get_threads_count(pool), threads);
    for (int call = 0; call < 3000; ++call) {
      const size_t range = 2 + static_cast<size_t>(call * 7919) % 300;
      Counts counts(range);
      pthreadpool_parallelize_1d(pool, call % 3 == 0 ? SlowHit1d : Hit1d, &counts, range, 0);
      ASSERT_TRUE(counts.AllOnce()) << "threads " << threads << " call " << call << " range " << range;
    }
    pthreadpool_destroy(pool);
  }
}

TEST(ThreadPool, TiledCallsSeeTheirOwnParameters) {
  pthreadpool_t pool = pthreadpool_create(2);
  ASSERT_NE(pool, nullptr);
  for (int call = 0; call < 2000; ++call) {
    const size_t rows = 1 + call % 37, cols = 1 + (call * 13) % 53;
    const size_t tile_rows = 1 + call % 5, tile_cols = 1 + call % 7;
    Grid grid(rows, cols);
    pthreadpool_parallelize_2d_tile_2d(pool, HitTile2d, &grid, rows, cols, tile_rows, tile_cols, 0);
    ASSERT_TRUE(grid.counts.AllOnce()) << "call " << call << ": " << rows << "x" << cols;
    if (call % 2 == 0) {
      Counts counts(1 + call % 11);
      pthreadpool_parallelize_1d(pool, Hit1d, &counts, counts.hits.size(), 0);
      ASSERT_TRUE(counts.AllOnce()) << "call " << call;
    }
  }
  pthreadpool_destroy(pool);
}

TEST(ThreadPool, WorkersAsleepBetweenCalls) {
  pthreadpool_t pool = pthreadpool_create(3);
  ASSERT_NE(pool, nullptr);
  for (int call = 0; call < 40; ++call) {
    // Longer than the workers' spin: they wait on the futex when the call comes.
    std::this_thread::sleep_for(std::chrono::microseconds(call % 2 == 0 ? 300 : 5));
    Counts counts(64);
    pthreadpool_parallelize_1d(pool, SlowHit1d, &counts, counts.hits.size(), 0);
    ASSERT_TRUE(counts.AllOnce()) << "call " << call;
  }
  pthreadpool_destroy(pool);
}

// An item that a worker holds for 3 ms (as when it is descheduled): the caller
// waits for it far longer than its own share took, and runs the next jobs alone.
struct Owners {
  std::thread::id caller = std::this_thread::get_id();
  std::atomic<int> by_workers{0};
  Counts counts{2};
};

void SlowOnWorkers(void* context, size_t i) {
  Owners* owners = static_cast<Owners*>(context);
  if (std::this_thread::get_id() != owners->caller) {
    owners->by_workers.fetch_add(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  } else {
    // Busy for 100 us, so that the worker has time to join and take the other item.
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(100);
    while (std::chrono::steady_clock::now() < until) {
    }
  }
  owners->counts.hits[i].fetch_add(1);
}

TEST(ThreadPool, AWorkerHoldingAnItemTooLongMakesTheCallerGoSolo) {
  pthreadpool_t pool = pthreadpool_create(2);
  ASSERT_NE(pool, nullptr);
  bool slowed = false;
  for (int call = 0; call < 2000 && !slowed; ++call) {
    Owners owners;
    pthreadpool_parallelize_1d(pool, SlowOnWorkers, &owners, 2, 0);
    ASSERT_TRUE(owners.counts.AllOnce());
    slowed = owners.by_workers.load() > 0;
  }
  ASSERT_TRUE(slowed) << "the worker never joined a job";
  for (int call = 0; call < 8; ++call) {  // BACKOFF_MIN_JOBS
    Owners owners;
    pthreadpool_parallelize_1d(pool, SlowOnWorkers, &owners, 2, 0);
    EXPECT_TRUE(owners.counts.AllOnce());
    EXPECT_EQ(owners.by_workers.load(), 0) << "call " << call << " after the slow one";
  }
  pthreadpool_destroy(pool);
}

TEST(ThreadPool, DestroyRightAfterCreateAndAfterWork) {
  for (int i = 0; i < 20; ++i) pthreadpool_destroy(pthreadpool_create(2 + i % 3));
  pthreadpool_t pool = pthreadpool_create(2);
  Counts counts(5);
  pthreadpool_parallelize_1d(pool, Hit1d, &counts, counts.hits.size(), 0);
  EXPECT_TRUE(counts.AllOnce());
  pthreadpool_destroy(pool);
}

#endif  // __EMSCRIPTEN__

}  // namespace
