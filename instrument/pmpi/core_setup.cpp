// libsidecore-pmpi.so — SIDECORE_PROGRESS=core at load time: read the settings, reserve a core with hwloc (the
// runtime's SIDECORE_PROGRESS_CORE rule, common/core_choice.hpp) and fence OpenMP off it, before main runs.
//
// When this runs. glibc runs a preloaded library's constructor after those of the program's own libraries (checked
// by tests/instrument: an OpenMP program sees N-1 threads from main's first line): libgomp has read OMP_NUM_THREADS
// and the CPU mask already, but has created no thread (it does so at the first parallel region). So the fence acts
// through what libgomp still consults: the main thread's CPU mask, which every thread libgomp creates inherits
// (without OMP_PLACES/OMP_PROC_BIND it binds none), and the initial thread's nthreads ICV (omp_set_num_threads). The
// OpenMP API is looked up with dlsym: the library does not link libgomp, and a program without OpenMP has none.
#include <dlfcn.h>
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core_state.hpp"
#include "sidecore/common/core_choice.hpp"

namespace sidecore::instrument::pmpi::core {

core_state& state() noexcept {
  static core_state s;
  return s;
}

std::string who() {
  const char* r = std::getenv("PMI_RANK");
  return r != nullptr && *r != '\0' ? std::string("rank ") + r : "pid " + std::to_string(getpid());
}

bool pin_to_reserved(std::string& why) {
  const cpu_set_t set = state().reserved_cpus;
  if (sched_setaffinity(0, sizeof(set), &set) == 0) return true;
  why = std::string("sched_setaffinity: ") + std::strerror(errno);
  return false;
}

namespace {

void complain(const std::string& what) { std::fprintf(stderr, "sidecore-pmpi: %s: %s\n", who().c_str(), what.c_str()); }

// One environment variable from a fixed list of words, the first of which is the default: unset keeps it, anything
// not in the list is reported and keeps it. Spaces and tabs around the word are ignored, as sidecore's settings
// table ignores them.
template <class T>
T read_word(const char* var, std::initializer_list<std::pair<const char*, T>> words, const char* accepted) {
  const auto fallback = *words.begin();
  const char* v = std::getenv(var);
  if (v == nullptr) return fallback.second;
  const std::string_view text = v;
  const std::size_t b = text.find_first_not_of(" \t"), e = text.find_last_not_of(" \t");
  const std::string_view word_given = b == std::string_view::npos ? std::string_view() : text.substr(b, e - b + 1);
  for (const auto& [word, value] : words)
    if (word_given == word) return value;
  complain(std::string(var) + "='" + v + "' is not accepted; accepted: " + accepted + "; using the default (" +
           fallback.first + ")");
  return fallback.second;
}

template <class F>
F omp_fn(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_DEFAULT, name));
}

// RAII over an hwloc topology and bitmaps: the set-up returns early on every failure.
struct topo_guard {
  hwloc_topology_t topo = nullptr;
  hwloc_bitmap_t allowed = hwloc_bitmap_alloc();
  hwloc_bitmap_t app = hwloc_bitmap_alloc();
  ~topo_guard() {
    hwloc_bitmap_free(app);
    hwloc_bitmap_free(allowed);
    if (topo != nullptr) hwloc_topology_destroy(topo);
  }
};

std::string describe(hwloc_obj_t c) {
  char buf[128];
  hwloc_bitmap_list_snprintf(buf, sizeof buf, c->cpuset);
  return std::string(hwloc_obj_type_string(c->type)) + " L#" + std::to_string(c->logical_index) + " (PU P#" + buf + ")";
}

