// SIDECORE_PROGRESS=auto on an application loop (multi-rank, under mpiexec; tests/runtime/CMakeLists.txt runs it at
// 2 and 3 ranks on shm and tcp;ofi_rxm). Every iteration posts a rendezvous-sized and an eager-sized message to the
// right neighbour and receives from the left, computes in an OpenMP region, calls sidecore::step() while the requests
// are in flight, then waits and checks every byte: so the switch always happens with requests posted in mode off and
// still pending. Scenarios (argv[1]):
//   steps    SIDECORE_AUTO_STEPS=3, SIDECORE_AUTO_FORCE=core: mode off through the window, core from the 4th step()
//            on; OpenMP then has N_core - 1 threads, none of them allowed on the reserved core; the profile's auto
//            section (rank and job) records the forced verdict and the switch.
//   time     SIDECORE_AUTO_WINDOW, no step() calls, SIDECORE_AUTO_FORCE=core: every rank reaches core on its own
//            (nonblocking agreement) while the traffic goes on.
//   model    SIDECORE_AUTO_STEPS=2, no force: the model decides. Ranks started without binding share the node's
//            cores (each cpuset is the whole machine), so the honest answer is "oversubscribed": stays off.
//   recheck  SIDECORE_AUTO_STEPS=2, SIDECORE_AUTO_RECHECK=2steps, forced core: core, back to off for each re-check's
//            window (OpenMP given back every core), core again.
//   uneven   SIDECORE_AUTO_STEPS=3, forced core, 4 iterations: rank 0 calls step() in each, the others never (a
//            broken contract): rank 0's vote at its 4th step() is completed by the others' at their finalize, no
//            rank hangs, finalize returns on every rank, rank 0 ends in core and the others in off, each rank's
//            profile is written and the job profile is not (its ranks' modes differ), said on stderr.
//   ncore1   SIDECORE_AUTO_STEPS=2, SIDECORE_NCORE=1, no force, 1 rank: a model with one core has none to dedicate,
//            so the verdict is off, and no speedup is predicted.
//   nostep   SIDECORE_AUTO_STEPS=3, no step() calls: no window, mode off throughout, and said at finalize.
//   onecore  SIDECORE_AUTO_STEPS=2 on a one-core cpuset (taskset): no core to reserve, so off, and the reason says
//            why in mode auto's terms (not mode core's advice to set SIDECORE_PROGRESS=off).
//   vetoed   SIDECORE_AUTO_STEPS=2, rank 1 on a one-core cpuset (taskset), rank 0 not: rank 1 vetoes, and every
//            rank's decision (rank 0's printed line, each rank's profile, the job profile) names rank 1 and why.
//   ignored  SIDECORE_AUTO_* set without SIDECORE_PROGRESS=auto (the mode in SIDECORE_PROGRESS, off when unset):
//            the mode stays as given, step() does nothing, and rank 0 warns once at init (the test's regular
//            expressions check stderr).
#include <mpi.h>
#include <omp.h>
#include <hwloc.h>
#include <sched.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sidecore/common/profile.hpp>
#include <sidecore/sidecore.hpp>

namespace {

int g_rank = 0;
int g_failures = 0;

#define CHECK(cond, ...)                                                                  \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      std::fprintf(stderr, "[rank %d] %s:%d: CHECK(%s) failed: ", g_rank, __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                                  \
      std::fprintf(stderr, "\n");                                                         \
      ++g_failures;                                                                       \
    }                                                                                     \
  } while (0)

constexpr std::int64_t big_bytes = 256 * 1024;  // rendezvous (above SIDECORE_EAGER_MAX's 8 KiB default)
constexpr std::int64_t small_bytes = 64;        // eager

std::uint8_t pattern(int iter, int sender, std::size_t i) {
  return static_cast<std::uint8_t>((static_cast<unsigned>(iter) * 31u + static_cast<unsigned>(sender) * 7u + i * 13u) &
                                   0xffu);
}

