// Bounded lock-free multi-producer multi-consumer queue of 32-bit values (D. Vyukov's bounded MPMC
// queue). Application threads push request indices; the thread that holds the progress lock pops them.
// No allocation after construction; push fails (returns false) when full, and the caller takes the
// overflow path (engine_core::submit, submit.cpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>

namespace sidecore::progress {

class mpmc_queue {
 public:
  /// capacity is rounded up to a power of two (at least 2).
  explicit mpmc_queue(std::size_t capacity) {
    std::size_t cap = 2;
    while (cap < capacity) cap <<= 1;
    mask_ = cap - 1;
    cells_ = std::make_unique<cell[]>(cap);
    for (std::size_t i = 0; i < cap; ++i) cells_[i].seq.store(i, std::memory_order_relaxed);
  }

  [[nodiscard]] std::size_t capacity() const noexcept { return mask_ + 1; }

  [[nodiscard]] bool push(std::uint32_t value) noexcept {
    const std::optional<std::size_t> pos = claim();
    if (!pos) return false;  // full
    publish(*pos, value);
    return true;
  }

  /// push() in its two steps: claim() takes the next cell (nullopt when full), publish() makes it poppable. Between
  /// them (a producer preempted there) pop() stops at that cell: what was pushed after it waits behind it, and the
  /// queue is not empty (empty_hint) though nothing can be popped.
  [[nodiscard]] std::optional<std::size_t> claim() noexcept {
    std::size_t pos = tail_.load(std::memory_order_relaxed);
    for (;;) {
      cell& c = cells_[pos & mask_];
      const std::size_t seq = c.seq.load(std::memory_order_acquire);
      const auto diff = static_cast<std::ptrdiff_t>(seq) - static_cast<std::ptrdiff_t>(pos);
      if (diff == 0) {
        if (tail_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) return pos;
      } else if (diff < 0) {
        return std::nullopt;  // full
      } else {
        pos = tail_.load(std::memory_order_relaxed);
      }
    }
  }
  void publish(std::size_t pos, std::uint32_t value) noexcept {
    cell& c = cells_[pos & mask_];
    c.value = value;
    c.seq.store(pos + 1, std::memory_order_release);
  }

  [[nodiscard]] bool pop(std::uint32_t& value) noexcept {
    std::size_t pos = head_.load(std::memory_order_relaxed);
    for (;;) {
      cell& c = cells_[pos & mask_];
      const std::size_t seq = c.seq.load(std::memory_order_acquire);
      const auto diff = static_cast<std::ptrdiff_t>(seq) - static_cast<std::ptrdiff_t>(pos + 1);
      if (diff == 0) {
        if (head_.compare_exchange_weak(pos, pos + 1, std::memory_order_relaxed)) {
          value = c.value;
          c.seq.store(pos + mask_ + 1, std::memory_order_release);
          return true;
        }
      } else if (diff < 0) {
        return false;  // empty (or a producer is mid-push)
      } else {
        pos = head_.load(std::memory_order_relaxed);
      }
    }
  }

  /// A hint only (racy by nature): true when no element is ready.
  [[nodiscard]] bool empty_hint() const noexcept {
    return head_.load(std::memory_order_relaxed) == tail_.load(std::memory_order_relaxed);
  }

 private:
  struct alignas(64) cell {
    std::atomic<std::size_t> seq{0};
    std::uint32_t value = 0;
  };
  std::unique_ptr<cell[]> cells_;
  std::size_t mask_ = 0;
  alignas(64) std::atomic<std::size_t> tail_{0};
  alignas(64) std::atomic<std::size_t> head_{0};
};

}  // namespace sidecore::progress
