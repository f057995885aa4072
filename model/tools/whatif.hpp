// `sidecore whatif`: the trace-driven what-if (docs/simulate.md "Trace-driven what-if").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sidecore/model/scaling.hpp"
#include "sidecore/model/sim/whatif.hpp"

namespace sidecore::tools {

struct whatif_args {
  std::vector<std::string> traces;
  std::string loggp_file;
  std::string loggp_series = "sidecore";
  CLI::Option* opt_series = nullptr;  // --loggp-series given: refused without --loggp
  sidecore::model::sim::loggops_params params;
  CLI::Option* opt_L = nullptr;  // given on the command line: wins over --loggp
  CLI::Option* opt_o = nullptr;
  CLI::Option* opt_g = nullptr;
  CLI::Option* opt_G = nullptr;
  CLI::Option* opt_O = nullptr;
  CLI::Option* opt_S = nullptr;
  int cores = 0;               // N of N/(N-1); 0: the traces' OpenMP threads
  std::string scaling_file;    // measured scaling table instead of N/(N-1)
  // predict --trace: the model's own scaling (--scaling, --delta, --scaling-table), so that the replay slows the
  // computation of N-1 cores as the model does; wins over scaling_file and N/(N-1).
  std::optional<sidecore::model::scaling_model> model_scaling;
  unsigned chunks = 16;
  std::string format = "text";
  std::string timeline;        // Chrome trace JSON of the three scenarios
  std::string svg;             // sweep + timelines
  bool no_sweep = false;
};

CLI::App* add_whatif(CLI::App& app, whatif_args& a);

/// The loaded, linked traces and the options the replay runs with (also what predict/report use).
struct whatif_setup {
  sidecore::model::sim::linked_traces lt;
  sidecore::model::sim::whatif_options opts;
  std::string params_from;   // "--loggp FILE (series sidecore, range of 12 KiB)", "given", "LogGOPSim's defaults"
  std::string scaling_text;  // "4 cores -> 3, linear: x1.333"
};
/// Reads and links the traces and settles the parameters. Throws input_error.
[[nodiscard]] whatif_setup prepare_whatif(const whatif_args& a);

/// Prints the per-scenario, per-rank times, speedups, the bandwidth sweep and what each scenario needs; writes the
/// timelines. Returns 0, or 2 when a scenario cannot finish (its problems printed). Throws input_error.
[[nodiscard]] int run_whatif(const whatif_args& a);

/// For `sidecore predict` and `report --trace`: the traces replayed (progress in calls and dedicated core) beside
/// the analytical t_noprogress and t_dedicated (seconds), and why they differ, as sentences for the output's
/// notes. `a` holds the traces and the parameter options; `calibration_run` is the run id of the calibration
/// profiles (empty: none recorded). Throws input_error, also when the traces carry another run id than the
/// calibration's (they must be the trace that run wrote).
[[nodiscard]] std::vector<std::string> compare_with_model(const whatif_args& a, double t_noprogress_s,
                                                          double t_dedicated_s, const std::string& calibration_run);

}  // namespace sidecore::tools
