#include "topology.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <sidecore/sidecore.hpp>

namespace sidecore::detail {

topology::topology() {
  if (hwloc_topology_init(&topo_) != 0 || hwloc_topology_load(topo_) != 0)
    throw error(errc::topology, "hwloc could not load the machine topology");
  allowed_ = hwloc_bitmap_alloc();
  if (hwloc_get_cpubind(topo_, allowed_, HWLOC_CPUBIND_PROCESS) != 0 || hwloc_bitmap_iszero(allowed_))
    hwloc_bitmap_copy(allowed_, hwloc_topology_get_allowed_cpuset(topo_));
  // With OMP_PROC_BIND set, libgomp binds the initial thread to its first place while the program loads, before
  // any of our code runs: the binding read above is then one place, not the rank's cpuset. OpenMP's places were
  // made from the cpuset the process started with, so they are added back.
  for (int p = 0; p < omp_get_num_places(); ++p) {
    std::vector<int> ids(static_cast<std::size_t>(omp_get_place_num_procs(p)));
    omp_get_place_proc_ids(p, ids.data());
    for (const int id : ids)
      if (id >= 0) hwloc_bitmap_set(allowed_, static_cast<unsigned>(id));
  }
  hwloc_bitmap_and(allowed_, allowed_, hwloc_topology_get_allowed_cpuset(topo_));
  const int ncores = hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_CORE);
  for (int i = 0; i < ncores; ++i) {
    hwloc_obj_t c = hwloc_get_obj_by_type(topo_, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
    if (c && hwloc_bitmap_intersects(c->cpuset, allowed_)) cores_.push_back(c);
  }
  if (cores_.empty()) {  // some virtual machines expose PUs without cores
    const int npus = hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_PU);
    for (int i = 0; i < npus; ++i) {
      hwloc_obj_t p = hwloc_get_obj_by_type(topo_, HWLOC_OBJ_PU, static_cast<unsigned>(i));
      if (p && hwloc_bitmap_intersects(p->cpuset, allowed_)) cores_.push_back(p);
    }
  }
  n_pu_ = hwloc_bitmap_weight(allowed_);
}

topology::~topology() {
  if (allowed_) hwloc_bitmap_free(allowed_);
  if (topo_) hwloc_topology_destroy(topo_);
}

int topology::choose_reserved(const core_choice& choice) const {
  const int n = cores();
  if (n < 2)
    throw error(errc::topology, "SIDECORE_PROGRESS=core needs at least 2 cores in this process's cpuset, but it may "
                                "run on " + std::to_string(n) + " (cpuset " + allowed_list() +
                                "); set SIDECORE_PROGRESS=off, or give each rank at least 2 cores (e.g. mpiexec "
                                "-bind-to core:2)");
  const int i = reserved_core_index(choice, n);
  if (i < 0)
    throw error(errc::bad_setting, "SIDECORE_PROGRESS_CORE='" + std::to_string(choice.index) +
                                       "' is out of range: this process may run on " + std::to_string(n) +
                                       " cores; accepted: last, first, 0.." + std::to_string(n - 1));
  return i;
}

std::string topology::describe_core(int i) const {
  const hwloc_obj_t c = cores_.at(static_cast<std::size_t>(i));
  char buf[128];
  hwloc_bitmap_list_snprintf(buf, sizeof buf, c->cpuset);
  return std::string(hwloc_obj_type_string(c->type)) + " L#" + std::to_string(c->logical_index) + " (PU P#" + buf + ")";
}

bool topology::core_has_pu(int i, int os_pu) const noexcept {
  if (i < 0 || i >= cores() || os_pu < 0) return false;
  return hwloc_bitmap_isset(cores_[static_cast<std::size_t>(i)]->cpuset, static_cast<unsigned>(os_pu)) != 0;
}

std::string topology::allowed_list() const {
  char buf[256];
  hwloc_bitmap_list_snprintf(buf, sizeof buf, allowed_);
  return buf;
}

std::string topology::summary() const {
  std::string s;
  for (hwloc_obj_type_t t :
       {HWLOC_OBJ_MACHINE, HWLOC_OBJ_PACKAGE, HWLOC_OBJ_NUMANODE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_CORE, HWLOC_OBJ_PU}) {
    const int n = hwloc_get_nbobjs_by_type(topo_, t);
    if (n <= 0) continue;
    if (!s.empty()) s += ", ";
    s += std::string(hwloc_obj_type_string(t)) + ": " + std::to_string(n);
  }
  return s;
}

bool topology::bind_thread_to_core(int i, std::string* why) const {
  if (i < 0 || i >= cores()) {
    if (why) *why = "core index " + std::to_string(i) + " out of range";
    return false;
  }
  if (hwloc_set_cpubind(topo_, cores_[static_cast<std::size_t>(i)]->cpuset, HWLOC_CPUBIND_THREAD) != 0) {
    if (why) *why = "hwloc_set_cpubind refused " + describe_core(i);
    return false;
  }
  return true;
}

int topology::machine_cores() const noexcept {
  const int n = hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_CORE);
  return n > 0 ? n : hwloc_get_nbobjs_by_type(topo_, HWLOC_OBJ_PU);
}