// OpenMP threads: N-1 unless OMP_NUM_THREADS says otherwise; places set by the user are respected and checked.
void fence_openmp(core_state& s, int app_cores) {
  using get_int = int (*)();
  using set_int = void (*)(int);
  const auto max_threads = omp_fn<get_int>("omp_get_max_threads");
  const auto set_threads = omp_fn<set_int>("omp_set_num_threads");
  if (max_threads == nullptr || set_threads == nullptr) {
    s.notes.push_back("no OpenMP runtime in the process: the main thread and the threads it creates run on the "
                      "application cores");
    return;
  }
  const char* nt = std::getenv("OMP_NUM_THREADS");
  if (nt != nullptr && *nt != '\0') {
    s.notes.push_back("OMP_NUM_THREADS=" + std::string(nt) + " set by the user: respected (" +
                      std::to_string(max_threads()) + " threads" +
                      (max_threads() > app_cores ? ", more than the " + std::to_string(app_cores) +
                                                       " application cores: they will share cores)"
                                                 : ")"));
  } else {
    set_threads(app_cores);
    s.notes.push_back("OpenMP: " + std::to_string(max_threads()) + " threads (omp_set_num_threads), on the " +
                      std::to_string(app_cores) + " application cores");
  }
  const char* places = std::getenv("OMP_PLACES");
  const char* bind = std::getenv("OMP_PROC_BIND");
  if ((places == nullptr || *places == '\0') && (bind == nullptr || *bind == '\0')) return;
  s.notes.push_back(std::string("OMP_PLACES/OMP_PROC_BIND set by the user (") + (places ? places : "") + " / " +
                    (bind ? bind : "") + "): respected, OpenMP binds its threads itself");
  const auto num_places = omp_fn<get_int>("omp_get_num_places");
  const auto place_procs = omp_fn<int (*)(int)>("omp_get_place_num_procs");
  const auto place_ids = omp_fn<void (*)(int, int*)>("omp_get_place_proc_ids");
  if (num_places == nullptr || place_procs == nullptr || place_ids == nullptr) return;
  // With OMP_PROC_BIND=close, a team of T threads started by the main thread (bound to place 0) fills places
  // 0..T-1: a later place holding the reserved core is never used (the study's OMP_PLACES=cores with N-1 threads).
  const auto proc_bind = omp_fn<int (*)()>("omp_get_proc_bind");
  constexpr int omp_proc_bind_close = 3;
  const int used = proc_bind != nullptr && proc_bind() == omp_proc_bind_close ? max_threads() : num_places();
  for (int p = 0; p < std::min(used, num_places()); ++p) {
    std::vector<int> ids(static_cast<std::size_t>(place_procs(p)));
    place_ids(p, ids.data());
    for (const int id : ids) {
      if (id >= 0 && id < CPU_SETSIZE && CPU_ISSET(id, &s.reserved_cpus)) {
        complain("warning: OMP_PLACES place " + std::to_string(p) + " includes the reserved " + s.reserved_name +
                 ": OpenMP may share it with the progress thread");
        break;
      }
    }
  }
}

// A fence handed down. A preloaded program that is neither a launcher nor a rank (`timeout`, a job script, a
// per-rank wrapper) sets itself up like a rank, and the processes it starts inherit its narrowed CPU mask: a rank
// below it found one core. So a process that fenced itself says so in fence_var ("narrowed;original", CPU lists),
// and the next preloaded process below it whose mask is still exactly the narrowed one takes the original back
// before anything looks at its cores. A mask that differs was set since (a launcher's binding): it is kept. The
// variable goes no further than that next process, which sets it again if it fences itself. A program that sets
// its own mask after the fence (`taskset -c 0 app` run as the rank: taskset fences itself, binds, then runs the app)
// withdraws the variable (sched_setaffinity, below): the mask it set is the user's, even where it equals ours.
constexpr const char* fence_var = "SIDECORE_PMPI_FENCE";
std::atomic<bool> fence_handed_down{false};

std::string cpu_list(const cpu_set_t& set) {
  std::string out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) out += (out.empty() ? "" : ",") + std::to_string(cpu);
  return out;
}

// Parses cpu_list()'s output; false for anything else (the variable was not ours to read).
bool parse_cpu_list(std::string_view text, cpu_set_t& set) {
  CPU_ZERO(&set);
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    int cpu = 0;
    if (item.empty() || item.size() > 6) return false;
    for (const char c : item) {
      if (c < '0' || c > '9') return false;
      cpu = cpu * 10 + (c - '0');
    }
    if (cpu >= CPU_SETSIZE) return false;
    CPU_SET(cpu, &set);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  return CPU_COUNT(&set) > 0;
}

