// The C API (sidecore.h): thin wrappers that turn exceptions into codes and a thread-local message.
#include <sidecore/sidecore.h>

#include <exception>
#include <new>
#include <string>
#include <vector>

#include <sidecore/sidecore.hpp>

#include "state.hpp"

namespace {

thread_local std::string t_last_error;

int fail(sidecore::errc code, const char* message) {
  t_last_error = message;
  return static_cast<int>(code);
}

// Runs f, mapping exceptions to error codes.
template <typename F>
int guarded(F&& f) noexcept {
  try {
    t_last_error.clear();
    return f();
  } catch (const sidecore::error& e) {
    return fail(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return fail(sidecore::errc::invalid_argument, "out of memory (too many requests in flight?)");
  } catch (const std::exception& e) {
    t_last_error = e.what();
    return SC_ERR_INTERNAL;
  }
}

sidecore::comm comm_of(sc_comm c) {
  if (c == SC_COMM_WORLD) return sidecore::world();
  // Non-world communicators are identified by their id; comm_or_throw validates it.
  return sidecore::comm_access::make(c);
}

void to_c(const sidecore::status& s, sc_status* out) {
  if (!out) return;
  out->source = s.source;
  out->tag = s.tag;
  out->bytes = s.bytes;
  out->error = static_cast<int>(s.error);
}

// A request's error as the call's code; a transport failure's sentence becomes sc_last_error.
int status_code(const sidecore::status& s) {
  if (s.error == sidecore::errc::transport) t_last_error = sidecore::detail::last_transport_error();
  return s.ok() ? SC_SUCCESS : static_cast<int>(s.error);
}

// C handles held as sidecore::request for the duration of a call, given back as integers afterwards
// (consumed ones become SC_REQUEST_NULL), also when the call throws.
struct borrowed {
  sc_request* c;
  std::vector<sidecore::request> reqs;
  borrowed(sc_request* handles, int n) : c(handles) {
    reqs.reserve(static_cast<std::size_t>(n));
    // sc_isend never makes an inline handle (isend_with_slot): one from C is made up, and must not pass for a
    // completed send. Held as a consumed handle, it gets the error any other stale handle gets.
    for (int i = 0; i < n; ++i)
      reqs.push_back(sidecore::request_access::make(sidecore::progress::is_inline(handles[i])
                                                        ? sidecore::request_access::consumed
                                                        : handles[i]));
  }
  ~borrowed() {
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      const bool still = reqs[i].active();
      const std::uint64_t h = sidecore::request_access::detach(reqs[i]);
      c[i] = still ? h : SC_REQUEST_NULL;
    }
  }
};

int check_count(int count, const void* reqs, const char* what) {
  if (count < 0)
    throw sidecore::error(sidecore::errc::invalid_argument,
                          std::string(what) + ": count=" + std::to_string(count) + " is negative; accepted: 0 or more");
  if (count > 0 && !reqs)
    throw sidecore::error(sidecore::errc::invalid_argument, std::string(what) + ": reqs is NULL with count > 0");
  return 0;
}

}  // namespace

