// Persistent requests (persistent.hpp): the table that names them, send_init / recv_init, start / startall and
// request_free of sidecore.hpp. A persistent collective's plan and executor state come from collectives.cpp.
#include "persistent.hpp"

#include <string>
#include <string_view>

#include <sidecore/instrument/instrument.hpp>
#include <sidecore/sidecore.hpp>

#include "call_scope.hpp"
#include "state.hpp"

namespace sidecore {

namespace detail {

namespace {
constexpr std::uint32_t gen_mask = 0x3fffffffU;  // bits 63 and 62 of a handle belong to the engine's marks
}

std::uint64_t persistent_table::add(std::unique_ptr<persistent_op> op) {
  const std::lock_guard<std::mutex> g(mutex_);
  std::uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    slots_.emplace_back();
    index = static_cast<std::uint32_t>(slots_.size() - 1);
  }
  slot& s = slots_[index];
  s.op = std::move(op);
  return (static_cast<std::uint64_t>(s.gen & gen_mask) << 32) | (std::uint64_t{index} + 1) | progress::runtime_bit;
}

persistent_table::slot* persistent_table::slot_of(std::uint64_t handle) noexcept {
  if (!is_persistent(handle)) return nullptr;
  const std::uint64_t low = handle & 0xffffffffULL;
  if (low == 0 || low > slots_.size()) return nullptr;
  slot& s = slots_[low - 1];
  const auto gen = static_cast<std::uint32_t>((handle & ~progress::runtime_bit) >> 32);
  return s.op && gen == (s.gen & gen_mask) ? &s : nullptr;
}

persistent_op* persistent_table::find(std::uint64_t handle) {
  const std::lock_guard<std::mutex> g(mutex_);
  slot* s = slot_of(handle);
  return s ? s->op.get() : nullptr;
}

std::unique_ptr<persistent_op> persistent_table::remove(std::uint64_t handle) {
  const std::lock_guard<std::mutex> g(mutex_);
  slot* s = slot_of(handle);
  if (!s) return nullptr;
  std::unique_ptr<persistent_op> op = std::move(s->op);
  ++s->gen;
  free_.push_back(static_cast<std::uint32_t>(s - slots_.data()));
  return op;
}

std::vector<std::unique_ptr<persistent_op>> persistent_table::clear() {
  const std::lock_guard<std::mutex> g(mutex_);
  std::vector<std::unique_ptr<persistent_op>> out;
  for (slot& s : slots_)
    if (s.op) out.push_back(std::move(s.op));
  slots_.clear();
  free_.clear();
  return out;
}

bool free_persistent(runtime_state& s, std::uint64_t handle) noexcept {
  std::unique_ptr<persistent_op> op = s.persistent.remove(handle);
  if (!op) return false;
  if (op->running != 0 && !progress::is_inline(op->running)) s.eng->orphan(op->running);
  if (op->coll) s.coll->destroy(op->coll);
  return true;
}

}  // namespace detail

namespace {

using detail::call_scope;

// A point-to-point persistent request: its arguments are checked now by a call that would take them (a 0-byte
// probe is not possible, so the checks of isend/irecv run at every start as well).
request make_p2p(detail::persistent_op::what w, void* buf, std::int64_t bytes, int peer, int tag, const comm& c,
                 const char* call) {
  detail::comm_entry& e = detail::comm_or_throw(c, call);
  if (bytes < 0 || (buf == nullptr && bytes > 0))
    throw error(errc::invalid_argument, std::string("sidecore::") + call + ": buffer " +
                                            (buf ? "given" : "null") + " with " + std::to_string(bytes) +
                                            " bytes; accepted: a buffer of 0 or more bytes (null only with 0)");
  const bool recv = w == detail::persistent_op::what::recv;
  if (static_cast<unsigned>(peer) >= static_cast<unsigned>(e.size) && !(recv && peer == any_source))
    throw error(errc::invalid_argument, std::string("sidecore::") + call + ": " + (recv ? "source" : "dest") +
                                            " is " + std::to_string(peer) + "; accepted: 0 .. " +
                                            std::to_string(e.size - 1) + (recv ? " or any_source" : ""));
  if ((tag < 0 || tag > tag_max) && !(recv && tag == any_tag))
    throw error(errc::invalid_argument, std::string("sidecore::") + call + ": tag is " + std::to_string(tag) +
                                            "; accepted: 0 .. " + std::to_string(tag_max) +
                                            (recv ? " or any_tag" : ""));
  auto op = std::make_unique<detail::persistent_op>();
  op->w = w;
  op->buf = buf;
  op->bytes = bytes;
  op->peer = peer;
  op->tag = tag;
  op->comm_id = c.id();
  op->comm_serial = e.serial;
  return request_access::make(detail::g_state->persistent.add(std::move(op)));
}

}  // namespace

