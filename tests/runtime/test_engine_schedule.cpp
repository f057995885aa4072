// Schedules (progress/src/schedule.hpp) on a local shm engine connected to itself: a chain of rounds, each a receive
// and a send to self whose payload is what the previous round received plus one, so every send is triggered by a
// receive's completion. The schedule's advance step must run from the progress pass, under the progress lock: in
// mode off inside the application's wait, in mode core on the progress thread; its children must be freed as they
// complete, and its own request complete once it says done.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include <sidecore/progress/tag.hpp>

#include "engine_core.hpp"
#include "local_engine.hpp"

namespace {

using namespace sidecore::progress;

class ping_chain final : public schedule {
 public:
  ping_chain(int rounds, std::size_t bytes) : rounds_(rounds), sbuf_(bytes, 0), rbuf_(bytes, 0) {}

  step advance(engine_core& e) noexcept override {
    ++advances;
    thread = std::this_thread::get_id();
    lock_word = e.lock.word.load(std::memory_order_relaxed);
    if (in_flight_ > 0) return step::wait;
    if (round_ > 0 && !check_round()) return step::done;
    if (round_ == rounds_) return step::done;
    // Round i: the value is what round i-1 received, plus one (round 0 sends 1).
    std::uint64_t v = round_ == 0 ? 1 : received + 1;
    std::memcpy(sbuf_.data(), &v, sizeof v);
    if (sbuf_.size() > sizeof v) sbuf_.back() = static_cast<char>(v);  // the far end of a large one too
    const std::uint64_t t = tag::make(tag::kind::collective, 0, round_);
    in_flight_ = 2;
    if (!e.start_child_recv(*this, recv_token, rbuf_.data(), rbuf_.size(), 0, t, 0) ||
        !e.start_child_send(*this, send_token, sbuf_.data(), sbuf_.size(), 0, t, 0)) {
      bad = "no request slot for a child";
      return step::done;
    }
    ++round_;
    return step::wait;
  }

  void on_child_complete(const completion& c, std::uint64_t token) noexcept override {
    --in_flight_;
    ++children_done;
    if (c.result != req_result::ok) bad = "a child failed";
    if (token == recv_token && c.bytes != rbuf_.size()) bad = "a receive got the wrong byte count";
  }

  [[nodiscard]] req_result result() const noexcept override {
    return bad ? req_result::transport : req_result::ok;
  }
  void retire() noexcept override { ++retired; }

  // Observed by the test.
  int advances = 0, children_done = 0, retired = 0;
  std::uint64_t received = 0;
  std::thread::id thread;
  std::uint32_t lock_word = 0;
  const char* bad = nullptr;

