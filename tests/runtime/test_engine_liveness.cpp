// SIDECORE_PEER_TIMEOUT (progress/src/liveness.cpp) on two local shm engines in this process, each the other's
// peer: without doorbells neither knows the other's process id, as with a peer on another node, so only the timeout
// can find a dead one.
//  * a peer that never progresses (as a dead one: it answers no liveness question) is declared dead after the
//    timeout: the receive waiting on it completes with peer_failed naming it and the timeout, and a later send to
//    it fails at once;
//  * a peer that progresses answers the questions and is never declared dead, however long the receive waits.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <sidecore/progress/tag.hpp>

#include "local_engine.hpp"

namespace {

using namespace sidecore::progress;
using clk = std::chrono::steady_clock;

const std::uint64_t kLivenessTag = sidecore::progress::tag::make(tag::kind::p2p, 0, 11);

// Engines 0 and 1, each with both addresses (0, 1): each other's peer.
std::vector<std::unique_ptr<engine>> pair_of_engines() {
  std::vector<std::unique_ptr<engine>> e;
  e.push_back(sctest::local_engine());
  e.push_back(sctest::local_engine());
  if (!e[0] || !e[1]) return {};
  std::vector<char> names = e[0]->endpoint_name();
  const std::vector<char> second = e[1]->endpoint_name();
  if (names.size() != second.size()) return {};
  names.insert(names.end(), second.begin(), second.end());
  e[0]->add_addresses(names.data(), 2, 0);
  e[1]->add_addresses(names.data(), 2, 1);
  return e;
}

TEST(PeerTimeout, ASilentPeerIsDeclaredDeadAfterTheTimeout) {
  auto e = pair_of_engines();
  ASSERT_EQ(e.size(), 2u);
  e[0]->set_peer_timeout(0.2);
  char in[8] = {};
  const std::uint64_t h = e[0]->start_recv(in, sizeof in, kLivenessTag, 0, 1, 1, 0);
  const auto t0 = clk::now();
  ASSERT_TRUE(sctest::progress_until(*e[0], [&] { return !e[0]->pending(h); }));
  const double s = std::chrono::duration<double>(clk::now() - t0).count();
  EXPECT_GE(s, 0.15);
  completion c{};
  ASSERT_TRUE(e[0]->wait(h, c));
  EXPECT_EQ(c.result, req_result::peer_failed);
  EXPECT_EQ(c.peer_index, 1);
  const std::string why = e[0]->describe(c);
  EXPECT_NE(why.find("peer rank 1 failed"), std::string::npos) << why;
  EXPECT_NE(why.find("SIDECORE_PEER_TIMEOUT"), std::string::npos) << why;
  EXPECT_EQ(e[0]->failed_peers(), std::vector<int>{1});
  // A later send to it fails when the engine takes it (a rendezvous-sized one: not an inject the provider takes).
  std::vector<char> big(64 << 10, 'x');
  const std::uint64_t s2 = e[0]->start_send(big.data(), big.size(), 1, kLivenessTag, 1, 0, 0);
  completion c2{};
  ASSERT_TRUE(e[0]->wait(s2, c2));
  EXPECT_EQ(c2.result, req_result::peer_failed);
}

TEST(PeerTimeout, APeerThatProgressesAnswersAndStaysAlive) {
  auto e = pair_of_engines();
  ASSERT_EQ(e.size(), 2u);
  e[0]->set_peer_timeout(0.2);
  std::atomic<bool> stop{false};
  std::thread peer([&] {
    while (!stop.load()) e[1]->progress();
  });
  char in[8] = {};
  const std::uint64_t h = e[0]->start_recv(in, sizeof in, kLivenessTag, 0, 1, 1, 0);
  const auto until = clk::now() + std::chrono::milliseconds(800);  // four timeouts
  while (clk::now() < until) e[0]->progress();
  EXPECT_TRUE(e[0]->pending(h));
  EXPECT_EQ(e[0]->failed_peer_count(), 0u);
  const char out[8] = {'a', 'l', 'i', 'v', 'e', 0, 0, 0};
  const std::uint64_t s = e[1]->start_send(out, sizeof out, 0, kLivenessTag, 0, 1, 0);
  completion c{};
  ASSERT_TRUE(e[0]->wait(h, c));
  EXPECT_EQ(c.result, req_result::ok);
  EXPECT_STREQ(in, "alive");
  if (!is_inline(s)) {
    completion cs{};
    EXPECT_TRUE(e[1]->wait(s, cs));
  }
  stop.store(true);
  peer.join();
}

}  // namespace