// The allowed cores at start-up, as the runtime sees them (hwloc, cores that intersect the process's cpuset).
struct cores_at_start {
  hwloc_topology_t topo = nullptr;
  std::vector<hwloc_bitmap_t> cores;
  cores_at_start() {
    hwloc_topology_init(&topo);
    hwloc_topology_load(topo);
    hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
    hwloc_get_cpubind(topo, allowed, HWLOC_CPUBIND_PROCESS);
    const int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    for (int i = 0; i < n; ++i) {
      hwloc_obj_t c = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
      if (c && hwloc_bitmap_intersects(c->cpuset, allowed)) cores.push_back(hwloc_bitmap_dup(c->cpuset));
    }
    hwloc_bitmap_free(allowed);
  }
  ~cores_at_start() {
    for (auto b : cores) hwloc_bitmap_free(b);
    hwloc_topology_destroy(topo);
  }
};

class loop {
 public:
  explicit loop(int rank, int size) : rank_(rank), size_(size) {}

  // Posts this iteration's transfers.
  void post(int iter) {
    const int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
    big_out_.assign(static_cast<std::size_t>(big_bytes), 0);
    small_out_.assign(static_cast<std::size_t>(small_bytes), 0);
    for (std::size_t i = 0; i < big_out_.size(); ++i) big_out_[i] = pattern(iter, rank_, i);
    for (std::size_t i = 0; i < small_out_.size(); ++i) small_out_[i] = pattern(iter + 1000, rank_, i);
    big_in_.assign(big_out_.size(), 0);
    small_in_.assign(small_out_.size(), 0);
    reqs_.clear();
    reqs_.push_back(sidecore::irecv(big_in_.data(), big_bytes, left, 1));
    reqs_.push_back(sidecore::irecv(small_in_.data(), small_bytes, left, 2));
    reqs_.push_back(sidecore::isend(big_out_.data(), big_bytes, right, 1));
    reqs_.push_back(sidecore::isend(small_out_.data(), small_bytes, right, 2));
  }

  // OpenMP computation; returns how many threads ran it.
  int compute() {
    std::atomic<int> threads{0};
    double sum = 0;
#pragma omp parallel reduction(+ : sum)
    {
#pragma omp single
      threads = omp_get_num_threads();
#pragma omp for
      for (int i = 0; i < 200000; ++i) sum += static_cast<double>(i % 7) * 1e-9;
    }
    sink_ += sum;
    return threads.load();
  }

  // Waits for this iteration's transfers and checks every byte.
  void finish(int iter) {
    std::vector<sidecore::status> st(reqs_.size());
    sidecore::waitall(reqs_, st);
    const int left = (rank_ + size_ - 1) % size_;
    for (const auto& s : st)
      CHECK(s.ok(), "iteration %d: a request completed with %s", iter, sidecore::errc_name(s.error));
    CHECK(st[0].bytes == static_cast<std::size_t>(big_bytes), "iteration %d: %zu bytes", iter, st[0].bytes);
    for (std::size_t i = 0; i < big_in_.size(); ++i)
      if (big_in_[i] != pattern(iter, left, i)) {
        CHECK(false, "iteration %d: rendezvous byte %zu is %d, expected %d", iter, i, big_in_[i],
              pattern(iter, left, i));
        break;
      }
    for (std::size_t i = 0; i < small_in_.size(); ++i)
      if (small_in_[i] != pattern(iter + 1000, left, i)) {
        CHECK(false, "iteration %d: eager byte %zu differs", iter, i);
        break;
      }
  }

  double sink_ = 0;

 private:
  int rank_, size_;
  std::vector<std::uint8_t> big_out_, small_out_, big_in_, small_in_;
  std::vector<sidecore::request> reqs_;
};

