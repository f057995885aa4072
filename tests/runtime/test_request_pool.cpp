// The request pool (progress/src/request_pool.hpp): acquire, release, stale handles,
// generations, growth past one chunk, and concurrent acquire/release.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

#include "request_pool.hpp"

namespace {

using sidecore::progress::req;
using sidecore::progress::req_state;
using sidecore::progress::request_pool;

std::uint32_t state_of(const req* r) { return r->state.load(); }
constexpr auto pending = static_cast<std::uint32_t>(req_state::pending);
constexpr auto free_ = static_cast<std::uint32_t>(req_state::free);

TEST(RequestPool, AcquireGivesAPendingSlotAndAHandleThatFindsIt) {
  request_pool pool;
  EXPECT_EQ(pool.in_use(), 0u);
  req* r = pool.acquire();
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(state_of(r), pending);
  const std::uint64_t h = request_pool::handle_of(r);
  EXPECT_NE(h, 0u);
  EXPECT_EQ(static_cast<std::uint32_t>(h), r->index + 1) << "low half: index + 1";
  EXPECT_EQ(pool.lookup(h), r);
  EXPECT_EQ(pool.at(r->index), r);
  EXPECT_EQ(pool.in_use(), 1u);
  pool.release(r);
  EXPECT_EQ(pool.in_use(), 0u);
}

TEST(RequestPool, ReleasedHandleIsStaleAndTheGenerationChanges) {
  request_pool pool;
  req* r = pool.acquire();
  const std::uint64_t h1 = request_pool::handle_of(r);
  const std::uint32_t gen1 = r->gen.load();
  pool.release(r);
  EXPECT_EQ(state_of(r), free_);
  EXPECT_NE(r->gen.load(), gen1);
  EXPECT_EQ(pool.lookup(h1), nullptr) << "a released handle must be stale";
  // The slot is reused (LIFO free list): the new handle differs, the old one stays stale.
  req* again = pool.acquire();
  ASSERT_EQ(again, r);
  const std::uint64_t h2 = request_pool::handle_of(again);
  EXPECT_NE(h2, h1);
  EXPECT_EQ(pool.lookup(h2), again);
  EXPECT_EQ(pool.lookup(h1), nullptr) << "an old handle must not alias the request that reuses its slot";
  pool.release(again);
  EXPECT_EQ(pool.lookup(h2), nullptr);
}

// Bit 63 of a slot's handle stays clear whatever its generation (handles with it set are inline sends, which
// have no slot), and an inline handle never finds a slot.
TEST(RequestPool, GenerationsWrapBelowTheInlineBit) {
  using sidecore::progress::inline_bytes;
  using sidecore::progress::inline_handle;
  using sidecore::progress::is_inline;
  request_pool pool;
  req* r = pool.acquire();
  r->gen.store(request_pool::gen_mask);  // the last generation before the wrap
  const std::uint64_t h1 = request_pool::handle_of(r);
  EXPECT_FALSE(is_inline(h1));
  pool.release(r);
  req* again = pool.acquire();
  ASSERT_EQ(again, r);
  const std::uint64_t h2 = request_pool::handle_of(again);
  EXPECT_FALSE(is_inline(h2)) << std::hex << h2;
  EXPECT_NE(h2, h1);
  EXPECT_EQ(pool.lookup(h2), again);
  EXPECT_EQ(pool.lookup(h1), nullptr);
  const std::uint64_t in = inline_handle(8);
  EXPECT_TRUE(is_inline(in));
  EXPECT_EQ(inline_bytes(in), 8u);
  EXPECT_TRUE(is_inline(inline_handle(0)));
  EXPECT_FALSE(is_inline(~std::uint64_t{0})) << "~0 is the runtime's consumed mark";
  EXPECT_EQ(pool.lookup(in), nullptr);
  EXPECT_EQ(pool.lookup(inline_handle(again->index + 1)), nullptr) << "its low half names a live slot";
  pool.release(again);
}

TEST(RequestPool, MalformedHandlesAreRejected) {
  request_pool pool;
  EXPECT_EQ(pool.lookup(0), nullptr);
  EXPECT_EQ(pool.lookup(12345), nullptr) << "nothing allocated yet";
  req* r = pool.acquire();
  const std::uint64_t h = request_pool::handle_of(r);
  EXPECT_EQ(pool.lookup(h + (1ULL << 32)), nullptr) << "wrong generation";
  EXPECT_EQ(pool.lookup(h & 0xffffffff00000000ULL), nullptr) << "index 0 is no request";
  EXPECT_EQ(pool.lookup((h & 0xffffffff00000000ULL) | 0xffffffffULL), nullptr) << "index past the allocated slots";
  EXPECT_EQ(pool.lookup((h & 0xffffffff00000000ULL) | (request_pool::chunk_size + 1)), nullptr)
      << "index in a chunk not allocated";
  // A free slot of the right generation is no request either.
  req* other = pool.acquire();
  const std::uint64_t ho = request_pool::handle_of(other);
  pool.release(other);
  EXPECT_EQ(pool.lookup(ho), nullptr);
  pool.release(r);
}

TEST(RequestPool, ManyGenerationsOfOneSlotAreAllDistinct) {
  request_pool pool;
  std::set<std::uint64_t> handles;
  for (int i = 0; i < 1000; ++i) {
    req* r = pool.acquire();
    EXPECT_TRUE(handles.insert(request_pool::handle_of(r)).second) << "handle reused at round " << i;
    pool.release(r);
  }
  for (std::uint64_t h : handles) EXPECT_EQ(pool.lookup(h), nullptr);
}

TEST(RequestPool, GrowsPastOneChunk) {
  request_pool pool;
  const std::size_t n = request_pool::chunk_size * 2 + 17;
  std::vector<req*> rs;
  std::set<std::uint32_t> indices;
  std::vector<std::uint64_t> hs;
  for (std::size_t i = 0; i < n; ++i) {
    req* r = pool.acquire();
    ASSERT_NE(r, nullptr) << "at " << i;
    EXPECT_TRUE(indices.insert(r->index).second) << "slot " << r->index << " given twice";
    rs.push_back(r);
    hs.push_back(request_pool::handle_of(r));
  }
  EXPECT_EQ(pool.in_use(), n);
  EXPECT_EQ(*indices.rbegin(), n - 1) << "indices are dense";
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(pool.lookup(hs[i]), rs[i]);
    EXPECT_EQ(pool.at(rs[i]->index), rs[i]);
  }
  for (req* r : rs) pool.release(r);
  EXPECT_EQ(pool.in_use(), 0u);
  for (std::uint64_t h : hs) EXPECT_EQ(pool.lookup(h), nullptr);
  // Reacquiring reuses the slots: no new chunk.
  std::vector<req*> again;
  for (std::size_t i = 0; i < n; ++i) again.push_back(pool.acquire());
  for (req* r : again) EXPECT_LT(r->index, 3 * request_pool::chunk_size);
  for (req* r : again) pool.release(r);
}

