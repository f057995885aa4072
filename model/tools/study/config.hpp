// `sidecore study`: what the user asked for (docs/study.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sidecore::tools::study {

/// The most ranks a study runs (-n): every run writes a profile per rank, which the study reads back after each
/// of its runs; a rank count far beyond what one launcher places on the hosts at hand is a typing error.
inline constexpr int max_study_ranks = 65536;
/// The value study_argv gives --inputs when the command line gives it none (validate() refuses it).
inline constexpr std::string_view missing_inputs_value = "\x01(no value)";
/// The longest --run-timeout: about 11.6 days.
inline constexpr double max_run_timeout_s = 1e6;

/// The study's settings, from the command line; validate() checks them.
struct config {
  int ranks = 2;                         ///< -n
  std::vector<std::string> inputs;       ///< --inputs: extra arguments appended to the app's, one study case each
  int reps = 3;                          ///< --reps: repetitions of every run (the median is used)
  std::vector<double> alphas;            ///< --alpha: converted-fraction points of the app's own alpha knob
  std::string alpha_option;              ///< --alpha-option: the app's option that takes an alpha ("--alpha")
  std::string out_dir = "sidecore-study";  ///< --out
  bool resume = false;                   ///< --resume
  std::string mpiexec = "mpiexec";       ///< --mpiexec: the launcher, with its own options, split on blanks
  bool preload = false;                  ///< --preload: an unmodified MPI app, profiled by libsidecore-pmpi.so
  std::string preload_library;           ///< --pmpi-library (default: beside this sidecore, ../lib)
  std::optional<int> cores_per_rank;     ///< --cores-per-rank: overrides the calibration profile's N_core
  std::optional<int> host_cores;         ///< --host-cores: cores of the host the ranks share (default: this one's)
  std::optional<double> run_timeout_s;   ///< --run-timeout: a run taking longer is stopped and fails (default: none)
  std::vector<std::string> app;          ///< after --: the app and its arguments

  /// The study's cases: the inputs, or one case with no extra arguments.
  [[nodiscard]] std::vector<std::string> cases() const {
    return inputs.empty() ? std::vector<std::string>{""} : inputs;
  }
};

/// Throws input_error naming the option, its bad value and what is accepted: -n outside [1, max_study_ranks],
/// --reps < 1 or > 99, an alpha outside [0, 1] or not finite or repeated, --alpha without --alpha-option (or the
/// reverse), --cores-per-rank < 1, --host-cores < 1, --run-timeout not in (0, 1e6] seconds, no app after --, an
/// empty --mpiexec, settings the record keeps that are not UTF-8.
void validate(const config& c);

/// Throws input_error naming --mpiexec when the launcher's program (its first word) is not an executable file: a
/// path as given, else found in PATH.
void check_launcher(const std::string& mpiexec);

/// Splits a command line on blanks (spaces and tabs); quotes are not interpreted.
[[nodiscard]] std::vector<std::string> split_words(const std::string& s);

/// Parses "A1,A2,..." (the --alpha option's list form); throws input_error naming --alpha and the bad item.
[[nodiscard]] std::vector<double> parse_alpha_list(const std::string& text);

}  // namespace sidecore::tools::study