// Every OpenMP thread of a region of `threads` threads: allowed on at least one core, none on `reserved`.
void check_fence(const cores_at_start& cores, int reserved, int threads) {
  CHECK(reserved >= 0 && reserved < static_cast<int>(cores.cores.size()), "reserved core %d", reserved);
  if (reserved < 0 || reserved >= static_cast<int>(cores.cores.size())) return;
  std::atomic<int> on_reserved{0}, team{0};
#pragma omp parallel num_threads(threads)
  {
    hwloc_bitmap_t mine = hwloc_bitmap_alloc();
    hwloc_get_cpubind(cores.topo, mine, HWLOC_CPUBIND_THREAD);
    if (hwloc_bitmap_intersects(mine, cores.cores[static_cast<std::size_t>(reserved)]) || hwloc_bitmap_iszero(mine))
      ++on_reserved;
    hwloc_bitmap_free(mine);
#pragma omp single
    team = omp_get_num_threads();
  }
  CHECK(team.load() == threads, "the region ran %d threads, expected %d", team.load(), threads);
  CHECK(on_reserved.load() == 0, "%d OpenMP threads may run on the reserved core", on_reserved.load());
}

std::string path_for(const char* pattern, const std::string& who) {
  std::string p = pattern;
  const auto at = p.find("%r");
  if (at != std::string::npos) p.replace(at, 2, who);
  return p;
}

void check_profile(const char* pattern, int rank, bool expect_switch, std::uint64_t steps) {
  try {
    const sidecore::profile p = sidecore::read_profile_file(path_for(pattern, std::to_string(rank)));
    CHECK(p.auto_mode.has_value(), "the rank profile has no auto section");
    if (!p.auto_mode) return;
    CHECK(p.auto_mode->decisions.size() == 1, "%zu decisions", p.auto_mode->decisions.size());
    const sidecore::auto_decision& d = p.auto_mode->decisions.front();
    CHECK(d.trigger == "steps" && d.steps == steps, "trigger %s, %llu steps", d.trigger.c_str(),
          static_cast<unsigned long long>(d.steps));
    CHECK(d.verdict == (expect_switch ? "core" : "off"), "verdict %s", d.verdict.c_str());
    CHECK(d.forced == expect_switch, "forced %d", d.forced);
    // Unbound ranks on one node share its cores: the model's honest answer is that it cannot judge.
    if (!expect_switch)
      CHECK(d.reason.find("oversubscribed") != std::string::npos, "reason: %s", d.reason.c_str());
    // The profile names the host, with the cores that the veto counted: the model sees the same oversubscription.
    CHECK(p.host.has_value() && p.host->id.size() == 16 && p.host->cores >= 1, "the profile's host");
    if (!expect_switch && p.host)
      CHECK(p.nranks * p.n_core > p.host->cores, "%d ranks x %d cores on a host of %d cores: not oversubscribed",
            p.nranks, p.n_core, p.host->cores);
    CHECK(d.switch_s.has_value() == expect_switch, "switch_s present: %d", d.switch_s.has_value());
    CHECK(d.window_s > 0 && d.job_t_noprogress_s >= d.window_s, "window %g s, job %g s", d.window_s,
          d.job_t_noprogress_s);
    CHECK(p.mode == (expect_switch ? sidecore::progress_mode::core : sidecore::progress_mode::off), "profile mode");
    if (rank == 0) {
      const sidecore::profile job = sidecore::read_profile_file(path_for(pattern, "job"));
      CHECK(job.auto_mode && job.auto_mode->decisions.size() == 1 && job.auto_mode->decisions[0].verdict == d.verdict,
            "the job profile's auto section");
    }
  } catch (const std::exception& e) {
    CHECK(false, "reading the profile: %s", e.what());
  }
}

