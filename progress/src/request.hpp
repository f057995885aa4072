// A request slot: one point-to-point operation, or one schedule, from its start to the moment its result is read.
// Its lifecycle (state), where the engine has it (stage, act), who may progress it, and where its completion goes.
#pragma once

#include <rdma/fabric.h>

#include <atomic>
#include <cstddef>
#include <cstdint>

#include <sidecore/progress/engine.hpp>

#include "wire.hpp"

namespace sidecore::progress {

class schedule;

/// Lifecycle of a slot, as seen by the application thread and the engine. pending -> complete is done by the
/// engine; pending -> orphan by the application when it drops a handle still in flight. Whoever sees the
/// other's mark frees the slot (two-party exchange, see engine_core::complete and engine_core::orphan_req). A
/// request whose completion goes to a parent schedule never leaves pending for complete: the engine hands it to
/// the schedule and frees it (completion.cpp).
enum class req_state : std::uint32_t { free = 0, pending = 1, complete = 2, orphan = 3 };
/// What the engine hands to libfabric next for this request (protocol.cpp).
enum class req_act : std::uint8_t {
  none,
  eager,      // send: header + data in one message
  rts,        // send: ready-to-send header (size, cookie); the data follows the receiver's clear-to-send
  data_send,  // send: the rendezvous data, as much as the receiver's clear-to-send asked for
  data_recv,  // recv: the rendezvous data, posted before the clear-to-send goes out
  cts,        // recv: clear-to-send to the sender
  self,       // send to this process: matched and copied here, no provider (protocol.cpp, post_self)
};
/// Where the engine has a request: none until the holder of the progress lock takes it (it may still sit in the
/// submission queue), taken for a send or schedule it has, and for a receive where it is in sidecore's matching.
/// An engine failure fails what it has taken (failure.cpp).
enum class req_stage : std::uint8_t { none, taken, posted, matched };
/// Who may progress a request, chosen once when it starts (engine_core::progressor_for). Mode core: `any` lets
/// the application thread that posts or waits for it do the work itself ("caller progress", caller_progress.cpp);
/// `thread` leaves it to the progress thread (rendezvous transfers, whose data must move while the application
/// computes, and the children of a schedule). Mode off: every request is progressed by application threads.
enum class progressor : std::uint8_t { any, thread };

struct alignas(64) req {
  fi_context2 ctx;  // first member: libfabric returns its address as op_context
  std::atomic<std::uint32_t> state{0};
  std::atomic<std::uint32_t> gen{1};
  std::atomic<std::uint32_t> next_free{0};
  std::uint32_t index = 0;
  std::uint32_t backlog_next = 0;  // intrusive FIFO of operations the provider refused with EAGAIN
  std::uint32_t mprev = 0, mnext = 0;  // posted-receive list (index + 1, 0 = none)
  req_kind op = req_kind::send;
  req_act act = req_act::none;
  std::atomic<req_stage> stage{req_stage::none};  // relaxed: atomic only so the failure scan may read any slot
  progressor by = progressor::any;
  bool posted = false;             // the transfer began (instrumentation: XFER_BEGIN was recorded)
  bool credited = false;           // send: took its send credit (credits.cpp), kept while the provider refuses it
  bool rdv = false;                // send: went by rendezvous (its ready-to-send left; a clear-to-send may come)
  bool engines_own = false;        // an answer or notice the engine sends for itself: no transfer of the application's
  std::atomic<bool> cancel_ack{false};  // the engine has processed a cancel entry for this request
  std::atomic<bool> waiter{false};      // an application thread sleeps on `state` (futex)
  // An operation whose peer died while the provider held it and could not cancel it (a send: fi_tsendv, fi_tsend;
  // a rendezvous receive whose fi_cancel failed): it completed to its owner with peer_failed, but its context is the
  // provider's until the provider's own completion; whichever of that completion and the owner's read comes second
  // frees the slot (liveness.cpp, retire_read).
  std::atomic<bool> provider_holds{false};
  // complete_held completed it, and the provider's own completion (or error entry) is still to come: that entry is
  // then this slot's last event (late_completion), never a completion. Read and written under the progress lock
  // only; provider_holds above is the owner's half of the exchange, which any thread may do.
  bool provider_late = false;
  failure what = failure::none;    // result transport: the step that failed (engine::describe)
  // Completion target: nullptr, the user's handle (state word, waiter futex, orphan exchange); else the schedule
  // this request is a child of (told by schedule::on_child_complete, then advanced from its ready list).
  schedule* parent = nullptr;
  schedule* sched = nullptr;       // op schedule: the schedule this request stands for
  std::uint64_t token = 0;         // child: the schedule's name for it (schedule::on_child_complete)
  // child send: the signature its message carries (wire_hdr::sig_*); child receive: that of the message it matched
  std::uint64_t sig = 0;
  // operation
  void* buf = nullptr;
  std::size_t len = 0;
  fi_addr_t addr = FI_ADDR_UNSPEC;
  std::uint64_t tag = 0;
  std::uint64_t ignore = 0;
  int peer = -1;                 // rank in the communicator, for instrumentation
  int peer_world = -1;           // engine address index of the peer (-1: any source until matched)
  std::uint32_t owner_thread = 0;
  std::uint64_t data = 0;        // send: the sender's rank in its communicator
  // rendezvous
  std::uint64_t cookie = 0;      // recv: the sender's request handle (from its ready-to-send); a schedule's child
                                 // send: the header's cookie of its eager message (a collective's failure notice)
  std::uint64_t rdv_tag = 0;     // libfabric tag of the rendezvous data
  std::size_t rdv_n = 0;         // rendezvous bytes to move (what the receiver posted, at most the size)
  wire_hdr hdr;                  // send: header of an eager message that is not injected (alive until done)
  // result (written by the engine before state becomes complete, read after)
  std::uint64_t rtag = 0;
  int source = -1;                 // recv: the sender's rank (from the header)
  std::size_t bytes = 0;
  req_result result = req_result::ok;
  int fi_err = 0;
};

/// Whether the engine has r in flight: started, not complete (pending, or orphaned by its owner), and taken by the
/// lock holder (one still in the submission queue is dealt with when it is drained). For the scans of failures.
[[nodiscard]] inline bool taken_in_flight(const req& r) noexcept {
  const auto st = r.state.load(std::memory_order_acquire);
  return (st == static_cast<std::uint32_t>(req_state::pending) ||
          st == static_cast<std::uint32_t>(req_state::orphan)) &&
         r.stage.load(std::memory_order_relaxed) != req_stage::none;
}

/// What a completed request reports. A receive's source is the sender's rank from the header (the posted source
/// for one cancelled before any message matched it, when it names one).
inline void read_result(const req& r, completion& out) noexcept {
  out.bytes = r.bytes;
  out.tag = r.rtag;
  out.source = r.op == req_kind::recv ? (r.source >= 0 ? r.source : r.peer) : -1;
  out.kind = r.op;
  out.result = r.result;
  // transport or peer_failed (adjacent in req_result)
  if (static_cast<std::uint8_t>(static_cast<std::uint8_t>(r.result) -
                                static_cast<std::uint8_t>(req_result::transport)) < 2) [[unlikely]] {
    out.what = r.what;
    out.fi_err = r.fi_err;
    out.peer_index = r.peer_world;
  }
}

}  // namespace sidecore::progress
