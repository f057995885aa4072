// The engine's limit on requests in flight (engine_config::max_requests): a start beyond it throws
// too_many_requests, saying how many are in flight, and starts nothing; once some complete, starts succeed again.
// A collective refused so leaves its communicator as it was: the next collective started on it, once slots are
// free, still meets the other rank's (same instance number), and gives the right sum. Local shm engines, mode off.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coll_pair.hpp"

namespace {

using namespace sctest;

constexpr std::uint32_t kLimit = 1024;  // one chunk of the pool
const std::uint64_t kTag = tag::make(tag::kind::p2p, 0, 21);

engine_config limited() {
  engine_config cfg = local_config();
  cfg.max_requests = kLimit;
  return cfg;
}

// Starts receives from address `from` until `n` requests are in flight on e.
std::vector<std::uint64_t> fill(engine& e, int from, std::uint32_t n, std::vector<std::uint64_t>& bufs) {
  std::vector<std::uint64_t> hs;
  bufs.assign(n, 0);
  for (std::uint32_t i = static_cast<std::uint32_t>(e.requests_in_use()); i < n; ++i)
    hs.push_back(e.start_recv(&bufs[i], 8, kTag, 0, from, from, 0));
  return hs;
}

// Cancels and reads the last `k` receives of hs.
void free_some(engine& e, std::vector<std::uint64_t>& hs, std::size_t k) {
  for (std::size_t i = 0; i < k; ++i) {
    const std::uint64_t h = hs.back();
    hs.pop_back();
    ASSERT_TRUE(e.cancel(h));
    completion c{};
    ASSERT_TRUE(e.wait(h, c));
    EXPECT_EQ(c.result, req_result::canceled);
  }
}

TEST(EngineRequestLimit, StartsBeyondTheLimitThrowAndStartNothing) {
  auto e = sctest::local_engine_with(limited());
  ASSERT_TRUE(e);
  std::vector<std::uint64_t> bufs;
  std::vector<std::uint64_t> hs = fill(*e, -1, kLimit, bufs);
  ASSERT_EQ(e->requests_in_use(), kLimit);
  std::uint64_t one = 0;
  try {
    (void)e->start_recv(&one, 8, kTag, 0, -1, -1, 0);
    FAIL() << "a receive beyond the limit was started";
  } catch (const too_many_requests& x) {
    EXPECT_NE(std::string(x.what()).find("1024 requests are in flight"), std::string::npos) << x.what();
  }
  std::vector<char> big(64 << 10, 'x');  // a rendezvous send: it needs a slot
  EXPECT_THROW((void)e->start_send(big.data(), big.size(), 0, kTag, 0, 0, 0, false), too_many_requests);
  EXPECT_EQ(e->requests_in_use(), kLimit) << "a refused start took a slot";
  ASSERT_NO_FATAL_FAILURE(free_some(*e, hs, 1));
  const std::uint64_t h = e->start_recv(&one, 8, kTag, 0, -1, -1, 0);
  EXPECT_NE(h, 0u);
  hs.push_back(h);
  ASSERT_NO_FATAL_FAILURE(free_some(*e, hs, hs.size()));
  EXPECT_EQ(e->requests_in_use(), 0u);
}

TEST(EngineRequestLimit, ARefusedCollectiveLeavesItsCommunicatorAsItWas) {
  coll_pair p(limited());
  ASSERT_NO_FATAL_FAILURE(p.open());
  std::vector<std::uint64_t> bufs;
  std::vector<std::uint64_t> hs = fill(*p.e[0], 1, kLimit, bufs);
  std::vector<double> in0(4, 1.0), out0(4, 0.0), in1(4, 2.0), out1(4, 0.0);
  const auto plan0 = p.c[0]->plan(allreduce_of(4), coll::algorithm::automatic);
  EXPECT_THROW((void)p.x[0]->start(p.c[0], plan0, {in0.data(), out0.data(), {}}, 0), too_many_requests);
  const std::uint64_t h1 = p.x[1]->start(p.c[1], p.c[1]->plan(allreduce_of(4), coll::algorithm::automatic),
                                         {in1.data(), out1.data(), {}}, 0);
  ASSERT_NO_FATAL_FAILURE(free_some(*p.e[0], hs, 16));
  const std::uint64_t h0 = p.x[0]->start(p.c[0], plan0, {in0.data(), out0.data(), {}}, 0);
  ASSERT_NO_FATAL_FAILURE(p.expect_both_ok(h0, h1));
  EXPECT_EQ(out0, std::vector<double>(4, 3.0));
  EXPECT_EQ(out1, std::vector<double>(4, 3.0));
  ASSERT_NO_FATAL_FAILURE(free_some(*p.e[0], hs, hs.size()));
}

}  // namespace
