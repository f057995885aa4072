// sidecore model — gathering a job's inputs from profile files or an mpiP report.
#pragma once

#include <optional>
#include <string>
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
  std::vector<std::string> warnings; ///< e.g. ranks missing, mpiP inconsistencies
};

/// Builds a job input from already-read profiles (rank or job kind, modes off and core mixed
/// freely): job profiles are flattened, off-mode ranks become the calibration and core-mode ranks
/// the comparison run. n_core_override replaces every rank's n_core. `sources` names each
/// profile's file (same length as profiles, or empty). Throws input_error when no off-mode profile
/// is given, a rank appears twice in one mode, nranks disagree, or a rank's inputs are invalid
/// (negative times, N_core <= 1).
[[nodiscard]] job_input make_job_input(const std::vector<profile>& profiles, const std::vector<std::string>& sources,
                                       std::optional<int> n_core_override = std::nullopt);

/// Reads profile files and calls make_job_input. Throws input_error naming the file.
[[nodiscard]] job_input load_profiles(const std::vector<std::string>& paths,
                                      std::optional<int> n_core_override = std::nullopt);

/// Reads an mpiP report; n_core is the number of cores per node (mpiP does not record it).
/// Throws input_error naming the file or "--cores".
[[nodiscard]] job_input load_mpip(const std::string& path, int n_core);

}  // namespace sidecore::model
