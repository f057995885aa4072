// `sidecore study`: the JSON record of a study (OUT/study.json, schema "sidecore-study", version 1): the settings,
// every run done with its measurements or its failure, and the comparison. --resume reads it back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "config.hpp"
#include "plan.hpp"

namespace sidecore::tools::study {

/// One run as done: its spec, its command, and what it measured (from the job profile) or how it failed.
struct run_record {
  run_spec spec;
  std::string command;       ///< describe(launch): environment and command line
  bool ok = false;           ///< exited 0 and its profile was read
  int exit_status = 0;
  std::string stderr_tail;   ///< the last lines of its stderr (failed runs)
  std::string error;         ///< why it failed, in words (failed runs)
  double wall_s = 0;
  std::string profile;       ///< the job profile, relative to the study folder
  double t_total_s = 0;      ///< slowest rank's wall time
  double t_comp_s = 0;       ///< slowest rank's computation time
  int n_core = 0;            ///< rank 0's N_core as its profile says
  std::string provider;
  std::uint64_t blocking_calls = 0;  ///< all ranks
  double load_before = 0;    ///< the host's 1-minute load average when the run started (other work on the cores)
};

/// The whole record.
struct study_record {
  config settings;  ///< as run (the app and every option)
  std::vector<run_record> runs;

  /// The record of a run id that succeeded; nullptr when none.
  [[nodiscard]] const run_record* done(const std::string& id) const;
};

/// Serialises the record, with the comparison (comparison.hpp) under "comparison" when given.
[[nodiscard]] std::string to_json_text(const study_record& r, const nlohmann::json* comparison);
/// Largest record --resume reads: each run keeps at most 8 KiB of stderr (file_tail) and a few hundred bytes more,
/// so thousands of runs stay far below it.
inline constexpr std::size_t max_record_bytes = std::size_t{256} << 20;

/// Parses a record; throws input_error naming `source` and the field on a wrong schema, version or field.
[[nodiscard]] study_record parse_record(const std::string& text, const std::string& source);

/// --resume: the runs of `old` (a record's) kept, in their order: those that succeeded, are runs of `plan` (the id
/// there, with the same case, kind, alpha and repetition), are not a repetition of an id kept already, and whose
/// profile `profile_problem` finds nothing wrong with (it returns why the profile cannot be used, empty when it
/// can). `dropped` gets one line per run that succeeded but is not kept ("<id>: <why>"); failed runs go silently.
[[nodiscard]] std::vector<run_record> runs_to_resume(
    std::vector<run_record> old, const std::vector<run_spec>& plan,
    const std::function<std::string(const run_record&)>& profile_problem, std::vector<std::string>& dropped);

/// --resume: throws input_error naming the setting that differs between the stored study and this one (the app,
/// -n, --inputs, --alpha, --alpha-option, --mpiexec, --preload, --cores-per-rank), or --reps is smaller: a resumed
/// study must be the same study. --reps may grow.
void check_same_study(const config& stored, const config& now, const std::string& source);

}  // namespace sidecore::tools::study
