// sidecore instrument — the analysis' tables of half-known things: transfers of which one event has been folded
// (waiting for the other) and collective instances of which the arrival or the departure has. Open addressing with
// linear probing: no allocation per entry (the table grows by doubling past half full), no tombstones. Private to
// instrument/src.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "threads.hpp"

namespace sidecore::instrument::internal {

/// An open-addressing table of Entry, which has `bool used`, a `key` (compared with ==) and, as a static member,
/// `std::uint64_t hash(const key_type&)`.
template <class Entry>
class open_table {
 public:
  using key_type = decltype(Entry::key);
  void reset(std::size_t capacity) {
    slots_.assign(capacity, Entry{});
    mask_ = capacity - 1;
    size_ = 0;
  }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] Entry* find(const key_type& key) noexcept {
    for (std::size_t i = slot_of(key);; i = (i + 1) & mask_) {
      if (!slots_[i].used) return nullptr;
      if (slots_[i].key == key) return &slots_[i];
    }
  }
  /// A fresh entry for `key` (not present). May throw std::bad_alloc when growing.
  Entry& insert(const key_type& key) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = slot_of(key);
    while (slots_[i].used) i = (i + 1) & mask_;
    ++size_;
    slots_[i] = Entry{};
    slots_[i].used = true;
    slots_[i].key = key;
    return slots_[i];
  }
  /// Removes an entry (backward shift: no tombstones).
  void erase(Entry& e) noexcept {
    std::size_t i = static_cast<std::size_t>(&e - slots_.data());
    for (std::size_t j = i;;) {
      j = (j + 1) & mask_;
      if (!slots_[j].used) break;
      const std::size_t home = slot_of(slots_[j].key);
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
  [[nodiscard]] std::size_t slot_of(const key_type& key) const noexcept {
    const std::uint64_t h = Entry::hash(key) * 0x9E3779B97F4A7C15ULL;
    return static_cast<std::size_t>(h ^ (h >> 32)) & mask_;
  }
  void grow() {
    std::vector<Entry> old;
    old.swap(slots_);
    reset(old.size() * 2);
    for (const auto& e : old) {
      if (!e.used) continue;
      Entry& n = insert(e.key);
      n = e;
    }
  }
  std::vector<Entry> slots_;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

/// A transfer of which one event has been folded, waiting for the other.
struct pending_xfer {
  std::uint64_t key = 0;    // the transfer id
  std::uint64_t bytes = 0;  // known from the begin
  owner_snapshot s;          // the folded event's owner state
  bool used = false;
  bool is_begin = false;  // which event `s` belongs to
  std::uint8_t op = 0;    // op_kind, known from the begin
  static std::uint64_t hash(std::uint64_t id) noexcept { return id; }
};
using pending_table = open_table<pending_xfer>;

}  // namespace sidecore::instrument::internal
