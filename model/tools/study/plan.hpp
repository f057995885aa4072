// `sidecore study`: the runs of the paper's protocol (seed 004, Section IV) for every case, and how each is launched.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"
#include "launcher.hpp"

namespace sidecore::tools::study {

/// The four kinds of run.
enum class run_kind {
  calibration,  ///< SIDECORE_PROGRESS=off, every core of the rank to OpenMP: t_noprogress and the model's inputs
  scaling,      ///< SIDECORE_PROGRESS=off at N-1 OpenMP threads: the computation's measured scaling
  dedicated,    ///< SIDECORE_PROGRESS=core: the measured t_dedicated
  alpha,        ///< SIDECORE_PROGRESS=core with the app's alpha option: the measured converted code
};
/// "calibration", "scaling", "dedicated", "alpha".
[[nodiscard]] std::string_view run_kind_name(run_kind k) noexcept;
/// The reverse; throws input_error naming `source` for an unknown name.
[[nodiscard]] run_kind parse_run_kind(std::string_view name, const std::string& source);

/// One run of the plan.
struct run_spec {
  std::string id;      ///< "c0.calibration.r1", "c0.alpha-0.5.r0": a folder name under OUT/runs
  int case_index = 0;  ///< index into config::cases()
  run_kind kind = run_kind::calibration;
  double alpha = 0;    ///< the app's alpha (alpha runs)
  int rep = 0;
};

/// Every run, repetition-major within a case (calibration, scaling, dedicated, alpha points, then the next
/// repetition) so that slow drifts of the machine spread over every kind alike.
[[nodiscard]] std::vector<run_spec> make_plan(const config& c);

/// What to execute for a run: the command and the environment changes.
struct launch {
  std::vector<std::string> argv;
  env_changes env;
};

/// The command of a run: mpiexec -n RANKS APP ARGS CASE [ALPHA_OPTION A]; the environment: SIDECORE_PROGRESS,
/// SIDECORE_PROFILE=profile_pattern, OMP_NUM_THREADS (calibration: cores_per_rank; scaling: cores_per_rank - 1;
/// core mode: removed, so that sidecore fences OpenMP off the progress core), and LD_PRELOAD with the PMPI library
/// first when preloading. cores_per_rank 0: unknown, OMP_NUM_THREADS removed for the calibration (OpenMP's default
/// is every core of the rank's cpuset). The mode-off runs (and the core-mode runs of a preloaded app) get
/// OMP_PLACES=cores OMP_PROC_BIND=close, one thread per core as sidecore's fence binds them in core mode, unless
/// OMP_PLACES or OMP_PROC_BIND is set in the study's own environment (then the user's stay).
[[nodiscard]] launch make_launch(const config& c, const run_spec& r, int cores_per_rank,
                                 const std::string& profile_pattern);

/// The command line of a launch as one string a POSIX shell runs as it was run (env(1), its -u options and
/// assignments, then the command; words with blanks or shell characters in single quotes), for messages and the
/// record.
[[nodiscard]] std::string describe(const launch& l);

}  // namespace sidecore::tools::study
