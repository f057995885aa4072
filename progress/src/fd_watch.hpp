// sidecore progress — the engine's watch for the file descriptors used up after init (fd_watch.cpp).
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "fd_room.hpp"

namespace sidecore::progress {

/// The engine's watch, after init, for what the descriptors used up explain (fd_watch.cpp, check_fds, from the
/// liveness check), at its pace: a send backlog whose head the provider has refused for fd_stall_ns (the first
/// message to a peer whose connection could not be made), and, said once, receives that wait while nothing
/// completes. Under the progress lock, but for what describe reads (text_mutex).
struct fd_watch {
  std::uint64_t head = 0;        // the send backlog's head at the last look (its handle), 0: empty
  std::uint32_t moves = 0;       // and the backlogs' moves then (backlogs::moved)
  std::uint64_t head_since = 0;  // since when both stood still
  std::uint64_t done = 0;        // the completions counted at the last look while a receive was posted
  std::uint64_t recv_since = 0;  // since when a receive was posted and nothing completed; 0: none posted
  std::uint64_t send_look = 0;   // /proc/self/fd is read no sooner than this (fd_room_note), for each sign
  std::uint64_t recv_look = 0;
  bool warned_recv = false;     // said, or not to be said (init, whose own check makes it an error)
  bool recv_watched = true;     // false where connections take no descriptor (shm): the receives' sign means nothing
  mutable std::mutex text_mutex;  // the last stall found, for engine::describe (any thread)
  std::uint64_t stall_s = 0;
  std::string note;
};

}  // namespace sidecore::progress
