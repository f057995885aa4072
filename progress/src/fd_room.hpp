// sidecore progress — the process's room for file descriptors, for the messages of a provider that ran out.
// tcp;ofi_rxm takes a descriptor for each connection and, when none is left, fails its accept() without a word
// (libfabric 1.17): the peer's first message then never arrives, and an endpoint opened near the limit fails
// with EMFILE or even EIO. The limit is the number of descriptors, not what libfabric reports.
#pragma once

#include <cstdint>
#include <string>

namespace sidecore::progress {

/// The descriptors this process may still open: numbers below the soft RLIMIT_NOFILE not in use.
struct fd_room {
  long limit = -1;  ///< the soft RLIMIT_NOFILE; -1: unlimited or unknown (then `free` means nothing)
  long used = 0;    ///< descriptors open with a number below `limit`
  [[nodiscard]] bool known() const noexcept { return limit >= 0; }
  [[nodiscard]] long free() const noexcept { return known() ? limit - used : -1; }
};

/// A provider call that failed with at most this many descriptors free is taken to have failed for want of one
/// (measured with tcp;ofi_rxm at 2-4 ranks: fi_endpoint and fi_enable failed with up to 3 free).
inline constexpr long fd_margin = 8;

/// init's connection of the peers stalled this long with at most `fd_stall_margin` descriptors free is taken to
/// wait for a connection the provider could not accept; after init, so is a first message to a peer that the
/// provider refused (EAGAIN) this long (fd_watch).
inline constexpr std::uint64_t fd_stall_ns = 2'000'000'000;
inline constexpr long fd_stall_margin = 2;

/// The room now, counted in /proc/self/fd. limit -1 where the limit is infinite or /proc cannot be read. Never
/// throws.
[[nodiscard]] fd_room fd_room_now() noexcept;

/// A sentence for a message, "this process has 94 of its 94 file descriptors (RLIMIT_NOFILE) open; the provider
/// needs some for its endpoint and, on tcp, one for each rank it connects to: raise the limit (ulimit -n) or keep
/// fewer files open", when at most `margin` descriptors are free; empty otherwise (or when the room is unknown).
/// Never throws.
[[nodiscard]] std::string fd_room_note(long margin) noexcept;

/// For a call that failed with EMFILE: "this process may open 94 file descriptors (RLIMIT_NOFILE) and had none
/// left: raise the limit (ulimit -n) or open fewer files"; empty when the limit is infinite or unknown. Never throws.
[[nodiscard]] std::string fd_limit_note() noexcept;

}  // namespace sidecore::progress
