// libsidecore-pmpi.so — engine "mpich": MPICH's own asynchronous progress thread (MPIR_CVAR_ASYNC_PROGRESS=1) moved
// onto the reserved core. MPICH creates it inside MPI_Init, unbound, where it would inherit the application cores'
// mask and compete with OpenMP. So the library interposes pthread_create: while MPI_Init runs in this mode, a thread
// whose start routine lies in the MPI library (not in UCX's or libfabric's, which start their own helper threads)
// starts through a trampoline that pins it to the reserved core and names it before MPICH's code runs. Outside that
// window pthread_create is the C library's, with one relaxed load more.
#include <dlfcn.h>
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>

#include "core_state.hpp"

namespace sidecore::instrument::pmpi::core {
namespace {

using create_fn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

std::atomic<bool> catching{false};
std::atomic<int> caught{0};

create_fn real_create() {
  static const create_fn fn = reinterpret_cast<create_fn>(dlsym(RTLD_NEXT, "pthread_create"));
  return fn;
}

// True when `code` lies in the MPI library itself ("libmpi*.so*": libmpich.so.12 on Debian, libmpi.so elsewhere).
bool in_mpi_library(void* (*code)(void*)) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(code), &info) == 0 || info.dli_fname == nullptr) return false;
  const char* base = std::strrchr(info.dli_fname, '/');
  return std::strncmp(base != nullptr ? base + 1 : info.dli_fname, "libmpi", 6) == 0;
}

struct start_info {
  void* (*routine)(void*);
  void* arg;
};

void* pinned_start(void* p) {
  const start_info info = *static_cast<start_info*>(p);
  delete static_cast<start_info*>(p);
  std::string why;
  if (!pin_to_reserved(why))
    std::fprintf(stderr, "sidecore-pmpi: %s: cannot pin MPICH's progress thread to the reserved %s: %s\n",
                 who().c_str(), state().reserved_name.c_str(), why.c_str());
  pthread_setname_np(pthread_self(), "sidecore-mpich");
  return info.routine(info.arg);
}

}  // namespace

void catch_mpi_threads(bool on) noexcept { catching.store(on, std::memory_order_release); }
int mpi_threads_caught() noexcept { return caught.load(std::memory_order_acquire); }

}  // namespace sidecore::instrument::pmpi::core

#pragma GCC visibility push(default)
extern "C" int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) {
  namespace core = sidecore::instrument::pmpi::core;
  const core::create_fn create = core::real_create();
  if (create == nullptr) return EAGAIN;
  if (!core::catching.load(std::memory_order_acquire) || !core::in_mpi_library(start))
    return create(thread, attr, start, arg);
  auto* info = new (std::nothrow) core::start_info{start, arg};
  if (info == nullptr) return EAGAIN;
  const int rc = create(thread, attr, &core::pinned_start, info);
  if (rc != 0) delete info;
  else core::caught.fetch_add(1, std::memory_order_acq_rel);
  return rc;
}
#pragma GCC visibility pop
