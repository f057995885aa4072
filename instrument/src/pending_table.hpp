// sidecore instrument — transfers of which one event has been folded, waiting for the other: an open-addressing
// table with no allocation per transfer (it grows by doubling past half full). Private to instrument/src.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "threads.hpp"

namespace sidecore::instrument::internal {

/// A transfer of which one event has been folded, waiting for the other (open addressing, no allocation per entry).
struct pending_xfer {
  std::uint64_t id = 0;
  std::uint64_t bytes = 0;  // known from the begin
  owner_snapshot s;          // the folded event's owner state
  bool used = false;
  bool is_begin = false;  // which event `s` belongs to
};

class pending_table {
 public:
  void reset(std::size_t capacity) {
    slots_.assign(capacity, pending_xfer{});
    mask_ = capacity - 1;
    size_ = 0;
  }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] pending_xfer* find(std::uint64_t id) noexcept {
    for (std::size_t i = slot_of(id);; i = (i + 1) & mask_) {
      if (!slots_[i].used) return nullptr;
      if (slots_[i].id == id) return &slots_[i];
    }
  }
  /// A fresh entry for `id` (not present). May throw std::bad_alloc when growing.
  pending_xfer& insert(std::uint64_t id) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = slot_of(id);
    while (slots_[i].used) i = (i + 1) & mask_;
    ++size_;
    slots_[i] = pending_xfer{};
    slots_[i].used = true;
    slots_[i].id = id;
    return slots_[i];
  }
  /// Removes an entry (linear probing with backward shift: no tombstones).
  void erase(pending_xfer& e) noexcept {
    std::size_t i = static_cast<std::size_t>(&e - slots_.data());
    for (std::size_t j = i;;) {
      j = (j + 1) & mask_;
      if (!slots_[j].used) break;
      const std::size_t home = slot_of(slots_[j].id);
      // Slot j may move back to i unless its home lies cyclically in (i, j].
      const bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
      if (!stays) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i].used = false;
    --size_;
  }
  template <class F>
  void for_each(F&& f) const {
    for (const auto& e : slots_)
      if (e.used) f(e);
  }

 private:
  [[nodiscard]] std::size_t slot_of(std::uint64_t id) const noexcept {
    const std::uint64_t h = id * 0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(h ^ (h >> 32)) & mask_;
  }
  void grow() {
    std::vector<pending_xfer> old;
    old.swap(slots_);
    reset(old.size() * 2);
    for (const auto& e : old) {
      if (!e.used) continue;
      pending_xfer& n = insert(e.id);
      n = e;
    }
  }
  std::vector<pending_xfer> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

}  // namespace sidecore::instrument::internal