bool topology::bind_thread_allowed(std::string* why) const {
  const bool ok = hwloc_set_cpubind(topo_, allowed_, HWLOC_CPUBIND_THREAD) == 0;
  if (!ok && why) *why = "hwloc_set_cpubind refused the process's cpuset " + allowed_list();
  return ok;
}

bool topology::bind_thread_except(int reserved, std::string* why) const {
  hwloc_bitmap_t set = hwloc_bitmap_dup(allowed_);
  hwloc_bitmap_andnot(set, set, cores_.at(static_cast<std::size_t>(reserved))->cpuset);
  const bool ok = hwloc_set_cpubind(topo_, set, HWLOC_CPUBIND_THREAD) == 0;
  if (!ok && why) *why = "hwloc_set_cpubind refused the cpuset without " + describe_core(reserved);
  hwloc_bitmap_free(set);
  return ok;
}

std::vector<std::string> places_on_reserved(const topology& topo, int reserved, int threads) {
  // With OMP_PROC_BIND=close, a team of T threads started by the main thread (bound to place 0) fills places
  // 0..T-1: a later place holding the reserved core is never used.
  std::vector<std::string> warnings;
  const int nplaces = omp_get_num_places();
  const int used = omp_get_proc_bind() == omp_proc_bind_close ? std::min(threads, nplaces) : nplaces;
  for (int p = 0; p < used; ++p) {
    const int nids = omp_get_place_num_procs(p);
    std::vector<int> ids(static_cast<std::size_t>(nids));
    omp_get_place_proc_ids(p, ids.data());
    bool holds_reserved = false;
    for (int id : ids) holds_reserved |= topo.core_has_pu(reserved, id);
    if (holds_reserved)
      warnings.push_back("warning: OMP_PLACES place " + std::to_string(p) + " includes the reserved " +
                         topo.describe_core(reserved) + ": OpenMP may share it with the progress thread");
  }
  return warnings;
}

bool omp_threads_set_by_user() noexcept {
  const char* nt = std::getenv("OMP_NUM_THREADS");
  return nt && *nt;
}

bool omp_places_set_by_user() noexcept {
  const char* places = std::getenv("OMP_PLACES");
  const char* bind = std::getenv("OMP_PROC_BIND");
  return (places && *places) || (bind && *bind);
}

omp_fence_report fence_openmp(const topology& topo, int reserved) {
  omp_fence_report rep;
  const int app_cores = topo.cores() - 1;
  const char* nt = std::getenv("OMP_NUM_THREADS");
  rep.user_threads = omp_threads_set_by_user();
  if (rep.user_threads) {
    rep.threads = omp_get_max_threads();
    rep.notes.push_back("OMP_NUM_THREADS=" + std::string(nt) + " set by the user: respected");
    if (rep.threads > app_cores)
      rep.notes.push_back("warning: " + std::to_string(rep.threads) + " OpenMP threads on " +
                          std::to_string(app_cores) + " application cores: threads will share cores");
  } else {
    rep.threads = app_cores;
    omp_set_num_threads(app_cores);
  }
  const char* places = std::getenv("OMP_PLACES");
  const char* bind = std::getenv("OMP_PROC_BIND");
  rep.user_places = omp_places_set_by_user();
  if (rep.user_places) {
    rep.notes.push_back(std::string("OMP_PLACES/OMP_PROC_BIND set by the user (") + (places ? places : "") + " / " +
                        (bind ? bind : "") + "): respected, sidecore does not bind OpenMP threads");
    for (std::string& w : places_on_reserved(topo, reserved, rep.threads)) rep.notes.push_back(std::move(w));
    return rep;
  }
  // Bind the master to the application cores first, so any thread created later inherits the fence; then
  // bind each thread of the team to one application core (as OMP_PROC_BIND=close with OMP_PLACES=cores).
  std::string why;
  if (!topo.bind_thread_except(reserved, &why)) rep.notes.push_back("warning: " + why);
  std::vector<int> app;
  for (int i = 0; i < topo.cores(); ++i)
    if (i != reserved) app.push_back(i);
  int failures = 0;
#pragma omp parallel num_threads(rep.threads) reduction(+ : failures)
  {
    const int t = omp_get_thread_num();
    if (!topo.bind_thread_to_core(app[static_cast<std::size_t>(t) % app.size()])) ++failures;
  }
  if (failures) rep.notes.push_back("warning: " + std::to_string(failures) + " OpenMP threads could not be bound");
  rep.notes.push_back("OpenMP thread i bound to application core i mod " + std::to_string(app.size()) +
                      " (the reserved core excluded)");
  return rep;
}

std::string describe_omp_places() {
  const int n = omp_get_num_places();
  if (n == 0) return "none (OMP_PLACES unset: libgomp does not bind threads)";
  std::string s;
  for (int p = 0; p < n; ++p) {
    const int nids = omp_get_place_num_procs(p);
    std::vector<int> ids(static_cast<std::size_t>(nids));
    omp_get_place_proc_ids(p, ids.data());
    s += "{";
    for (std::size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
    s += "}";
  }
  return std::to_string(n) + " places " + s;
}

}  // namespace sidecore::detail
