// `sidecore simulate`: the LogGOPS simulator on a GOAL file or a generated schedule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "sidecore/model/sim/loggops.hpp"

namespace sidecore::tools {

struct simulate_args {
  std::string goal_file;
  sidecore::model::sim::loggops_params params;
  bool batch = false;     // LogGOPSim's -b: never print every host
  bool all_hosts = false; // print every host even above 16 ranks
  std::string format = "text";
  std::string pattern;    // KIND[:ALGORITHM]: a collective's schedule instead of a file
  std::optional<std::int64_t> ranks;  // signed and optional: "-3" and a missing --ranks are named, not wrapped
  std::uint64_t bytes = 8;
  std::optional<std::int64_t> root;   // refused for kinds without a root
  std::uint64_t segment = 0;          // 0: the schedules' default segment
  double reduce_ns_per_byte = 0;
  double copy_ns_per_byte = 0;
  std::vector<CLI::Option*> pattern_options;  // --ranks, --bytes, ...: refused with a GOAL file (they shape no file)
  std::string write_goal;
  std::string timeline;   // Chrome trace of the simulation
};

/// Registers the subcommand's options on `app` (LogGOPSim's -L -o -g -G -O -S with its defaults).
CLI::App* add_simulate(CLI::App& app, simulate_args& a);

/// Runs it: prints the finish times as LogGOPSim does ("Host N: T" in ns), then a summary.
/// Returns 0, or 2 after printing the problems when the schedule deadlocks. Throws input_error for
/// bad input (file, option).
[[nodiscard]] int run_simulate(const simulate_args& a);

}  // namespace sidecore::tools