extern "C" {

int sc_init(MPI_Comm comm) { return guarded([&] { sidecore::init(comm); return 0; }); }
int sc_finalize(void) { return guarded([] { sidecore::finalize(); return 0; }); }
int sc_step(void) { return guarded([] { sidecore::step(); return 0; }); }
int sc_rank(int* rank) {
  return guarded([&] {
    if (!rank) throw sidecore::error(sidecore::errc::invalid_argument, "sc_rank: rank is NULL");
    *rank = sidecore::rank();
    return 0;
  });
}
int sc_size(int* size) {
  return guarded([&] {
    if (!size) throw sidecore::error(sidecore::errc::invalid_argument, "sc_size: size is NULL");
    *size = sidecore::size();
    return 0;
  });
}
int sc_comm_dup(sc_comm comm, sc_comm* out) {
  return guarded([&] {
    if (!out) throw sidecore::error(sidecore::errc::invalid_argument, "sc_comm_dup: out is NULL");
    *out = comm_of(comm).dup().id();
    return 0;
  });
}
int sc_comm_split(sc_comm comm, int color, int key, sc_comm* out) {
  return guarded([&] {
    if (!out) throw sidecore::error(sidecore::errc::invalid_argument, "sc_comm_split: out is NULL");
    *out = comm_of(comm).split(color, key).id();
    return 0;
  });
}
int sc_comm_free(sc_comm* comm) {
  return guarded([&] {
    if (!comm) throw sidecore::error(sidecore::errc::invalid_argument, "sc_comm_free: comm is NULL");
    sidecore::comm c = comm_of(*comm);
    c.free();
    *comm = -1;
    return 0;
  });
}

int sc_isend(const void* buf, int64_t bytes, int dest, int tag, sc_comm comm, sc_request* req) {
  return guarded([&] {
    if (!req) throw sidecore::error(sidecore::errc::invalid_argument, "sc_isend: req is NULL");
    sidecore::request r = sidecore::detail::isend_with_slot(buf, bytes, dest, tag, comm_of(comm));
    *req = sidecore::request_access::detach(r);
    return 0;
  });
}
int sc_irecv(void* buf, int64_t bytes, int source, int tag, sc_comm comm, sc_request* req) {
  return guarded([&] {
    if (!req) throw sidecore::error(sidecore::errc::invalid_argument, "sc_irecv: req is NULL");
    sidecore::request r = sidecore::irecv(buf, bytes, source, tag, comm_of(comm));
    *req = sidecore::request_access::detach(r);
    return 0;
  });
}
int sc_send(const void* buf, int64_t bytes, int dest, int tag, sc_comm comm) {
  return guarded([&] { sidecore::send(buf, bytes, dest, tag, comm_of(comm)); return 0; });
}
int sc_recv(void* buf, int64_t bytes, int source, int tag, sc_comm comm, sc_status* status) {
  return guarded([&] {
    const sidecore::status s = sidecore::recv(buf, bytes, source, tag, comm_of(comm));
    to_c(s, status);
    return status_code(s);
  });
}
int sc_wait(sc_request* req, sc_status* status) {
  return guarded([&] {
    if (!req) throw sidecore::error(sidecore::errc::invalid_argument, "sc_wait: req is NULL");
    borrowed b(req, 1);
    const sidecore::status s = sidecore::wait(b.reqs[0]);
    to_c(s, status);
    return status_code(s);
  });
}
int sc_test(sc_request* req, int* flag, sc_status* status) {
  return guarded([&] {
    if (!req || !flag) throw sidecore::error(sidecore::errc::invalid_argument, "sc_test: req or flag is NULL");
    borrowed b(req, 1);
    sidecore::status s;
    *flag = sidecore::test(b.reqs[0], &s) ? 1 : 0;
    if (*flag) to_c(s, status);
    return *flag ? status_code(s) : 0;
  });
}
int sc_waitall(int count, sc_request* reqs, sc_status* statuses) {
  return guarded([&] {
    check_count(count, reqs, "sc_waitall");
    borrowed b(reqs, count);
    std::vector<sidecore::status> st(static_cast<std::size_t>(count));
    sidecore::waitall(b.reqs, st);
    int rc = 0;
    for (int i = 0; i < count; ++i) {
      if (statuses) to_c(st[static_cast<std::size_t>(i)], &statuses[i]);
      if (!rc) rc = status_code(st[static_cast<std::size_t>(i)]);
    }
    return rc;
  });
}
int sc_waitany(int count, sc_request* reqs, int* index, sc_status* status) {
  return guarded([&] {
    check_count(count, reqs, "sc_waitany");
    if (!index) throw sidecore::error(sidecore::errc::invalid_argument, "sc_waitany: index is NULL");
    borrowed b(reqs, count);
    sidecore::status s;
    *index = sidecore::waitany(b.reqs, &s);
    if (*index >= 0) {
      to_c(s, status);
      return status_code(s);
    }
    return 0;
  });
}
int sc_cancel(sc_request* req) {
  return guarded([&] {
    if (!req) throw sidecore::error(sidecore::errc::invalid_argument, "sc_cancel: req is NULL");
    borrowed b(req, 1);
    sidecore::cancel(b.reqs[0]);
    return 0;
  });
}

const char* sc_error_name(int code) {
  if (code == SC_ERR_INTERNAL) return "internal";
  if (code < 0 || code > SC_ERR_MPI) return "unknown";
  return sidecore::errc_name(static_cast<sidecore::errc>(code));
}
const char* sc_last_error(void) { return t_last_error.c_str(); }

}  // extern "C"
