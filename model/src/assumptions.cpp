// The hypotheses of seed 004's model, checked on the calibration inputs: when one does not hold, the headline says
// "cannot judge" and why, instead of a verdict with warnings below it (docs/model.md, "When the model cannot judge").
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sidecore/model/analysis.hpp"

namespace sidecore::model {
namespace {

// Keeps one entry per id: the one with the largest magnitude, counting the ranks that break the hypothesis.
class collector {
 public:
  void add(broken_assumption b, double magnitude) {
    auto it = std::find_if(out_.begin(), out_.end(), [&](const auto& x) { return x.first.id == b.id; });
    if (it == out_.end()) {
      b.ranks_affected = 1;
      out_.emplace_back(std::move(b), magnitude);
      return;
    }
    const int n = it->first.ranks_affected + 1;
    if (magnitude > it->second) *it = {std::move(b), magnitude};
    it->first.ranks_affected = n;
  }
  std::vector<broken_assumption> take(std::size_t nranks) && {
    std::vector<broken_assumption> v;
    for (auto& [b, m] : out_) {
      if (nranks > 1 && b.rank >= 0)
        b.reason += fmt::format(" ({} of {} ranks; numbers from rank {}.)", b.ranks_affected, nranks, b.rank);
      v.push_back(std::move(b));
    }
    return v;
  }

