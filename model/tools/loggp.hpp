// `sidecore loggp`: LogGP parameters from a PRTT measurement (seed 001), or the measurement itself
// run through the probe program beside this executable.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "sidecore/model/loggp/fit.hpp"

namespace sidecore::tools {

struct loggp_args {
  std::string measurement;  // a file written by sidecore-loggp-probe
  std::string output;       // parameter file (JSON)
  std::string svg;
  std::string xfer_table;
  std::string xfer_series;  // which series the transfer table comes from (default: the first)
  bool measure = false;     // run the probe first
  std::string probe_args;   // extra arguments for the probe
  sidecore::model::loggp::fit_options fit;
};

/// Registers the subcommand.
CLI::App* add_loggp(CLI::App& app, loggp_args& a);

/// Fits (and with --measure first measures), prints the table, writes the requested files.
/// Returns 0; throws input_error for bad input.
[[nodiscard]] int run_loggp(const loggp_args& a);

}  // namespace sidecore::tools
