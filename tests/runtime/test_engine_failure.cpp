// Failures on the progress path (progress/src/failure.cpp), on a local shm engine connected to itself:
//  * a real provider error on one request: a peer that sends more rendezvous data than the clear-to-send asked
//    for (two raw injects stand in for that peer); the provider truncates it, the request completes with a
//    transport error and a sentence naming what failed, and the engine goes on;
//  * a real provider error on a receive buffer (a message longer than a buffer): dropped, reported, counted;
//  * a message of another wire version: dropped with one warning, and the traffic after it goes on;
//  * a failure of the whole engine, raised under the progress lock by a schedule's advance step (libfabric gives no
//    way to break a completion queue on purpose): every request in flight and every later one completes with a
//    transport error, it is reported once, and in mode core the progress thread goes on until it is stopped.
// libfabric 1.17 does not check addresses: a send to an address index the AV never had is accepted by shm (and
// never completes) and crashes tcp;ofi_rxm, so the runtime's rank checks are what keep those away.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <sidecore/progress/tag.hpp>

#include "engine_core.hpp"
#include "local_engine.hpp"

namespace {

using namespace sidecore::progress;

const std::uint64_t kFailureTag = tag::make(tag::kind::p2p, 0, 9);

TEST(EngineFailure, RendezvousDataLongerThanTheClearToSendFailsTheReceiveWithTheProvidersError) {
  auto e = sctest::local_engine("shm", 64);
  ASSERT_TRUE(e);
  char small[16] = {};
  const std::uint64_t h = e->start_recv(small, sizeof small, kFailureTag, 0, 0, 0, 0);
  // The peer's ready-to-send: 100 bytes, its request handle 5 (slot 4).
  const wire_hdr rts = rts_hdr(kFailureTag, 100, 5, 0, 0);
  ASSERT_EQ(sctest::raw_inject(*e, 0, &rts, sizeof rts, ctrl_tag), 0);
  // The receiver posts 16 bytes for it and clears the peer to send them (its clear-to-send names no send of ours:
  // dropped). The peer sends 100.
  ASSERT_TRUE(sctest::progress_until(*e, [&] { return e->stats().dropped == 1; }));
  std::vector<char> data(100, 'x');
  ASSERT_EQ(sctest::raw_inject(*e, 0, data.data(), data.size(), rdv_tag_of(0, 4)), 0);
  completion c{};
  ASSERT_TRUE(e->wait(h, c));
  EXPECT_EQ(c.result, req_result::transport);
  EXPECT_EQ(c.what, failure::error_completion);
  EXPECT_EQ(c.fi_err, FI_ETRUNC);
  const std::string why = e->describe(c);
  EXPECT_NE(why.find("provider 'shm' completed the receive from address 0 with an error"), std::string::npos) << why;
  EXPECT_NE(why.find("(265)"), std::string::npos) << why;
  // The engine goes on: a message to itself still arrives.
  std::uint64_t out = 42, in = 0;
  const std::uint64_t r = e->start_recv(&in, 8, kFailureTag, 0, 0, 0, 0);
  const std::uint64_t s = e->start_send(&out, 8, 0, kFailureTag, 0, 0, 0, false);
  ASSERT_TRUE(e->wait(s, c));
  EXPECT_EQ(c.result, req_result::ok);
  ASSERT_TRUE(e->wait(r, c));
  EXPECT_EQ(c.result, req_result::ok);
  EXPECT_EQ(in, 42u);
}

TEST(EngineFailure, AMessageLongerThanAReceiveBufferIsDroppedAndReported) {
  auto e = sctest::local_engine("shm", 64);
  ASSERT_TRUE(e);
  std::vector<char> big(1000, 'y');
  testing::internal::CaptureStderr();
  ASSERT_EQ(sctest::raw_inject(*e, 0, big.data(), big.size(), ctrl_tag), 0);
  const bool seen = sctest::progress_until(*e, [&] { return e->stats().dropped == 1; });
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(seen);
  EXPECT_NE(err.find("receive buffer error: Truncation error"), std::string::npos) << err;
  std::uint64_t out = 7, in = 0;
  completion c{};
  const std::uint64_t r = e->start_recv(&in, 8, kFailureTag, 0, 0, 0, 0);
  ASSERT_TRUE(e->wait(e->start_send(&out, 8, 0, kFailureTag, 0, 0, 0, false), c));
  ASSERT_TRUE(e->wait(r, c));
  EXPECT_EQ(in, 7u) << "the buffer was posted again";
}

TEST(EngineFailure, AHeaderOfAnotherWireVersionIsDroppedWithOneWarning) {
  auto e = sctest::local_engine();
  ASSERT_TRUE(e);
  std::uint64_t in = 0;
  const std::uint64_t r = e->start_recv(&in, 8, kFailureTag, 0, -1, -1, 0);
  struct {
    wire_hdr h;
    std::uint64_t data;
  } msg{eager_hdr(kFailureTag, 8, 0, 0), 99};
  msg.h.version = wire_version + 1;
  testing::internal::CaptureStderr();
  ASSERT_EQ(sctest::raw_inject(*e, 0, &msg, sizeof msg, ctrl_tag), 0);
  ASSERT_EQ(sctest::raw_inject(*e, 0, &msg, sizeof msg, ctrl_tag), 0);
  const bool seen = sctest::progress_until(*e, [&] { return e->stats().dropped == 2; });
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(seen);
  EXPECT_TRUE(e->pending(r)) << "a message of another version must not match a receive";
  const std::string want = "has wire version " + std::to_string(wire_version + 1) + "; this sidecore speaks version " +
                           std::to_string(wire_version);
  EXPECT_NE(err.find(want), std::string::npos) << err;
  EXPECT_EQ(err.find(want), err.rfind(want)) << "warned once: " << err;
  msg.h.version = wire_version;
  ASSERT_EQ(sctest::raw_inject(*e, 0, &msg, sizeof msg, ctrl_tag), 0);
  completion c{};
  ASSERT_TRUE(e->wait(r, c));
  EXPECT_EQ(c.result, req_result::ok);
  EXPECT_EQ(in, 99u);
}

// A schedule whose first advance fails the engine (under the progress lock, where a completion queue failure is
// met) and whose later advances must not come.
class failing_schedule final : public schedule {
 public:
  step advance(engine_core& e) noexcept override {
    ++advances;
    e.fail_engine("fi_cq_read (injected by the test)", FI_EIO);
    return step::wait;
  }
  void on_child_complete(const completion&, std::uint64_t) noexcept override {}
  void retire() noexcept override { ++retired; }
  int advances = 0, retired = 0;
};

void engine_failure(bool core_mode) {
  auto e = sctest::local_engine("shm", 64);
  ASSERT_TRUE(e);
  if (core_mode) e->start_thread(nullptr);
  // In flight when the engine fails: a posted receive, a receive orphaned by the application, a rendezvous send
  // waiting for its clear-to-send (nobody receives it).
  std::uint64_t a = 0, b = 0;
  std::vector<char> big(1000, 'z');
  const std::uint64_t posted = e->start_recv(&a, 8, kFailureTag, 0, -1, -1, 0);
  const std::uint64_t orphaned = e->start_recv(&b, 8, kFailureTag + 1, 0, -1, -1, 0);
  const std::uint64_t rdv = e->start_send(big.data(), big.size(), 0, kFailureTag + 2, 0, 0, 0);
  e->orphan(orphaned);
  testing::internal::CaptureStderr();
  failing_schedule s;
  const std::uint64_t sh = core_of(*e).start_schedule(s, 0);
  completion c{};
  ASSERT_TRUE(e->wait(sh, c));
  EXPECT_EQ(c.result, req_result::transport) << "the schedule's request fails with the engine";
  EXPECT_EQ(s.advances, 1);
  EXPECT_EQ(s.retired, 1);
  for (std::uint64_t h : {posted, rdv}) {
    ASSERT_TRUE(e->wait(h, c));
    EXPECT_EQ(c.result, req_result::transport);
    EXPECT_EQ(c.what, failure::engine);
    const std::string why = e->describe(c);
    EXPECT_NE(why.find("fi_cq_read (injected by the test) failed on provider 'shm'"), std::string::npos) << why;
    EXPECT_NE(why.find("the engine stopped while the request was in flight"), std::string::npos) << why;
  }
  EXPECT_TRUE(sctest::progress_until(*e, [&] { return e->requests_in_use() == 0; })) << "the orphan was freed";
  // A schedule started after the failure fails without an advance, and is retired (its executor gets it back).
  failing_schedule later_schedule;
  const std::uint64_t lh = core_of(*e).start_schedule(later_schedule, 0);
  ASSERT_TRUE(e->wait(lh, c));
  EXPECT_EQ(c.result, req_result::transport);
  EXPECT_EQ(later_schedule.advances, 0);
  EXPECT_EQ(later_schedule.retired, 1);
  // Later requests fail as they come, inline sends included.
  std::uint64_t v = 1;
  const std::uint64_t later = e->start_recv(&v, 8, kFailureTag, 0, -1, -1, 0);
  ASSERT_TRUE(e->wait(later, c));
  EXPECT_EQ(c.result, req_result::transport);
  const std::uint64_t inl = e->start_send(&v, 8, 0, kFailureTag, 0, 0, 0);
  EXPECT_FALSE(is_inline(inl)) << "no inject once the engine failed";
  ASSERT_TRUE(e->wait(inl, c));
  EXPECT_EQ(c.result, req_result::transport);
  if (core_mode) {
    EXPECT_TRUE(e->thread_running()) << "the progress thread goes on";
    e->stop_thread();
  }
  const std::string err = testing::internal::GetCapturedStderr();
  const std::string said = "sidecore: error: fi_cq_read (injected by the test) failed";
  EXPECT_NE(err.find(said), std::string::npos) << err;
  EXPECT_EQ(err.find(said), err.rfind(said)) << "reported once: " << err;
}

TEST(EngineFailure, AnEngineFailureFailsWhatIsInFlightAndWhatComesAfterModeOff) { engine_failure(false); }

// A schedule with one child receive that nothing matches; it counts what reaches it after it was retired.
class open_child_schedule final : public schedule {
 public:
  step advance(engine_core& e) noexcept override {
    if (posted) return children == 1 ? step::done : step::wait;
    posted = true;
    if (!e.start_child_recv(*this, 1, &in, sizeof in, 0, kFailureTag + 3, 0)) return step::done;
    return step::wait;
  }
  void on_child_complete(const completion&, std::uint64_t) noexcept override {
    ++children;
    if (retired) ++after_retire;
  }
  void retire() noexcept override { ++retired; }
  std::uint64_t in = 0;
  bool posted = false;
  int children = 0, retired = 0, after_retire = 0;
};

// The engine fails in a pass before its schedule-advance step (a receive buffer that cannot be posted again, say)
// while a schedule with a child in flight is ready: the child fails first, then the schedule finishes; nothing
// reaches a retired schedule.
TEST(EngineFailure, AnEngineFailureBeforeTheAdvanceStepFailsTheChildrenBeforeTheirSchedule) {
  auto e = sctest::local_engine("shm", 64);
  ASSERT_TRUE(e);
  engine_core& core = core_of(*e);
  open_child_schedule s;
  const std::uint64_t h = core.start_schedule(s, 0);
  ASSERT_TRUE(sctest::progress_until(*e, [&] { return s.posted; }));
  testing::internal::CaptureStderr();
  core.ready.push(&s);  // ready again (a child of it completed, say) when the engine fails
  core.fail_engine("fi_trecv (injected by the test)", FI_EIO);
  (void)core.run_ready();
  (void)e->progress();
  (void)testing::internal::GetCapturedStderr();
  completion c{};
  ASSERT_TRUE(e->wait(h, c));
  EXPECT_EQ(c.result, req_result::transport);
  EXPECT_EQ(s.retired, 1);
  EXPECT_EQ(s.children, 1) << "its child failed with the engine";
  EXPECT_EQ(s.after_retire, 0) << "nothing may reach a retired schedule";
  EXPECT_TRUE(sctest::progress_until(*e, [&] { return e->requests_in_use() == 0; }));
}
TEST(EngineFailure, AnEngineFailureFailsWhatIsInFlightAndWhatComesAfterModeCore) { engine_failure(true); }

}  // namespace
