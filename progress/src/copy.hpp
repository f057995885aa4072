// Copying message bytes: eager data into and out of node rings and receive buffers, unexpected messages, the
// collectives' local copies.
//
// Why not memcpy alone: glibc (2.36, x86-64) copies 2 KiB .. 512 KiB with `rep movsb`, and on the AMD EPYC of our
// 2-core VM that instruction runs 14-20x slower when the destination's offset in its page is 1-31 bytes above the
// source's ((dst - src) mod 4096 in [1, 31]): a 64 KiB copy took 23.6 us instead of 1.4 us, an 8 KiB one 2.8 us
// instead of 0.1 us (bench_copy; docs/results.md). Such pairs are common, not rare: a buffer of 128 KiB or more
// that malloc maps on its own starts 16 bytes into a page, so copying into it from a page-aligned buffer is one.
// glibc avoids `rep movsb` at short distances on Intel CPUs (Avoid_Short_Distance_REP_MOVSB) but not on this one.
// So at those distances the bytes are moved by a plain loop of 16-byte vector loads and stores (SSE2 on any x86-64,
// NEON on AArch64), which no CPU runs slowly; every other copy is memcpy's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace sidecore::progress {

/// Distances (dst - src, modulo a 4 KiB page) below this are copied by copy_blocks() from blocked_copy_min bytes on.
inline constexpr std::uintptr_t short_distance = 64;
/// Below this size glibc copies with vector moves whatever the distance (its rep_movsb_threshold is 2112 B or more).
inline constexpr std::size_t blocked_copy_min = 2048;

/// Copies n bytes in 128-byte blocks, each read whole before it is written (at a short distance the stores would
/// otherwise alias the next loads), then the tail; dst and src do not overlap.
inline void copy_blocks(char* d, const char* s, std::size_t n) noexcept {
  // 16-byte vectors of GCC and Clang: SSE2 on x86-64, NEON on AArch64; unaligned, and allowed to alias anything.
  using v16 [[gnu::vector_size(16), gnu::aligned(1), gnu::may_alias]] = char;
  const auto at = [](const char* p, int i) { return *reinterpret_cast<const v16*>(p + 16 * i); };
  const auto put = [](char* p, int i, v16 v) { *reinterpret_cast<v16*>(p + 16 * i) = v; };
  for (; n >= 128; n -= 128, d += 128, s += 128) {
    // Eight named values, not an array: GCC keeps an array of vectors on the stack as well.
    const v16 a = at(s, 0), b = at(s, 1), c = at(s, 2), e = at(s, 3), f = at(s, 4), g = at(s, 5), h = at(s, 6),
              k = at(s, 7);
    put(d, 0, a), put(d, 1, b), put(d, 2, c), put(d, 3, e), put(d, 4, f), put(d, 5, g), put(d, 6, h), put(d, 7, k);
  }
  if (n) std::memcpy(d, s, n);
}

/// Whether a copy of n bytes from src to dst is one that `rep movsb` runs slowly (above).
[[nodiscard]] inline bool short_distance_copy(const void* dst, const void* src, std::size_t n) noexcept {
  const std::uintptr_t dist = (reinterpret_cast<std::uintptr_t>(dst) - reinterpret_cast<std::uintptr_t>(src)) & 4095U;
  return n >= blocked_copy_min && dist != 0 && dist < short_distance;
}

/// Copies n bytes from src to dst (which do not overlap), as memcpy but never at `rep movsb`'s slow distances: up to
/// 16 bytes with two overlapping 8-byte moves (an 8 B ping-pong's payload; a call to memcpy for it costs as many
/// instructions as the rest of the copy path), short distances in blocks, the rest by memcpy.
inline void copy_bytes(void* dst, const void* src, std::size_t n) noexcept {
  auto* d = static_cast<char*>(dst);
  const auto* c = static_cast<const char*>(src);
  if (n >= 8 && n <= 16) {
    std::uint64_t a, b;
    std::memcpy(&a, c, 8);
    std::memcpy(&b, c + n - 8, 8);
    std::memcpy(d, &a, 8);
    std::memcpy(d + n - 8, &b, 8);
  } else if (short_distance_copy(d, c, n)) [[unlikely]] {
    copy_blocks(d, c, n);
  } else if (n) {
    std::memcpy(d, c, n);
  }
}

}  // namespace sidecore::progress
