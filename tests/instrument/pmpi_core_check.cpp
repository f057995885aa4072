// Checks a run of pmpi_omp_app.c under libsidecore-pmpi.so, in mode off or core (engine sidecore or mpich): the OpenMP
// fence and the progress thread's core (from what the program printed about its own threads), the profile's mode,
// provider and progress_thread section, and its call counts against the ones the program counted itself.
// Usage: pmpi_core_check <off|core> <sidecore|mpich> <program's stdout> <profile pattern with %r>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "profile_check.hpp"
#include "sidecore/instrument/instrument.hpp"
#if SIDECORE_HAVE_MODEL_PROFILE
#include "sidecore/common/profile.hpp"
#endif

using json = nlohmann::json;

namespace {
using profile_check::slurp;

std::set<int> cpu_set_of(const std::string& list) {
  std::set<int> s;
  std::stringstream ss(list);
  std::string item;
  while (std::getline(ss, item, ',')) s.insert(std::atoi(item.c_str()));
  return s;
}

bool disjoint(const std::set<int>& a, const std::set<int>& b) {
  for (const int x : a)
    if (b.count(x) != 0) return false;
  return true;
}

// What one rank printed (pmpi_omp_app.c's header comment).
struct rank_report {
  int max_threads = -1, at_main = -1;
  std::vector<std::set<int>> omp_threads;
  std::vector<std::pair<std::string, std::set<int>>> tasks;
  std::map<std::string, long> calls;
  int early = -1, iters = -1;
};

std::map<int, rank_report> read_output(const std::string& path) {
  std::map<int, rank_report> out;
  std::istringstream in(slurp(path));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream w(line);
    std::string word, what;
    int rank = -1;
    if (!(w >> word >> rank >> what) || word != "rank") continue;
    rank_report& r = out[rank];
    if (what == "omp_max_threads") {
      w >> r.max_threads >> word >> r.at_main;
    } else if (what == "omp_thread") {
      std::string cpus;
      w >> word >> word >> cpus;
      r.omp_threads.push_back(cpu_set_of(cpus));
    } else if (what == "task") {
      std::string name, cpus;
      w >> name >> word >> cpus;
      r.tasks.emplace_back(name, cpu_set_of(cpus));
    } else if (what == "calls") {
      std::string cat;
      long n = 0;
      while (w >> cat >> n) r.calls[cat] = n;
    } else if (what == "overlap") {
      while (w >> word) {
        if (word == "early") w >> r.early >> word >> r.iters;
      }
    }
  }
  return out;
}

void check_rank(int rank, const rank_report& out, const json& prof, bool core, const std::string& engine) {
  const int n_core = prof["n_core"].get<int>();
  CHECK(prof["mode"] == (core ? "core" : "off"), "rank %d mode %s", rank, prof["mode"].dump().c_str());
  const std::string provider = prof["provider"].get<std::string>();
  const std::string what = engine == "mpich" ? "MPICH async progress thread" : "sidecore progress thread";
  CHECK(provider.rfind("pmpi: ", 0) == 0, "rank %d provider %s", rank, provider.c_str());
  CHECK((provider.find("; core mode: " + what + " on ") != std::string::npos) == core, "rank %d provider %s", rank,
        provider.c_str());
  CHECK(prof.contains("progress_thread") == (core && engine == "sidecore"), "rank %d progress_thread section", rank);
  if (core && engine == "sidecore")
    CHECK(prof["progress_thread"]["polls"].get<double>() > 0, "rank %d: no polls", rank);

  // The fence: N-1 OpenMP threads from main's first line on, none of them, and no other thread of the process, on the
  // reserved core; the progress thread alone there.
  const int expected_threads = core ? n_core - 1 : n_core;
  CHECK(out.max_threads == expected_threads && out.at_main == expected_threads,
        "rank %d: omp_get_max_threads %d (at main's first line %d), expected %d of n_core %d", rank, out.max_threads,
        out.at_main, expected_threads, n_core);
  CHECK(static_cast<int>(out.omp_threads.size()) == expected_threads, "rank %d: %zu OpenMP threads reported", rank,
        out.omp_threads.size());
  const std::string progress_name = engine == "mpich" ? "sidecore-mpich" : "sidecore-prog";
  std::set<int> reserved;
  int progress_threads = 0;
  for (const auto& [name, cpus] : out.tasks) {
    if (name == progress_name) {
      ++progress_threads;
      reserved = cpus;
    }
  }
  CHECK(progress_threads == (core ? 1 : 0), "rank %d: %d threads named %s", rank, progress_threads,
        progress_name.c_str());
  if (!core || progress_threads != 1) return;
  CHECK(provider.find("(PU P#" + std::to_string(*reserved.begin())) != std::string::npos,
        "rank %d: progress thread on CPU %d, provider says %s", rank, *reserved.begin(), provider.c_str());
  for (const auto& cpus : out.omp_threads)
    CHECK(disjoint(cpus, reserved), "rank %d: an OpenMP thread may run on the reserved core", rank);
  for (const auto& [name, cpus] : out.tasks)
    if (name != progress_name)
      CHECK(disjoint(cpus, reserved), "rank %d: thread %s may run on the reserved core", rank, name.c_str());
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s <off|core> <sidecore|mpich> <program's stdout> <profile pattern>\n", argv[0]);
    return 2;
  }
  const bool core = std::string(argv[1]) == "core";
  const std::string engine = argv[2];
  const auto out = read_output(argv[3]);
  const std::string pattern = argv[4];
  for (int rank = 0; rank < 2; ++rank) {
    const json prof = json::parse(slurp(sidecore::instrument::path_for_rank(pattern, rank)));
    CHECK(out.count(rank) == 1, "no output of rank %d", rank);
    if (out.count(rank) == 0) continue;
    const rank_report& r = out.at(rank);
    check_rank(rank, r, prof, core, engine);
    for (const char* cat : {"blocking", "init", "test", "wait", "other"}) {
      const long got = prof["categories"][cat]["count"].get<long>();
      CHECK(r.calls.count(cat) == 1 && got == r.calls.at(cat), "rank %d %s: profile %ld calls, program made %ld",
            rank, cat, got, r.calls.count(cat) ? r.calls.at(cat) : -1L);
    }
  }
  // Background progress, not speed: with the core, every reception was complete before the program's MPI_Wait,
  // though it made no MPI call between its MPI_Irecv and that MPI_Wait (run_pmpi_core_test.sh gives it --await-us).
  if (out.count(0) == 1) {
    const rank_report& r0 = out.at(0);
    std::printf("pmpi_core_check: %s %s: %d of %d receptions complete before MPI_Wait\n", argv[1], argv[2], r0.early,
                r0.iters);
    CHECK(r0.iters > 0, "rank 0 printed no overlap line");
    if (core)
      CHECK(r0.early == r0.iters, "core mode: %d of %d receptions complete before MPI_Wait", r0.early, r0.iters);
  }
  const std::string job_text = slurp(sidecore::instrument::job_path(pattern));
#if SIDECORE_HAVE_MODEL_PROFILE
  try {
    const auto p = sidecore::parse_profile(job_text, "job profile");
    CHECK(p.ranks.size() == 2, "model reader: %zu ranks", p.ranks.size());
  } catch (const std::exception& e) {
    CHECK(false, "model reader rejects the job profile: %s", e.what());
  }
#endif
  if (profile_check::failures == 0) std::printf("pmpi_core_check: %s %s OK\n", argv[1], argv[2]);
  return profile_check::failures == 0 ? 0 : 1;
}
