// The C API (sidecore.h): thin wrappers that turn exceptions into codes and a thread-local message.
#include <sidecore/sidecore.h>

#include <array>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sidecore/sidecore.hpp>

#include "state.hpp"

namespace {

// The calling thread's last error message. Every call clears it, so the hot path reads only a plain pointer
// (initial-exec TLS: no call into the dynamic linker, no guard of a thread_local with a destructor); the string
// itself is made at the thread's first error and released at its exit.
__attribute__((tls_model("initial-exec"))) thread_local std::string* t_error = nullptr;
thread_local std::unique_ptr<std::string> t_error_owner;

void set_error(std::string message) {
  if (!t_error) {
    t_error_owner = std::make_unique<std::string>();
    t_error = t_error_owner.get();
  }
  *t_error = std::move(message);
}
void clear_error() noexcept {
  if (t_error) t_error->clear();
}

int fail(sidecore::errc code, const char* message) {
  set_error(message);
  return static_cast<int>(code);
}

// The buffer sizes a language binding gave for the thread's next call with a buffer (sidecore_binding_limits). Each
// such call takes them first thing, so they never reach a later one. initial-exec: read and cleared without a call into
// the dynamic linker, on the small-message path (16 bytes of the static TLS surplus when the library is dlopened).
struct buffer_limits {
  int64_t send = -1, recv = -1;
};
__attribute__((tls_model("initial-exec"))) thread_local buffer_limits t_next_limits;

buffer_limits take_limits() noexcept {
  const buffer_limits l = t_next_limits;
  t_next_limits = {};
  return l;
}

// SIDECORE_IN_PLACE goes only where MPI takes MPI_IN_PLACE: a point-to-point buffer there would be read or written at
// its marker address.
void check_not_in_place(const char* call, const void* buf) {
  if (buf == static_cast<const void*>(sidecore::in_place)) [[unlikely]]  // SIDECORE_IN_PLACE, without its C cast
    throw sidecore::error(sidecore::errc::invalid_argument,
                          std::string(call) +
                              ": buf is SIDECORE_IN_PLACE; accepted: a buffer (SIDECORE_IN_PLACE goes where MPI takes "
                              "MPI_IN_PLACE: a collective's send, or scatter's recv at the root)");
}

// A point-to-point call's count against its buffer's size, where the binding gave it.
void check_limit(const char* call, const char* buffer, int64_t bytes, int64_t limit) {
  if (limit >= 0 && bytes > limit)
    throw sidecore::error(sidecore::errc::invalid_argument,
                          std::string(call) + ": bytes=" + std::to_string(bytes) + " reaches beyond " + buffer +
                              ", which holds " + std::to_string(limit) + " bytes; accepted: 0.." +
                              std::to_string(limit));
}

// A message of the C++ API in the C API's words: its calls (sidecore::isend -> sidecore_isend, sidecore::comm::free ->
// sidecore_comm_free), constants (world(), in_place, any_source, any_tag) and element types ("dtype float64", as the
// collectives name a count's unit), which a C or Fortran program cannot write.
std::string in_c_terms(std::string m) {
  static constexpr std::pair<std::string_view, std::string_view> words[] = {
      {"sidecore::world()", "SIDECORE_COMM_WORLD"},
      {"world()", "SIDECORE_COMM_WORLD"},
      {"sidecore::comm::", "sidecore_comm_"},
      {"sidecore::in_place", "SIDECORE_IN_PLACE"},
      {"sidecore::", "sidecore_"},
      {"in_place", "SIDECORE_IN_PLACE"},
      {"any_source", "SIDECORE_ANY_SOURCE"},
      {"any_tag", "SIDECORE_ANY_TAG"},
      {"dtype byte", "SIDECORE_BYTE"},
      {"dtype int32", "SIDECORE_INT32"},
      {"dtype int64", "SIDECORE_INT64"},
      {"dtype uint64", "SIDECORE_UINT64"},
      {"dtype float32", "SIDECORE_FLOAT"},
      {"dtype float64", "SIDECORE_DOUBLE"}};
  for (const auto& [cpp, c] : words)
    for (std::size_t at = m.find(cpp); at != std::string::npos; at = m.find(cpp, at + c.size()))
      m.replace(at, cpp.size(), c);
  return m;
}

// Runs f, mapping exceptions to error codes.
template <typename F>
int guarded(F&& f) noexcept {
  try {
    clear_error();
    return f();
  } catch (const sidecore::error& e) {
    set_error(in_c_terms(e.what()));
    return static_cast<int>(e.code());
  } catch (const std::bad_alloc&) {
    return fail(sidecore::errc::invalid_argument, "sidecore ran out of memory");
  } catch (const std::exception& e) {
    set_error(e.what());
    return SIDECORE_ERR_INTERNAL;
  }
}

sidecore::comm comm_of(sidecore_comm c) {
  if (c == SIDECORE_COMM_WORLD) return sidecore::world();
  // An integer carries no serial: it names whichever communicator holds the id now (MPI's semantics), and
  // comm_or_throw refuses an id that serves none.
  return sidecore::detail::live_comm(c);
}

void to_c(const sidecore::status& s, sidecore_status* out) {
  if (!out) return;
  out->source = s.source;
  out->tag = s.tag;
  out->bytes = s.bytes;
  out->error = static_cast<int>(s.error);
}

// A request's error as the call's code, and its sentence as sidecore_last_error: the engine's for a failure, one made
// here for a truncation or a cancellation. `call` and `index` (-1: none) say which request it was.
int status_code(const sidecore::status& s, const char* call, int index = -1) {
  using sidecore::errc;
  if (s.ok()) return SIDECORE_SUCCESS;
  const std::string which =
      std::string(call) + (index >= 0 ? ": reqs[" + std::to_string(index) + "]" : std::string()) + ": ";
  if (s.error == errc::truncated)
    set_error(which + "the receive matched a message from rank " + std::to_string(s.source) + " (tag " +
              std::to_string(s.tag) + ") larger than its buffer, and kept the first " + std::to_string(s.bytes) +
              " bytes; post a buffer as large as the largest message it may match");
  else if (s.error == errc::canceled)
    set_error(which + "the receive was cancelled (sidecore_cancel) before a message matched it");
  else
    set_error(which + in_c_terms(sidecore::detail::last_transport_error()));
  return static_cast<int>(s.error);
}

// C handles held as sidecore::request for the duration of a call, given back as integers by give_back() at each
// return (consumed ones become SIDECORE_REQUEST_NULL). A call that throws never reaches give_back() and leaves the
// caller's handles as they were: its refusals come before it consumes anything. (std::uncaught_exceptions() in the
// destructor would tell the two apart too, at two calls into libstdc++'s thread-local globals per C call.)
struct borrowed {
  sidecore_request* c;
  sidecore::request one;  // the single-request calls (wait, test, start, ...) hold theirs here: no allocation
  std::vector<sidecore::request> many;
  std::span<sidecore::request> reqs;
  // `call` names the C function in the refusal of a handle sidecore cannot have given.
  borrowed(sidecore_request* handles, int n, const char* call) : c(handles) {
    // sidecore_isend never makes an inline handle (isend_with_slot): one from C is made up, and must not pass for a
    // completed send. Refused before any handle is held, so that none is orphaned by the unwinding.
    for (int i = 0; i < n; ++i)
      if (sidecore::progress::is_inline(handles[i]))
        throw sidecore::error(sidecore::errc::invalid_request,
                              std::string(call) + ": " + (n > 1 ? "reqs[" + std::to_string(i) + "]" : "the handle") +
                                  " names no request: it is a value sidecore did not give (its handles never have "
                                  "bit 63 set)");
    if (n == 1) {
      one = sidecore::request_access::make(handles[0]);
      reqs = {&one, 1};
      return;
    }
    many.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) many.push_back(sidecore::request_access::make(handles[i]));
    reqs = many;
  }
  borrowed(const borrowed&) = delete;
  borrowed& operator=(const borrowed&) = delete;
  // Writes every handle back to C (SIDECORE_REQUEST_NULL for a consumed one) and returns the call's code.
  int give_back(int code) noexcept {
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      const bool still = reqs[i].active() || reqs[i].persistent();  // a persistent request outlives its runs
      const std::uint64_t h = sidecore::request_access::detach(reqs[i]);
      c[i] = still ? h : SIDECORE_REQUEST_NULL;
    }
    return code;
  }
  // Refused (unwinding) or given back: the requests are the caller's again, not released with these objects.
  ~borrowed() {
    for (sidecore::request& r : reqs) (void)sidecore::request_access::detach(r);
  }
};

