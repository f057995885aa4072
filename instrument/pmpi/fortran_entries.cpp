// libsidecore-pmpi.so — the PMPI_* entries of MPICH's mpi_f08 bindings.
// MPICH's `use mpi` and mpif.h bindings call the C MPI_* functions, which the wrappers intercept. Its `use mpi_f08`
// bindings (libmpichfort) do so only for the calls that take a buffer: MPI_Init, MPI_Init_thread, MPI_Finalize, the
// waits, tests, probes, Barrier, Ibarrier, Barrier_init, Start(all), Cancel, Request_free, the partitioned calls
// without a buffer (Pready, Pready_range, Pready_list, Parrived) and the communicator calls call PMPI_* themselves
// (MPICH 4.0.2, read from libmpichfort's relocations; the other persistent collectives' initializations call
// MPI_*). Such a program's MPI would be initialized past the profiler, which then writes no profile and starts no
// progress core.
// This library therefore defines those PMPI_* functions too. A call that comes from MPICH's Fortran bindings library
// is the program's call: it goes through the wrapper (MPI_*), as a C program's does. Any other caller — the wrappers
// themselves, MPICH's own library (ROMIO calls PMPI_Barrier, PMPI_Waitall, ...), another tool — reaches the next
// definition, MPI's, directly: nothing else is counted, and nothing is counted twice.
#include <dlfcn.h>
#include <link.h>
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

struct code_range {
  std::uintptr_t begin;
  std::uintptr_t end;
};

// The executable segments of MPICH's Fortran bindings library (libmpichfort.so on Debian, libmpifort.so upstream);
// none in a program that has no Fortran bindings loaded.
int collect_bindings(dl_phdr_info* info, std::size_t /*size*/, void* data) {
  const char* path = info->dlpi_name;
  if (path == nullptr) return 0;
  const char* slash = std::strrchr(path, '/');
  const char* base = slash != nullptr ? slash + 1 : path;
  if (std::strncmp(base, "libmpichfort.so", 15) != 0 && std::strncmp(base, "libmpifort.so", 13) != 0) return 0;
  auto* ranges = static_cast<std::vector<code_range>*>(data);
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    const std::uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    ranges->push_back({begin, begin + ph.p_memsz});
  }
  return 0;
}

// Found at the first PMPI_* call, which a program's MPI_Init makes: the bindings are loaded with the program.
bool from_fortran_bindings(const void* return_address) {
  static const std::vector<code_range> ranges = [] {
    std::vector<code_range> r;
    dl_iterate_phdr(collect_bindings, &r);
    return r;
  }();
  const auto at = reinterpret_cast<std::uintptr_t>(return_address);
  for (const code_range& r : ranges)
    if (at >= r.begin && at < r.end) return true;
  return false;
}

// MPI's own definition of `name`, the one after this library. Without one this library was loaded after MPI's, and
// none of its PMPI_* entries could have been reached: said and aborted rather than called through a null pointer.
template <typename F>
F next_definition(const char* name) {
  void* f = dlsym(RTLD_NEXT, name);
  if (f == nullptr) {
    std::fprintf(stderr, "sidecore-pmpi: no %s after libsidecore-pmpi.so (%s): load it ahead of MPI's library, with "
                 "LD_PRELOAD or first on the link line\n", name, dlerror());
    std::abort();
  }
  return reinterpret_cast<F>(f);
}

// Set on a thread while a call from the Fortran bindings is in the wrapper: the PMPI_* calls the wrapper makes then
// go to MPI, whatever their return address says.
thread_local bool in_wrapper = false;

class wrapper_scope {
 public:
  wrapper_scope() noexcept { in_wrapper = true; }
  ~wrapper_scope() { in_wrapper = false; }
  wrapper_scope(const wrapper_scope&) = delete;
  wrapper_scope& operator=(const wrapper_scope&) = delete;
};

}  // namespace

// One entry: the program's call (from the Fortran bindings) goes to the wrapper MPI_<name>; any other to MPI's
// PMPI_<name>. The return address is read first: it is this function's caller's. It names the caller only because the
// wrappers end no function with a tail call (-fno-optimize-sibling-calls, instrument/CMakeLists.txt): MPI_Finalize
// ending in a jump to PMPI_Finalize would otherwise pass its own caller, the bindings of `use mpi`, as this one's.
#define SIDECORE_PMPI_ENTRY(name, params, args)                                                          \
  int PMPI_##name params {                                                                               \
    if (!in_wrapper && from_fortran_bindings(__builtin_return_address(0))) {                             \
      const wrapper_scope scope;                                                                         \
      return MPI_##name args;                                                                            \
    }                                                                                                    \
    static const auto next = next_definition<int (*) params>("PMPI_" #name);                             \
    return next args;                                                                                    \
  }

