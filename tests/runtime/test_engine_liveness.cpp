// SIDECORE_PEER_TIMEOUT (progress/src/liveness.cpp) on two local shm engines in this process, each the other's
// peer: without doorbells neither knows the other's process id, as with a peer on another node, so only the timeout
// can find a dead one.
//  * a peer that never progresses (as a dead one: it answers no liveness question) is declared dead after the
//    timeout: the receive waiting on it completes with peer_failed naming it and the timeout, and a later send to
//    it fails at once;
//  * a peer that progresses answers the questions and is never declared dead, however long the receive waits;
//  * mode core with SIDECORE_IDLE=spin: an application thread that waits for an eager-sized receive progresses it
//    itself (caller progress) and must still find the silent peer dead;
//  * a peer that was only slow: its clear-to-send for a send that already failed with it is dropped, not answered
//    with the data.
// And the requests the provider still holds when their peer is found dead (complete_held): the slot is freed by the
// second of the owner's read (or drop) and the provider's own completion, once, whichever order they come in.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <sidecore/progress/tag.hpp>

#include "engine_core.hpp"
#include "local_engine.hpp"

namespace {

using namespace sidecore::progress;
using clk = std::chrono::steady_clock;

const std::uint64_t kLivenessTag = sidecore::progress::tag::make(tag::kind::p2p, 0, 11);

TEST(PeerTimeout, ASilentPeerIsDeclaredDeadAfterTheTimeout) {
  auto e = sctest::engine_pair();
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
  auto e = sctest::engine_pair();
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

TEST(PeerTimeout, ASpinningWaiterInModeCoreFindsTheSilentPeerDead) {
  auto e = sctest::engine_pair(idle_policy::spin);
  ASSERT_EQ(e.size(), 2u);
  e[0]->set_peer_timeout(0.2);
  e[0]->start_thread(nullptr);
  char in[8] = {};
  const std::uint64_t h = e[0]->start_recv(in, sizeof in, kLivenessTag, 0, 1, 1, 0);
  std::atomic<bool> done{false};
  completion c{};
  std::thread waiter([&] {
    (void)e[0]->wait(h, c);
    done.store(true);
  });
  const auto until = clk::now() + std::chrono::seconds(5);  // 25 timeouts
  while (!done.load() && clk::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const bool found = done.load();
  if (!found) {  // the waiter never looked: let the peer answer after all, so that it returns
    const char late[8] = {'l', 'a', 't', 'e', 0, 0, 0, 0};
    const std::uint64_t s = e[1]->start_send(late, sizeof late, 0, kLivenessTag, 0, 1, 0);
    while (!done.load()) e[1]->progress();
    if (!is_inline(s)) {
      completion cs{};
      (void)e[1]->wait(s, cs);
    }
  }
  waiter.join();
  e[0]->stop_thread();
  EXPECT_TRUE(found) << "the wait did not end within 5 s";
  EXPECT_EQ(c.result, req_result::peer_failed);
}

// A progressor that always finds work (here a stream of messages to itself through the provider) must still look at
// its peers: engine 1 is silent, and the receive from it fails after the timeout although no progress() call of the
// loop is idle, and every other message is waited for with wait() (a few passes each).
TEST(PeerTimeout, ABusyProgressorStillFindsTheSilentPeerDead) {
  auto e = sctest::engine_pair_with(sctest::local_config("shm", 8192, idle_policy::hybrid, false));
  ASSERT_EQ(e.size(), 2u);
  ASSERT_NO_FATAL_FAILURE(sctest::connect_engines(*e[0], 0, *e[0], 0, kLivenessTag + 2));
  e[0]->set_peer_timeout(0.2);
  char in[8] = {};
  const std::uint64_t h = e[0]->start_recv(in, sizeof in, kLivenessTag, 0, 1, 1, 0);
  std::uint64_t calls = 0, idle = 0, messages = 0;
  const auto until = clk::now() + std::chrono::seconds(3);  // 15 timeouts
  while (e[0]->pending(h) && clk::now() < until) {
    std::uint64_t v = messages++, got = 0;
    const std::uint64_t r = e[0]->start_recv(&got, sizeof got, kLivenessTag + 3, 0, 0, 0, 0);
    const std::uint64_t s = e[0]->start_send(&v, sizeof v, 0, kLivenessTag + 3, 0, 0, 0);
    while ((v & 1) == 0 && (e[0]->pending(r) || (!is_inline(s) && e[0]->pending(s)))) {
      ++calls;
      if (!e[0]->progress()) ++idle;
    }
    completion c{};
    ASSERT_TRUE(e[0]->wait(r, c));
    ASSERT_EQ(got, v);
    if (!is_inline(s)) {
      ASSERT_TRUE(e[0]->wait(s, c));
    }
  }
  completion c{};
  ASSERT_FALSE(e[0]->pending(h)) << "still pending after 3 s: " << calls << " progress() calls, " << idle << " idle";
  ASSERT_TRUE(e[0]->wait(h, c));
  EXPECT_EQ(c.result, req_result::peer_failed);
}

TEST(PeerTimeout, AClearToSendForASendThatFailedWithItsPeerIsDropped) {
  auto e = sctest::engine_pair();
  ASSERT_EQ(e.size(), 2u);
  ASSERT_NO_FATAL_FAILURE(sctest::connect_engines(*e[0], 0, *e[1], 1, kLivenessTag + 1));
  ASSERT_NO_FATAL_FAILURE(sctest::connect_engines(*e[1], 1, *e[0], 0, kLivenessTag + 1));
  e[0]->set_peer_timeout(0.2);
  std::vector<char> out(64 << 10, 'r');  // rendezvous: its ready-to-send goes, the data waits for a clear-to-send
  const std::uint64_t s = e[0]->start_send(out.data(), out.size(), 1, kLivenessTag, 1, 0, 0);
  ASSERT_TRUE(sctest::progress_until(*e[0], [&] { return !e[0]->pending(s); }));  // engine 1 found dead
  // Engine 1 was only slow: it takes the ready-to-send now and clears engine 0 to send.
  std::vector<char> in(out.size(), 0);
  const std::uint64_t r = e[1]->start_recv(in.data(), in.size(), kLivenessTag, 0, 0, 0, 0);
  const std::uint64_t dropped = e[0]->stats().dropped;
  const auto until = clk::now() + std::chrono::milliseconds(300);
  while (clk::now() < until) {
    e[1]->progress();
    e[0]->progress();
  }
  EXPECT_EQ(e[0]->stats().dropped, dropped + 1) << "the clear-to-send names a send that failed: dropped";
  EXPECT_TRUE(e[1]->pending(r)) << "no data may follow a send its owner was told failed";
  EXPECT_EQ(in[0], 0);
  completion c{};
  ASSERT_TRUE(e[0]->wait(s, c));
  EXPECT_EQ(c.result, req_result::peer_failed);
  EXPECT_TRUE(e[1]->cancel(r));
}

// A 6 KiB eager send to itself through the provider (fi_tsendv: above shm's inject size, so the provider holds it
// until its completion), failed with its peer while the provider holds it.
struct held_send {
  std::unique_ptr<engine> e = sctest::local_engine("shm", 8192, idle_policy::hybrid, false);
  std::vector<char> out = std::vector<char>(6 << 10, 's');
  std::uint64_t h = 0;

  void start() {
    ASSERT_TRUE(e);
    ASSERT_NO_FATAL_FAILURE(sctest::connect_engines(*e, 0, *e, 0, kLivenessTag + 1));
    h = e->start_send(out.data(), out.size(), 0, kLivenessTag, 0, 0, 0);
    ASSERT_FALSE(is_inline(h));
    engine_core& c = core_of(*e);
    req* r = c.pool.lookup(h);
    ASSERT_NE(r, nullptr);
    ASSERT_TRUE(r->posted) << "the provider has it";
    c.fail_in_flight_with_peer(r);
    ASSERT_FALSE(e->pending(h)) << "completed to its owner with peer_failed";
  }
};

TEST(HeldByTheProvider, ASendReadBeforeTheProvidersCompletionIsFreedByThatCompletion) {
  held_send t;
  ASSERT_NO_FATAL_FAILURE(t.start());
  completion c{};
  ASSERT_EQ(t.e->test(t.h, c), test_result::done);
  EXPECT_EQ(c.result, req_result::peer_failed);
  EXPECT_EQ(t.e->requests_in_use(), 1u) << "the provider still holds its context";
  EXPECT_TRUE(sctest::progress_until(*t.e, [&] { return t.e->requests_in_use() == 0; }))
      << "the provider's completion frees the slot";
}

TEST(HeldByTheProvider, ASendReadAfterTheProvidersCompletionIsFreedByTheRead) {
  held_send t;
  ASSERT_NO_FATAL_FAILURE(t.start());
  const std::uint64_t before = t.e->stats().completions;
  const auto until = clk::now() + std::chrono::milliseconds(100);
  while (clk::now() < until) t.e->progress();
  EXPECT_EQ(t.e->stats().completions, before) << "the provider's completion completes nothing again";
  EXPECT_EQ(t.e->requests_in_use(), 1u) << "the owner has not read it";
  completion c{};
  ASSERT_EQ(t.e->test(t.h, c), test_result::done);
  EXPECT_EQ(c.result, req_result::peer_failed);
  EXPECT_EQ(t.e->requests_in_use(), 0u);
}

TEST(HeldByTheProvider, ASendDroppedUnreadKeepsItsSlotUntilTheProvidersCompletion) {
  held_send t;
  ASSERT_NO_FATAL_FAILURE(t.start());
  t.e->orphan(t.h);
  EXPECT_EQ(t.e->requests_in_use(), 1u) << "the provider still holds its context: the slot is not free yet";
  EXPECT_TRUE(sctest::progress_until(*t.e, [&] { return t.e->requests_in_use() == 0; }));
  // The slot serves a new exchange as any other.
  std::uint64_t v = 5, got = 0;
  const std::uint64_t r = t.e->start_recv(&got, sizeof got, kLivenessTag + 1, 0, 0, 0, 0);
  const std::uint64_t s = t.e->start_send(&v, sizeof v, 0, kLivenessTag + 1, 0, 0, 0);
  completion c{};
  if (!is_inline(s)) {
    ASSERT_TRUE(t.e->wait(s, c));
  }
  ASSERT_TRUE(t.e->wait(r, c));
  EXPECT_EQ(c.result, req_result::ok);
  EXPECT_EQ(got, 5u);
  EXPECT_TRUE(sctest::progress_until(*t.e, [&] { return t.e->requests_in_use() == 0; }));
}

}  // namespace