// An array call's statuses: on the stack for up to 8 requests (a halo exchange's), on the heap beyond.
struct statuses {
  std::array<sidecore::status, 8> few{};
  std::vector<sidecore::status> many;
  std::span<sidecore::status> all;
  explicit statuses(int n) {
    const auto count = static_cast<std::size_t>(n);
    if (count <= few.size()) {
      all = std::span<sidecore::status>(few).first(count);
    } else {
      many.resize(count);
      all = many;
    }
  }
};

// An array call's statuses given to C (when `out` is not NULL), and its code: the first request error's.
int all_to_c(std::span<const sidecore::status> st, sidecore_status* out, const char* call) {
  int rc = 0;
  for (std::size_t i = 0; i < st.size(); ++i) {
    if (out) to_c(st[i], &out[i]);
    if (!rc) rc = status_code(st[i], call, static_cast<int>(i));
  }
  return rc;
}

int check_count(int count, const void* reqs, const char* what) {
  if (count < 0)
    throw sidecore::error(sidecore::errc::invalid_argument,
                          std::string(what) + ": count=" + std::to_string(count) + " is negative; accepted: 0 or more");
  if (count > 0 && !reqs)
    throw sidecore::error(sidecore::errc::invalid_argument, std::string(what) + ": reqs is NULL with count > 0");
  return 0;
}


