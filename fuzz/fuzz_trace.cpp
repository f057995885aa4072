// Fuzzes the trace reader of `sidecore whatif` (model/src/sim/trace.cpp), the linking of sends and receives and the
// three replays (model/src/sim/whatif.cpp): a trace is refused with an input_error, or replayed to finite times.
// The input is one rank's trace of a 1-rank run (sends to itself), or, after a line "----", rank 1's of a 2-rank run.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "fuzz_check.hpp"
#include "sidecore/common/input_error.hpp"
#include "sidecore/model/sim/trace.hpp"
#include "sidecore/model/sim/whatif.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  namespace sim = sidecore::model::sim;
  try {
    std::vector<sim::rank_trace> traces;
    const std::size_t cut = text.find("\n----\n");
    traces.push_back(sim::parse_trace(text.substr(0, cut), "rank0.json"));
    if (cut != std::string_view::npos) traces.push_back(sim::parse_trace(text.substr(cut + 6), "rank1.json"));
    const sim::linked_traces lt = sim::link_traces(std::move(traces));
    sim::whatif_options o;
    o.chunks = 4;
    o.dedicated_comp_factor = 2;
    const sim::whatif_result r = sim::run_whatif(lt, o);
    for (const auto& s : r.sims)
      for (double t : s.finish_ns) sidecore::fuzz::require(std::isfinite(t) && t >= 0, "finish time not finite");
    const sim::overlap_room room = sim::measure_overlap_room(lt);
    sidecore::fuzz::require(std::isfinite(room.comp_overlappable_ns), "overlap room not finite");
  } catch (const sidecore::input_error&) {
  }
  return 0;
}
