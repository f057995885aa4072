// Gathering a job's inputs from profiles or an mpiP report.
#include "sidecore/model/input.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sidecore/common/input_error.hpp"
#include "sidecore/model/mpip.hpp"

namespace sidecore::model {

bool is_pmpi_provider(std::string_view provider) noexcept { return provider.substr(0, 5) == "pmpi:"; }

namespace {
// The limits the ranks of one run reached, summed by kind (merge_limits), each a sentence naming its ranks: a figure
// the report shows may miss what went past them, and only the profile knows.
std::vector<std::string> incomplete_lines(const std::vector<profile>& ranks, std::string_view run) {
  std::vector<limit_hit> limits;
  for (const profile& r : ranks) merge_limits(limits, r.limits, r.rank);
  std::vector<std::string> out;
  for (const limit_hit& l : limits)
    out.push_back(fmt::format("{} ({}{} {})", l.detail, run, l.ranks.size() == 1 ? "rank" : "ranks",
                              fmt::join(l.ranks, ", ")));
  return out;
}
}  // namespace

job_input make_job_input(const std::vector<profile>& profiles, const std::vector<std::string>& sources,
                         std::optional<int> what_if_cores) {
  if (!sources.empty() && sources.size() != profiles.size())
    throw input_error("make_job_input", "sources", "one source name per profile expected");
  if (what_if_cores && *what_if_cores <= 1)
    throw input_error("--cores", "", fmt::format("N_core = {}; a dedicated core needs N_core >= 2 cores per node",
                                                 *what_if_cores));
  job_input job;
  struct entry {
    profile p;
    std::string source;
  };
  std::map<int, entry> off;
  std::map<int, entry> core;
  int nranks = 0;
  std::string nranks_source;
  struct run_seen {
    std::string run;  // the first run id recorded in this mode
    int rank = 0;
    std::string source;
  };
  run_seen runs[2];  // mode off, mode core
  for (std::size_t i = 0; i < profiles.size(); ++i) {
    const std::string src = sources.empty() ? fmt::format("profile #{}", i + 1) : sources[i];
    std::vector<profile> flat;
    if (profiles[i].kind == profile_kind::job) flat = profiles[i].ranks;
    else flat.push_back(profiles[i]);
    for (auto& r : flat) {
      if (nranks == 0) {
        nranks = r.nranks;
        nranks_source = src;
      } else if (r.nranks != nranks) {
        throw input_error(src, fmt::format("rank {}: nranks", r.rank),
                          fmt::format("{} differs from nranks {} in {}; all profiles must come from the same job",
                                      r.nranks, nranks, nranks_source));
      }
      // A run of mode auto that switched to core ran part of its time in each mode: it measured neither the
      // calibration's t_noprogress nor a dedicated run's time (the job profile carries rank 0's decisions).
      const std::optional<auto_section>& decided = r.auto_mode ? r.auto_mode : profiles[i].auto_mode;
      if (decided)
        for (const auto_decision& d : decided->decisions)
          if (d.switch_s)
            throw input_error(src, fmt::format("rank {}: auto", r.rank),
                              fmt::format("the run switched to mode core at {:g} s (SIDECORE_PROGRESS=auto), so it "
                                          "measured neither mode; give a calibration run with SIDECORE_PROGRESS=off "
                                          "and, to compare, a dedicated run with SIDECORE_PROGRESS=core",
                                          *d.switch_s));
      auto& into = r.mode == progress_mode::off ? off : core;
      // The ranks of one mode are one run: profiles of two calibration runs would be combined into a job that never
      // ran (each rank's id is the same within a run; profiles without one cannot be told apart).
      run_seen& first = runs[r.mode == progress_mode::off ? 0 : 1];
      if (!r.run.empty() && first.run.empty()) first = {r.run, r.rank, src};
      if (!r.run.empty() && r.run != first.run)
        throw input_error(src, fmt::format("rank {}: run", r.rank),
                          fmt::format("run id \"{}\" differs from \"{}\" of rank {} in {}: the {} profiles come from "
                                      "different runs; give the profiles of one run per mode",
                                      r.run, first.run, first.rank, first.source, progress_mode_name(r.mode)));
      auto [it, inserted] = into.emplace(r.rank, entry{r, src});
      if (!inserted)
        throw input_error(src, fmt::format("rank {}", r.rank),
                          fmt::format("rank {} in mode \"{}\" is also in {}; give each rank once per mode: the "
                                      "calibration run in mode \"off\" (SIDECORE_PROGRESS=off) and, to compare, the "
                                      "dedicated run in mode \"core\" (SIDECORE_PROGRESS=core). If one of them is a "
                                      "dedicated run whose profile says \"off\", predict from the calibration run "
                                      "alone",
                                      r.rank, progress_mode_name(r.mode), it->second.source));
      if (job.provider.empty()) job.provider = r.provider;
    }
  }
  if (off.empty())
    throw input_error(sources.empty() ? "profiles" : fmt::format("{}", fmt::join(sources, ", ")), "mode",
                      "no calibration profile: the model needs a run recorded with SIDECORE_PROGRESS=off "
                      "(mode \"off\"); mode \"core\" profiles are only compared with the prediction");
  int own_thread_ranks = 0;
  int max_threads = 0;
  for (auto& [rank, e] : off) {
    rank_inputs in = inputs_from_profile(e.p, e.source);
    validate(in, e.source, !what_if_cores);
    if (in.calling_threads > 1 && !in.all_thread_categories) {
      ++own_thread_ranks;
      max_threads = std::max(max_threads, in.calling_threads);
    }
    job.ranks.push_back(in);
    job.calibration.push_back(std::move(e.p));
  }
  job.what_if_cores = what_if_cores;
  if (own_thread_ranks > 0)
    job.notes.push_back(fmt::format("calls: the communicating thread's own calls on {} rank{} where several threads "
                                    "made calls (up to {}); the model follows the thread t_comp is measured on",
                                    own_thread_ranks, own_thread_ranks == 1 ? "" : "s", max_threads));
  for (auto& [rank, e] : core) job.core_run.push_back(std::move(e.p));
  job.incomplete = incomplete_lines(job.calibration, "");
  for (std::string& s : incomplete_lines(job.core_run, "the core-mode run, ")) job.incomplete.push_back(std::move(s));
  job.nranks = nranks;
  if (static_cast<int>(off.size()) < nranks)
    job.warnings.push_back(fmt::format("only {} of the job's {} ranks have a calibration profile; the job prediction "
                                       "covers those ranks only",
                                       off.size(), nranks));
  std::vector<std::string> names = sources;
  names.erase(std::unique(names.begin(), names.end()), names.end());
  job.source = names.empty() ? "profiles" : fmt::format("{}", fmt::join(names, ", "));
  return job;
}

job_input load_profiles(const std::vector<std::string>& paths, std::optional<int> n_core_override) {
  if (paths.empty()) throw input_error("PROFILE", "", "no profile given; pass sidecore JSON profiles or --mpip FILE");
  std::vector<profile> ps;
  ps.reserve(paths.size());
  for (const auto& p : paths) ps.push_back(read_profile_file(p));
  return make_job_input(ps, paths, n_core_override);
}

job_input load_mpip(const std::string& path, int n_core) {
  const mpip_report rep = read_mpip_file(path);
  job_input job;
  job.source = path;
  job.provider = "mpip";
  job.from_mpip = true;
  job.ranks = mpip_to_inputs(rep, n_core);
  if (job.ranks.empty()) throw input_error(path, "MPI Time", "the report lists no task");
  for (const auto& r : job.ranks) validate(r, path);
  job.nranks = static_cast<int>(job.ranks.size());
  job.warnings = rep.warnings;
  return job;
}

}  // namespace sidecore::model