// ---- collectives ---------------------------------------------------------------------------------------------------

using K = sidecore::detail::coll_op_kind;
using sidecore::detail::coll_args;
constexpr auto nb = sidecore::detail::coll_form::nonblocking;
constexpr auto bl = sidecore::detail::coll_form::blocking;
constexpr auto pe = sidecore::detail::coll_form::persistent;

// User operators of sidecore_op_create, by id (ids from 100 up: never a built-in sidecore_op).
constexpr int first_user_op = 100;
class user_op_table {
 public:
  int add(const sidecore::reduction& r) {
    const std::lock_guard<std::mutex> g(m_);
    for (std::size_t i = 0; i < ops_.size(); ++i) {
      if (ops_[i].user()) continue;
      ops_[i] = r;
      return first_user_op + static_cast<int>(i);
    }
    ops_.push_back(r);
    return first_user_op + static_cast<int>(ops_.size() - 1);
  }
  void remove(int id) {
    const std::lock_guard<std::mutex> g(m_);
    const auto i = static_cast<std::size_t>(id - first_user_op);
    if (id < first_user_op || i >= ops_.size() || !ops_[i].user())
      throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_op_free: op " + std::to_string(id) +
                                                                  " is not a live operator of sidecore_op_create");
    ops_[i] = sidecore::reduction(sidecore::op::sum);
  }
  /// The operator `id` names; false when none (freed, never made).
  bool find(int id, sidecore::reduction& out) {
    const std::lock_guard<std::mutex> g(m_);
    const auto i = static_cast<std::size_t>(id - first_user_op);
    if (id < first_user_op || i >= ops_.size() || !ops_[i].user()) return false;
    out = ops_[i];
    return true;
  }

 private:
  std::mutex m_;
  std::vector<sidecore::reduction> ops_;
};
user_op_table& user_ops() {
  static user_op_table t;
  return t;
}

// What the collective entry takes, from the C arguments (the entry checks them; the C layer only converts).
thread_local sidecore::reduction t_reduction(sidecore::op::sum);
// A dtype or built-in op that is no sidecore_dtype or sidecore_op, as the caller gave it: coll_c reports it in the C
// API's names (narrowed into the C++ enums, it would be reported in theirs, or as another value).
thread_local long long t_wide_dtype = -1, t_wide_op = -1;
thread_local bool t_dtype_wide = false, t_op_wide = false;
thread_local int t_unknown_op = -1;  // an op id at or above first_user_op that names no operator (coll_c reports it)
coll_args barrier_args(sidecore::detail::coll_form f) {
  t_dtype_wide = t_op_wide = false;
  coll_args a;
  a.kind = K::barrier;
  a.form = f;
  return a;
}
coll_args move_args(K k, sidecore::detail::coll_form f, const void* send, void* recv, int64_t count, int dtype,
                    int root) {
  coll_args a = barrier_args(f);
  a.kind = k;
  a.send = send;
  a.recv = recv;
  a.count = count;
  t_dtype_wide = dtype < SIDECORE_BYTE || dtype > SIDECORE_DOUBLE;
  t_wide_dtype = dtype;
  a.type = static_cast<sidecore::dtype>(t_dtype_wide ? 255U : static_cast<unsigned>(dtype));
  a.root = root;
  return a;
}
coll_args reduce_args(K k, sidecore::detail::coll_form f, const void* send, void* recv, int64_t count, int dtype,
                      int op, int root) {
  coll_args a = move_args(k, f, send, recv, count, dtype, root);
  t_unknown_op = -1;
  t_op_wide = op < first_user_op && (op < 0 || op > SIDECORE_MAXLOC);
  t_wide_op = op;
  if (op >= first_user_op) {
    if (!user_ops().find(op, t_reduction)) t_unknown_op = op;
  } else {
    t_reduction = sidecore::reduction(
        static_cast<sidecore::op>(static_cast<unsigned>(op) > 255U ? 255U : static_cast<unsigned>(op)));
  }
  a.red = &t_reduction;
  return a;
}
// v-variant arrays: one entry per rank of the communicator (its size is read by coll_c).
struct v_arrays {
  const int64_t *sc, *sd, *rc, *rd;
};
thread_local v_arrays t_v;
coll_args v_args(K k, sidecore::detail::coll_form f, const void* send, int64_t send_count, const int64_t* sc,
                 const int64_t* sd, void* recv, const int64_t* rc, const int64_t* rd, int dtype) {
  coll_args a = move_args(k, f, send, recv, 0, dtype, 0);
  a.send_count = send_count;
  t_v = {sc, sd, rc, rd};
  return a;
}

