// The progress lock's guard (progress/src/progress_lock.hpp): every way out of a scope gives the lock back, as
// the holder that took it; and the status of a step on the progress path (progress/src/status.hpp): libfabric's
// return codes as ok / retry / fatal.
#include <gtest/gtest.h>

#include <rdma/fi_errno.h>

#include <stdexcept>
#include <string>
#include <thread>

#include "progress_lock.hpp"
#include "status.hpp"

namespace {

using namespace sidecore::progress;

std::uint32_t word(const progress_lock& l) { return l.word.load(); }

TEST(ProgressGuard, GivesTheLockBackAtTheEndOfItsScope) {
  progress_lock l;
  {
    ASSERT_TRUE(l.take(progress_lock::caller));
    const progress_guard g(l, holder::caller);
    EXPECT_TRUE(g);
    EXPECT_EQ(word(l), progress_lock::caller);
    EXPECT_FALSE(l.take(progress_lock::thread)) << "held: nobody else takes it";
  }
  EXPECT_EQ(word(l), 0u);
}

TEST(ProgressGuard, GivesTheLockBackWhenTheScopeThrows) {
  progress_lock l;
  try {
    ASSERT_TRUE(l.take(progress_lock::thread));
    const progress_guard g(l, holder::thread);
    throw std::runtime_error("a step failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(word(l), 0u);
}

TEST(ProgressGuard, GivesTheLockBackOnAnEarlyReturn) {
  progress_lock l;
  const auto step = [&](bool early) {
    if (!l.take(progress_lock::caller)) return -1;
    const progress_guard g(l, holder::caller);
    if (early) return 1;
    return 2;
  };
  EXPECT_EQ(step(true), 1);
  EXPECT_EQ(word(l), 0u);
  EXPECT_EQ(step(false), 2);
  EXPECT_EQ(word(l), 0u);
}

TEST(ProgressGuard, AnEmptyGuardHoldsNothing) {
  progress_lock l;
  ASSERT_TRUE(l.take(progress_lock::thread));
  {
    const progress_guard g;  // what a lock_* function gives when the lock is taken
    EXPECT_FALSE(g);
  }
  EXPECT_EQ(word(l), progress_lock::thread) << "an empty guard must not release another holder's lock";
  l.release();
}

TEST(ProgressGuard, ReleaseAndRelockAsTheSameHolder) {
  progress_lock l;
  ASSERT_TRUE(l.take(progress_lock::thread));
  progress_guard g(l, holder::thread);
  g.release();
  EXPECT_FALSE(g);
  EXPECT_EQ(word(l), 0u);
  g.release();  // a second release is no effect
  EXPECT_EQ(word(l), 0u);
  ASSERT_TRUE(l.take(progress_lock::caller));  // someone else takes it meanwhile
  EXPECT_FALSE(g.try_relock());
  std::thread other([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    l.release();
  });
  g.relock();  // spins until the other holder lets go
  other.join();
  EXPECT_TRUE(g);
  EXPECT_EQ(word(l), progress_lock::thread);
}

TEST(ProgressGuard, MovingHandsTheLockOver) {
  progress_lock l;
  ASSERT_TRUE(l.take(progress_lock::caller));
  progress_guard a(l, holder::caller);
  {
    const progress_guard b(std::move(a));
    EXPECT_TRUE(b);
    EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): what a moved-from guard is, is the point
    EXPECT_EQ(word(l), progress_lock::caller);
  }
  EXPECT_EQ(word(l), 0u) << "released once, by the guard it was moved to";
  auto g = progress_guard::unheld(l, holder::caller);
  EXPECT_FALSE(g);
  g.relock();
  EXPECT_EQ(word(l), progress_lock::caller);
}

TEST(ProgressGuard, ACallerOfCoreModeMarksItsCallWhenItLetsGo) {
  progress_lock l;
  const std::uint32_t calls = l.caller_calls.load();
  {
    ASSERT_TRUE(l.take_caller_core()) << "free: taken at once";
    const progress_guard g(l, holder::caller_core);
    EXPECT_EQ(word(l), progress_lock::caller);
  }
  EXPECT_EQ(word(l), 0u);
  EXPECT_EQ(l.caller_calls.load(), calls + 1) << "the parked progress thread's quiet clock";
  // Held by another application thread: refused at once, the work goes by the queue.
  ASSERT_TRUE(l.take(progress_lock::caller));
  EXPECT_FALSE(l.take_caller_core());
  l.release();
  // Held by the progress thread, which does not step aside: asked, then refused after a while.
  ASSERT_TRUE(l.take(progress_lock::thread));
  EXPECT_FALSE(l.take_caller_core());
  EXPECT_EQ(l.caller_want.load(), 1u) << "it asked the progress thread";
  l.release();
}

TEST(StepStatus, LibfabricCodesMapToOkRetryFatal) {
  EXPECT_EQ(classify(0), op_status::ok);
  EXPECT_EQ(classify(-FI_EAGAIN), op_status::retry);
  EXPECT_EQ(classify(-FI_ENOMEM), op_status::retry) << "shm's full receive queue: a state that passes";
  EXPECT_EQ(classify(-FI_EINVAL), op_status::fatal);
  EXPECT_EQ(classify(-FI_ECONNRESET), op_status::fatal);
  EXPECT_EQ(classify(-FI_ETRUNC), op_status::fatal);
  EXPECT_EQ(classify(-FI_EOTHER), op_status::fatal);
  EXPECT_EQ(classify(1), op_status::fatal) << "anything but 0 and the two passing states";
  EXPECT_EQ(std::string(op_status_name(op_status::ok)), "ok");
  EXPECT_EQ(std::string(op_status_name(op_status::retry)), "retry");
  EXPECT_EQ(std::string(op_status_name(op_status::fatal)), "fatal");
  EXPECT_EQ(std::string(failure_name(failure::fi_tsend)), "fi_tsend");
  EXPECT_EQ(std::string(failure_name(failure::fi_trecv)), "fi_trecv");
  EXPECT_EQ(std::string(failure_name(failure::error_completion)), "error completion");
}

}  // namespace
