// Topology and core reservation (hwloc), and the OpenMP fence that keeps application threads off the
// reserved core.
#pragma once

#include <hwloc.h>

#include <string>
#include <vector>

#include "settings.hpp"

namespace sidecore::detail {

class topology {
 public:
  /// Loads the machine topology and the process's allowed cpuset. Throws error(errc::topology) on failure.
  topology();
  ~topology();
  topology(const topology&) = delete;
  topology& operator=(const topology&) = delete;

  /// Cores this process may run on (those intersecting its cpuset), in hwloc logical order.
  [[nodiscard]] int cores() const noexcept { return static_cast<int>(cores_.size()); }
  [[nodiscard]] int pus() const noexcept { return n_pu_; }
  /// Cores of the whole machine (PUs where hwloc shows no cores), whatever this process's cpuset.
  [[nodiscard]] int machine_cores() const noexcept;
  /// Index (into the allowed cores) of the core `choice` designates. Throws error(errc::topology) when the
  /// process has fewer than 2 cores, error(errc::bad_setting) when an index is out of range.
  [[nodiscard]] int choose_reserved(const core_choice& choice) const;
  /// hwloc logical index and OS index list of allowed core i, e.g. "L#1 (PU P#1)".
  [[nodiscard]] std::string describe_core(int i) const;
  /// True when allowed core i holds the PU with OS index os_pu.
  [[nodiscard]] bool core_has_pu(int i, int os_pu) const noexcept;
  /// The process cpuset as a list string ("0-1").
  [[nodiscard]] std::string allowed_list() const;
  /// One line per object level: "Machine: 1, Package: 1, NUMANode: 1, Core: 2, PU: 2".
  [[nodiscard]] std::string summary() const;

  /// Binds the calling thread to allowed core i. Returns false (and says why in `why`) on failure.
  bool bind_thread_to_core(int i, std::string* why = nullptr) const;
  /// Binds the calling thread to every allowed core except `reserved`.
  bool bind_thread_except(int reserved, std::string* why = nullptr) const;
  /// Binds the calling thread to the process's whole cpuset (undoes bind_thread_except and bind_thread_to_core).
  bool bind_thread_allowed(std::string* why = nullptr) const;

 private:
  hwloc_topology_t topo_ = nullptr;
  hwloc_bitmap_t allowed_ = nullptr;
  std::vector<hwloc_obj_t> cores_;
  int n_pu_ = 0;
};

/// What the OpenMP fence did (or would do), for info and verbose output.
struct omp_fence_report {
  int threads = 0;              ///< OpenMP threads the application gets
  bool user_threads = false;    ///< OMP_NUM_THREADS was set by the user and respected
  bool user_places = false;     ///< OMP_PLACES / OMP_PROC_BIND set by the user and respected
  std::vector<std::string> notes;  ///< warnings and explanations
};

/// Core mode: gives OpenMP N_core - 1 threads (unless OMP_NUM_THREADS is set) and binds the team, thread i
/// to the i-th non-reserved core (unless OMP_PLACES/OMP_PROC_BIND are set; then checks that no place holds
/// the reserved core and notes it if one does). Call from the thread that will run the parallel regions.
omp_fence_report fence_openmp(const topology& topo, int reserved);

/// Whether the user set OMP_NUM_THREADS (non-empty): the fence then keeps its thread count.
[[nodiscard]] bool omp_threads_set_by_user() noexcept;
/// Whether the user set OMP_PLACES or OMP_PROC_BIND (non-empty): the fence then binds no thread and checks the places.
[[nodiscard]] bool omp_places_set_by_user() noexcept;

/// The user's OpenMP places (OMP_PLACES / OMP_PROC_BIND) that a team of `threads` threads would run on and that hold
/// the reserved core, one warning each (the user may have given OpenMP the progress core); empty when none does.
[[nodiscard]] std::vector<std::string> places_on_reserved(const topology& topo, int reserved, int threads);

/// Text about the OpenMP places as libgomp sees them.
[[nodiscard]] std::string describe_omp_places();

}  // namespace sidecore::detail