// Runs a collective call: req for the nonblocking and persistent forms.
int coll_c(const coll_args& in, sidecore_comm comm, sidecore_request* req) {
  const buffer_limits limits = take_limits();
  return guarded([&] {
    const char* name = sidecore::detail::coll_call_name(in.kind, in.form);
    if (in.kind != K::barrier && t_dtype_wide)
      throw sidecore::error(sidecore::errc::invalid_argument,
                            std::string(name) + ": dtype " + std::to_string(t_wide_dtype) +
                                " is not a sidecore_dtype; "
                                "accepted: SIDECORE_BYTE (0), SIDECORE_INT32, SIDECORE_INT64, SIDECORE_UINT64, "
                                "SIDECORE_FLOAT, SIDECORE_DOUBLE (" +
                                std::to_string(SIDECORE_DOUBLE) + ")");
    if (in.red && t_op_wide)
      throw sidecore::error(sidecore::errc::invalid_argument, std::string(name) + ": op " + std::to_string(t_wide_op) +
                                                                  " is neither a built-in "
                                                                  "sidecore_op (0.." +
                                                                  std::to_string(SIDECORE_MAXLOC) +
                                                                  ") nor a live operator of sidecore_op_create");
    if (in.red && t_unknown_op >= 0)
      throw sidecore::error(sidecore::errc::invalid_argument,
                            std::string(name) + ": op " + std::to_string(t_unknown_op) +
                                " is neither a built-in "
                                "sidecore_op (0.." +
                                std::to_string(SIDECORE_MAXLOC) + ") nor a live operator of sidecore_op_create");
    if (in.form != bl && !req)
      throw sidecore::error(sidecore::errc::invalid_argument, std::string(name) + ": req is NULL");
    coll_args a = in;
    a.send_capacity = limits.send;
    a.recv_capacity = limits.recv;
    const sidecore::comm c = comm_of(comm);
    if (in.kind == K::allgatherv || in.kind == K::alltoallv) {
      // The communicator checked as the collective's (name + 10: without "sidecore::"), not as sidecore_comm_size's.
      const auto n = static_cast<std::size_t>(sidecore::detail::comm_or_throw(c, name + 10).size);
      const bool in_place = in.send == static_cast<const void*>(sidecore::in_place);
      const char* names[4] = {"send_counts", "send_displs", "recv_counts", "recv_displs"};
      const int64_t* arrays[4] = {t_v.sc, t_v.sd, t_v.rc, t_v.rd};
      for (int i = 0; i < 4; ++i) {
        if (i < 2 && (in.kind == K::allgatherv || in_place)) continue;
        if (!arrays[i])
          throw sidecore::error(sidecore::errc::invalid_argument,
                                std::string(name) + ": " + names[i] + " is NULL; accepted: one entry per rank");
      }
      if (in.kind == K::alltoallv && !in_place) {
        a.send_counts = {t_v.sc, n};
        a.send_displs = {t_v.sd, n};
      }
      a.recv_counts = {t_v.rc, n};
      a.recv_displs = {t_v.rd, n};
    }
    sidecore::request r = sidecore::detail::coll_call(a, c);
    if (req) *req = sidecore::request_access::detach(r);
    return 0;
  });
}

}  // namespace

int sidecore::detail::c_fail(int code, const char* message) { return fail(static_cast<sidecore::errc>(code), message); }
int sidecore::detail::c_succeed() {
  clear_error();
  return SIDECORE_SUCCESS;
}

