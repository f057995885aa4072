#include "run.hpp"

#include <mpi.h>

#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include <sidecore/sidecore.hpp>

namespace apps {

namespace {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

[[noreturn]] void abort_job(const std::string& program, const char* what) {
  std::fprintf(stderr, "%s: rank %d: %s\n", program.c_str(), world_rank(), what);
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // MPI_Abort does not return; this satisfies [[noreturn]]
}

// The memory of this rank's node: APPS_NODE_MEMORY_MIB when set (a node shared with other jobs), else physical.
double node_memory() {
  constexpr long long most = 1LL << 30;  // MiB: 1 PiB
  if (const char* v = std::getenv("APPS_NODE_MEMORY_MIB")) {
    const std::string_view text(v);
    long long mib = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), mib);
    if (ec != std::errc() || end != text.data() + text.size() || mib < 1 || mib > most)
      throw usage_error{"APPS_NODE_MEMORY_MIB='" + std::string(text) + "' is not accepted: give an integer from 1 to " +
                        std::to_string(most) + " (MiB of memory per node), or leave it unset for the physical memory"};
    return static_cast<double>(mib) * 1024.0 * 1024.0;
  }
  return static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
}

}  // namespace

int run(int argc, char** argv, cli& options, const std::function<int()>& body) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const bool printer = world_rank() == 0;
  if (const int rc = options.parse(argc, argv, printer); rc >= 0) {
    MPI_Finalize();
    return rc;
  }
  try {
    sidecore::init();
  } catch (const sidecore::error& e) {
    abort_job(options.program(), e.what());
  }
  int rc = 0;
  try {
    rc = body();
  } catch (const usage_error& e) {
    // Set-up checks decide from values every rank computes alike, so every rank throws: no rank is left waiting.
    if (printer)
      std::fprintf(stderr, "%s: %s (%s --help lists the options)\n", options.program().c_str(), e.message.c_str(),
                   options.program().c_str());
    rc = 2;
  } catch (const std::exception& e) {
    abort_job(options.program(), e.what());
  }
  sidecore::finalize();
  MPI_Finalize();
  return rc;
}

void require_memory(double bytes, const std::string& inputs) {
  const double have = node_memory();  // before the collectives: every rank refuses a bad value alike
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int node_ranks = 1;
  MPI_Comm_size(node, &node_ranks);
  double need = 0.0;
  MPI_Allreduce(&bytes, &need, 1, MPI_DOUBLE, MPI_SUM, node);
  MPI_Comm_free(&node);
  struct {
    double ratio;
    int rank;
  } mine{have > 0 ? need / have : 0.0, world_rank()}, worst{0.0, 0};
  MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  if (worst.ratio <= 1.0) return;
  // The figures of the node that is short the most, for the message every rank throws.
  double figures[3] = {need, have, static_cast<double>(node_ranks)};
  MPI_Bcast(figures, 3, MPI_DOUBLE, worst.rank, MPI_COMM_WORLD);
  constexpr double gib = 1024.0 * 1024.0 * 1024.0;
  char text[160];
  std::snprintf(text, sizeof text, " need at least %.3g GiB of memory on one node (%d rank%s there), which has "
                "%.3g GiB",
                figures[0] / gib, static_cast<int>(figures[2]), figures[2] > 1 ? "s" : "", figures[1] / gib);
  throw usage_error{inputs + text + ": give smaller sizes, or more nodes"};
}

std::string describe_runtime() {
  const sidecore::runtime_info inf = sidecore::info();
  std::string s = "ranks=" + std::to_string(sidecore::size()) + " mode=" + inf.mode + " provider=" + inf.provider;
  if (inf.reserved_core >= 0) s += " progress_core=" + std::to_string(inf.reserved_core);
  s += " omp_threads=" + std::to_string(inf.omp_threads) + " n_core=" + std::to_string(inf.n_core);
  return s;
}

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace apps
