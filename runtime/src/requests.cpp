// Requests: their handles' lifetime, and completing them (wait, test and their all/any forms, cancel), for
// point-to-point, collective and persistent requests alike.
#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>
#include <utility>

#include <sidecore/instrument/instrument.hpp>
#include <sidecore/sidecore.hpp>

#include "call_scope.hpp"
#include "state.hpp"

namespace sidecore {

using detail::g_state;
namespace tag = progress::tag;

namespace {

using detail::call_scope;

[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_request(const request& r, const char* what) {
  if (r.handle() == 0)
    throw error(errc::invalid_request, std::string("sidecore::") + what +
                                           ": the request was never started (default-constructed or moved from)");
  if (r.handle() == request_access::consumed)
    throw error(errc::invalid_request, std::string("sidecore::") + what +
                                           ": the request was already completed and consumed by an earlier wait/test");
  throw error(errc::invalid_request,
              std::string("sidecore::") + what + ": the handle " + detail::no_request_in_flight);
}

// The sentence of this thread's last request that completed with an error that has one (send's exception, the
// blocking collectives', the C API's sidecore_last_error).
thread_local std::string t_request_error;

[[gnu::cold, gnu::noinline]] void note_error(const detail::runtime_state& s, const progress::completion& c,
                                             std::uint64_t handle) {
  t_request_error = c.kind == progress::req_kind::schedule ? s.coll->describe(handle, c) : s.eng->describe(c);
}

// An array call (waitall, testall) reports its first failed request's error (the C API's return, sidecore_last_error):
// the sentence of that request is kept over those of later ones that failed too.
class first_error_sentence {
 public:
  void seen(const status& st) {
    if (!kept_ && !st.ok() && st.error != errc::truncated && st.error != errc::canceled) {
      kept_ = true;
      text_ = t_request_error;
    }
  }
  ~first_error_sentence() {
    if (kept_) t_request_error = std::move(text_);
  }
  first_error_sentence() = default;
  first_error_sentence(const first_error_sentence&) = delete;
  first_error_sentence& operator=(const first_error_sentence&) = delete;

 private:
  bool kept_ = false;
  std::string text_;
};

// What a completed request (engine handle `handle`) reports, as the public status.
[[gnu::always_inline]] inline status to_status(const detail::runtime_state& s, const progress::completion& c,
                                              std::uint64_t handle) {
  status st;
  if (c.kind == progress::req_kind::recv && c.result != progress::req_result::canceled) {
    st.source = c.source;
    st.tag = tag::user_of(c.tag);
  }
  st.bytes = c.bytes;
  switch (c.result) {
    case progress::req_result::ok: st.error = errc::success; break;
    case progress::req_result::truncated: st.error = errc::truncated; break;
    case progress::req_result::canceled: st.error = errc::canceled; break;
    case progress::req_result::transport:
      st.error = errc::transport;
      note_error(s, c, handle);
      break;
    case progress::req_result::invalid:
      st.error = errc::invalid_argument;
      note_error(s, c, handle);
      break;
    case progress::req_result::peer_failed:
      st.error = errc::peer_failed;
      note_error(s, c, handle);
      break;
  }
  return st;
}

// `handle` completed with `c` (a receive: its matched source and tag, mapped to the init communicator through the
// message's communicator id).
[[gnu::cold, gnu::noinline]] void trace_done(const detail::runtime_state& s, std::uint64_t handle,
                                             const progress::completion& c) noexcept {
  if (c.kind != progress::req_kind::recv || c.result == progress::req_result::canceled || c.source < 0) {
    instrument::trace_done(handle, -1, -1, -1, c.bytes);
    return;
  }
  const int id = tag::comm_of(c.tag);
  const detail::comm_entry* e =
      id >= 0 && id < tag::max_comms ? s.comms[static_cast<std::size_t>(id)].load(std::memory_order_acquire) : nullptr;
  const int world = e != nullptr && static_cast<std::size_t>(c.source) < e->to_world.size()
                        ? e->to_world[static_cast<std::size_t>(c.source)]
                        : -1;
  instrument::trace_done(handle, c.source, world, tag::user_of(c.tag), c.bytes);
}

// The engine handle whose completion a request waits for: its own, or a persistent request's current run (*p set;
// 0 while it is inactive). Throws errc::invalid_request for a freed persistent request.
std::uint64_t engine_handle(detail::runtime_state& s, const request& r, detail::persistent_op** p, const char* what);

// The request's current operation completed and its result was read: a nonblocking request is consumed, a
// persistent one becomes inactive.
void mark_done(request& r, detail::persistent_op* p) noexcept {
  if (p) p->running = 0;
  else request_access::mark_consumed(r);
}

// Reads a completed request's result and frees it (the handle becomes stale, or a persistent request inactive): *st
// when given. False if the request has not completed, or names nothing to wait for (an inactive persistent request,
// a consumed or empty handle).
bool consume_if_done(detail::runtime_state& s, request& r, status* st) {
  detail::persistent_op* p = nullptr;
  const std::uint64_t h = detail::is_persistent(r.handle()) ? engine_handle(s, r, &p, "test") : r.handle();
  progress::completion c;
  if (h == 0 || s.eng->test(h, c) != progress::test_result::done) return false;
  if (instrument::tracing()) trace_done(s, h, c);
  const status done = to_status(s, c, h);
  mark_done(r, p);
  if (st) *st = done;
  return true;
}

// A send that completed inside isend (progress::is_inline: no slot) is consumed here: *st (when given) gets its
// status. False, and nothing touched, for any other handle.
bool take_inline(request& r, status* st) noexcept {
  if (!progress::is_inline(r.handle())) return false;
  instrument::trace_done(r.handle(), -1, -1, -1, progress::inline_bytes(r.handle()));
  if (st) {
    *st = status{};
    st->bytes = progress::inline_bytes(r.handle());
  }
  request_access::mark_consumed(r);
  return true;
}

}  // namespace

request& request::operator=(request&& other) noexcept {
  if (this != &other) {
    release();
    handle_ = other.handle_;
    other.handle_ = 0;
  }
  return *this;
}

request::~request() { release(); }

void request::release() noexcept {
  if (handle_ == 0 || handle_ == request_access::consumed || progress::is_inline(handle_) || !initialized()) return;
  if (detail::is_persistent(handle_)) (void)detail::free_persistent(*g_state, handle_);
  else g_state->eng->orphan(handle_);
  handle_ = 0;
}

bool request::active() const noexcept {
  if (handle_ == 0 || !initialized()) return false;
  if (progress::is_inline(handle_)) return true;
  if (detail::is_persistent(handle_)) {
    const detail::persistent_op* p = g_state->persistent.find(handle_);
    return p && p->running != 0;
  }
  return g_state->eng->active(handle_);
}

bool request::persistent() const noexcept {
  return detail::is_persistent(handle_) && initialized() && g_state->persistent.find(handle_) != nullptr;
}

namespace {

// wait() of a persistent request, out of the point-to-point path: an inactive one returns an empty status at once
// (MPI's), an active one completes its run and becomes inactive.
[[gnu::noinline]] status wait_persistent(detail::runtime_state& s, request& r) {
  detail::persistent_op* p = nullptr;
  const std::uint64_t h = engine_handle(s, r, &p, "wait");
  if (h == 0) return status{};
  progress::completion c;
  if (!s.eng->wait(h, c)) [[unlikely]]
    throw_bad_request(r, "wait");
  const status st = to_status(s, c, h);
  mark_done(r, p);
  return st;
}

}  // namespace

status wait(request& r) {
  const call_scope scope(category::wait, "sidecore::wait");
  detail::runtime_state& s = detail::state_or_throw("wait");
  if (status st; take_inline(r, &st)) return st;
  if (detail::is_persistent(r.handle())) [[unlikely]]
    return wait_persistent(s, r);
  progress::completion c;
  if (!s.eng->wait(r.handle(), c)) [[unlikely]]
    throw_bad_request(r, "wait");
  if (instrument::tracing()) trace_done(s, r.handle(), c);
  const status st = to_status(s, c, r.handle());
  request_access::mark_consumed(r);
  return st;
}

bool test(request& r, status* st) {
  const call_scope scope(category::test, "sidecore::test");
  detail::runtime_state& s = detail::state_or_throw("test");
  if (take_inline(r, st)) return true;
  if (detail::is_persistent(r.handle())) {
    detail::persistent_op* p = nullptr;
    if (engine_handle(s, r, &p, "test") == 0) {  // inactive: complete at once, with an empty status
      if (st) *st = status{};
      return true;
    }
  } else if (!s.eng->active(r.handle())) [[unlikely]] {
    throw_bad_request(r, "test");
  }
  if (consume_if_done(s, r, st)) return true;
  if (!s.eng->thread_running()) s.eng->progress();
  return consume_if_done(s, r, st);
}

namespace {

std::uint64_t engine_handle(detail::runtime_state& s, const request& r, detail::persistent_op** p, const char* what) {
  detail::persistent_op* op = s.persistent.find(r.handle());
  if (!op) [[unlikely]]
    throw error(errc::invalid_request, std::string("sidecore::") + what + ": the persistent request was freed");
  *p = op;
  return op->running;
}

void check_statuses(std::span<request> reqs, std::span<status> statuses, const char* what) {
  if (!statuses.empty() && statuses.size() != reqs.size())
    throw error(errc::invalid_argument, std::string("sidecore::") + what + ": " + std::to_string(statuses.size()) +
                                            " statuses for " + std::to_string(reqs.size()) +
                                            " requests; accepted: none, or one per request");
}

// Refuses an array that holds one request twice (the C API's integers can be copied; MPI calls it erroneous): the
// second copy would otherwise be waited on as an empty request once the first is consumed. Inline handles are
// skipped: two small sends of one size have the same one. A short array is compared pairwise, a long one sorted.
void refuse_duplicates(std::span<const request> reqs, const char* what) {
  if (reqs.size() < 2) return;
  const auto counted = [](std::uint64_t h) {
    return h != 0 && h != request_access::consumed && !progress::is_inline(h);
  };
  const auto refuse = [what](std::size_t i, std::size_t j) {
    throw error(errc::invalid_request,
                std::string("sidecore::") + what + ": reqs[" + std::to_string(i) + "] and reqs[" + std::to_string(j) +
                    "] are the same request; accepted: each request once; no request of the array was touched");
  };
  constexpr std::size_t pairwise_up_to = 32;
  if (reqs.size() <= pairwise_up_to) {
    for (std::size_t i = 0; i < reqs.size(); ++i)
      if (counted(reqs[i].handle()))
        for (std::size_t j = i + 1; j < reqs.size(); ++j)
          if (reqs[j].handle() == reqs[i].handle()) [[unlikely]]
            refuse(i, j);
    return;
  }
  std::vector<std::pair<std::uint64_t, std::size_t>> held;
  held.reserve(reqs.size());
  for (std::size_t i = 0; i < reqs.size(); ++i)
    if (counted(reqs[i].handle())) held.emplace_back(reqs[i].handle(), i);
  std::sort(held.begin(), held.end());
  for (std::size_t k = 1; k < held.size(); ++k)
    if (held[k].first == held[k - 1].first) [[unlikely]]
      refuse(held[k - 1].second, held[k].second);
}

// Refuses the whole array, before anything in it is waited on or freed, when one of its handles is neither empty,
// consumed, nor a request of this process (a copy of a handle another call consumed, or a made-up value: the C
// API's integers can be either).
void check_handles(detail::runtime_state& s, std::span<const request> reqs, const char* what) {
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    const std::uint64_t h = reqs[i].handle();
    if (h == 0 || h == request_access::consumed || progress::is_inline(h)) continue;
    const bool known = detail::is_persistent(h) ? s.persistent.find(h) != nullptr : s.eng->active(h);
    if (!known) [[unlikely]]
      throw error(errc::invalid_request,
                  std::string("sidecore::") + what + ": reqs[" + std::to_string(i) + "] " +
                      (detail::is_persistent(h) ? detail::no_persistent_request : detail::no_request_in_flight) +
                      "; no request of the array was touched");
  }
  refuse_duplicates(reqs, what);
}

// True while the request has an operation to wait for: not empty or consumed, not an inactive persistent request.
bool has_operation(detail::runtime_state& s, const request& r) {
  if (progress::is_inline(r.handle())) return true;
  if (!detail::is_persistent(r.handle())) return s.eng->active(r.handle());
  const detail::persistent_op* p = s.persistent.find(r.handle());
  return p && p->running != 0;
}

// True while the request's operation has not completed.
bool still_pending(detail::runtime_state& s, const request& r) {
  if (!detail::is_persistent(r.handle())) return s.eng->pending(r.handle());  // inline and inactive: not pending
  const detail::persistent_op* p = s.persistent.find(r.handle());
  return p && p->running != 0 && s.eng->pending(p->running);
}

}  // namespace

void waitall(std::span<request> reqs, std::span<status> statuses) {
  const call_scope scope(category::wait, "sidecore::waitall");
  detail::runtime_state& s = detail::state_or_throw("waitall");
  check_handles(s, reqs, "waitall");
  check_statuses(reqs, statuses, "waitall");
  first_error_sentence first;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    status* out = statuses.empty() ? nullptr : &statuses[i];
    if (take_inline(reqs[i], out)) continue;
    detail::persistent_op* p = nullptr;
    const std::uint64_t h = detail::is_persistent(reqs[i].handle()) ? engine_handle(s, reqs[i], &p, "waitall")
                                                                     : reqs[i].handle();
    progress::completion c;
    if (h == 0 || !s.eng->wait(h, c)) {  // inactive: skipped, as MPI skips MPI_REQUEST_NULL
      if (out) *out = status{};
      continue;
    }
    if (instrument::tracing()) trace_done(s, h, c);
    const status st = to_status(s, c, h);
    first.seen(st);
    mark_done(reqs[i], p);
    if (out) *out = st;
  }
}