int run(const std::string& scenario, int rank, int size) {
  const cores_at_start cores;
  loop app(rank, size);
  const int off_threads = omp_get_max_threads();
  if (scenario == "steps" || scenario == "model") {
    const bool forced = scenario == "steps";
    const int k = forced ? 3 : 2;
    for (int it = 0; it < 8; ++it) {
      app.post(it);
      (void)app.compute();
      CHECK(sidecore::info().mode == "off" || it > k, "iteration %d: mode %s before the window's end", it,
            sidecore::info().mode.c_str());
      sidecore::step();  // the (k+1)-th call ends the window of k iterations
      const std::string mode = sidecore::info().mode;
      if (it >= k)
        CHECK(mode == (forced ? "core" : "off"), "iteration %d: mode %s after the decision", it, mode.c_str());
      app.finish(it);  // requests posted in mode off, completed in the mode decided
      if (forced && it == k) {
        const sidecore::runtime_info i = sidecore::info();
        CHECK(i.auto_mode, "info().auto_mode");
        CHECK(omp_get_max_threads() == i.n_core - 1, "%d OpenMP threads after the switch on %d cores",
              omp_get_max_threads(), i.n_core);
        CHECK(app.compute() == i.n_core - 1, "the next region's team");
        check_fence(cores, i.reserved_core, omp_get_max_threads());
      }
    }
    return 0;
  }
  if (scenario == "time") {
    int after = 0;
    for (int it = 0; it < 100000; ++it) {
      app.post(it);
      (void)app.compute();
      app.finish(it);
      if (sidecore::info().mode == "core") ++after;
      int mine = after >= 3 ? 1 : 0, all = 0;
      MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      if (all) return 0;
    }
    CHECK(false, "mode core never reached with a time window");
    return 0;
  }
  if (scenario == "recheck") {
    bool seen_core = false, seen_back_off = false;
    for (int it = 0; it < 12; ++it) {
      app.post(it);
      (void)app.compute();
      sidecore::step();
      const std::string mode = sidecore::info().mode;
      if (mode == "core") seen_core = true;
      if (seen_core && mode == "off") {
        seen_back_off = true;
        CHECK(omp_get_max_threads() == off_threads, "%d OpenMP threads in a re-check's window, %d in mode off",
              omp_get_max_threads(), off_threads);
      }
      app.finish(it);
    }
    CHECK(seen_core && seen_back_off, "core %d, back off for a re-check %d", seen_core, seen_back_off);
    CHECK(sidecore::info().mode == "core", "mode %s at the end", sidecore::info().mode.c_str());
    return 0;
  }
  if (scenario == "ignored") {
    const char* given = std::getenv("SIDECORE_PROGRESS");
    const std::string want = given && std::string(given) == "core" ? "core" : "off";
    CHECK(!sidecore::info().auto_mode, "info().auto_mode without SIDECORE_PROGRESS=auto");
    for (int it = 0; it < 6; ++it) {
      app.post(it);
      (void)app.compute();
      sidecore::step();
      CHECK(sidecore::info().mode == want, "iteration %d: mode %s, expected %s", it, sidecore::info().mode.c_str(),
            want.c_str());
      app.finish(it);
    }
    return 0;
  }
  if (scenario == "uneven" || scenario == "ncore1" || scenario == "nostep" || scenario == "onecore" ||
      scenario == "vetoed") {
    const bool stepping = scenario == "ncore1" || scenario == "onecore" || scenario == "vetoed";
    const int iterations = stepping ? 5 : 4;
    for (int it = 0; it < iterations; ++it) {
      app.post(it);
      (void)app.compute();
      if ((scenario == "uneven" && rank == 0) || stepping) sidecore::step();
      app.finish(it);
    }
    const std::string want = scenario == "uneven" && rank == 0 ? "core" : "off";
    CHECK(sidecore::info().mode == want, "mode %s at the end, expected %s", sidecore::info().mode.c_str(),
          want.c_str());
    return 0;
  }
  CHECK(false, "unknown scenario %s", scenario.c_str());
  return 0;
}

