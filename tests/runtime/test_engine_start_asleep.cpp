// A collective started while the progress thread sleeps (mode core; submit.cpp, start_while_asleep): the application
// thread starts it itself, posting its first round, and leaves the thread asleep when all that is left waits for a
// peer, whose reply wakes it; a send whose completion only a progress pass reads wakes it at once; a waiter or tester
// of a request still pending wakes it (pay_owed_wake). Engine 0 runs a progress thread that sleeps up to 1 s
// (block_us); engine 1 is progressed by the test. A step the test expects to be woken for must therefore be done
// well before the thread's own timeout: the checks allow half of it, for a wake-up of microseconds.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include <sidecore/progress/tag.hpp>

#include "engine_core.hpp"
#include "local_engine.hpp"

namespace {

using namespace sidecore::progress;
using clk = std::chrono::steady_clock;

constexpr std::uint32_t long_sleep_us = 1'000'000;     // the progress thread's timeout: the most block_us may be
constexpr auto woken_within = std::chrono::milliseconds(500);  // a wake-up the test expects, well before it

// One round: a send of `send_bytes` to the peer (none if 0) and a receive of 8 bytes from it (none if !recv); with
// `step_bytes`, first a local step that long (done where the engine lets it be: caller_may_do); `may_start`: what
// caller_may_start says.
class one_round final : public schedule {
 public:
  one_round(std::size_t send_bytes, bool recv, std::size_t step_bytes = 0, bool may_start = true)
      : sbuf_(send_bytes, 'x'), recv_(recv), step_bytes_(step_bytes), may_start_(may_start) {}

  [[nodiscard]] bool caller_may_start() const noexcept override { return may_start_; }

  step advance(engine_core& e) noexcept override {
    if (step_bytes_ != 0) {
      if (!e.caller_may_do(step_bytes_)) {
        e.leave_to_thread(*this);
        return step::wait;
      }
      step_thread = std::this_thread::get_id();
      step_bytes_ = 0;
    }
    if (advances.fetch_add(1) == 0) {
      first_thread = std::this_thread::get_id();
      first_lock_word = e.lock.word.load(std::memory_order_relaxed);
      const std::uint64_t t = tag::make(tag::kind::collective, 0, 7);
      if (recv_) {
        ++in_flight_;
        if (!e.start_child_recv(*this, 1, &got, sizeof got, 1, t, 0)) bad = "no slot for the receive";
      }
      if (!sbuf_.empty()) {
        ++in_flight_;
        if (!e.start_child_send(*this, 2, sbuf_.data(), sbuf_.size(), 1, t, 0)) bad = "no slot for the send";
      }
    }
    return in_flight_ == 0 || bad ? step::done : step::wait;
  }
  void on_child_complete(const completion& c, std::uint64_t) noexcept override {
    --in_flight_;
    if (c.result != req_result::ok) bad = "a child failed";
  }
  [[nodiscard]] req_result result() const noexcept override { return bad ? req_result::transport : req_result::ok; }
  void retire() noexcept override { retired.store(true, std::memory_order_release); }

  std::atomic<int> advances{0};
  std::atomic<bool> retired{false};
  std::thread::id first_thread, step_thread;
  std::uint32_t first_lock_word = 0;
  std::uint64_t got = 0;
  const char* bad = nullptr;

 private:
  std::vector<char> sbuf_;
  bool recv_;
  std::size_t step_bytes_;
  bool may_start_;
  int in_flight_ = 0;
};

// Engine 0 (mode core, its thread asleep) and engine 1 (mode off), each the other's peer, connected. `ring`: engine 1
// knows engine 0's doorbell (a message it sends wakes engine 0's sleeping thread), as ranks of one node do.
// `same_node` false: engine 0 has no doorbell for engine 1, as for another node's rank.
struct sleeping_pair {
  doorbell bell0, bell1;
  std::vector<std::unique_ptr<engine>> e;

