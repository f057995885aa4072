// sidecore model — gathering a job's inputs from profile files or an mpiP report.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sidecore/model/model.hpp"
#include "sidecore/common/profile.hpp"

namespace sidecore::model {

/// Everything the analysis reads about one job.
struct job_input {
  std::string source;                ///< the input files, for titles and messages
  std::string provider;              ///< from the profiles ("mpip" for an mpiP report)
  bool from_mpip = false;
  int nranks = 0;                    ///< ranks in the job, as the inputs say
  std::vector<rank_inputs> ranks;    ///< calibration run (mode off), sorted by rank
  std::vector<profile> calibration;  ///< the off-mode rank profiles (same order; empty for mpiP)
  std::vector<profile> core_run;     ///< optional core-mode rank profiles of the same job, sorted by rank
  /// The question "what if the node had N cores" (--cores N on profiles): the analysis moves every rank from its
  /// measured n_core to N with the scaling model. Empty: predict at the measured core counts.
  std::optional<int> what_if_cores;
  std::vector<std::string> warnings; ///< e.g. ranks missing, mpiP inconsistencies
  std::vector<std::string> notes;    ///< which data the model uses, where there is a choice
  /// The instrumentation's limits the runs reached (the profiles' "limits"), one sentence per kind and run, the ranks
  /// named: the figures miss what went past them.
  std::vector<std::string> incomplete;
};

/// Whether a profile's provider says it was written by the PMPI profiler (libsidecore-pmpi.so): "pmpi: ...".
[[nodiscard]] bool is_pmpi_provider(std::string_view provider) noexcept;

/// Builds a job input from already-read profiles (rank or job kind, modes off and core mixed
/// freely): job profiles are flattened, off-mode ranks become the calibration and core-mode ranks
/// the comparison run. what_if_cores (--cores N) asks for a prediction on nodes of N cores: the
/// measured n_core is kept and the analysis moves the computation from it to N. `sources` names each
/// profile's file (same length as profiles, or empty). Throws input_error when no off-mode profile
/// is given, a rank appears twice in one mode, nranks disagree, a profile is of a SIDECORE_PROGRESS=auto run that
/// switched to core (it measured neither mode), what_if_cores <= 1, or a rank's
/// inputs are invalid (negative times, N_core <= 1 without what_if_cores: the message says how to
/// give the node's core count).
[[nodiscard]] job_input make_job_input(const std::vector<profile>& profiles, const std::vector<std::string>& sources,
                                       std::optional<int> what_if_cores = std::nullopt);

/// Reads profile files and calls make_job_input. Throws input_error naming the file.
[[nodiscard]] job_input load_profiles(const std::vector<std::string>& paths,
                                      std::optional<int> what_if_cores = std::nullopt);

/// Reads an mpiP report; n_core is the number of cores per node of the run (mpiP does not record it), which is
/// also the core count the prediction is for.
/// Throws input_error naming the file or "--cores".
[[nodiscard]] job_input load_mpip(const std::string& path, int n_core);

}  // namespace sidecore::model
