// sidecore's collective schedules (common/include/sidecore/common/schedule.hpp) in the simulator.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "sidecore/model/sim/collective.hpp"
#include "sidecore/model/sim/goal.hpp"
#include "sidecore/model/sim/loggops.hpp"

namespace sim = sidecore::model::sim;
namespace coll = sidecore::coll;

namespace {

coll::op message(coll::op_type t, int peer, std::uint64_t bytes, std::uint32_t tag) {
  coll::op o;
  o.type = t;
  o.peer = peer;
  o.bytes = bytes;
  o.tag = tag;
  return o;
}

// Binomial broadcast of 1024 B from rank 0 over 4 ranks, as tests/model/data/sim/bcast4.goal.
std::vector<coll::schedule> bcast4() {
  std::vector<coll::schedule> s(4);
  s[0].ops = {message(coll::op_type::send, 2, 1024, 0), message(coll::op_type::send, 1, 1024, 0)};
  s[1].ops = {message(coll::op_type::recv, 0, 1024, 0)};
  s[2].ops = {message(coll::op_type::recv, 0, 1024, 0), message(coll::op_type::send, 3, 1024, 0)};
  s[2].ops[1].dep_first = 0;
  s[2].ops[1].dep_count = 1;
  s[2].deps = {0};
  s[3].ops = {message(coll::op_type::recv, 2, 1024, 0)};
  return s;
}

}  // namespace

TEST(SimCollective, SameTimesAsTheGoalFile) {
  const sim::schedule a = sim::from_collective(bcast4(), {}, "bcast4");
  const sim::schedule b = sim::read_goal_file(std::string(SIDECORE_MODEL_TEST_DATA) + "/sim/bcast4.goal");
  EXPECT_EQ(sim::simulate(a, {}).finish_ns, sim::simulate(b, {}).finish_ns);
}

TEST(SimCollective, ReduceAndCopyAreCalcs) {
  // Rank 1 receives, reduces and copies: 1024 B at 0.5 and 0.25 ns/B add 512 + 256 ns after the reception.
  std::vector<coll::schedule> s(2);
  s[0].ops = {message(coll::op_type::send, 1, 1024, 3)};
  coll::op red;
  red.type = coll::op_type::reduce;
  red.bytes = 1024;
  red.dep_first = 0;
  red.dep_count = 1;
  coll::op cp;
  cp.type = coll::op_type::copy;
  cp.bytes = 1024;
  cp.dep_first = 1;
  cp.dep_count = 1;
  s[1].ops = {message(coll::op_type::recv, 0, 1024, 3), red, cp};
  s[1].deps = {0, 1};
  const sim::schedule sc = sim::from_collective(s, {0.5, 0.25}, "reduce");
  const sim::sim_result r = sim::simulate(sc, {});
  ASSERT_TRUE(r.complete);
  // LogGOPSim's defaults: the message takes rank 1's CPU to 1500 + 2500 + 1500 + 1023 * 6 = 11638.
  EXPECT_EQ(r.finish_ns[1], 11638 + 512 + 256);
}

TEST(SimCollective, BadSchedulesAreRefused) {
  auto s = bcast4();
  s[2].deps = {1};  // depends on itself: not an earlier operation
  EXPECT_THROW((void)sim::from_collective(s, {}, "x"), std::invalid_argument);
  s = bcast4();
  s[1].ops[0].peer = 4;
  try {
    (void)sim::from_collective(s, {}, "x");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "x: rank 1, operation 0: peer 4 is not a rank of 4");
  }
  s = bcast4();
  s[2].ops[1].dep_count = 5;
  EXPECT_THROW((void)sim::from_collective(s, {}, "x"), std::invalid_argument);
}
