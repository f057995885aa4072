// What every harness checks beyond the sanitizers: a reader either returns or throws input_error, and whatever
// the model makes of an accepted input is finite (issue 17: "PAYS OFF, speedup 808049650..." with 306 digits).
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "sidecore/model/analysis.hpp"
#include "sidecore/model/render.hpp"

namespace sidecore::fuzz {

/// Stops the run (libFuzzer saves the input as a crash) when `ok` is false.
inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

/// Analyses a job as `sidecore predict` does (a short what-if search keeps the harness fast) and checks that the
/// answer is finite and renders. Input errors are an accepted outcome.
inline void analyse(const model::job_input& in) {
  model::analysis_options opt;
  opt.max_cores = 64;
  const model::analysis a = model::analyze(in, opt);
  require(std::isfinite(a.job.speedup) && std::isfinite(a.job.t_dedicated_s), "job speedup or t_dedicated not finite");
  for (const auto& s : a.sweep) require(std::isfinite(s.speedup), "sweep speedup not finite");
  require(std::isfinite(a.slope.speedup_per_alpha) && std::isfinite(a.slope.time_slope_s), "slope not finite");
  require(!model::render_text(a).empty() && !model::render_json(a).empty(), "empty rendering");
  (void)model::render_html(a);
}

}  // namespace sidecore::fuzz
