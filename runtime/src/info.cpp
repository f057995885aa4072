// sidecore_info_print: what `sidecore info` shows. Works without MPI_Init and without sidecore::init.
#include <mpi.h>
#include <omp.h>
#include <rdma/fabric.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <sidecore/sidecore.h>
#include <sidecore/sidecore.hpp>

#include <sidecore/instrument/bounds.hpp>
#include <sidecore/instrument/instrument.hpp>
#include <sidecore/progress/engine.hpp>

#include "settings.hpp"
#include "topology.hpp"

namespace {

// What the engine would open on this provider (the same query: progress::query_provider).
std::string probe_provider(const std::string& name) {
  fi_info* info = nullptr;
  const int rc = sidecore::progress::query_provider(name, &info);
  if (rc != 0 || !info) return std::string("not available (") + fi_strerror(-rc) + ")";
  const std::string resolved = info->fabric_attr->prov_name ? info->fabric_attr->prov_name : name;
  if (const char* why = sidecore::progress::provider_refusal(resolved)) {
    fi_freeinfo(info);
    return "offered by libfabric as '" + resolved + "', refused by sidecore: " + why;
  }
  std::string s = std::string("available: fabric ") + (info->fabric_attr->name ? info->fabric_attr->name : "?") +
                  ", domain " + (info->domain_attr->name ? info->domain_attr->name : "?") + ", max message " +
                  std::to_string(info->ep_attr->max_msg_size) + " B, inject " +
                  std::to_string(info->tx_attr->inject_size) + " B, progress " +
                  (info->domain_attr->data_progress == FI_PROGRESS_AUTO ? "auto" : "manual");
  fi_freeinfo(info);
  return s;
}

}  // namespace