int waitany(std::span<request> reqs, status* st) {
  const call_scope scope(category::wait, "sidecore::waitany");
  detail::runtime_state& s = detail::state_or_throw("waitany");
  check_handles(s, reqs, "waitany");
  for (;;) {
    bool any_active = false;
    for (std::size_t i = 0; i < reqs.size(); ++i) {
      if (take_inline(reqs[i], st)) return static_cast<int>(i);
      if (!has_operation(s, reqs[i])) continue;
      any_active = true;
      if (consume_if_done(s, reqs[i], st)) return static_cast<int>(i);
    }
    if (!any_active) return -1;
    if (!s.eng->thread_running()) s.eng->progress();
  }
}

bool testall(std::span<request> reqs, std::span<status> statuses) {
  const call_scope scope(category::test, "sidecore::testall");
  detail::runtime_state& s = detail::state_or_throw("testall");
  check_handles(s, reqs, "testall");
  check_statuses(reqs, statuses, "testall");
  if (!s.eng->thread_running()) s.eng->progress();
  for (auto& r : reqs)
    if (still_pending(s, r)) return false;
  first_error_sentence first;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    status* out = statuses.empty() ? nullptr : &statuses[i];
    if (take_inline(reqs[i], out)) continue;
    status st;
    if (!consume_if_done(s, reqs[i], &st)) st = status{};  // inactive: skipped
    first.seen(st);
    if (out) *out = st;
  }
  return true;
}

