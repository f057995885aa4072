// The bounded MPMC queue (progress/src/mpmc_queue.hpp): FIFO, capacity rounding, full and
// empty, wrap-around, many producers and one consumer with no loss or duplication, and per-producer order.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "mpmc_queue.hpp"

namespace {

using sidecore::progress::mpmc_queue;

TEST(MpmcQueue, CapacityIsRoundedUpToAPowerOfTwo) {
  EXPECT_EQ(mpmc_queue(0).capacity(), 2u);
  EXPECT_EQ(mpmc_queue(1).capacity(), 2u);
  EXPECT_EQ(mpmc_queue(2).capacity(), 2u);
  EXPECT_EQ(mpmc_queue(3).capacity(), 4u);
  EXPECT_EQ(mpmc_queue(1000).capacity(), 1024u);
  EXPECT_EQ(mpmc_queue(4096).capacity(), 4096u);
}

TEST(MpmcQueue, FifoOnOneThread) {
  mpmc_queue q(8);
  std::uint32_t v = 0;
  EXPECT_FALSE(q.pop(v)) << "empty";
  EXPECT_TRUE(q.empty_hint());
  for (std::uint32_t i = 0; i < 5; ++i) ASSERT_TRUE(q.push(i * 10));
  EXPECT_FALSE(q.empty_hint());
  for (std::uint32_t i = 0; i < 5; ++i) {
    ASSERT_TRUE(q.pop(v));
    EXPECT_EQ(v, i * 10);
  }
  EXPECT_FALSE(q.pop(v));
  EXPECT_TRUE(q.empty_hint());
}

TEST(MpmcQueue, FullRefusesAndRecoversAfterAPop) {
  mpmc_queue q(4);
  for (std::uint32_t i = 0; i < 4; ++i) ASSERT_TRUE(q.push(i));
  EXPECT_FALSE(q.push(99)) << "push into a full queue must fail";
  EXPECT_FALSE(q.push(99));
  std::uint32_t v = 0;
  ASSERT_TRUE(q.pop(v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(q.push(4));
  EXPECT_FALSE(q.push(5));
  for (std::uint32_t i = 1; i <= 4; ++i) {
    ASSERT_TRUE(q.pop(v));
    EXPECT_EQ(v, i);
  }
  EXPECT_FALSE(q.pop(v));
}

TEST(MpmcQueue, WrapsAroundManyTimes) {
  mpmc_queue q(4);
  std::uint32_t next_in = 0, next_out = 0, v = 0;
  for (int round = 0; round < 10000; ++round) {
    const int k = 1 + round % 4;
    for (int i = 0; i < k; ++i) ASSERT_TRUE(q.push(next_in++));
    for (int i = 0; i < k; ++i) {
      ASSERT_TRUE(q.pop(v));
      ASSERT_EQ(v, next_out++);
    }
  }
  EXPECT_FALSE(q.pop(v));
}

TEST(MpmcQueue, AllBitsOfTheValueSurvive) {
  mpmc_queue q(4);
  for (std::uint32_t x : {0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu}) {
    ASSERT_TRUE(q.push(x));
    std::uint32_t v = 0;
    ASSERT_TRUE(q.pop(v));
    EXPECT_EQ(v, x);
  }
}

// Many producers, one consumer (the engine's use): every value arrives exactly once, and each producer's values
// arrive in the order it pushed them. A small queue forces the full path.
TEST(MpmcQueue, ManyProducersOneConsumerNoLossNoDuplicationPerProducerOrder) {
  constexpr std::uint32_t producers = 4, per = 100000;
  mpmc_queue q(64);
  std::atomic<int> started{0};
  std::vector<std::thread> ts;
  for (std::uint32_t p = 0; p < producers; ++p) {
    ts.emplace_back([&, p] {
      ++started;
      while (started.load() < static_cast<int>(producers)) {
      }
      for (std::uint32_t i = 0; i < per; ++i)
        while (!q.push(p << 24 | i)) std::this_thread::yield();
    });
  }
  std::vector<std::uint32_t> next(producers, 0);
  std::vector<std::uint8_t> seen(static_cast<std::size_t>(producers) * per, 0);
  std::uint64_t received = 0, duplicates = 0, out_of_order = 0;
  while (received < static_cast<std::uint64_t>(producers) * per) {
    std::uint32_t v = 0;
    if (!q.pop(v)) {
      std::this_thread::yield();
      continue;
    }
    const std::uint32_t p = v >> 24, i = v & 0xffffffu;
    ASSERT_LT(p, producers);
    ASSERT_LT(i, per);
    auto& s = seen[static_cast<std::size_t>(p) * per + i];
    if (s) ++duplicates;
    s = 1;
    if (i != next[p]) ++out_of_order;
    next[p] = i + 1;
    ++received;
  }
  for (auto& t : ts) t.join();
  std::uint32_t v = 0;
  EXPECT_FALSE(q.pop(v)) << "more values than were pushed";
  EXPECT_EQ(duplicates, 0u);
  EXPECT_EQ(out_of_order, 0u);
  for (std::uint32_t p = 0; p < producers; ++p) EXPECT_EQ(next[p], per) << "producer " << p;
}

// Many producers and many consumers: the multiset of values is preserved.
TEST(MpmcQueue, ManyProducersManyConsumersPreserveTheValues) {
  constexpr std::uint32_t producers = 3, consumers = 3, per = 50000;
  mpmc_queue q(16);
  std::vector<std::atomic<std::uint8_t>> seen(static_cast<std::size_t>(producers) * per);
  for (auto& s : seen) s.store(0);
  std::atomic<std::uint64_t> received{0}, duplicates{0};
  const std::uint64_t total = static_cast<std::uint64_t>(producers) * per;
  std::vector<std::thread> ts;
  for (std::uint32_t p = 0; p < producers; ++p)
    ts.emplace_back([&, p] {
      for (std::uint32_t i = 0; i < per; ++i)
        while (!q.push(p * per + i)) std::this_thread::yield();
    });
  for (std::uint32_t c = 0; c < consumers; ++c)
    ts.emplace_back([&] {
      while (received.load() < total) {
        std::uint32_t v = 0;
        if (!q.pop(v)) {
          std::this_thread::yield();
          continue;
        }
        if (seen[v].exchange(1)) ++duplicates;
        ++received;
      }
    });
  for (auto& t : ts) t.join();
  EXPECT_EQ(received.load(), total);
  EXPECT_EQ(duplicates.load(), 0u);
  std::uint64_t missing = 0;
  for (auto& s : seen) missing += s.load() == 0;
  EXPECT_EQ(missing, 0u);
}

}  // namespace