 private:
  static constexpr std::uint64_t recv_token = 1, send_token = 2;
  bool check_round() noexcept {
    std::uint64_t got = 0;
    std::memcpy(&got, rbuf_.data(), sizeof got);
    const std::uint64_t want = round_ == 1 ? 1 : received + 1;
    if (got != want || (rbuf_.size() > sizeof got && rbuf_.back() != static_cast<char>(want))) {
      bad = "a receive got the wrong data";
      return false;
    }
    received = got;
    return true;
  }
  int rounds_;
  int round_ = 0;
  int in_flight_ = 0;
  std::vector<char> sbuf_, rbuf_;
};

void run_chain(bool core_mode, std::size_t bytes) {
  auto e = sctest::local_engine();
  ASSERT_TRUE(e);
  std::atomic<std::thread::id> progress_thread{};
  if (core_mode) e->start_thread([&] { progress_thread = std::this_thread::get_id(); });
  constexpr int rounds = 20;
  ping_chain s(rounds, bytes);
  const std::uint64_t h = core_of(*e).start_schedule(s, 0);
  EXPECT_EQ(e->kind(h), req_kind::schedule);
  if (!core_mode) {
    EXPECT_EQ(s.advances, 0) << "mode off: nothing advances outside a progress pass";
  }
  completion c{};
  ASSERT_TRUE(e->wait(h, c));
  EXPECT_EQ(s.bad, nullptr) << s.bad;
  EXPECT_EQ(c.result, req_result::ok);
  EXPECT_EQ(c.kind, req_kind::schedule);
  EXPECT_EQ(s.received, static_cast<std::uint64_t>(rounds));
  EXPECT_EQ(s.children_done, 2 * rounds);
  EXPECT_GE(s.advances, rounds + 1);
  EXPECT_EQ(s.retired, 1);
  if (core_mode) {
    EXPECT_EQ(s.thread, progress_thread.load()) << "mode core: the progress thread advances schedules";
    EXPECT_EQ(s.lock_word, progress_lock::thread);
  } else {
    EXPECT_EQ(s.thread, std::this_thread::get_id()) << "mode off: the waiting thread's progress pass advances it";
    EXPECT_EQ(s.lock_word, progress_lock::caller);
  }
  EXPECT_FALSE(e->active(h));
  EXPECT_EQ(e->requests_in_use(), 0u) << "children are freed as they complete";
  if (core_mode) e->stop_thread();
}

TEST(EngineSchedule, ChainOfSelfSendsAdvancesFromTheProgressPassModeOff) { run_chain(false, 8); }
TEST(EngineSchedule, ChainOfSelfSendsAdvancesOnTheProgressThreadModeCore) { run_chain(true, 8); }
// Children larger than eager_max go by rendezvous: ready-to-send, clear-to-send, data, all under the schedule.
TEST(EngineSchedule, RendezvousChildrenModeOff) { run_chain(false, 100000); }
TEST(EngineSchedule, RendezvousChildrenModeCore) { run_chain(true, 100000); }

// A schedule whose last advance starts a child that completes inside the call (an injected send, where the
// provider injects it at once) and then says done: the child's completion listed it as ready again, and it must not
// be advanced once retired (the collectives executor's instances are reused as soon as they retire). Where the send
// does not complete inside the call, the schedule waits for it, as the contract says.
class one_send final : public schedule {
 public:
  step advance(engine_core& e) noexcept override {
    if (retired) advanced_after_retire = true;
    if (++advances == 1 &&
        e.start_child_send(*this, 1, buf, sizeof buf, 0, tag::make(tag::kind::collective, 0, 99), 0) == 0)
      bad = true;
    return completions == 1 ? step::done : step::wait;
  }
  void on_child_complete(const completion& c, std::uint64_t) noexcept override {
    ++completions;
    if (c.result != req_result::ok) bad = true;
  }
  void retire() noexcept override { ++retired; }
  int advances = 0, completions = 0, retired = 0;
  bool bad = false, advanced_after_retire = false;
  char buf[8] = {};
};

TEST(EngineSchedule, AScheduleDoneInTheAdvanceThatCompletedItsLastChildIsNotAdvancedAgain) {
  auto e = sctest::local_engine();
  ASSERT_TRUE(e);
  one_send s;
  const std::uint64_t h = core_of(*e).start_schedule(s, 0);
  completion c{};
  ASSERT_TRUE(e->wait(h, c));
  for (int i = 0; i < 10; ++i) e->progress();
  EXPECT_FALSE(s.bad);
  EXPECT_EQ(s.completions, 1);
  EXPECT_EQ(s.retired, 1);
  EXPECT_FALSE(s.advanced_after_retire) << "advanced again after it retired";
}

// A schedule dropped by the application (its handle orphaned) still runs to its end, and its request is freed then.
TEST(EngineSchedule, AnOrphanedScheduleRunsToItsEndAndIsFreed) {
  auto e = sctest::local_engine();
  ASSERT_TRUE(e);
  ping_chain s(3, 8);
  const std::uint64_t h = core_of(*e).start_schedule(s, 0);
  e->orphan(h);
  EXPECT_TRUE(sctest::progress_until(*e, [&] { return s.retired == 1; }));
  EXPECT_EQ(s.bad, nullptr);
  EXPECT_EQ(e->requests_in_use(), 0u);
}

}  // namespace
