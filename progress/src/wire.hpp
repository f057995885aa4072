// Wire: the header of every sidecore message that goes through the receive buffers, the libfabric tags the
// engine uses, and the byte copy of message data. Header-only: every function here is on the small-message path.
//
// Wire protocol (docs/runtime.md). Every eager, ready-to-send and clear-to-send message carries the same
// libfabric tag and lands in one of the engine's receive buffers; sidecore matches it against its own posted
// receives (source, tag with ignore mask, in order). Rendezvous data travels with a tag unique to the sender's
// request (sender index, request slot), into a receive posted for exactly the bytes the receiver takes. So the
// provider never matches a wildcard, never sees an unexpected message other than on the control tag, and never
// truncates: libfabric 1.17 shm mismatched the first, hung on the last above 4 KiB, and tcp;ofi_rxm lost the
// pair's traffic after a truncation.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sidecore::progress {

/// The version of the header below. A receiver drops a message of another version with a warning (protocol.cpp):
/// a peer built from another sidecore would otherwise be read field by field as if it were ours. Version 2: the
/// six bytes after the version carry a collective's signature. Version 3: credits (wire_credit; a sender waits for
/// them, so a peer that never gives any back would stall it).
inline constexpr std::uint8_t wire_version = 3;

enum wire_type : std::uint8_t {
  wire_eager = 1,
  wire_rts = 2,
  wire_cts = 3,
  /// Never on the wire: a rendezvous-sized send to this process, held in the unexpected list until a receive
  /// takes it (cookie: the send's handle; the receive copies straight from the send's buffer, protocol.cpp).
  wire_self_rts = 4,
  // SIDECORE_PEER_TIMEOUT (liveness.cpp): "are you there?" to a peer silent for half the timeout, and its answer.
  wire_ping = 5,
  wire_pong = 6,
  /// Credits given back (credits.hpp): size send credits, cookie eager credits. Header only.
  wire_credit = 7,
};

/// The header of every sidecore message that goes through the receive buffers or the node rings (eager data,
/// ready-to-send, clear-to-send). 40 bytes; eager data follows it.
struct wire_hdr {
  std::uint64_t tag = 0;        // sidecore tag (kind | communicator | user tag)
  std::uint64_t size = 0;       // eager: data bytes; rts: message size; cts: bytes the receiver takes
  std::uint64_t cookie = 0;     // rts, cts: the sender's request handle; a collective's failure notice (eager): the
                                // handle of the sender's failed rendezvous send to this receiver, or 0
  std::uint32_t src_rank = 0;   // the sender's rank in its communicator (the receiver's status)
  std::uint32_t src_index = 0;  // the sender's engine address index (match by source, replies)
  std::uint8_t type = 0;        // wire_type
  std::uint8_t version = wire_version;
  // eager, rts: a collective's message carries its call's signature (48 bits, progress/coll/signature.hpp), so the
  // receiver can tell a rank that called another collective, type, operator, root or count; 0 for point-to-point.
  std::uint16_t sig_lo = 0;
  std::uint32_t sig_hi = 0;
};
static_assert(sizeof(wire_hdr) == 40);
inline constexpr std::size_t hdr_size = sizeof(wire_hdr);

/// The signature bits a header carries (the low 48 of a schedule child's `sig`).
inline constexpr std::uint64_t sig_mask = (std::uint64_t{1} << 48) - 1;
inline void set_sig(wire_hdr& h, std::uint64_t sig) noexcept {
  h.sig_lo = static_cast<std::uint16_t>(sig);
  h.sig_hi = static_cast<std::uint32_t>(sig >> 16);
}
[[nodiscard]] inline std::uint64_t sig_of(const wire_hdr& h) noexcept {
  return (static_cast<std::uint64_t>(h.sig_hi) << 16) | h.sig_lo;
}

/// The libfabric tag of every eager and control message. Kind 3, which no sidecore tag has (tag.hpp).
inline constexpr std::uint64_t ctrl_tag = 3ULL << 62;
/// The libfabric tag of one rendezvous transfer: unique to the sender's request while it is in flight.
constexpr std::uint64_t rdv_tag_of(std::uint32_t sender_index, std::uint32_t sender_slot) noexcept {
  return ctrl_tag | (1ULL << 61) | (static_cast<std::uint64_t>(sender_index) << 32) | sender_slot;
}

inline wire_hdr eager_hdr(std::uint64_t tag, std::size_t len, std::uint32_t sender_rank,
                          std::uint32_t sender_index) noexcept {
  wire_hdr h{};
  h.tag = tag;
  h.size = len;
  h.src_rank = sender_rank;
  h.src_index = sender_index;
  h.type = wire_eager;
  return h;
}

/// Ready-to-send: the message's tag and size, and the sender's request handle (the cookie the receiver's
/// clear-to-send names).
inline wire_hdr rts_hdr(std::uint64_t tag, std::size_t len, std::uint64_t handle, std::uint32_t sender_rank,
                        std::uint32_t sender_index) noexcept {
  wire_hdr h = eager_hdr(tag, len, sender_rank, sender_index);
  h.cookie = handle;
  h.type = wire_rts;
  return h;
}

/// The cookie of an abort notice that its receiver passes on to every other rank of the communicator, as the rank that
/// sees a mismatch does: sent by a rank whose run of the call had ended (engine_core::tell_run_ended), which no longer
/// knows the communicator's ranks.
inline constexpr std::uint64_t notice_pass_on = ~std::uint64_t{0};

/// The sentence of that abort notice. Its receiver passes it on after its own words, whole
/// (progress/coll/instance.cpp checks that it fits a notice).
inline constexpr char run_ended_text[] =
    "its run of the call had ended without a message this rank sent it: the calls differ (a count of 0 sends and "
    "receives nothing)";

/// What the collectives' hook (engine_core::coll_msgs) says of a collective message about to be held as unexpected.
enum class held_verdict : std::uint8_t {
  hold,             ///< keep it for the receive to come
  refuse,           ///< its run ended early here: nothing will ever take it (engine_core::refuse_message)
  refuse_and_tell,  ///< its run ended here as planned without it: the sender's call differs; refuse it and send the
                    ///< sender an abort notice (engine_core::tell_run_ended)
};

/// A liveness question (wire_ping) or its answer (wire_pong) from `index`: header only.
inline wire_hdr ping_hdr(std::uint32_t index, std::uint8_t type = wire_ping) noexcept {
  wire_hdr h{};
  h.src_index = index;
  h.type = type;
  return h;
}

/// Clear-to-send: how many bytes the receiver takes of the send named by `cookie`.
inline wire_hdr cts_hdr(std::size_t take, std::uint64_t cookie, std::uint32_t receiver_index) noexcept {
  wire_hdr h{};
  h.size = take;
  h.cookie = cookie;
  h.src_index = receiver_index;
  h.type = wire_cts;
  return h;
}

}  // namespace sidecore::progress