  explicit sleeping_pair(bool ring, bool caller_progress = true, bool same_node = true) {
    engine_config cfg = sctest::local_config("shm", 8192, idle_policy::block);
    cfg.block_us = long_sleep_us;
    cfg.caller_progress = caller_progress;
    e = sctest::engine_pair_with(cfg);
    if (e.empty()) return;
    e[0]->set_doorbells(&bell0, {&bell0, same_node ? &bell1 : nullptr});
    e[1]->set_doorbells(&bell1, {ring ? &bell0 : nullptr, &bell1});
    sctest::connect_engines(*e[0], 0, *e[1], 1, tag::make(tag::kind::internal, 0, 1));
    sctest::connect_engines(*e[1], 1, *e[0], 0, tag::make(tag::kind::internal, 0, 2));
    e[0]->start_thread({});
  }
  ~sleeping_pair() {
    if (!e.empty()) e[0]->stop_thread();
  }
  engine_core& core0() { return core_of(*e[0]); }
  // Both engines open, and engine 0's progress thread asleep (waited for, 10 s at most).
  bool ready() {
    if (e.empty()) return false;
    const auto until = clk::now() + std::chrono::seconds(10);
    while (core0().bells.mine->sleepers.load() == 0)
      if (clk::now() > until) return false;
    return true;
  }
  // Engine 1 sends engine 0 the 8-byte reply of one_round, progressed until it went.
  void reply() {
    std::uint64_t v = 42;
    const std::uint64_t h = e[1]->start_send(&v, sizeof v, 0, tag::make(tag::kind::collective, 0, 7), 0, 1, 0);
    if (is_inline(h)) return;
    ASSERT_TRUE(sctest::progress_until(*e[1], [&] { return !e[1]->pending(h); }));
    completion c{};
    ASSERT_TRUE(e[1]->wait(h, c));
  }
  // Engine 1 receives what one_round sent (`bytes`), progressed until it came.
  void take(std::size_t bytes) {
    std::vector<char> buf(bytes);
    const std::uint64_t h = e[1]->start_recv(buf.data(), bytes, tag::make(tag::kind::collective, 0, 7), 0, 0, 0, 0);
    ASSERT_TRUE(sctest::progress_until(*e[1], [&] { return !e[1]->pending(h); }));
    completion c{};
    ASSERT_TRUE(e[1]->wait(h, c));
    EXPECT_EQ(c.bytes, bytes);
    EXPECT_EQ(buf.back(), 'x');
  }
};

// Until the schedule retired, without touching engine 0 (whose waits and tests would wake its thread).
bool retires_within(one_round& s, clk::duration d) {
  const auto until = clk::now() + d;
  while (!s.retired.load(std::memory_order_acquire))
    if (clk::now() > until) return false;
  return true;
}

// Engine 0 starts `s` (an 8-byte send) and waits for it: its progress thread, not the caller, did the first advance
// (`why` says why); engine 1 takes the send.
void thread_starts(sleeping_pair& p, one_round& s, const char* why) {
  const std::uint64_t h = p.core0().start_schedule(s, 0);
  completion c{};
  ASSERT_TRUE(p.e[0]->wait(h, c));
  EXPECT_NE(s.first_thread, std::this_thread::get_id()) << why;
  EXPECT_EQ(s.first_lock_word, progress_lock::thread);
  p.take(8);
}

TEST(EngineStartAsleep, TheCallerPostsTheFirstRoundAndThePeersReplyWakesTheThread) {
  sleeping_pair p(true);
  ASSERT_TRUE(p.ready());
  one_round s(8, true);  // an injected 8-byte send (done at once) and a receive of the peer's reply
  const std::uint64_t h = p.core0().start_schedule(s, 0);
  EXPECT_EQ(s.first_thread, std::this_thread::get_id()) << "the calling thread starts the schedule";
  EXPECT_EQ(s.first_lock_word, progress_lock::caller);
  EXPECT_EQ(p.core0().wake_owed.load(), 1u) << "nothing for the thread but the peer's reply: left asleep";
  p.take(8);  // the send went out without the progress thread
  const auto t0 = clk::now();
  p.reply();
  EXPECT_TRUE(retires_within(s, woken_within)) << "the peer's reply did not wake the progress thread";
  EXPECT_LT(clk::now() - t0, woken_within);
  completion c{};
  ASSERT_TRUE(p.e[0]->wait(h, c));
  EXPECT_EQ(s.bad, nullptr) << s.bad;
  EXPECT_EQ(s.got, 42u);
  EXPECT_EQ(c.result, req_result::ok);
}

TEST(EngineStartAsleep, ASendOnlyAProgressPassCompletesWakesTheThreadAtOnce) {
  sleeping_pair p(false);  // no ring from the peer: only the start itself can wake the thread in time
  ASSERT_TRUE(p.ready());
  const std::size_t bytes = 6000;  // eager (eager_max 8192), larger than an inject: the provider completes it
  ASSERT_GT(hdr_size + bytes, p.e[0]->inject_size());
  one_round s(bytes, false);
  const std::uint32_t seq = p.core0().bells.mine->seq.load();
  const std::uint64_t h = p.core0().start_schedule(s, 0);
  EXPECT_EQ(s.first_thread, std::this_thread::get_id());
  EXPECT_EQ(p.core0().wake_owed.load(), 0u) << "a send in the provider needs the thread: woken at once";
  EXPECT_NE(p.core0().bells.mine->seq.load(), seq) << "the start did not ring the thread's doorbell";
  p.take(bytes);
  completion c{};
  ASSERT_TRUE(p.e[0]->wait(h, c));
  EXPECT_EQ(s.bad, nullptr) << s.bad;
}

TEST(EngineStartAsleep, AChildWithAnotherNodesRankWakesTheThreadAtOnce) {
  sleeping_pair p(false, true, false);
  ASSERT_TRUE(p.ready());
  one_round s(0, true);  // a receive only: on this node the reply would ring; from another node nothing does
  const std::uint32_t seq = p.core0().bells.mine->seq.load();
  const std::uint64_t h = p.core0().start_schedule(s, 0);
  EXPECT_EQ(s.first_thread, std::this_thread::get_id());
  EXPECT_EQ(p.core0().wake_owed.load(), 0u);
  EXPECT_NE(p.core0().bells.mine->seq.load(), seq) << "the start did not ring the thread's doorbell";
  p.reply();
  completion c{};
  ASSERT_TRUE(p.e[0]->wait(h, c));
  EXPECT_EQ(s.got, 42u);
}

TEST(EngineStartAsleep, AScheduleThatMayNotBeStartedByTheCallerIsStartedByTheThread) {
  sleeping_pair p(true);
  ASSERT_TRUE(p.ready());
  one_round s(8, false, 0, false);
  thread_starts(p, s, "caller_may_start said no");
}

TEST(EngineStartAsleep, ALocalStepAboveTheCallersShareIsLeftToTheThread) {
  for (const std::size_t step : {engine_core::caller_step_max, engine_core::caller_step_max + 1}) {
    sleeping_pair p(false);  // nothing rings: only the start can wake the thread for the step
    ASSERT_TRUE(p.ready());
    one_round s(8, false, step);
    const std::uint64_t h = p.core0().start_schedule(s, 0);
    const bool mine = step <= engine_core::caller_step_max;
    EXPECT_EQ(p.core0().wake_owed.load(), mine ? 1u : 0u) << step << " bytes";
    EXPECT_TRUE(retires_within(s, woken_within)) << step << " bytes";
    completion c{};
    ASSERT_TRUE(p.e[0]->wait(h, c));
    EXPECT_EQ(s.step_thread == std::this_thread::get_id(), mine) << step << " bytes";
    EXPECT_EQ(s.first_thread == std::this_thread::get_id(), mine) << step << " bytes: the rest goes with the step";
    p.take(8);
  }
}

// A peer that does not ring (here: engine 1 lacks engine 0's doorbell): the start leaves the thread asleep (only a
// receive pending), and the application's wait, test or pending query on the request wakes it.
enum class looks { wait, test, pending };

class EngineStartAsleepWaiter : public ::testing::TestWithParam<looks> {};

TEST_P(EngineStartAsleepWaiter, WakesTheThreadTheStartLeftAsleep) {
  sleeping_pair p(false);
  ASSERT_TRUE(p.ready());
  one_round s(0, true);
  const std::uint64_t h = p.core0().start_schedule(s, 0);
  EXPECT_EQ(s.first_thread, std::this_thread::get_id());
  EXPECT_EQ(p.core0().wake_owed.load(), 1u);
  p.reply();  // arrives, but nobody rings engine 0
  const auto t0 = clk::now();
  completion c{};
  switch (GetParam()) {
    case looks::wait: ASSERT_TRUE(p.e[0]->wait(h, c)); break;
    case looks::test:
      while (p.e[0]->test(h, c) == test_result::pending) {
      }
      break;
    case looks::pending:
      while (p.e[0]->pending(h)) {
      }
      ASSERT_TRUE(p.e[0]->wait(h, c));
      break;
  }
  EXPECT_LT(clk::now() - t0, woken_within) << "the waiter did not wake the progress thread";
  EXPECT_EQ(p.core0().wake_owed.load(), 0u);
  EXPECT_EQ(s.bad, nullptr) << s.bad;
  EXPECT_EQ(s.got, 42u);
  EXPECT_EQ(c.result, req_result::ok);
}

INSTANTIATE_TEST_SUITE_P(Looks, EngineStartAsleepWaiter, ::testing::Values(looks::wait, looks::test, looks::pending),
                         [](const auto& p) {
                           switch (p.param) {
                             case looks::wait: return "wait";
                             case looks::test: return "test";
                             case looks::pending: return "pending";
                           }
                           return "other";
                         });

TEST(EngineStartAsleep, WithoutCallerProgressTheThreadStartsIt) {
  sleeping_pair p(true, false);
  ASSERT_TRUE(p.ready());
  one_round s(8, false);
  thread_starts(p, s, "SIDECORE_CALLER_PROGRESS=off: the thread starts it");
}

}  // namespace
