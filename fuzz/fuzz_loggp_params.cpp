// Fuzzes the reader of LogGP parameter files (read_loggops_params, model/src/loggp/files.cpp; what
// `sidecore whatif --loggp` and `sidecore loggp -o` share): a file is refused with an input_error, or gives, for
// each message size asked, parameters the simulator accepts or refuses with an input_error (as `whatif` does),
// and accepted ones simulate a ping-pong to finite times.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz_check.hpp"
#include "sidecore/common/input_error.hpp"
#include "sidecore/model/loggp/files.hpp"
#include "sidecore/model/sim/loggops.hpp"
#include "sidecore/model/sim/schedule.hpp"

namespace sim = sidecore::model::sim;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const sidecore::fuzz::memory_file file(data, size);
  for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{8}, std::uint64_t{1} << 20, ~std::uint64_t{0}}) {
    try {
      const sim::loggops_params p = sidecore::model::loggp::read_loggops_params(file.path(), "sidecore", bytes);
      sim::validate(p);
      sim::schedule_builder b(2, "ping-pong");
      const sim::op_id ping = b.send(0, 1, bytes == 0 ? 0 : 4096);
      const sim::op_id in = b.recv(1, 0, bytes == 0 ? 0 : 4096);
      b.depend(b.send(1, 0, 8), in);
      b.depend(b.recv(0, 1, 8), ping);
      const sim::sim_result r = sim::simulate(b.build(), p);
      for (double t : r.finish_ns) sidecore::fuzz::require(std::isfinite(t) && t >= 0, "finish time not finite");
    } catch (const sidecore::input_error&) {
    }
  }
  return 0;
}