extern "C" int sidecore_info_print(FILE* out) {
  using namespace sidecore::detail;
  int rc = 0;
  std::fprintf(out, "sidecore %s — dedicated-core communication progress for MPI+OpenMP\n\n", SIDECORE_VERSION_TEXT);

  // Settings: read each variable separately so one bad value does not hide the others. A refused value is marked
  // on its line (the default applies, as it would not at init, which fails) and explained on stderr, as init would.
  settings current;
  std::vector<std::string> errors;
  std::vector<std::string> refused;
  for (const auto& d : setting_table()) {
    if (const char* v = std::getenv(d.name)) {
      try {
        d.parse(current, v);
      } catch (const sidecore::error& e) {
        errors.push_back(e.what());
        refused.emplace_back(d.name);
      }
    }
  }
  try {
    check_auto_settings(current);
  } catch (const sidecore::error& e) {
    errors.push_back(e.what());
  }
  const auto mark = [&](const char* name, const char* v) -> std::string {
    if (!v) return "";
    for (const std::string& r : refused)
      if (r == name) return std::string("  (set to '") + v + "': refused, see stderr)";
    return "  (set)";
  };
  std::fprintf(out, "Settings (environment variables):\n");
  for (const auto& d : setting_table()) {
    const char* v = std::getenv(d.name);
    std::fprintf(out, "  %-24s default: %-8s current: %s%s\n", d.name, d.default_text, d.print(current).c_str(),
                 mark(d.name, v).c_str());
    std::fprintf(out, "      accepted: %s\n      %s\n", d.accepted, d.help);
  }
  // The profiler library's own setting (its other ones are the runtime's, above); it judges it with these words.
  const char* pmpi = std::getenv(pmpi_progress_var);
  const std::string pmpi_word = pmpi ? trim(pmpi) : std::string("sidecore");  // the library ignores spaces around
  const bool pmpi_ok = pmpi_word == "sidecore" || pmpi_word == "mpich";
  if (!pmpi_ok) {
    errors.push_back(std::string(pmpi_progress_var) + "='" + pmpi + "' is not accepted; accepted: sidecore, mpich");
    refused.emplace_back(pmpi_progress_var);
  }
  std::fprintf(out,
               "Read by libsidecore-pmpi.so only (which reads SIDECORE_PROGRESS, SIDECORE_PROGRESS_CORE, "
               "SIDECORE_VERBOSE, SIDECORE_PROFILE, SIDECORE_TRACE, SIDECORE_TRACE_MAX_EVENTS, SIDECORE_SIZE_BINS, "
               "SIDECORE_RING_EVENTS, SIDECORE_COLL_SAMPLES and SIDECORE_NCORE above too; docs/pmpi.md):\n");
  std::fprintf(out, "  %-24s default: %-8s current: %s%s\n", pmpi_progress_var, "sidecore",
               pmpi_ok ? pmpi_word.c_str() : "sidecore", mark(pmpi_progress_var, pmpi).c_str());
  std::fprintf(out, "      accepted: sidecore, mpich\n      The engine that progresses MPI on the reserved core in "
                    "SIDECORE_PROGRESS=core: sidecore's thread calling MPI, or MPICH's own asynchronous progress "
                    "thread pinned there (docs/pmpi.md).\n");
  std::fflush(out);
  // The files init reads and writes, checked as init checks them on one rank (info runs outside a job): each
  // rank's profile and the job's, the trace, the transfer-time table.
  if (!current.profile_path.empty() || !current.trace_path.empty()) {
    sidecore::instrument::config ic;
    ic.profile = !current.profile_path.empty();
    ic.profile_path = current.profile_path;
    ic.trace = !current.trace_path.empty();
    ic.trace_path = current.trace_path;
    if (const std::string problem = sidecore::instrument::check_outputs(ic, 0, 1); !problem.empty())
      errors.push_back(problem);
  }
  if (!current.xfer_table.empty()) {
    try {
      (void)sidecore::instrument::read_xfer_time_table(current.xfer_table);
    } catch (const std::exception& e) {
      errors.push_back("SIDECORE_XFER_TABLE='" + current.xfer_table + "': " + e.what());
    }
  }
  for (const std::string& name : unknown_variables())
    std::fprintf(stderr, "sidecore info: warning: unknown variable %s is ignored (the list above has the known "
                         "ones)\n", name.c_str());
  for (const auto& e : errors) std::fprintf(stderr, "sidecore info: error: %s\n", e.c_str());
  if (!errors.empty()) rc = 2;

  std::fprintf(out, "\nTopology (hwloc %s):\n", HWLOC_VERSION);
  try {
    topology topo;
    std::fprintf(out, "  machine: %s\n", topo.summary().c_str());
    std::fprintf(out, "  this process may run on %d cores (cpuset %s)\n", topo.cores(), topo.allowed_list().c_str());
    try {
      const int reserved = topo.choose_reserved(current.progress_core);
      std::fprintf(out, "  reserved core in core mode: %s (SIDECORE_PROGRESS_CORE=%s)%s\n",
                   topo.describe_core(reserved).c_str(), setting_table()[1].print(current).c_str(),
                   current.mode == progress_mode::core        ? ""
                   : current.mode == progress_mode::automatic ? "  [used if SIDECORE_PROGRESS=auto switches to core]"
                                                              : "  [not used: SIDECORE_PROGRESS=off]");
      std::fprintf(
          out, "  OpenMP threads in core mode: %d, bound to the other cores%s\n", topo.cores() - 1,
          std::getenv("OMP_NUM_THREADS") || std::getenv("OMP_PLACES") || std::getenv("OMP_PROC_BIND")
              ? " unless OMP_NUM_THREADS/OMP_PLACES/OMP_PROC_BIND (set by you) say otherwise: they are respected"
              : "");
      if (omp_places_set_by_user()) {  // what fence_openmp checks at init, for the team it would have
        const int threads = omp_threads_set_by_user() ? omp_get_max_threads() : topo.cores() - 1;
        for (const std::string& w : places_on_reserved(topo, reserved, threads)) std::fprintf(out, "  %s\n", w.c_str());
      }
    } catch (const sidecore::error& e) {
      std::fprintf(out, "  core mode: not possible here: %s\n", e.what());
      if (current.mode == progress_mode::core) {  // init refuses it
        std::fprintf(stderr, "sidecore info: error: SIDECORE_PROGRESS=core: %s\n", e.what());
        rc = 2;
      }
    }
  } catch (const sidecore::error& e) {
    std::fprintf(out, "  error: %s\n", e.what());
  }

  std::fprintf(out,
               "\nOpenMP:\n  OMP_NUM_THREADS=%s OMP_PLACES=%s OMP_PROC_BIND=%s\n  max threads now: %d; places: %s\n",
               std::getenv("OMP_NUM_THREADS") ? std::getenv("OMP_NUM_THREADS") : "(unset)",
               std::getenv("OMP_PLACES") ? std::getenv("OMP_PLACES") : "(unset)",
               std::getenv("OMP_PROC_BIND") ? std::getenv("OMP_PROC_BIND") : "(unset)", omp_get_max_threads(),
               describe_omp_places().c_str());

  const unsigned v = fi_version();
  std::fprintf(out, "\nlibfabric %u.%u:\n", FI_MAJOR(v), FI_MINOR(v));
  if (current.provider.empty()) {
    std::fprintf(out, "  provider: automatic (shm when every rank is on one host, tcp;ofi_rxm otherwise)\n");
    std::fprintf(out, "  shm: %s\n", probe_provider("shm").c_str());
    std::fprintf(out, "  tcp;ofi_rxm: %s%s\n", probe_provider("tcp;ofi_rxm").c_str(),
                 std::getenv("FI_TCP_IFACE") ? "" : "  (FI_TCP_IFACE unset: tcp picks an interface itself)");
  } else {
    const std::string probe = probe_provider(current.provider);
    std::fprintf(out, "  provider: %s (SIDECORE_PROVIDER): %s\n", current.provider.c_str(), probe.c_str());
    if (probe.rfind("available:", 0) != 0) {  // init fails to open it
      std::fprintf(stderr, "sidecore info: error: SIDECORE_PROVIDER='%s': %s\n", current.provider.c_str(),
                   probe.c_str());
      rc = 2;
    }
  }

  char mpi_version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(mpi_version, &len);
  std::string first_line(mpi_version, static_cast<std::size_t>(len));
  first_line = first_line.substr(0, first_line.find('\n'));
  std::fprintf(out, "\nMPI: %s\n", first_line.c_str());
  return rc;
}
