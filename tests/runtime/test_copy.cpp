// The engine's byte copy (progress/src/copy.hpp) against memcpy's result: every size around the block and threshold
// edges, at every distance between source and destination that takes the blocked path and at a few that do not.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "copy.hpp"

namespace sidecore::progress {
namespace {

std::vector<std::size_t> sizes() {
  std::vector<std::size_t> s;
  for (std::size_t n = 0; n <= 40; ++n) s.push_back(n);
  for (std::size_t base : {std::size_t{64}, blocked_copy_min, std::size_t{4096}, std::size_t{65536}})
    for (std::size_t d = 0; d <= 130; d += (d < 10 ? 1 : 61)) {
      s.push_back(base + d);
      if (base > d) s.push_back(base - d);
    }
  return s;
}

TEST(CopyBytes, EqualsMemcpyAtEveryDistanceAndSize) {
  // Source and destination in one page-aligned area each, so that their distance modulo the page is what we set.
  constexpr std::size_t page = 4096, room = 65536 + 4 * page;
  std::vector<unsigned char> src_mem(room + page), dst_mem(room + page);
  auto page_of = [](std::vector<unsigned char>& v) {
    const auto a = reinterpret_cast<std::uintptr_t>(v.data());
    return v.data() + (page - a % page) % page;
  };
  unsigned char* const src_page = page_of(src_mem);
  unsigned char* const dst_page = page_of(dst_mem);
  for (std::size_t i = 0; i < room; ++i) src_page[i] = static_cast<unsigned char>(i * 131 + 7);
  std::vector<std::size_t> dists;
  for (std::size_t d = 0; d <= short_distance; ++d) dists.push_back(d);
  for (std::size_t d : {std::size_t{100}, std::size_t{2048}, page - 16, page - 1}) dists.push_back(d);
  int blocked = 0;
  for (std::size_t src_off : {std::size_t{0}, std::size_t{16}, std::size_t{1000}})
    for (std::size_t dist : dists)
      for (std::size_t n : sizes()) {
        const unsigned char* src = src_page + src_off;
        unsigned char* dst = dst_page + (src_off + dist) % page;
        ASSERT_LE(static_cast<std::size_t>(dst - dst_page) + n + 1, room);
        unsigned char* const from = dst > dst_page ? dst - 1 : dst;
        std::fill(from, dst + n + 1, 0xee);
        blocked += short_distance_copy(dst, src, n) ? 1 : 0;
        copy_bytes(dst, src, n);
        ASSERT_TRUE(n == 0 || std::memcmp(dst, src, n) == 0)
            << n << " bytes, distance " << dist << ", source offset " << src_off;
        // Nothing written around the destination.
        if (dst > dst_page) {
          ASSERT_EQ(dst[-1], 0xee) << n << " bytes, distance " << dist;
        }
        ASSERT_EQ(dst[n], 0xee) << n << " bytes, distance " << dist;
      }
  EXPECT_GT(blocked, 0);  // the blocked path ran
}

TEST(CopyBytes, ShortDistancesFromTheThresholdOnTakeTheBlockedPath) {
  alignas(4096) static char a[8192];
  alignas(4096) static char b[8192];
  EXPECT_TRUE(short_distance_copy(b + 16, a, blocked_copy_min));
  EXPECT_TRUE(short_distance_copy(b + 1, a, 65536));
  EXPECT_TRUE(short_distance_copy(b + 63, a, 65536));
  EXPECT_FALSE(short_distance_copy(b + 16, a, blocked_copy_min - 1));  // small: memcpy's vector moves
  EXPECT_FALSE(short_distance_copy(b, a, 65536));                       // same page offset
  EXPECT_FALSE(short_distance_copy(b + 64, a, 65536));
  EXPECT_FALSE(short_distance_copy(b, a + 16, 65536));  // destination below the source in the page: fast
}

}  // namespace
}  // namespace sidecore::progress
