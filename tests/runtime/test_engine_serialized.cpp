// Callers serialized by the application (engine_config::serialized_callers: MPI's thread level below
// MPI_THREAD_MULTIPLE): mode off then takes the progress lock without a locked instruction, and a second caller
// that finds it held (two threads at once, which the application promised not to do) is told so once and from then
// on every call takes the lock, as under MPI_THREAD_MULTIPLE (two threads running the engine together lose messages
// and corrupt its lists).
#include <gtest/gtest.h>

#include <string>

#include <sidecore/progress/tag.hpp>

#include "engine_core.hpp"
#include "local_engine.hpp"

namespace {

using namespace sidecore::progress;

std::vector<std::unique_ptr<engine>> serialized_pair() {
  engine_config c = sctest::local_config();
  c.serialized_callers = true;
  return sctest::engine_pair_with(c);
}

TEST(SerializedCallers, OneAfterTheOtherStaySerialized) {
  auto e = serialized_pair();
  ASSERT_EQ(e.size(), 2u);
  engine_core& core = core_of(*e[0]);
  ASSERT_TRUE(core.callers_serialized());
  for (int i = 0; i < 3; ++i) {
    const progress_guard g = core.lock_caller();
    EXPECT_TRUE(g);
  }
  EXPECT_TRUE(core.callers_serialized());
  EXPECT_EQ(core.lock.word.load(), 0u) << "released: the word says free";
}

TEST(SerializedCallers, ASecondCallerAtOnceIsToldAndTheLockIsTakenFromThenOn) {
  auto e = serialized_pair();
  ASSERT_EQ(e.size(), 2u);
  engine_core& core = core_of(*e[0]);
  {
    const progress_guard first = core.lock_caller();
    ASSERT_TRUE(first);
    testing::internal::CaptureStderr();
    const progress_guard second = core.lock_caller();  // what a second thread calling now gets
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_FALSE(second) << "two holders at once";
    EXPECT_FALSE(core.callers_serialized());
    EXPECT_NE(said.find("two threads called sidecore at the same time"), std::string::npos) << said;
    EXPECT_NE(said.find("MPI_THREAD_MULTIPLE"), std::string::npos) << said;
    testing::internal::CaptureStderr();
    EXPECT_FALSE(core.lock_caller()) << "still held by the first";
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "") << "said once";
  }
  {
    const progress_guard g = core.lock_caller();
    ASSERT_TRUE(g) << "free again";
    EXPECT_EQ(core.lock.word.load(), progress_lock::caller);
    EXPECT_FALSE(core.lock_caller()) << "the locked take refuses a second holder";
  }
  // Messages still flow both ways.
  const std::uint64_t tag = sidecore::progress::tag::make(tag::kind::p2p, 0, 12);
  sctest::connect_engines(*e[0], 0, *e[1], 1, tag);
  sctest::connect_engines(*e[1], 1, *e[0], 0, tag);
}

}  // namespace