void undo_inherited_fence() {
  const char* v = std::getenv(fence_var);
  if (v == nullptr) return;
  const std::string text = v;
  unsetenv(fence_var);
  const std::size_t semi = text.find(';');
  cpu_set_t narrowed, original, mine;
  if (semi == std::string::npos || !parse_cpu_list(std::string_view(text).substr(0, semi), narrowed) ||
      !parse_cpu_list(std::string_view(text).substr(semi + 1), original))
    return;
  if (sched_getaffinity(0, sizeof mine, &mine) != 0 || !CPU_EQUAL(&mine, &narrowed)) return;
  if (sched_setaffinity(0, sizeof original, &original) != 0)
    complain(std::string("could not take back the CPU mask a preloaded parent process narrowed (") + fence_var + "=" +
             text + "): " + std::strerror(errno));
}

void set_up() {
  core_state& s = state();
  const bool core = read_word<bool>("SIDECORE_PROGRESS", {{"off", false}, {"core", true}}, "off, core");
  s.verbose = read_word<int>("SIDECORE_VERBOSE", {{"0", 0}, {"1", 1}, {"2", 2}}, "0, 1, 2");
  s.eng = read_word<engine>("SIDECORE_PMPI_PROGRESS", {{"sidecore", engine::sidecore}, {"mpich", engine::mpich}},
                            "sidecore, mpich");
  core_choice choice;
  if (const char* v = std::getenv("SIDECORE_PROGRESS_CORE")) {
    if (const auto c = parse_core_choice(v)) choice = *c;
    else complain(std::string("SIDECORE_PROGRESS_CORE='") + v + "' is not accepted; accepted: " +
                  core_choice_accepted + "; using the default (last)");
  }
  if (!core) return;

  topo_guard t;
  if (hwloc_topology_init(&t.topo) != 0 || hwloc_topology_load(t.topo) != 0) {
    t.topo = nullptr;
    complain("SIDECORE_PROGRESS=core: hwloc could not load the machine topology; running in mode off");
    return;
  }
  if (hwloc_get_cpubind(t.topo, t.allowed, HWLOC_CPUBIND_PROCESS) != 0 || hwloc_bitmap_iszero(t.allowed))
    hwloc_bitmap_copy(t.allowed, hwloc_topology_get_allowed_cpuset(t.topo));
  cpu_set_t places;
  CPU_ZERO(&places);
  add_openmp_places(places);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &places)) hwloc_bitmap_set(t.allowed, static_cast<unsigned>(cpu));
  hwloc_bitmap_and(t.allowed, t.allowed, hwloc_topology_get_allowed_cpuset(t.topo));
  std::vector<hwloc_obj_t> cores;
  for (const hwloc_obj_type_t type : {HWLOC_OBJ_CORE, HWLOC_OBJ_PU}) {  // some VMs expose PUs without cores
    const int n = hwloc_get_nbobjs_by_type(t.topo, type);
    for (int i = 0; i < n; ++i) {
      hwloc_obj_t c = hwloc_get_obj_by_type(t.topo, type, static_cast<unsigned>(i));
      if (c != nullptr && hwloc_bitmap_intersects(c->cpuset, t.allowed)) cores.push_back(c);
    }
    s.machine_cores = n;
    if (!cores.empty()) break;
  }
  const int n = static_cast<int>(cores.size());
  s.process_cores = n;
  char allowed[256];
  hwloc_bitmap_list_snprintf(allowed, sizeof allowed, t.allowed);
  if (n < 2) {
    complain("SIDECORE_PROGRESS=core needs at least 2 cores in this process's cpuset, but it may run on " +
             std::to_string(n) + " (cpuset " + allowed + "); running in mode off. Give each rank at least 2 cores "
             "(e.g. mpiexec -bind-to core:2)");
    return;
  }
  int reserved = reserved_core_index(choice, n);
  if (reserved < 0) {
    complain("SIDECORE_PROGRESS_CORE='" + std::to_string(choice.index) + "' is out of range: this process may run "
             "on " + std::to_string(n) + " cores; accepted: last, first, 0.." + std::to_string(n - 1) +
             "; using the default (last)");
    reserved = n - 1;
  }
  hwloc_obj_t rc = cores[static_cast<std::size_t>(reserved)];
  s.reserved_name = describe(rc);
  CPU_ZERO(&s.reserved_cpus);
  hwloc_cpuset_to_glibc_sched_affinity(t.topo, rc->cpuset, &s.reserved_cpus, sizeof(s.reserved_cpus));
  // The main thread (the only one so far) leaves the reserved core; every thread it creates inherits that.
  hwloc_bitmap_andnot(t.app, t.allowed, rc->cpuset);
  cpu_set_t before, after;
  const bool have_before = sched_getaffinity(0, sizeof before, &before) == 0;
  if (hwloc_set_cpubind(t.topo, t.app, HWLOC_CPUBIND_THREAD) != 0) {
    complain("SIDECORE_PROGRESS=core: hwloc_set_cpubind refused the cpuset without the reserved " + s.reserved_name +
             "; running in mode off");
    return;
  }
  if (have_before && sched_getaffinity(0, sizeof after, &after) == 0 &&
      setenv(fence_var, (cpu_list(after) + ";" + cpu_list(before)).c_str(), 1) == 0)
    fence_handed_down.store(true);
  char app[256];
  hwloc_bitmap_list_snprintf(app, sizeof app, t.app);
  s.notes.push_back("reserved " + s.reserved_name + " of " + std::to_string(n) + " cores (cpuset " + allowed +
                    ", SIDECORE_PROGRESS_CORE=" + core_choice_text(choice) + "); the main thread and the threads "
                    "it creates run on PU " + app);
  fence_openmp(s, n - 1);
  s.active = true;
}