int testany(std::span<request> reqs, status* st) {
  const call_scope scope(category::test, "sidecore::testany");
  detail::runtime_state& s = detail::state_or_throw("testany");
  check_handles(s, reqs, "testany");
  if (!s.eng->thread_running()) s.eng->progress();
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    if (take_inline(reqs[i], st)) return static_cast<int>(i);
    if (consume_if_done(s, reqs[i], st)) return static_cast<int>(i);
  }
  return -1;
}

void cancel(request& r) {
  const call_scope scope(category::other, "sidecore::cancel");
  detail::runtime_state& s = detail::state_or_throw("cancel");
  std::uint64_t h = r.handle();
  if (detail::is_persistent(h)) {
    detail::persistent_op* p = nullptr;
    h = engine_handle(s, r, &p, "cancel");
    if (h == 0)
      throw error(errc::invalid_request, "sidecore::cancel: the persistent request is inactive; start it first");
  }
  const std::optional<progress::req_kind> kind = progress::is_inline(h) ? progress::req_kind::send : s.eng->kind(h);
  if (!kind) throw_bad_request(r, "cancel");
  if (*kind != progress::req_kind::recv)
    throw error(errc::invalid_argument, std::string("sidecore::cancel: the request is a ") +
                                            (*kind == progress::req_kind::send ? "send" : "collective") +
                                            "; only posted receives can be cancelled");
  (void)s.eng->cancel(h);
}

void detail::note_request_error(const std::string& text) { t_request_error = text; }

const std::string& detail::last_transport_error() noexcept { return t_request_error; }

}  // namespace sidecore
