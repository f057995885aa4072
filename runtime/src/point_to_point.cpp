// Point-to-point operations: isend, irecv and their blocking forms, with the checks of their arguments.
#include <cstdint>
#include <string>

#include <sidecore/instrument/instrument.hpp>
#include <sidecore/sidecore.hpp>

#include "call_scope.hpp"
#include "state.hpp"

namespace sidecore {

using detail::g_state;
namespace tag = progress::tag;

namespace {

using detail::call_scope;

// Trace records for the replay (instrument::trace_post / trace_done; docs/simulate.md).
[[gnu::cold, gnu::noinline]] void trace_post(const detail::runtime_state& s, const request& r, bool send, int peer,
                                             int world_peer, int t, int comm_id, std::int64_t bytes) noexcept {
  const auto b = static_cast<std::size_t>(bytes);
  const char* proto = !send ? "posted" : progress::is_inline(r.handle()) ? "inject"
                                       : b <= s.eng->eager_max()         ? "eager"
                                                                          : "rndv";
  instrument::trace_post(send, r.handle(), peer, world_peer, t, comm_id, b, proto);
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_buffer(const void* buf, std::int64_t bytes, const char* what) {
  if (bytes < 0)
    throw error(errc::invalid_argument, std::string("sidecore::") + what + ": bytes=" + std::to_string(bytes) +
                                            " is negative; accepted: 0 or more");
  (void)buf;
  throw error(errc::invalid_argument, std::string("sidecore::") + what + ": buf is null with bytes=" +
                                          std::to_string(bytes) + "; a null buffer is accepted only with 0 bytes");
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_too_large(const detail::runtime_state& s, std::int64_t bytes,
                                                            const char* what) {
  throw error(errc::invalid_argument, std::string("sidecore::") + what + ": bytes=" + std::to_string(bytes) +
                                          " exceeds the largest message of provider " + s.eng->provider() + " (" +
                                          std::to_string(s.eng->max_msg_size()) + " bytes)");
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_rank(const detail::comm_entry& c, int r, bool allow_any,
                                                           const char* arg, const char* what) {
  throw error(errc::invalid_argument, std::string("sidecore::") + what + ": " + arg + "=" + std::to_string(r) +
                                          " is not a rank of the communicator; accepted: 0.." +
                                          std::to_string(c.size - 1) + (allow_any ? " or any_source" : ""));
}

[[noreturn, gnu::cold, gnu::noinline]] void throw_bad_tag(int t, bool allow_any, const char* what) {
  throw error(errc::invalid_argument, std::string("sidecore::") + what + ": tag=" + std::to_string(t) +
                                          " is out of range; accepted: 0.." + std::to_string(tag_max) +
                                          (allow_any ? " or any_tag" : ""));
}

inline void check_buffer(const void* buf, std::int64_t bytes, const char* what) {
  if (bytes < 0 || (buf == nullptr && bytes > 0)) [[unlikely]]
    throw_bad_buffer(buf, bytes, what);
}

inline void check_size(const detail::runtime_state& s, std::int64_t bytes, const char* what) {
  if (static_cast<std::uint64_t>(bytes) > s.eng->max_msg_size()) [[unlikely]]
    throw_too_large(s, bytes, what);
}

inline void check_rank(const detail::comm_entry& c, int r, bool allow_any, const char* arg, const char* what) {
  if (static_cast<unsigned>(r) >= static_cast<unsigned>(c.size) && !(allow_any && r == any_source)) [[unlikely]]
    throw_bad_rank(c, r, allow_any, arg, what);
}

inline void check_tag(int t, bool allow_any, const char* what) {
  if (static_cast<unsigned>(t) > static_cast<unsigned>(tag_max) && !(allow_any && t == any_tag)) [[unlikely]]
    throw_bad_tag(t, allow_any, what);
}

// may_inline: a small send may complete inside the call with a handle that has no slot (progress::is_inline);
// the C API, whose handles are integers that can be copied, asks for a slot so that a copy waited on twice is
// still recognised. `call`: the public call that starts it, named when the request limit refuses it.
request isend_impl(const void* buf, std::int64_t bytes, int dest, int t, const comm& c, bool may_inline,
                   const char* call) {
  const call_scope scope(category::init, "sidecore::isend");
  detail::comm_entry& e = detail::comm_or_throw(c, "isend");
  detail::runtime_state& s = *g_state;
  check_buffer(buf, bytes, "isend");
  check_rank(e, dest, false, "dest", "isend");
  check_tag(t, false, "isend");
  check_size(s, bytes, "isend");
  const int world_dest = e.to_world[static_cast<std::size_t>(dest)];
  request r = request_access::make(detail::start_request(call, [&] {
    return s.eng->start_send(buf, static_cast<std::size_t>(bytes), world_dest, tag::make(tag::kind::p2p, c.id(), t),
                             dest, e.rank, instrument::current_thread_id(), may_inline);
  }));
  if (instrument::tracing()) trace_post(s, r, true, dest, world_dest, t, c.id(), bytes);
  return r;
}

}  // namespace

request isend(const void* buf, std::int64_t bytes, int dest, int t, const comm& c) {
  return isend_impl(buf, bytes, dest, t, c, true, "sidecore::isend");
}

request detail::isend_with_slot(const void* buf, std::int64_t bytes, int dest, int t, const comm& c,
                                const char* call) {
  return isend_impl(buf, bytes, dest, t, c, false, call);
}

request irecv(void* buf, std::int64_t bytes, int source, int t, const comm& c) {
  return detail::irecv_as(buf, bytes, source, t, c, "sidecore::irecv");
}

request detail::irecv_as(void* buf, std::int64_t bytes, int source, int t, const comm& c, const char* call) {
  const call_scope scope(category::init, "sidecore::irecv");
  detail::comm_entry& e = detail::comm_or_throw(c, "irecv");
  detail::runtime_state& s = *g_state;
  check_buffer(buf, bytes, "irecv");
  check_rank(e, source, true, "source", "irecv");
  check_tag(t, true, "irecv");
  check_size(s, bytes, "irecv");
  const std::uint64_t ignore = t == any_tag ? tag::ignore_user() : 0;
  const std::uint64_t match = tag::make(tag::kind::p2p, c.id(), t == any_tag ? 0 : t);
  const int world_source = source == any_source ? -1 : e.to_world[static_cast<std::size_t>(source)];
  request r = request_access::make(detail::start_request(call, [&] {
    return s.eng->start_recv(buf, static_cast<std::size_t>(bytes), match, ignore, source, world_source,
                             instrument::current_thread_id());
  }));
  if (instrument::tracing()) trace_post(s, r, false, source, world_source, t, c.id(), bytes);
  return r;
}

namespace {

// A blocking call's failure of the transport or of its peer, thrown (errc::peer_failed's contract); what the status
// says of the message itself (truncated, canceled) stays in it.
void throw_failure(const status& st, const char* call, const char* dir, int peer) {
  if (st.error == errc::transport)
    throw error(errc::transport, std::string(call) + " " + dir + " rank " + std::to_string(peer) +
                                     " failed in the transport: " + detail::last_transport_error());
  if (st.error == errc::peer_failed)
    throw error(errc::peer_failed, std::string(call) + " " + dir + " rank " + std::to_string(peer) +
                                       " failed: " + detail::last_transport_error());
}

}  // namespace

void send(const void* buf, std::int64_t bytes, int dest, int t, const comm& c) {
  const call_scope scope(category::blocking, "sidecore::send");
  request r = isend_impl(buf, bytes, dest, t, c, true, "sidecore::send");
  throw_failure(wait(r), "sidecore::send", "to", dest);
}

status detail::blocking_recv(void* buf, std::int64_t bytes, int source, int t, const comm& c, const char* call) {
  const call_scope scope(category::blocking, call);
  request r = detail::irecv_as(buf, bytes, source, t, c, call);
  return wait(r);
}

status recv(void* buf, std::int64_t bytes, int source, int t, const comm& c) {
  const status st = detail::blocking_recv(buf, bytes, source, t, c, "sidecore::recv");
  throw_failure(st, "sidecore::recv", "from", source);
  return st;
}

}  // namespace sidecore