request send_init(const void* buf, std::int64_t bytes, int dest, int tag, const comm& c) {
  const call_scope scope(category::init, "sidecore::send_init");
  return make_p2p(detail::persistent_op::what::send, const_cast<void*>(buf), bytes, dest, tag, c, "send_init");
}

request recv_init(void* buf, std::int64_t bytes, int source, int tag, const comm& c) {
  const call_scope scope(category::init, "sidecore::recv_init");
  return make_p2p(detail::persistent_op::what::recv, buf, bytes, source, tag, c, "recv_init");
}

void start(request& r) {
  const call_scope scope(category::init, "sidecore::start");
  detail::runtime_state& s = detail::state_or_throw("start");
  if (!detail::is_persistent(r.handle()))
    throw error(errc::invalid_request, r.handle() == 0
                                           ? "sidecore::start: the request is empty; start takes a "
                                             "persistent request (send_init, recv_init, allreduce_init, ...)"
                                           : "sidecore::start: the request is not persistent; start takes "
                                             "one made by send_init, recv_init, allreduce_init, ...");
  detail::persistent_op* op = s.persistent.find(r.handle());
  if (!op) throw error(errc::invalid_request, "sidecore::start: the persistent request was freed");
  if (op->running != 0)
    throw error(errc::invalid_request, "sidecore::start: the persistent request is still active; complete its run "
                                       "with wait or test before starting it again");
  if (op->w != detail::persistent_op::what::coll) {
    const detail::comm_entry* e = s.comms[static_cast<std::size_t>(op->comm_id)].load(std::memory_order_acquire);
    if (e == nullptr || e->serial != op->comm_serial)
      throw error(errc::invalid_argument,
                  std::string("sidecore::start: the communicator this persistent ") +
                      (op->w == detail::persistent_op::what::send ? "send_init" : "recv_init") +
                      " was made on is freed (comm::free); accepted: a start before its communicator's free, or a "
                      "new request made on a live communicator");
  }
  switch (op->w) {
    case detail::persistent_op::what::send: {
      request x = detail::isend_with_slot(op->buf, op->bytes, op->peer, op->tag,
                                          comm_access::make(op->comm_id, op->comm_serial), "sidecore::start");
      op->running = request_access::detach(x);
      break;
    }
    case detail::persistent_op::what::recv: {
      request x = detail::irecv_as(op->buf, op->bytes, op->peer, op->tag,
                                   comm_access::make(op->comm_id, op->comm_serial), "sidecore::start");
      op->running = request_access::detach(x);
      break;
    }
    case detail::persistent_op::what::coll:
      op->running = detail::start_request("sidecore::start",
                                          [&] { return s.coll->start(*op->coll, instrument::current_thread_id()); });
      break;
  }
}

void startall(std::span<request> reqs) {
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    try {
      start(reqs[i]);
    } catch (const error& e) {
      // The element, and where the array stopped: the ones before are started and must be completed.
      std::string why = e.what();
      constexpr std::string_view own = "sidecore::start: ";
      if (why.starts_with(own)) why.erase(0, own.size());
      const std::string started = i == 0 ? "none was started"
                                  : i == 1
                                      ? "reqs[0] was started, the rest not"
                                      : "reqs[0] to reqs[" + std::to_string(i - 1) + "] were started, the rest not";
      throw error(e.code(), "sidecore::startall: reqs[" + std::to_string(i) + "]: " + why + " (" + started + ")");
    }
  }
}

void request_free(request& r) {
  const call_scope scope(category::other, "sidecore::request_free");
  detail::runtime_state& s = detail::state_or_throw("request_free");
  const std::uint64_t h = r.handle();
  if (h == 0 || h == ~std::uint64_t{0})
    throw error(errc::invalid_request, h == 0 ? "sidecore::request_free: the request is empty (never started, moved "
                                                "from, or freed)"
                                              : "sidecore::request_free: the request was already completed and "
                                                "consumed by an earlier wait/test");
  if (detail::is_persistent(h)) {
    if (!detail::free_persistent(s, h))
      throw error(errc::invalid_request,
                  std::string("sidecore::request_free: the handle ") + detail::no_persistent_request);
  } else if (!progress::is_inline(h)) {
    if (!s.eng->active(h))
      throw error(errc::invalid_request,
                  std::string("sidecore::request_free: the handle ") + detail::no_request_in_flight);
    s.eng->orphan(h);
  }
  request_access::clear(r);
}

}  // namespace sidecore
