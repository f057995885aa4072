// Status of one step on the progress path (posting, injecting, polling): ok, retry (the provider refused for
// now: the step waits in a backlog and is tried again), or fatal (the provider failed it: the request it concerns
// completes with req_result::transport, failure.cpp). Nothing on the progress path throws: a step that fails
// says so here, and the first function that decides a failure reports it (UCX's rule).
#pragma once

#include <rdma/fi_errno.h>

#include <cerrno>
#include <cstdint>
#include <sys/types.h>

#include <sidecore/progress/engine.hpp>

namespace sidecore::progress {

enum class op_status : std::uint8_t { ok, retry, fatal };

/// A libfabric return code as a step status: 0 ok; -FI_EAGAIN retry, and -FI_ENOMEM too (shm's fi_trecv answers
/// it when its 1024-entry receive queue is full: a state that passes, as EAGAIN); anything else fatal.
[[nodiscard]] constexpr op_status classify(ssize_t rc) noexcept {
  if (rc == 0) return op_status::ok;
  if (rc == -FI_EAGAIN || rc == -FI_ENOMEM) return op_status::retry;
  return op_status::fatal;
}

[[nodiscard]] constexpr const char* op_status_name(op_status s) noexcept {
  switch (s) {
    case op_status::ok: return "ok";
    case op_status::retry: return "retry";
    case op_status::fatal: return "fatal";
  }
  return "unknown";
}

/// Whether a provider's error code (positive) on an operation with a peer says the peer is gone: its connection
/// was reset, refused, aborted or is no more, or its host cannot be reached (tcp;ofi_rxm reports a dead peer so).
[[nodiscard]] constexpr bool peer_gone(int code) noexcept {
  return code == FI_ECONNRESET || code == FI_ECONNABORTED || code == FI_ECONNREFUSED || code == FI_ENOTCONN ||
         code == FI_EHOSTUNREACH || code == FI_EHOSTDOWN || code == EPIPE || code == FI_ESHUTDOWN;
}

/// The libfabric call a failure names ("fi_tsend"), or what else failed.
[[nodiscard]] constexpr const char* failure_name(failure f) noexcept {
  switch (f) {
    case failure::none: return "none";
    case failure::fi_tsend: return "fi_tsend";
    case failure::fi_tsendv: return "fi_tsendv";
    case failure::fi_tinject: return "fi_tinject";
    case failure::fi_trecv: return "fi_trecv";
    case failure::error_completion: return "error completion";
    case failure::engine: return "engine";
    case failure::fds_used_up: return "file descriptors used up";
  }
  return "unknown";
}

}  // namespace sidecore::progress
