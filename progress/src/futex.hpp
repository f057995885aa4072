// futex waits and wakes on a 32-bit atomic: a request's state word (an application thread waiting for the
// progress thread to complete it) and the doorbells (a progressor with nothing to do). Linux only.
#pragma once

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <cstdint>
#include <ctime>

namespace sidecore::progress {

// Sleep while *word == expected, at most timeout_us (0: no limit).
inline void futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected, std::uint32_t timeout_us) noexcept {
  timespec ts{static_cast<time_t>(timeout_us / 1000000), static_cast<long>(timeout_us % 1000000) * 1000};
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, timeout_us ? &ts : nullptr,
          nullptr, 0);
}
inline void futex_wake(std::atomic<std::uint32_t>* word) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}
// The same on memory shared between processes (doorbells): no _PRIVATE.
inline void futex_wait_shared(std::atomic<std::uint32_t>* word, std::uint32_t expected,
                              std::uint32_t timeout_us) noexcept {
  timespec ts{static_cast<time_t>(timeout_us / 1000000), static_cast<long>(timeout_us % 1000000) * 1000};
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}
inline void futex_wake_shared(std::atomic<std::uint32_t>* word) noexcept {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

}  // namespace sidecore::progress
