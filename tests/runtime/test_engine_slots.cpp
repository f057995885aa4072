// The request state machine as the engine drives it (progress/src/completion.cpp), on a local shm endpoint with no
// peer and no MPI: a posted receive is completed by cancelling it, which lets the test choose the order of the
// two-party exchange between the application dropping its handle (orphan) and the engine completing it.
//   pending -> complete -> (read by wait/test: freed)   the normal wait
//   pending -> complete -> orphan: freed by orphan()     (handle dropped after completion)
//   pending -> orphan -> complete: freed by complete()   (handle dropped while in flight)
// Also the same in core mode (progress thread running), with a tiny submission queue to take the full path.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <rdma/fi_errno.h>

#include <sidecore/progress/engine.hpp>
#include <sidecore/progress/tag.hpp>

#include "engine_core.hpp"
#include "local_engine.hpp"

namespace {

using namespace sidecore::progress;

std::unique_ptr<engine> make_engine(std::size_t queue = 64) {
  engine_config cfg;
  cfg.provider = "shm";
  cfg.idle = idle_policy::hybrid;
  cfg.spin_us = 20;
  cfg.block_us = 100;
  cfg.queue_capacity = queue;
  try {
    return engine::open(cfg);
  } catch (const transport_error& e) {
    ADD_FAILURE() << "cannot open a shm endpoint: " << e.what();
    return nullptr;
  }
}

const std::uint64_t kTag = tag::make(tag::kind::p2p, 0, 5);

// Progresses (mode off) until pred() or 10 s.
template <typename P>
bool progress_until(engine& e, P pred) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!pred()) {
    if (!e.thread_running()) e.progress();
    if (std::chrono::steady_clock::now() > deadline) return false;
  }
  return true;
}

// The slot behind a handle (internal: to look at its state and error code without reading it).
const req* slot(engine& e, std::uint64_t h) { return core_of(e).pool.lookup(h); }

TEST(EngineSlots, CancelledReceiveCompletesCanceledAndReadingItMakesTheHandleStale) {
  auto e = make_engine();
  ASSERT_TRUE(e);
  std::uint64_t buf = 0;
  const std::uint64_t h = e->start_recv(&buf, 8, kTag, 0, -1, -1, 0);
  ASSERT_NE(h, 0u);
  EXPECT_TRUE(e->active(h));
  EXPECT_TRUE(e->pending(h));
  EXPECT_EQ(e->kind(h), req_kind::recv);
  EXPECT_EQ(e->requests_in_use(), 1u);
  EXPECT_TRUE(e->cancel(h));
  completion c{};
  ASSERT_TRUE(e->wait(h, c));
  EXPECT_EQ(c.result, req_result::canceled);
  EXPECT_EQ(c.kind, req_kind::recv);
  EXPECT_EQ(c.bytes, 0u);
  EXPECT_TRUE(e->describe(c).empty());
  EXPECT_FALSE(e->active(h));
  EXPECT_FALSE(e->pending(h));
  EXPECT_EQ(e->kind(h), std::nullopt);
  EXPECT_EQ(e->requests_in_use(), 0u);
  EXPECT_FALSE(e->wait(h, c)) << "a handle already read names no request";
  EXPECT_EQ(e->test(h, c), test_result::stale);
  EXPECT_FALSE(e->cancel(h));
}

TEST(EngineSlots, OrphanAfterCompleteFreesTheSlot) {
  auto e = make_engine();
  ASSERT_TRUE(e);
  std::uint64_t buf = 0;
  const std::uint64_t h = e->start_recv(&buf, 8, kTag, 0, -1, -1, 0);
  ASSERT_TRUE(e->cancel(h));
  ASSERT_TRUE(progress_until(*e, [&] { return !e->pending(h); }));
  EXPECT_EQ(e->requests_in_use(), 1u) << "complete but not read: still held";
  e->orphan(h);
  EXPECT_EQ(e->requests_in_use(), 0u) << "orphan() of a completed request must free it";
  EXPECT_FALSE(e->active(h));
}

TEST(EngineSlots, OrphanBeforeCompleteIsFreedByTheEngine) {
  auto e = make_engine();
  ASSERT_TRUE(e);
  std::uint64_t buf = 0;
  const std::uint64_t h = e->start_recv(&buf, 8, kTag, 0, -1, -1, 0);
  e->orphan(h);
  EXPECT_EQ(e->requests_in_use(), 1u) << "an orphaned request in flight is kept until it completes";
  ASSERT_NE(slot(*e, h), nullptr);
  EXPECT_EQ(slot(*e, h)->state.load(), static_cast<std::uint32_t>(req_state::orphan));
  EXPECT_TRUE(e->cancel(h));
  EXPECT_TRUE(progress_until(*e, [&] { return e->requests_in_use() == 0; })) << "the engine never freed the orphan";
  EXPECT_FALSE(e->active(h));
}