 private:
  std::vector<std::pair<broken_assumption, double>> out_;
};

// Oversubscription: more busy threads on a host than it has cores. Where every calibration profile names its host,
// each host's ranks' n_core add up against its cores; otherwise only the provider says that ranks shared a host
// (shm: all of them), and each saw at most most_cores cores: more ranks than that share cores unless each had cores
// of its own (a host of at least nranks x N_core cores, every rank bound to its share).
void check_hosts(const job_input& in, int most_cores, collector& c) {
  const bool hosts_named =
      !in.calibration.empty() && in.calibration.size() == in.ranks.size() &&
      std::all_of(in.calibration.begin(), in.calibration.end(), [](const profile& p) { return p.host.has_value(); });
  if (hosts_named) {
    struct load {
      int ranks = 0, cores = 0, lo = 0, hi = 0;
      long long unseen = 0;  // ranks of the job not among the profiles given, counted on this host
      long long busy = 0;  // n_core is any int: their sum is not
      std::vector<int> named;  // the first ranks, for the message
    };
    std::map<std::string, load> hosts;
    for (std::size_t i = 0; i < in.ranks.size(); ++i) {
      load& l = hosts[in.calibration[i].host->id];
      ++l.ranks;
      if (l.named.size() < 8) l.named.push_back(in.ranks[i].rank);
      l.busy += in.ranks[i].n_core;
      l.cores = std::max(l.cores, in.calibration[i].host->cores);
      l.lo = l.ranks == 1 ? in.ranks[i].n_core : std::min(l.lo, in.ranks[i].n_core);
      l.hi = std::max(l.hi, in.ranks[i].n_core);
    }
    // Ranks of the job that are not among the profiles given (one rank's profile of a larger run): with provider shm
    // every rank ran on the one host, so they are counted there too, at the fewest cores a given rank had.
    const auto given = static_cast<long long>(in.ranks.size());
    if (in.provider == "shm" && hosts.size() == 1 && in.nranks > given) {
      load& l = hosts.begin()->second;
      l.unseen = in.nranks - given;
      l.busy += l.unseen * l.lo;
    }
    for (const auto& [id, l] : hosts) {
      if (l.busy <= l.cores) continue;
      const std::string unseen =
          l.unseen == 0 ? std::string()
                        : fmt::format("; {} more not among the profiles given, counted at {} core{}: provider shm ran "
                                      "every rank on one host",
                                      l.unseen, l.lo, l.lo == 1 ? "" : "s");
      c.add({"oversubscribed", -1, 0,
             fmt::format("{} ranks ({}{}{}) ran on host {}, {} core{} each: {} busy threads on its {} cores, so the "
                         "run measured threads taking turns on cores, not computation and communication. Run at most "
                         "one busy thread per core (ranks x cores per rank <= the host's cores).",
                         l.ranks + l.unseen, fmt::join(l.named, ", "), l.ranks > 8 ? ", ..." : "", unseen, id,
                         l.lo == l.hi ? fmt::format("{}", l.hi) : fmt::format("{}-{}", l.lo, l.hi),
                         l.hi == 1 ? "" : "s", l.busy, l.cores)},
            static_cast<double>(l.busy) / static_cast<double>(l.cores));
    }
    return;
  }
  if (in.provider == "shm" && in.nranks > most_cores && most_cores > 0)
    c.add({"oversubscribed", -1, 0,
           fmt::format("{} ranks ran on one host (provider shm) and each could use {} core{}: unless every rank was "
                       "bound to cores of its own (mpiexec -bind-to core:{} on a host of at least {} cores), more "
                       "threads were busy than there were cores, and the run measured oversubscription, not "
                       "computation and communication. Run at most one busy thread per core.",
                       in.nranks, most_cores, most_cores == 1 ? "" : "s", most_cores, in.nranks * most_cores)},
          1.0);
}

}  // namespace

std::vector<broken_assumption> check_assumptions(const job_input& in, const diagnostic_thresholds& th) {
  collector c;
  int most_cores = 0;
  for (const rank_inputs& r : in.ranks) {
    most_cores = std::max(most_cores, r.n_core);
    const double t_mpi = r.t_mpi_s();
    // Section III-A decomposes one timeline: t_noprogress = t_comp + t_MPI. Calls of several threads overlap in
    // time and cannot be put on it.
    if (r.all_thread_categories)
      c.add({"several-communicating-threads", r.rank, 0,
             fmt::format("{} threads made calls on rank {} and the profile holds only their sums ({:.4g} s in calls "
                         "against {:.4g} s of run time), not the communicating thread's own calls, which the model "
                         "needs. Profile with a sidecore that writes communicating_thread, or let one thread "
                         "communicate.",
                         r.calling_threads, r.rank, t_mpi, r.t_noprogress_s)},
            t_mpi);
    else if (t_mpi > r.t_noprogress_s * (1 + th.significance))
      c.add({"mpi-above-run-time", r.rank, 0,
             fmt::format("Rank {} spent {:.4g} s in calls, more than its run time of {:.4g} s: the calls overlap "
                         "each other (several threads?) or the measurements disagree, so t_noprogress = t_comp + "
                         "t_MPI (Section III-A) does not hold.",
                         r.rank, t_mpi, r.t_noprogress_s)},
            t_mpi - r.t_noprogress_s);
    else if (r.t_comp_s + t_mpi < r.t_noprogress_s * (1 - th.significance))
      c.add({"run-time-not-covered", r.rank, 0,
             fmt::format("Rank {} computed {:.4g} s and spent {:.4g} s in calls: {:.4g} s of its run time of {:.4g} s "
                         "({:.3g} %). t_noprogress = t_comp + t_MPI (Section III-A) does not hold, so the profile "
                         "does not describe the run (edited, or written by a tool that measures t_comp otherwise); "
                         "profile the run again.",
                         r.rank, r.t_comp_s, t_mpi, r.t_comp_s + t_mpi, r.t_noprogress_s,
                         100.0 * (r.t_comp_s + t_mpi) / r.t_noprogress_s)},
            r.t_noprogress_s - r.t_comp_s - t_mpi);
    // III-C2a: the gain is communication hidden behind computation; with none, the model's best case is empty.
    if (r.t_comp_s < th.significance * r.t_noprogress_s)
      c.add({"no-computation", r.rank, 0,
             fmt::format("Rank {} computed {:.4g} s of its {:.4g} s ({:.2g} %): a dedicated core gains by hiding "
                         "communication behind computation, and there is none to hide behind. The model would "
                         "predict the waits at their minimum all the same.",
                         r.rank, r.t_comp_s, r.t_noprogress_s, 100.0 * r.t_comp_s / r.t_noprogress_s)},
            r.t_noprogress_s - r.t_comp_s);
  }
  check_hosts(in, most_cores, c);
  return std::move(c).take(in.ranks.size());
}

}  // namespace sidecore::model
