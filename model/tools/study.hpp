// `sidecore study`: runs the paper's protocol (seed 004, Sections IV and VI) on an application through mpiexec and
// checks the model's prediction against the measured dedicated run (docs/study.md).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "study/config.hpp"

namespace sidecore::tools {

/// The subcommand's arguments: the settings, and the raw text of list options.
struct study_args {
  study::config settings;
  std::vector<std::string> alpha_lists;  ///< --alpha, each "A1,A2,..."
  CLI::Option* reps = nullptr;           ///< --reps: not given, a resumed study keeps its record's count
};

/// Registers the subcommand.
CLI::App* add_study(CLI::App& app, study_args& a);

/// The command's arguments (argv[1..]) ready for CLI11: after `study`, each value of --inputs (which start with '-'
/// as an app's options do, and which CLI11 would take for options) is passed as --inputs=VALUE. A value ends at
/// `--` or at one of the study's own options.
[[nodiscard]] std::vector<std::string> study_argv(int argc, const char* const* argv);

/// Runs (or resumes) the study, prints a line per run and then the comparison, writes OUT/study.json,
/// OUT/report.html and OUT/comparison.svg. Returns 0 when every run finished, 1 when a run failed (its command,
/// exit status and stderr tail printed), 128 + the signal when interrupted (what was done kept in the record).
/// Throws input_error for bad arguments or an unusable --out.
[[nodiscard]] int run_study(study_args& a);

}  // namespace sidecore::tools
