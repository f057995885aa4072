// Checks the profiles that libsidecore-pmpi.so wrote for pmpi_app.c: exact call counts per category on every rank,
// the right categories, plausible times, a valid job profile and trace.
// Usage: pmpi_check <profile pattern with %r> <nranks> <trace pattern with %r>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sidecore/common/profile.hpp"
#include "sidecore/instrument/instrument.hpp"

using json = nlohmann::json;

namespace {
int failures = 0;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      ++failures;                                          \
      std::fprintf(stderr, "FAILED: %s: ", #cond);         \
      std::fprintf(stderr, __VA_ARGS__);                   \
      std::fprintf(stderr, "\n");                          \
    }                                                      \
  } while (0)

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  if (!f) {
    std::fprintf(stderr, "cannot open %s\n", path.c_str());
    std::exit(2);
  }
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Calls per rank of each category, in the order blocking, init, test, wait, other: see pmpi_app.c. Per iteration
// (10): blocking 5 + 3 large-count (Send_c, Recv_c, Allreduce_c), plus one final Reduce: 10 * 8 + 1 = 81; init 4 + 3
// (Irecv_c, Isend_c, Ibcast_c): 70; test 6: 60; wait 3 + 3 (a Wait for each large-count request): 60; other 4.
constexpr std::uint64_t expected_counts[] = {81, 70, 60, 60, 4};
constexpr std::uint64_t expected_calls = 81 + 70 + 60 + 60 + 4;

void check_rank(const json& r, int nranks) {
  const int rank = r["rank"].get<int>();
  const char* names[] = {"blocking", "init", "test", "wait", "other"};
  const std::uint64_t* expected = expected_counts;
  CHECK(r["nranks"] == nranks, "rank %d", rank);
  CHECK(r["mode"] == "off", "rank %d mode %s", rank, r["mode"].dump().c_str());
  CHECK(r["n_core"] == 3, "rank %d n_core %s (SIDECORE_NCORE=3)", rank, r["n_core"].dump().c_str());
  CHECK(r["provider"].get<std::string>().rfind("pmpi: ", 0) == 0, "provider %s", r["provider"].dump().c_str());
  double in_calls = 0;
  for (int c = 0; c < 5; ++c) {
    const json& v = r["categories"][names[c]];
    CHECK(v["count"].get<std::uint64_t>() == expected[c], "rank %d %s count %s, expected %llu", rank, names[c],
          v["count"].dump().c_str(), static_cast<unsigned long long>(expected[c]));
    const double t = v["time_s"].get<double>(), mn = v["min_s"].get<double>();
    // A call shorter than the event clock's resolution (an MPI_Test of a null request, with the TSC: ~10 ns, one
    // rdtsc's duration) may measure 0: the minimum may be 0, the totals may not.
    CHECK(t > 0 && mn >= 0 && mn <= t, "rank %d %s time %g min %g", rank, names[c], t, mn);
    CHECK(mn * static_cast<double>(expected[c]) <= t * (1 + 1e-9), "rank %d %s: min * count > total", rank, names[c]);
    in_calls += t;
  }
  const double t_total = r["t_total_s"].get<double>(), t_comp = r["t_comp_s"].get<double>();
  // 10 iterations of 2 ms computation happen outside MPI on every rank.
  CHECK(t_comp >= 0.020, "rank %d t_comp %g < 20 ms of computation", rank, t_comp);
  CHECK(t_comp <= t_total, "rank %d t_comp %g > t_total %g", rank, t_comp, t_total);
  CHECK(std::abs(t_comp + in_calls - t_total) <= 1e-6 * std::max(1.0, t_total) + 1e-6,
        "rank %d t_comp + calls = %g != t_total %g", rank, t_comp + in_calls, t_total);
  CHECK(t_total < 30.0, "rank %d t_total %g implausible", rank, t_total);
  CHECK(r["overlap"]["xfer_time_source"] == "none" && r["overlap"]["total"]["count"] == 0,
        "rank %d: the PMPI profiler has no transfer events, so no overlap bounds", rank);
  CHECK(!r.contains("progress_thread"), "rank %d: no progress thread in a plain MPI run", rank);
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s <profile pattern> <nranks> <trace pattern>\n", argv[0]);
    return 2;
  }
  const std::string pattern = argv[1];
  const int nranks = std::atoi(argv[2]);
  for (int r = 0; r < nranks; ++r) {
    const json p = json::parse(slurp(sidecore::instrument::path_for_rank(pattern, r)));
    CHECK(p["rank"] == r, "file of rank %d holds rank %s", r, p["rank"].dump().c_str());
    check_rank(p, nranks);
    const json t = json::parse(slurp(sidecore::instrument::path_for_rank(argv[3], r)));
    std::uint64_t calls = 0;
    std::map<std::string, std::map<std::string, int>> by_name;  // call name -> category -> spans
    for (const auto& e : t["traceEvents"]) {
      if (e["ph"] != "X" || e["cat"] == "compute") continue;
      ++calls;
      ++by_name[e["name"].get<std::string>()][e["cat"].get<std::string>()];
    }
    CHECK(calls == expected_calls, "rank %d trace has %llu calls", r, static_cast<unsigned long long>(calls));
    // Each call once per iteration, in its category; a large-count "_c" variant under its own name, in its twin's
    // category (and not counted as the twin: MPI_Allreduce stays at 10 next to MPI_Allreduce_c).
    for (const auto& [name, cat] : {std::pair<const char*, const char*>{"MPI_Allreduce", "blocking"},
                                    {"MPI_Neighbor_allgather", "blocking"},
                                    {"MPI_Isendrecv", "init"},
                                    {"MPI_Request_get_status", "test"},
                                    {"MPI_Send_c", "blocking"},
                                    {"MPI_Recv_c", "blocking"},
                                    {"MPI_Allreduce_c", "blocking"},
                                    {"MPI_Isend_c", "init"},
                                    {"MPI_Irecv_c", "init"},
                                    {"MPI_Ibcast_c", "init"}}) {
      CHECK(by_name[name][cat] == 10 && by_name[name].size() == 1, "rank %d trace: %s spans %d in category %s", r,
            name, by_name[name][cat], cat);
    }
  }
  const std::string job_text = slurp(sidecore::instrument::job_path(pattern));
  const json job = json::parse(job_text);
  CHECK(job["kind"] == "job" && job["ranks"].size() == static_cast<std::size_t>(nranks), "job profile");
  CHECK(job["categories"]["test"]["count"].get<std::uint64_t>() ==
            expected_counts[2] * static_cast<std::uint64_t>(nranks),
        "job test count %s", job["categories"]["test"]["count"].dump().c_str());
  for (const auto& r : job["ranks"]) check_rank(r, nranks);
  try {
    const auto p = sidecore::parse_profile(job_text, "job profile");
    CHECK(p.ranks.size() == static_cast<std::size_t>(nranks), "model reader: ranks");
  } catch (const std::exception& e) {
    CHECK(false, "model reader rejects the job profile: %s", e.what());
  }
  if (failures == 0) std::printf("pmpi_check: %d ranks OK\n", nranks);
  return failures == 0 ? 0 : 1;
}