extern "C" {

int sidecore_init(MPI_Comm comm) { return guarded([&] { sidecore::init(comm); return 0; }); }
int sidecore_finalize(void) { return guarded([] { sidecore::finalize(); return 0; }); }
int sidecore_failed_ranks(int* ranks, int capacity, int* count) {
  return guarded([&] {
    if (!count) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_failed_ranks: count is NULL");
    if (capacity < 0 || (capacity > 0 && !ranks))
      throw sidecore::error(sidecore::errc::invalid_argument,
                            "sidecore_failed_ranks: capacity=" + std::to_string(capacity) +
                                (capacity < 0 ? " is negative; accepted: 0 or more" : " with ranks NULL"));
    const std::vector<int> dead = sidecore::failed_ranks();
    for (std::size_t i = 0; i < dead.size() && i < static_cast<std::size_t>(capacity); ++i) ranks[i] = dead[i];
    *count = static_cast<int>(dead.size());
    return 0;
  });
}
int sidecore_step(void) { return guarded([] { sidecore::step(); return 0; }); }
int sidecore_rank(int* rank) {
  return guarded([&] {
    if (!rank) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_rank: rank is NULL");
    *rank = sidecore::rank();
    return 0;
  });
}
int sidecore_size(int* size) {
  return guarded([&] {
    if (!size) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_size: size is NULL");
    *size = sidecore::size();
    return 0;
  });
}
int sidecore_comm_rank(sidecore_comm comm, int* rank) {
  return guarded([&] {
    if (!rank) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_comm_rank: rank is NULL");
    *rank = comm_of(comm).rank();
    return 0;
  });
}
int sidecore_comm_size(sidecore_comm comm, int* size) {
  return guarded([&] {
    if (!size) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_comm_size: size is NULL");
    *size = comm_of(comm).size();
    return 0;
  });
}
int sidecore_comm_dup(sidecore_comm comm, sidecore_comm* out) {
  return guarded([&] {
    if (!out) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_comm_dup: out is NULL");
    *out = comm_of(comm).dup().id();
    return 0;
  });
}
int sidecore_comm_split(sidecore_comm comm, int color, int key, sidecore_comm* out) {
  return guarded([&] {
    if (!out) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_comm_split: out is NULL");
    *out = comm_of(comm).split(color, key).id();
    return 0;
  });
}
int sidecore_comm_free(sidecore_comm* comm) {
  return guarded([&] {
    if (!comm) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_comm_free: comm is NULL");
    sidecore::comm c = comm_of(*comm);
    c.free();
    *comm = -1;
    return 0;
  });
}

int sidecore_isend(const void* buf, int64_t bytes, int dest, int tag, sidecore_comm comm, sidecore_request* req) {
  const buffer_limits limits = take_limits();
  return guarded([&] {
    if (!req) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_isend: req is NULL");
    check_not_in_place("sidecore_isend", buf);
    check_limit("sidecore_isend", "buf", bytes, limits.send);
    sidecore::request r = sidecore::detail::isend_with_slot(buf, bytes, dest, tag, comm_of(comm));
    *req = sidecore::request_access::detach(r);
    return 0;
  });
}
int sidecore_irecv(void* buf, int64_t bytes, int source, int tag, sidecore_comm comm, sidecore_request* req) {
  const buffer_limits limits = take_limits();
  return guarded([&] {
    if (!req) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_irecv: req is NULL");
    check_not_in_place("sidecore_irecv", buf);
    check_limit("sidecore_irecv", "buf", bytes, limits.recv);
    sidecore::request r = sidecore::irecv(buf, bytes, source, tag, comm_of(comm));
    *req = sidecore::request_access::detach(r);
    return 0;
  });
}
int sidecore_send(const void* buf, int64_t bytes, int dest, int tag, sidecore_comm comm) {
  const buffer_limits limits = take_limits();
  return guarded([&] {
    check_not_in_place("sidecore_send", buf);
    check_limit("sidecore_send", "buf", bytes, limits.send);
    sidecore::send(buf, bytes, dest, tag, comm_of(comm));
    return 0;
  });
}
int sidecore_recv(void* buf, int64_t bytes, int source, int tag, sidecore_comm comm, sidecore_status* status) {
  const buffer_limits limits = take_limits();
  return guarded([&] {
    check_not_in_place("sidecore_recv", buf);
    check_limit("sidecore_recv", "buf", bytes, limits.recv);
    const sidecore::status s =
        sidecore::detail::blocking_recv(buf, bytes, source, tag, comm_of(comm), "sidecore::recv");
    to_c(s, status);
    return status_code(s, "sidecore_recv");
  });
}
int sidecore_wait(sidecore_request* req, sidecore_status* status) {
  return guarded([&] {
    if (!req) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_wait: req is NULL");
    borrowed b(req, 1, "sidecore_wait");
    const sidecore::status s = sidecore::wait(b.reqs[0]);
    to_c(s, status);
    return b.give_back(status_code(s, "sidecore_wait"));
  });
}
int sidecore_test(sidecore_request* req, int* flag, sidecore_status* status) {
  return guarded([&] {
    if (!req || !flag) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_test: req or flag is NULL");
    borrowed b(req, 1, "sidecore_test");
    sidecore::status s;
    *flag = sidecore::test(b.reqs[0], &s) ? 1 : 0;
    if (*flag) to_c(s, status);
    return b.give_back(*flag ? status_code(s, "sidecore_test") : 0);
  });
}
int sidecore_waitall(int count, sidecore_request* reqs, sidecore_status* out) {
  return guarded([&] {
    check_count(count, reqs, "sidecore_waitall");
    borrowed b(reqs, count, "sidecore_waitall");
    statuses st(count);
    sidecore::waitall(b.reqs, st.all);
    return b.give_back(all_to_c(st.all, out, "sidecore_waitall"));
  });
}
int sidecore_waitany(int count, sidecore_request* reqs, int* index, sidecore_status* status) {
  return guarded([&] {
    check_count(count, reqs, "sidecore_waitany");
    if (!index) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_waitany: index is NULL");
    borrowed b(reqs, count, "sidecore_waitany");
    sidecore::status s;
    *index = sidecore::waitany(b.reqs, &s);
    if (*index >= 0) {
      to_c(s, status);
      return b.give_back(status_code(s, "sidecore_waitany", *index));
    }
    return b.give_back(0);
  });
}
int sidecore_testall(int count, sidecore_request* reqs, int* flag, sidecore_status* out) {
  return guarded([&] {
    check_count(count, reqs, "sidecore_testall");
    if (!flag) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_testall: flag is NULL");
    borrowed b(reqs, count, "sidecore_testall");
    statuses st(count);
    *flag = sidecore::testall(b.reqs, st.all) ? 1 : 0;
    return b.give_back(*flag ? all_to_c(st.all, out, "sidecore_testall") : 0);
  });
}
int sidecore_testany(int count, sidecore_request* reqs, int* index, int* flag, sidecore_status* status) {
  return guarded([&] {
    check_count(count, reqs, "sidecore_testany");
    if (!index || !flag)
      throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_testany: index or flag is NULL");
    borrowed b(reqs, count, "sidecore_testany");
    sidecore::status s;
    const int i = sidecore::testany(b.reqs, &s);
    bool any_active = false;
    for (const sidecore::request& r : b.reqs) any_active = any_active || r.active();
    *index = i;
    *flag = i >= 0 || !any_active ? 1 : 0;
    if (i < 0) return b.give_back(0);
    to_c(s, status);
    return b.give_back(status_code(s, "sidecore_testany", i));
  });
}
int sidecore_cancel(sidecore_request* req) {
  return guarded([&] {
    if (!req) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_cancel: req is NULL");
    borrowed b(req, 1, "sidecore_cancel");
    sidecore::cancel(b.reqs[0]);
    return b.give_back(0);
  });
}

int sidecore_send_init(const void* buf, int64_t bytes, int dest, int tag, sidecore_comm comm, sidecore_request* req) {
  const buffer_limits limits = take_limits();
  return guarded([&] {
    if (!req) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_send_init: req is NULL");
    check_not_in_place("sidecore_send_init", buf);
    check_limit("sidecore_send_init", "buf", bytes, limits.send);
    sidecore::request r = sidecore::send_init(buf, bytes, dest, tag, comm_of(comm));
    *req = sidecore::request_access::detach(r);
    return 0;
  });
}
int sidecore_recv_init(void* buf, int64_t bytes, int source, int tag, sidecore_comm comm, sidecore_request* req) {
  const buffer_limits limits = take_limits();
  return guarded([&] {
    if (!req) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_recv_init: req is NULL");
    check_not_in_place("sidecore_recv_init", buf);
    check_limit("sidecore_recv_init", "buf", bytes, limits.recv);
    sidecore::request r = sidecore::recv_init(buf, bytes, source, tag, comm_of(comm));
    *req = sidecore::request_access::detach(r);
    return 0;
  });
}
int sidecore_start(sidecore_request* req) {
  return guarded([&] {
    if (!req) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_start: req is NULL");
    borrowed b(req, 1, "sidecore_start");
    sidecore::start(b.reqs[0]);
    return b.give_back(0);
  });
}
int sidecore_startall(int count, sidecore_request* reqs) {
  return guarded([&] {
    check_count(count, reqs, "sidecore_startall");
    borrowed b(reqs, count, "sidecore_startall");
    sidecore::startall(b.reqs);
    return b.give_back(0);
  });
}
int sidecore_request_free(sidecore_request* req) {
  return guarded([&] {
    if (!req) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_request_free: req is NULL");
    borrowed b(req, 1, "sidecore_request_free");
    sidecore::request_free(b.reqs[0]);
    return b.give_back(0);
  });
}

int sidecore_op_create(sidecore_user_fn fn, void* ctx, int commutative, int* op) {
  return guarded([&] {
    if (!fn || !op) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_op_create: fn or op is NULL");
    *op = user_ops().add(sidecore::reduction(fn, ctx, commutative != 0));
    return 0;
  });
}
int sidecore_op_free(int* op) {
  return guarded([&] {
    if (!op) throw sidecore::error(sidecore::errc::invalid_argument, "sidecore_op_free: op is NULL");
    user_ops().remove(*op);
    *op = -1;
    return 0;
  });
}

int sidecore_ibarrier(sidecore_comm comm, sidecore_request* req) { return coll_c(barrier_args(nb), comm, req); }
int sidecore_barrier(sidecore_comm comm) { return coll_c(barrier_args(bl), comm, nullptr); }
int sidecore_barrier_init(sidecore_comm comm, sidecore_request* req) { return coll_c(barrier_args(pe), comm, req); }
int sidecore_ibcast(void* buf, int64_t count, int dtype, int root, sidecore_comm comm, sidecore_request* req) {
  return coll_c(move_args(K::bcast, nb, nullptr, buf, count, dtype, root), comm, req);
}
int sidecore_bcast(void* buf, int64_t count, int dtype, int root, sidecore_comm comm) {
  return coll_c(move_args(K::bcast, bl, nullptr, buf, count, dtype, root), comm, nullptr);
}
int sidecore_bcast_init(void* buf, int64_t count, int dtype, int root, sidecore_comm comm, sidecore_request* req) {
  return coll_c(move_args(K::bcast, pe, nullptr, buf, count, dtype, root), comm, req);
}
int sidecore_ireduce(const void* send, void* recv, int64_t count, int dtype, int op, int root, sidecore_comm comm,
               sidecore_request* req) {
  return coll_c(reduce_args(K::reduce, nb, send, recv, count, dtype, op, root), comm, req);
}
int sidecore_reduce(const void* send, void* recv, int64_t count, int dtype, int op, int root, sidecore_comm comm) {
  return coll_c(reduce_args(K::reduce, bl, send, recv, count, dtype, op, root), comm, nullptr);
}
int sidecore_reduce_init(const void* send, void* recv, int64_t count, int dtype, int op, int root, sidecore_comm comm,
                   sidecore_request* req) {
  return coll_c(reduce_args(K::reduce, pe, send, recv, count, dtype, op, root), comm, req);
}
int sidecore_iallreduce(const void* send, void* recv, int64_t count, int dtype, int op, sidecore_comm comm,
                        sidecore_request* req) {
  return coll_c(reduce_args(K::allreduce, nb, send, recv, count, dtype, op, 0), comm, req);
}
int sidecore_allreduce(const void* send, void* recv, int64_t count, int dtype, int op, sidecore_comm comm) {
  return coll_c(reduce_args(K::allreduce, bl, send, recv, count, dtype, op, 0), comm, nullptr);
}
int sidecore_allreduce_init(const void* send, void* recv, int64_t count, int dtype, int op, sidecore_comm comm,
                            sidecore_request* req) {
  return coll_c(reduce_args(K::allreduce, pe, send, recv, count, dtype, op, 0), comm, req);
}
int sidecore_igather(const void* send, void* recv, int64_t count, int dtype, int root, sidecore_comm comm,
                     sidecore_request* req) {
  return coll_c(move_args(K::gather, nb, send, recv, count, dtype, root), comm, req);
}
int sidecore_gather(const void* send, void* recv, int64_t count, int dtype, int root, sidecore_comm comm) {
  return coll_c(move_args(K::gather, bl, send, recv, count, dtype, root), comm, nullptr);
}
int sidecore_gather_init(const void* send, void* recv, int64_t count, int dtype, int root, sidecore_comm comm,
                         sidecore_request* req) {
  return coll_c(move_args(K::gather, pe, send, recv, count, dtype, root), comm, req);
}
int sidecore_iscatter(const void* send, void* recv, int64_t count, int dtype, int root, sidecore_comm comm,
                      sidecore_request* req) {
  return coll_c(move_args(K::scatter, nb, send, recv, count, dtype, root), comm, req);
}
int sidecore_scatter(const void* send, void* recv, int64_t count, int dtype, int root, sidecore_comm comm) {
  return coll_c(move_args(K::scatter, bl, send, recv, count, dtype, root), comm, nullptr);
}
int sidecore_scatter_init(const void* send, void* recv, int64_t count, int dtype, int root, sidecore_comm comm,
                    sidecore_request* req) {
  return coll_c(move_args(K::scatter, pe, send, recv, count, dtype, root), comm, req);
}
int sidecore_iallgather(const void* send, void* recv, int64_t count, int dtype, sidecore_comm comm,
                        sidecore_request* req) {
  return coll_c(move_args(K::allgather, nb, send, recv, count, dtype, 0), comm, req);
}
int sidecore_allgather(const void* send, void* recv, int64_t count, int dtype, sidecore_comm comm) {
  return coll_c(move_args(K::allgather, bl, send, recv, count, dtype, 0), comm, nullptr);
}
int sidecore_allgather_init(const void* send, void* recv, int64_t count, int dtype, sidecore_comm comm,
                            sidecore_request* req) {
  return coll_c(move_args(K::allgather, pe, send, recv, count, dtype, 0), comm, req);
}
int sidecore_ialltoall(const void* send, void* recv, int64_t count, int dtype, sidecore_comm comm,
                       sidecore_request* req) {
  return coll_c(move_args(K::alltoall, nb, send, recv, count, dtype, 0), comm, req);
}
int sidecore_alltoall(const void* send, void* recv, int64_t count, int dtype, sidecore_comm comm) {
  return coll_c(move_args(K::alltoall, bl, send, recv, count, dtype, 0), comm, nullptr);
}
int sidecore_alltoall_init(const void* send, void* recv, int64_t count, int dtype, sidecore_comm comm,
                           sidecore_request* req) {
  return coll_c(move_args(K::alltoall, pe, send, recv, count, dtype, 0), comm, req);
}
int sidecore_ireduce_scatter_block(const void* send, void* recv, int64_t count, int dtype, int op, sidecore_comm comm,
                             sidecore_request* req) {
  return coll_c(reduce_args(K::reduce_scatter_block, nb, send, recv, count, dtype, op, 0), comm, req);
}
int sidecore_reduce_scatter_block(const void* send, void* recv, int64_t count, int dtype, int op, sidecore_comm comm) {
  return coll_c(reduce_args(K::reduce_scatter_block, bl, send, recv, count, dtype, op, 0), comm, nullptr);
}
int sidecore_reduce_scatter_block_init(const void* send, void* recv, int64_t count, int dtype, int op,
                                       sidecore_comm comm, sidecore_request* req) {
  return coll_c(reduce_args(K::reduce_scatter_block, pe, send, recv, count, dtype, op, 0), comm, req);
}
int sidecore_iallgatherv(const void* send, int64_t send_count, void* recv, const int64_t* recv_counts,
                   const int64_t* recv_displs, int dtype, sidecore_comm comm, sidecore_request* req) {
  return coll_c(v_args(K::allgatherv, nb, send, send_count, nullptr, nullptr, recv, recv_counts, recv_displs, dtype),
                comm, req);
}
int sidecore_allgatherv(const void* send, int64_t send_count, void* recv, const int64_t* recv_counts,
                  const int64_t* recv_displs, int dtype, sidecore_comm comm) {
  return coll_c(v_args(K::allgatherv, bl, send, send_count, nullptr, nullptr, recv, recv_counts, recv_displs, dtype),
                comm, nullptr);
}
int sidecore_allgatherv_init(const void* send, int64_t send_count, void* recv, const int64_t* recv_counts,
                       const int64_t* recv_displs, int dtype, sidecore_comm comm, sidecore_request* req) {
  return coll_c(v_args(K::allgatherv, pe, send, send_count, nullptr, nullptr, recv, recv_counts, recv_displs, dtype),
                comm, req);
}
int sidecore_ialltoallv(const void* send, const int64_t* send_counts, const int64_t* send_displs, void* recv,
                        const int64_t* recv_counts, const int64_t* recv_displs, int dtype, sidecore_comm comm,
                        sidecore_request* req) {
  return coll_c(v_args(K::alltoallv, nb, send, 0, send_counts, send_displs, recv, recv_counts, recv_displs, dtype),
                comm, req);
}
int sidecore_alltoallv(const void* send, const int64_t* send_counts, const int64_t* send_displs, void* recv,
                 const int64_t* recv_counts, const int64_t* recv_displs, int dtype, sidecore_comm comm) {
  return coll_c(v_args(K::alltoallv, bl, send, 0, send_counts, send_displs, recv, recv_counts, recv_displs, dtype),
                comm, nullptr);
}
int sidecore_alltoallv_init(const void* send, const int64_t* send_counts, const int64_t* send_displs, void* recv,
                      const int64_t* recv_counts, const int64_t* recv_displs, int dtype, sidecore_comm comm,
                      sidecore_request* req) {
  return coll_c(v_args(K::alltoallv, pe, send, 0, send_counts, send_displs, recv, recv_counts, recv_displs, dtype),
                comm, req);
}

const char* sidecore_error_name(int code) {
  if (code == SIDECORE_ERR_INTERNAL) return "internal";
  if (code < 0 || code > SIDECORE_ERR_PEER_FAILED) return "unknown";
  return sidecore::errc_name(static_cast<sidecore::errc>(code));
}
const char* sidecore_last_error(void) { return t_error ? t_error->c_str() : ""; }

int sidecore_binding_limits(int64_t send_bytes, int64_t recv_bytes) {
  if (send_bytes < -1 || recv_bytes < -1)
    return fail(sidecore::errc::invalid_argument,
                ("sidecore_binding_limits: send_bytes=" + std::to_string(send_bytes) + ", recv_bytes=" +
                 std::to_string(recv_bytes) + "; accepted: -1 (unknown) or a size in bytes")
                    .c_str());
  t_next_limits = {send_bytes, recv_bytes};
  return SIDECORE_SUCCESS;
}
int sidecore_binding_fail(int code, const char* message) {
  if (!message || code == SIDECORE_SUCCESS || sidecore_error_name(code) == std::string_view("unknown"))
    return fail(sidecore::errc::invalid_argument,
                ("sidecore_binding_fail: code " + std::to_string(code) + (message ? "" : " with a NULL message") +
                 "; accepted: a SIDECORE_ERR_* code and a message")
                    .c_str());
  return fail(static_cast<sidecore::errc>(code), message);
}

}  // extern "C"