// Both orders of the exchange over many requests at once.
void many_requests_both_orders(int n) {
  auto e = make_engine();
  ASSERT_TRUE(e);
  std::vector<std::uint64_t> bufs(static_cast<std::size_t>(n));
  std::vector<std::uint64_t> hs;
  for (int i = 0; i < n; ++i) hs.push_back(e->start_recv(&bufs[static_cast<std::size_t>(i)], 8, kTag, 0, -1, -1, 0));
  EXPECT_EQ(e->requests_in_use(), static_cast<std::size_t>(n));
  // No receive may complete before anything was sent or cancelled.
  int failed = 0, first = -1, fi_err = 0;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t h = hs[static_cast<std::size_t>(i)];
    ASSERT_TRUE(e->active(h));
    if (!e->pending(h)) {
      if (first < 0) first = i, fi_err = slot(*e, h)->fi_err;
      ++failed;
    }
  }
  ASSERT_EQ(failed, 0) << failed << " of " << n << " posted receives completed at once, the first at #" << first
                       << " with result transport, fi_err " << fi_err << " (" << fi_strerror(fi_err)
                       << "): the provider's posted-receive queue is full and the engine does not keep the rest "
                          "in its backlog";
  // Even ones orphaned while in flight, then everything cancelled; odd ones orphaned once complete.
  for (int i = 0; i < n; i += 2) e->orphan(hs[static_cast<std::size_t>(i)]);
  for (int i = 0; i < n; ++i) EXPECT_TRUE(e->cancel(hs[static_cast<std::size_t>(i)]));
  ASSERT_TRUE(progress_until(*e, [&] {
    for (int i = 1; i < n; i += 2)
      if (e->pending(hs[static_cast<std::size_t>(i)])) return false;
    return true;
  }));
  for (int i = 1; i < n; i += 2) {
    const std::uint64_t h = hs[static_cast<std::size_t>(i)];
    EXPECT_EQ(slot(*e, h)->result, req_result::canceled);
    e->orphan(h);
  }
  EXPECT_TRUE(progress_until(*e, [&] { return e->requests_in_use() == 0; }))
      << e->requests_in_use() << " requests leaked";
  for (std::uint64_t h : hs) EXPECT_FALSE(e->active(h));
}

TEST(EngineSlots, ManyRequestsBothOrdersNoLeak) { many_requests_both_orders(1000); }

// More receives in flight than the provider's posted-receive queue (shm: 1024 in libfabric 1.17): fi_trecv answers
// -FI_ENOMEM, not -FI_EAGAIN, and the engine must keep the rest in its backlog, not fail them. Also grows the pool
// past one chunk.
TEST(EngineSlots, MoreReceivesThanTheProviderQueueHolds) { many_requests_both_orders(1500); }

// The receive buffers stay posted in the provider's receive queue (shm: 1024 receives), and rendezvous data
// receives need room beside them: recv_buffers as large as the queue left none, and the first rendezvous message
// waited for ever. open refuses it, naming the member and the largest value that fits; with that value a rendezvous
// message through the provider arrives.
TEST(EngineSlots, OpenRefusesReceiveBuffersThatFillTheProviderQueue) {
  engine_config cfg = sctest::local_config("shm", 8192, idle_policy::hybrid, false);
  cfg.recv_buffers = 1024;
  try {
    (void)engine::open(cfg);
    ADD_FAILURE() << "open accepted recv_buffers=1024 on shm";
  } catch (const config_error& e) {
    EXPECT_STREQ(e.field, "recv_buffers");
    EXPECT_EQ(e.largest, 1023u);
    EXPECT_NE(std::string(e.what()).find("recv_buffers=1024"), std::string::npos) << e.what();
    EXPECT_NE(e.reason.find("1024 receives"), std::string::npos) << e.reason;
  }
  cfg.recv_buffers = 1023;
  std::unique_ptr<engine> e = sctest::local_engine_with(cfg);
  ASSERT_TRUE(e);
  std::vector<char> out(std::size_t{1} << 16, 'x'), in(out.size());
  const std::uint64_t r = e->start_recv(in.data(), in.size(), kTag, 0, 0, 0, 0);
  const std::uint64_t s = e->start_send(out.data(), out.size(), 0, kTag, 0, 0, 0, false);
  completion c{};
  ASSERT_TRUE(e->wait(s, c));
  ASSERT_TRUE(e->wait(r, c));
  EXPECT_EQ(in, out);
}

// Core mode: the progress thread posts and completes; a submission queue of 2 entries forces the overflow path.
TEST(EngineSlots, ProgressThreadWithATinyQueue) {
  auto e = make_engine(2);
  ASSERT_TRUE(e);
  e->start_thread(nullptr);
  ASSERT_TRUE(e->thread_running());
  constexpr int n = 200;
  std::vector<std::uint64_t> bufs(n), hs;
  for (int i = 0; i < n; ++i) hs.push_back(e->start_recv(&bufs[static_cast<std::size_t>(i)], 8, kTag, 0, -1, -1, 0));
  for (int i = 0; i < n; ++i) {
    const std::uint64_t h = hs[static_cast<std::size_t>(i)];
    ASSERT_TRUE(e->active(h));
    if (i % 3 == 0) {
      e->orphan(h);
      EXPECT_TRUE(e->cancel(h));  // the engine frees it when the cancel completes
      continue;
    }
    EXPECT_TRUE(e->cancel(h));
    completion c{};
    ASSERT_TRUE(e->wait(h, c));
    EXPECT_EQ(c.result, req_result::canceled) << i;
  }
  EXPECT_TRUE(progress_until(*e, [&] { return e->requests_in_use() == 0; })) << e->requests_in_use() << " leaked";
  e->stop_thread();
  EXPECT_FALSE(e->thread_running());
}

}  // namespace
