// Fuzzes the reader of `sidecore loggp`'s PRTT measurement files (read_measurement, model/src/loggp/files.cpp) and
// what the command makes of an accepted one: every series is fitted (seed 001's equations, protocol changes), the
// parameters are finite, the simulator's parameters from them are accepted, and the outputs (parameter file, table,
// SVG, transfer table) render. The file written back reads to as many series.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "fuzz_check.hpp"
#include "sidecore/common/input_error.hpp"
#include "sidecore/model/loggp/files.hpp"
#include "sidecore/model/loggp/fit.hpp"
#include "sidecore/model/sim/loggops.hpp"

namespace lg = sidecore::model::loggp;
using sidecore::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const sidecore::fuzz::memory_file file(data, size);
  lg::measurement m;
  try {
    m = lg::read_measurement(file.path());
  } catch (const sidecore::input_error&) {
    return 0;
  }
  require(!m.series.empty(), "a measurement without series accepted");
  std::vector<lg::series_fit> fits;
  for (const lg::prtt_series& s : m.series) {
    if (s.points.size() > 128)
      return 0;  // large but valid: time (the splits fit ranges again and again), not correctness
    try {
      fits.push_back(lg::fit(s));
    } catch (const std::invalid_argument&) {
      // `sidecore loggp` names the series and stops (an input error).
      return 0;
    }
    const lg::series_fit& f = fits.back();
    require(!f.ranges.empty(), "a fit without ranges");
    require(std::isfinite(f.latency_ns), "latency not finite");
    for (const lg::range_fit& r : f.ranges)
      require(std::isfinite(r.L_ns) && std::isfinite(r.g_all.at_one) && std::isfinite(r.g_all.slope) &&
                  std::isfinite(r.o_s.at_one) && std::isfinite(r.o_r.at_one),
              "fitted parameter not finite");
    for (std::uint64_t bytes : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{65536}, ~std::uint64_t{0}}) {
      const sidecore::model::sim::loggops_params p = lg::to_loggops(f, bytes);
      try {
        sidecore::model::sim::validate(p);
      } catch (const sidecore::input_error&) {
        // Only past the simulator's largest parameter (G sums three per-byte terms of a measurement whose times
        // reach 1e18 ns), which the parameter file's reader refuses by name; never a negative or non-finite one.
        for (const double v : {p.L, p.o, p.g, p.G, p.O})
          require(std::isfinite(v) && v >= 0, "to_loggops gave a negative or non-finite parameter");
      }
    }
  }
  require(!lg::params_json(m, fits, lg::fit_options{}).dump().empty(), "empty parameter file");
  require(!lg::params_table(fits).empty(), "empty table");
  require(!lg::params_svg(fits).empty(), "empty SVG");
  require(!lg::xfer_table_json(fits.front()).dump().empty(), "empty transfer table");
  try {
    const lg::measurement back = lg::parse_measurement(lg::measurement_json(m), "written back");
    require(back.series.size() == m.series.size(), "the measurement written back reads to other series");
  } catch (const sidecore::input_error&) {
    require(false, "the measurement written back is refused");
  }
  return 0;
}
