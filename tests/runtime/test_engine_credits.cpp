// Credits (progress/src/credits.hpp): a flood of messages nobody receives yet holds at most the receiver's eager
// credits of data, the rest going as ready-to-sends; the sends beyond the send credits wait; every message
// still arrives once, in order. On a local shm engine connected to itself through the provider (the self
// path off, so its messages take the wire protocol), in mode off.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include <sidecore/progress/tag.hpp>

#include "engine_core.hpp"
#include "local_engine.hpp"

namespace {

using namespace sidecore::progress;

const std::uint64_t kCreditsTag = tag::make(tag::kind::p2p, 0, 9);

std::unique_ptr<engine> credit_engine(std::size_t send_credits, std::size_t eager_credits) {
  engine_config cfg;
  cfg.provider = "shm";
  cfg.queue_capacity = 64;
  cfg.self_path = false;
  cfg.send_credits = send_credits;
  cfg.eager_credits = eager_credits;
  auto e = engine::open(cfg);
  const std::vector<char> me = e->endpoint_name();
  e->add_addresses(me.data(), 1, 0);
  return e;
}

// The unexpected messages that hold eager data (what eager credits bound), and all of them.
std::pair<std::size_t, std::size_t> unexpected_counts(engine& e) {
  std::size_t eager = 0, all = 0;
  for (const unexpected_msg* m = core_of(e).matching.unexp_head; m; m = m->next, ++all)
    if (m->hdr.type == wire_eager) ++eager;
  return {eager, all};
}

completion wait_one(engine& e, std::uint64_t h) {
  completion c{};
  if (is_inline(h)) {
    c.bytes = inline_bytes(h);
    return c;
  }
  EXPECT_TRUE(e.wait(h, c));
  return c;
}

TEST(EngineCredits, AFloodHoldsAtMostTheEagerCreditsOfDataAndArrivesInOrder) {
  constexpr std::size_t n = 200, len = 64, send_credits = 4, eager_credits = 3;
  auto e = credit_engine(send_credits, eager_credits);
  ASSERT_TRUE(e);
  std::vector<std::vector<char>> out(n, std::vector<char>(len));
  std::vector<std::uint64_t> sends(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < len; ++k) out[i][k] = static_cast<char>(i * 7 + k);
    sends[i] = e->start_send(out[i].data(), len, 0, kCreditsTag, 0, 0, 0);
  }
  // Progress without matching: everything arrives as unexpected, with data for at most the eager credits.
  ASSERT_TRUE(sctest::progress_until(*e, [&] { return unexpected_counts(*e).second == n; }))
      << unexpected_counts(*e).second << " of " << n << " messages arrived";
  EXPECT_LE(unexpected_counts(*e).first, eager_credits);
  EXPECT_GT(e->stats().rendezvous, 0u);
  std::vector<std::vector<char>> in(n, std::vector<char>(len, 0));
  std::vector<std::uint64_t> recvs(n);
  for (std::size_t i = 0; i < n; ++i) recvs[i] = e->start_recv(in[i].data(), len, kCreditsTag, 0, 0, 0, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const completion c = wait_one(*e, recvs[i]);
    EXPECT_EQ(c.result, req_result::ok) << "receive " << i;
    EXPECT_EQ(c.bytes, len) << "receive " << i;
    EXPECT_EQ(in[i], out[i]) << "receive " << i << " has another message's bytes";
  }
  for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(wait_one(*e, sends[i]).result, req_result::ok) << "send " << i;
  // Everything read and taken: the credits are back (what is owed below half a window stays owed).
  EXPECT_TRUE(sctest::progress_until(*e, [&] {
    return core_of(*e).credits.left[0].send + core_of(*e).credits.owed[0].send == send_credits;
  }));
  EXPECT_EQ(unexpected_counts(*e).second, 0u);
}

// Without eager credits every message with data goes by rendezvous and still arrives whole.
TEST(EngineCredits, NoEagerCreditsSendsEverythingByRendezvous) {
  auto e = credit_engine(2, 0);
  ASSERT_TRUE(e);
  const std::uint64_t before = e->stats().rendezvous;
  char out[16] = "sixteen bytes..", in[16] = {};
  const std::uint64_t r = e->start_recv(in, sizeof in, kCreditsTag, 0, 0, 0, 0);
  const std::uint64_t s = e->start_send(out, sizeof out, 0, kCreditsTag, 0, 0, 0);
  EXPECT_EQ(wait_one(*e, r).bytes, sizeof in);
  EXPECT_EQ(wait_one(*e, s).result, req_result::ok);
  EXPECT_EQ(std::memcmp(in, out, sizeof in), 0);
  EXPECT_EQ(e->stats().rendezvous, before + 1);
}

}  // namespace
