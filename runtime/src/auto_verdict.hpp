// The verdict of one SIDECORE_PROGRESS=auto decision from what the ranks agreed (auto_mode.cpp reduces every rank's
// vote with MPI_MAXLOC; this is the rule applied to the result, identical on every rank). Pure: no MPI. Internal.
#pragma once

#include <string>

#include <sidecore/common/dedicated_core.hpp>

namespace sidecore::detail {

/// Why a rank cannot take core mode, or the model cannot judge it; the largest over the ranks wins, so the order
/// is the precedence.
enum class auto_veto : int { none = 0, no_computation = 1, one_core = 2, oversubscribed = 3, no_core = 4 };
/// SIDECORE_AUTO_FORCE as a vote (the largest wins: core over off over none).
enum class auto_forced_vote : int { none = 0, off = 1, core = 2 };

/// The maxima over the ranks, each with the rank that has it.
struct job_vote {
  double t_noprogress_s = 0.0;  ///< the longest window
  int slowest_rank_off = 0;
  double t_dedicated_s = 0.0;   ///< the longest prediction with a dedicated core
  int slowest_rank_core = 0;
  auto_veto veto = auto_veto::none;
  int veto_rank = 0;
  auto_forced_vote force = auto_forced_vote::none;
};

struct job_verdict {
  bool core = false;       ///< switch to (or stay in) mode core
  bool forced = false;     ///< SIDECORE_AUTO_FORCE decided
  double speedup = 0.0;    ///< t_noprogress_s / t_dedicated_s of the job
  dedicated::outcome outcome = dedicated::outcome::within_noise;  ///< the model's, against the noise band
  std::string reason;      ///< the sentence saying why (the vetoing rank's own words are added by the caller)
};

/// The job takes as long as its slowest rank in either mode, and the slowest rank need not be the same one in both:
/// the job's speedup is the longest window over the longest prediction (the model's job level, docs/model.md), not
/// one rank's gain. Precedence: a rank without a core to reserve (never core); SIDECORE_AUTO_FORCE; a rank that is
/// oversubscribed, whose model has one core (SIDECORE_NCORE=1) or that has no computation (the model cannot judge:
/// off); the model against the noise band.
[[nodiscard]] job_verdict judge(const job_vote& v, double noise = dedicated::default_noise);

}  // namespace sidecore::detail