#pragma GCC visibility push(default)
extern "C" {
SIDECORE_PMPI_ENTRY(Init, (int* argc, char*** argv), (argc, argv))
SIDECORE_PMPI_ENTRY(Init_thread, (int* argc, char*** argv, int required, int* provided),
                    (argc, argv, required, provided))
SIDECORE_PMPI_ENTRY(Finalize, (void), ())
SIDECORE_PMPI_ENTRY(Barrier, (MPI_Comm comm), (comm))
SIDECORE_PMPI_ENTRY(Ibarrier, (MPI_Comm comm, MPI_Request* request), (comm, request))
SIDECORE_PMPI_ENTRY(Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request* request), (comm, info, request))
SIDECORE_PMPI_ENTRY(Start, (MPI_Request* request), (request))
SIDECORE_PMPI_ENTRY(Startall, (int count, MPI_Request array_of_requests[]), (count, array_of_requests))
SIDECORE_PMPI_ENTRY(Wait, (MPI_Request* request, MPI_Status* status), (request, status))
SIDECORE_PMPI_ENTRY(Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]),
                    (count, array_of_requests, array_of_statuses))
SIDECORE_PMPI_ENTRY(Waitany, (int count, MPI_Request array_of_requests[], int* indx, MPI_Status* status),
                    (count, array_of_requests, indx, status))
SIDECORE_PMPI_ENTRY(Waitsome, (int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                               MPI_Status array_of_statuses[]),
                    (incount, array_of_requests, outcount, array_of_indices, array_of_statuses))
SIDECORE_PMPI_ENTRY(Test, (MPI_Request* request, int* flag, MPI_Status* status), (request, flag, status))
SIDECORE_PMPI_ENTRY(Testall, (int count, MPI_Request array_of_requests[], int* flag, MPI_Status array_of_statuses[]),
                    (count, array_of_requests, flag, array_of_statuses))
SIDECORE_PMPI_ENTRY(Testany, (int count, MPI_Request array_of_requests[], int* indx, int* flag, MPI_Status* status),
                    (count, array_of_requests, indx, flag, status))
SIDECORE_PMPI_ENTRY(Testsome, (int incount, MPI_Request array_of_requests[], int* outcount, int array_of_indices[],
                               MPI_Status array_of_statuses[]),
                    (incount, array_of_requests, outcount, array_of_indices, array_of_statuses))
SIDECORE_PMPI_ENTRY(Request_get_status, (MPI_Request request, int* flag, MPI_Status* status), (request, flag, status))
SIDECORE_PMPI_ENTRY(Probe, (int source, int tag, MPI_Comm comm, MPI_Status* status), (source, tag, comm, status))
SIDECORE_PMPI_ENTRY(Iprobe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status),
                    (source, tag, comm, flag, status))
SIDECORE_PMPI_ENTRY(Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status),
                    (source, tag, comm, message, status))
SIDECORE_PMPI_ENTRY(Improbe, (int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                              MPI_Status* status),
                    (source, tag, comm, flag, message, status))
SIDECORE_PMPI_ENTRY(Pready, (int partition, MPI_Request request), (partition, request))
SIDECORE_PMPI_ENTRY(Pready_range, (int partition_low, int partition_high, MPI_Request request),
                    (partition_low, partition_high, request))
SIDECORE_PMPI_ENTRY(Pready_list, (int length, int array_of_partitions[], MPI_Request request),
                    (length, array_of_partitions, request))
SIDECORE_PMPI_ENTRY(Parrived, (MPI_Request request, int partition, int* flag), (request, partition, flag))
SIDECORE_PMPI_ENTRY(Cancel, (MPI_Request* request), (request))
SIDECORE_PMPI_ENTRY(Request_free, (MPI_Request* request), (request))
SIDECORE_PMPI_ENTRY(Comm_dup, (MPI_Comm comm, MPI_Comm* newcomm), (comm, newcomm))
SIDECORE_PMPI_ENTRY(Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm), (comm, info, newcomm))
SIDECORE_PMPI_ENTRY(Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm* newcomm), (comm, color, key, newcomm))
SIDECORE_PMPI_ENTRY(Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm),
                    (comm, split_type, key, info, newcomm))
SIDECORE_PMPI_ENTRY(Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm), (comm, group, newcomm))
SIDECORE_PMPI_ENTRY(Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm),
                    (comm, group, tag, newcomm))
SIDECORE_PMPI_ENTRY(Comm_free, (MPI_Comm* comm), (comm))
SIDECORE_PMPI_ENTRY(Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm* newintracomm),
                    (intercomm, high, newintracomm))
SIDECORE_PMPI_ENTRY(Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                                  MPI_Comm* comm_cart),
                    (comm_old, ndims, dims, periods, reorder, comm_cart))
SIDECORE_PMPI_ENTRY(Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm), (comm, remain_dims, newcomm))
SIDECORE_PMPI_ENTRY(Graph_create, (MPI_Comm comm_old, int nnodes, const int indx[], const int edges[], int reorder,
                                   MPI_Comm* comm_graph),
                    (comm_old, nnodes, indx, edges, reorder, comm_graph))
SIDECORE_PMPI_ENTRY(Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                                        const int destinations[], const int weights[], MPI_Info info, int reorder,
                                        MPI_Comm* comm_dist_graph),
                    (comm_old, n, sources, degrees, destinations, weights, info, reorder, comm_dist_graph))
SIDECORE_PMPI_ENTRY(Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[],
                                                 const int sourceweights[], int outdegree, const int destinations[],
                                                 const int destweights[], MPI_Info info, int reorder,
                                                 MPI_Comm* comm_dist_graph),
                    (comm_old, indegree, sources, sourceweights, outdegree, destinations, destweights, info, reorder,
                     comm_dist_graph))
}  // extern "C"
#pragma GCC visibility pop