// After finalize: each rank's profile holds what the rank decided; the job profile exists only where every rank
// ended in the same mode.
void check_uneven_profiles(const char* pattern, int rank, const std::string& scenario) {
  try {
    const sidecore::profile p = sidecore::read_profile_file(path_for(pattern, std::to_string(rank)));
    CHECK(p.auto_mode.has_value(), "the rank profile has no auto section");
    if (!p.auto_mode) return;
    const auto& ds = p.auto_mode->decisions;
    if (scenario == "uneven") {
      CHECK(ds.size() == (rank == 0 ? 1u : 0u), "%zu decisions", ds.size());
      if (rank == 0 && !ds.empty())
        CHECK(ds[0].verdict == "core" && ds[0].switch_s.has_value(), "verdict %s", ds[0].verdict.c_str());
      std::FILE* job = std::fopen(path_for(pattern, "job").c_str(), "r");
      CHECK(job == nullptr, "a job profile of ranks that ended in different modes");
      if (job != nullptr) std::fclose(job);
    } else if (scenario == "ncore1" || scenario == "onecore") {
      CHECK(ds.size() == 1, "%zu decisions", ds.size());
      if (!ds.empty()) {
        CHECK(ds[0].verdict == "off" && !ds[0].forced, "verdict %s", ds[0].verdict.c_str());
        const char* why = scenario == "ncore1" ? "SIDECORE_NCORE" : "its cpuset holds 1 core";
        CHECK(ds[0].reason.find(why) != std::string::npos, "reason: %s", ds[0].reason.c_str());
        CHECK(ds[0].t_dedicated_s >= ds[0].window_s, "predicted %g s with a dedicated core, window %g s",
              ds[0].t_dedicated_s, ds[0].window_s);
      }
    } else if (scenario == "vetoed") {
      // Every rank records rank 1's veto in rank 1's terms, not only rank 1 itself.
      CHECK(ds.size() == 1, "%zu decisions", ds.size());
      if (!ds.empty()) {
        CHECK(ds[0].verdict == "off" && !ds[0].forced, "verdict %s", ds[0].verdict.c_str());
        for (const char* why : {"rank 1 cannot reserve a core", "its cpuset holds 1 core"})
          CHECK(ds[0].reason.find(why) != std::string::npos, "reason lacks '%s': %s", why, ds[0].reason.c_str());
      }
      if (rank == 0 && !ds.empty()) {
        const sidecore::profile job = sidecore::read_profile_file(path_for(pattern, "job"));
        CHECK(job.auto_mode && job.auto_mode->decisions.size() == 1 &&
                  job.auto_mode->decisions[0].reason == ds[0].reason,
              "the job profile's decision differs from rank 0's");
      }
    } else {
      CHECK(ds.empty(), "%zu decisions", ds.size());
    }
  } catch (const std::exception& e) {
    CHECK(false, "reading the profile: %s", e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::string scenario = argc > 1 ? argv[1] : "";
  // The job profile the uneven scenario must not write: none left from an earlier run.
  if (const char* prof = std::getenv("SIDECORE_PROFILE"); prof && scenario == "uneven" && g_rank == 0)
    std::remove(path_for(prof, "job").c_str());
  MPI_Barrier(MPI_COMM_WORLD);
  try {
    sidecore::init();
    run(scenario, g_rank, size);
    sidecore::finalize();
  } catch (const std::exception& e) {
    CHECK(false, "%s", e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (const char* prof = std::getenv("SIDECORE_PROFILE"); prof && (scenario == "steps" || scenario == "model"))
    check_profile(prof, g_rank, scenario == "steps", scenario == "steps" ? 3 : 2);
  if (const char* prof = std::getenv("SIDECORE_PROFILE");
      prof && (scenario == "uneven" || scenario == "ncore1" || scenario == "nostep" || scenario == "onecore" ||
               scenario == "vetoed"))
    check_uneven_profiles(prof, g_rank, scenario);
  int failures = 0;
  MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  if (g_rank == 0) std::printf("%s: %s\n", scenario.c_str(), failures == 0 ? "passed" : "FAILED");
  return failures == 0 ? 0 : 1;
}
