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

/// A rank's veto with the figures that say why in that rank's terms. It travels as one value of the vote (pack_veto),
/// so that the MAXLOC that picks the vetoing rank brings that rank's figures along, and every rank words the reason
/// alike. Figures beyond their field (at least 2^16 ranks or cores on a node, 2^18 cores in its ranks' cpusets) are
/// carried as the field's largest value and said as "or more".
struct rank_veto {
  auto_veto why = auto_veto::none;
  int cores = 0;          ///< no_core: the cores of the rank's cpuset
  int node_ranks = 0;     ///< oversubscribed: the ranks of its node,
  int node_cores = 0;     ///<   the cores their cpusets hold in all,
  int machine_cores = 0;  ///<   and the node's cores
  double comp_share = 0;  ///< no_computation: its computation over its window, to 1e-6
};
/// The veto as one vote value: an integer below 2^53 (exact in a double) whose order is the veto's precedence.
[[nodiscard]] double pack_veto(const rank_veto& v) noexcept;
/// pack_veto's inverse (figures clamped as packed); none for a value no rank packs.
[[nodiscard]] rank_veto unpack_veto(double packed) noexcept;

/// The maxima over the ranks, each with the rank that has it.
struct job_vote {
  double t_noprogress_s = 0.0;  ///< the longest window
  int slowest_rank_off = 0;
  double t_dedicated_s = 0.0;   ///< the longest prediction with a dedicated core
  int slowest_rank_core = 0;
  rank_veto veto;               ///< the veto of highest precedence, with its rank's figures
  int veto_rank = 0;
  auto_forced_vote force = auto_forced_vote::none;
};

struct job_verdict {
  bool core = false;       ///< switch to (or stay in) mode core
  bool forced = false;     ///< SIDECORE_AUTO_FORCE decided
  double speedup = 0.0;    ///< t_noprogress_s / t_dedicated_s of the job
  dedicated::outcome outcome = dedicated::outcome::within_noise;  ///< the model's, against the noise band
  std::string reason;      ///< the sentence saying why, naming the rank that decided or vetoed
};

/// The job takes as long as its slowest rank in either mode, and the slowest rank need not be the same one in both:
/// the job's speedup is the longest window over the longest prediction (the model's job level, docs/model.md), not
/// one rank's gain. Precedence: a rank without a core to reserve (never core); SIDECORE_AUTO_FORCE; a rank that is
/// oversubscribed, whose model has one core (SIDECORE_NCORE=1) or that has no computation (the model cannot judge:
/// off); the model against the noise band.
[[nodiscard]] job_verdict judge(const job_vote& v, double noise = dedicated::default_noise);

}  // namespace sidecore::detail
