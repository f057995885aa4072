// The node's shared memory (node_segment.hpp): a POSIX shared-memory object created by the node's first rank and
// mapped by every rank of the node.
#include "node_segment.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <sidecore/progress/engine.hpp>
#include <sidecore/sidecore.hpp>

#include "state.hpp"

namespace sidecore::detail {

namespace {

// What the node's rank 0 tells the others: the object's name, or why it could not make it.
struct made_object {
  char name[64];
  int err;        // errno of the failed step; 0: made
  char step[24];  // the call that failed
};

std::string shm_failure(const char* step, const std::string& name, int err) {
  return std::string(step) + "(/dev/shm/" + name + "): " + std::strerror(err);
}

}  // namespace

node_segment::node_segment(MPI_Comm node, std::size_t part_bytes, const std::string& remedy) {
  int me = 0, n = 0;
  MPI_Comm_rank(node, &me);
  MPI_Comm_size(node, &n);
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  part_bytes_ = (part_bytes + page - 1) / page * page;
  const bool too_big = part_bytes_ > std::numeric_limits<std::size_t>::max() / static_cast<std::size_t>(n);
  total_ = too_big ? 0 : part_bytes_ * static_cast<std::size_t>(n);

  made_object made{};
  std::string why;  // this rank's failure
  bool out_of_fds = false;
  int fd = -1;
  if (me == 0) {
    const std::string name = progress::unique_shm_name("-node");
    std::snprintf(made.name, sizeof(made.name), "%s", name.c_str());
    // posix_fallocate, not ftruncate: a full tmpfs then fails here (ENOSPC) instead of killing a rank with SIGBUS
    // at its first touch of a page that has no room.
    if (too_big) {
      made.err = EOVERFLOW;
      std::snprintf(made.step, sizeof(made.step), "%s", "sizing");
    } else if ((fd = ::shm_open(made.name, O_CREAT | O_EXCL | O_RDWR, 0600)) < 0) {
      made.err = errno;
      std::snprintf(made.step, sizeof(made.step), "%s", "shm_open");
    } else if (const int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(total_)); rc != 0) {
      made.err = rc;
      std::snprintf(made.step, sizeof(made.step), "%s", "posix_fallocate");
      ::close(fd);
      fd = -1;
      ::shm_unlink(made.name);
    }
  }
  mpi_check(MPI_Bcast(&made, sizeof(made), MPI_BYTE, 0, node), "MPI_Bcast (node shared memory)");
  if (made.err == 0) {
    if (me != 0 && (fd = ::shm_open(made.name, O_RDWR, 0)) < 0) {
      out_of_fds = errno == EMFILE || errno == ENFILE;
      why = shm_failure("shm_open", made.name, errno);
    }
    if (fd >= 0) {
      void* p = ::mmap(nullptr, total_, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
      if (p == MAP_FAILED) why = shm_failure("mmap", made.name, errno);
      else base_ = static_cast<char*>(p);
      ::close(fd);
    }
  }
  int any_failed = why.empty() ? 0 : 1;
  mpi_check(MPI_Allreduce(MPI_IN_PLACE, &any_failed, 1, MPI_INT, MPI_MAX, node), "MPI_Allreduce (node shared memory)");
  if (me == 0 && made.err == 0) ::shm_unlink(made.name);  // every rank has it mapped, or has given up
  if (made.err == 0 && any_failed == 0) return;

  if (base_) ::munmap(base_, total_);
  base_ = nullptr;
  std::string message = "sidecore::init: cannot set up the node's shared memory (" + std::to_string(part_bytes_) +
                        " bytes for each of its " + std::to_string(n) + " ranks): ";
  if (made.err != 0) message += shm_failure(made.step, made.name, made.err) + " on the node's first rank";
  else if (!why.empty()) message += why;
  else message += "another rank of the node could not map it (its own message says why)";
  // Out of file descriptors, /dev/shm is not the cause: the remedy is the limit.
  if (out_of_fds || made.err == EMFILE || made.err == ENFILE)
    message += "; opening it takes a file descriptor, and the process (EMFILE) or the system (ENFILE) has no "
               "file descriptors left: raise the limit (ulimit -n) or open fewer files before sidecore::init";
  else
    message += "; sidecore needs a writable /dev/shm (tmpfs) with that much room";
  if (!remedy.empty()) message += "; " + remedy;
  throw error(errc::transport, message);
}

node_segment::~node_segment() {
  if (base_) ::munmap(base_, total_);
}

}  // namespace sidecore::detail