// Threads acquire and release in bursts; every slot is held by at most one thread at a time, and nothing leaks.
TEST(RequestPool, ConcurrentAcquireReleaseNeverGivesASlotTwice) {
  request_pool pool;
  constexpr int threads = 4, rounds = 3000, burst = 40;
  constexpr std::size_t max_slots = 8 * request_pool::chunk_size;
  std::vector<std::atomic<int>> owner(max_slots);
  for (auto& o : owner) o.store(-1);
  std::atomic<int> double_owned{0}, bad_state{0}, stale_ok{0}, out_of_range{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < threads; ++t) {
    ts.emplace_back([&, t] {
      std::vector<req*> held;
      std::vector<std::uint64_t> hs;
      for (int round = 0; round < rounds; ++round) {
        const int k = 1 + (round * 7 + t) % burst;
        for (int i = 0; i < k; ++i) {
          req* r = pool.acquire();
          if (r->index >= max_slots) {
            ++out_of_range;
            continue;
          }
          int expected = -1;
          if (!owner[r->index].compare_exchange_strong(expected, t)) ++double_owned;
          if (r->state.load() != pending) ++bad_state;
          held.push_back(r);
          hs.push_back(request_pool::handle_of(r));
        }
        for (std::size_t i = 0; i < held.size(); ++i) {
          if (pool.lookup(hs[i]) != held[i]) ++bad_state;
          owner[held[i]->index].store(-1);
          pool.release(held[i]);
          if (pool.lookup(hs[i]) == held[i]) ++stale_ok;  // may be reacquired by another thread: then it differs
        }
        held.clear();
        hs.clear();
      }
    });
  }
  for (auto& th : ts) th.join();
  EXPECT_EQ(double_owned.load(), 0) << "a slot was handed to two holders at once";
  EXPECT_EQ(bad_state.load(), 0);
  EXPECT_EQ(stale_ok.load(), 0) << "a released handle still found its slot";
  EXPECT_EQ(out_of_range.load(), 0) << "the pool grew far beyond what was ever held at once";
  EXPECT_EQ(pool.in_use(), 0u);
}

}  // namespace
