// Fuzzes the GOAL reader (model/src/sim/goal.cpp) and the simulator on what it accepts: a schedule either is
// refused with an input_error or simulates to finite finish times (or a reported deadlock), and writes back as GOAL
// text that reads to the same schedule.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "fuzz_check.hpp"
#include "sidecore/common/input_error.hpp"
#include "sidecore/model/sim/goal.hpp"
#include "sidecore/model/sim/loggops.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  namespace sim = sidecore::model::sim;
  try {
    const sim::schedule s = sim::parse_goal(text, "fuzz.goal");
    if (s.num_ranks() > 4096 || s.num_ops() > 100000) return 0;  // large but valid: time, not correctness
    const sim::sim_result r = sim::simulate(s, sim::loggops_params{});
    for (double t : r.finish_ns) sidecore::fuzz::require(std::isfinite(t) && t >= 0, "finish time not finite");
    sidecore::fuzz::require(r.complete || !r.problems.empty(), "a deadlock without its problems named");
    std::ostringstream out;
    sim::write_goal(s, out);
    const sim::schedule back = sim::parse_goal(out.str(), "written.goal");
    sidecore::fuzz::require(back.num_ops() == s.num_ops() && back.num_ranks() == s.num_ranks(),
                            "GOAL written back reads to another schedule");
  } catch (const sidecore::input_error&) {
  }
  return 0;
}