// `LD_PRELOAD=libsidecore-pmpi.so mpiexec ...` preloads the launcher too. A launcher fenced off the reserved core
// hands its narrowed CPU mask down to every rank it starts, which then finds one core and cannot reserve it.
bool is_launcher() {
  static constexpr std::string_view launchers[] = {"mpiexec", "mpiexec.hydra", "mpiexec.mpich", "mpirun",
                                                   "hydra_pmi_proxy", "orterun", "orted", "prterun", "prted",
                                                   "srun", "slurmstepd"};
  const std::string_view name = program_invocation_short_name;
  return std::find(std::begin(launchers), std::end(launchers), name) != std::end(launchers);
}

// After the constructors of the program's libraries (libgomp's, MPI's), before main.
__attribute__((constructor)) void load_time_setup() {
  undo_inherited_fence();
  if (is_launcher()) return;
  // sidecore::finalize() is in every program that links libsidecore (C++, C or Fortran API): the program is a
  // sidecore application (`sidecore study --preload` on it, or a preload set for every program of a job).
  if (dlsym(RTLD_DEFAULT, "_ZN8sidecore8finalizeEv") != nullptr) {
    state().stand_down = true;
    return;
  }
  try {
    set_up();
  } catch (const std::exception& e) {
    complain(std::string("SIDECORE_PROGRESS=core: ") + e.what() + "; running in mode off");
    state().active = false;
  }
}

}  // namespace

void withdraw_fence_note() noexcept {
  if (fence_handed_down.exchange(false)) unsetenv(fence_var);
}

void add_openmp_places(cpu_set_t& set) noexcept {
  const auto num_places = omp_fn<int (*)()>("omp_get_num_places");
  const auto place_procs = omp_fn<int (*)(int)>("omp_get_place_num_procs");
  const auto place_ids = omp_fn<void (*)(int, int*)>("omp_get_place_proc_ids");
  if (num_places == nullptr || place_procs == nullptr || place_ids == nullptr) return;
  try {
    for (int p = 0; p < num_places(); ++p) {
      std::vector<int> ids(static_cast<std::size_t>(std::max(0, place_procs(p))));
      place_ids(p, ids.data());
      for (const int id : ids)
        if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &set);
    }
  } catch (const std::bad_alloc&) {  // the mask as it was: the count errs low, never crashes the application
  }
}

}  // namespace sidecore::instrument::pmpi::core

#pragma GCC visibility push(default)
extern "C" {

// The program sets its own CPU mask (or a thread's): what it sets is its own choice, which the processes it starts
// keep (withdraw_fence_note). Then glibc's call.
int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t* mask) {
  using fn = int (*)(pid_t, size_t, const cpu_set_t*);
  static const fn real = reinterpret_cast<fn>(dlsym(RTLD_NEXT, "sched_setaffinity"));
  // The main thread's own mask only (what the processes it starts inherit): the library's own progress thread pins
  // itself through here too, and the environment must not change under the main thread's getenv.
  if ((pid == 0 && gettid() == getpid()) || pid == getpid()) sidecore::instrument::pmpi::core::withdraw_fence_note();
  if (real == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  return real(pid, size, mask);
}

}  // extern "C"
#pragma GCC visibility pop
