// The node rings' record format on their own (progress/src/node_rings.hpp): a small ring written and read in
// turns, so that records wrap at every offset, a full ring refuses a write without changing anything, and a record
// that overruns the ring is reported instead of read.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <sidecore/progress/engine.hpp>

#include "node_rings.hpp"

namespace sidecore::progress {
namespace {

// One ring of `capacity` data bytes in local memory, with both ends.
struct test_ring {
  explicit test_ring(std::size_t capacity) : mem(ring_data_offset + capacity + 64) {
    // 64-byte aligned, as the runtime places them.
    const auto a = reinterpret_cast<std::uintptr_t>(mem.data());
    char* base = mem.data() + ((64 - a % 64) % 64);
    ctl = new (base) ring_ctl();
    ctl->capacity = capacity;
    out = ring_out{ctl, base + ring_data_offset, capacity, 0, 0};
    in = ring_in{ctl, base + ring_data_offset, capacity, 0, 3};
  }
  std::vector<char> mem;
  ring_ctl* ctl = nullptr;
  ring_out out;
  ring_in in;
};

wire_hdr hdr_for(std::uint64_t seq, std::size_t n) {
  wire_hdr h = eager_hdr(seq, n, 1, 2);
  return h;
}

// Reads everything there is; checks each record's header and data against its sequence number.
int read_all(test_ring& r, std::uint64_t& next) {
  return ring_read(r.in, 1000, [&](const char* msg, std::size_t len) {
    wire_hdr h;
    ASSERT_GE(len, hdr_size);
    std::memcpy(&h, msg, hdr_size);
    EXPECT_EQ(h.tag, next) << "record out of order";
    ASSERT_EQ(len, hdr_size + h.size);
    for (std::size_t i = 0; i < h.size; ++i)
      ASSERT_EQ(static_cast<unsigned char>(msg[hdr_size + i]), static_cast<unsigned char>(next + i))
          << next << " byte " << i;
    ++next;
  });
}

TEST(NodeRings, RecordsWrapAtEveryOffsetAndStayInOrder) {
  test_ring r(1024);
  std::uint64_t written = 0, next = 0;
  std::vector<char> data(300);
  // Sizes that are not multiples of 8 walk the write position through every 8-byte offset of the ring.
  for (int round = 0; round < 2000; ++round) {
    const std::size_t n = static_cast<std::size_t>((round * 37) % 301);
    for (std::size_t i = 0; i < n; ++i) data[i] = static_cast<char>(written + i);
    while (!ring_write(r.out, hdr_for(written, n), data.data(), n)) ASSERT_GT(read_all(r, next), 0);
    ++written;
    if (round % 3 == 0) read_all(r, next);
  }
  read_all(r, next);
  EXPECT_EQ(next, written);
  EXPECT_GT(r.out.tail, 50 * r.out.capacity) << "the ring should have wrapped many times";
}

TEST(NodeRings, FullRingRefusesAndKeepsWhatItHolds) {
  test_ring r(512);
  std::vector<char> data(100, 0);
  std::uint64_t written = 0;
  while (true) {
    for (std::size_t i = 0; i < 100; ++i) data[i] = static_cast<char>(written + i);
    if (!ring_write(r.out, hdr_for(written, 100), data.data(), 100)) break;
    ++written;
  }
  EXPECT_EQ(written, 512 / ring_record_bytes(hdr_size + 100));
  const std::uint64_t tail = r.ctl->tail.load();
  EXPECT_FALSE(ring_write(r.out, hdr_for(written, 100), data.data(), 100));
  EXPECT_EQ(r.ctl->tail.load(), tail) << "a refused write published something";
  std::uint64_t next = 0;
  EXPECT_EQ(read_all(r, next), static_cast<int>(written));
  EXPECT_TRUE(ring_write(r.out, hdr_for(written, 100), data.data(), 100)) << "room after the reader caught up";
}

TEST(NodeRings, RecordOverrunningTheRingIsReportedNotRead) {
  test_ring r(256);
  std::vector<char> data(16, 0);
  ASSERT_TRUE(ring_write(r.out, hdr_for(0, 16), data.data(), 16));
  const std::uint32_t bad = 4096;  // longer than the ring
  std::memcpy(r.out.data, &bad, sizeof bad);
  int calls = 0;
  EXPECT_EQ(ring_read(r.in, 10, [&](const char*, std::size_t) { ++calls; }), -1);
  EXPECT_EQ(calls, 0);
  EXPECT_EQ(r.ctl->head.load(), r.ctl->tail.load()) << "the ring is emptied";
}

TEST(NodeRings, SizedForTheLargestEagerMessage) {
  for (std::size_t eager : {std::size_t{0}, std::size_t{8192}, std::size_t{65536}}) {
    const std::size_t bytes = engine::node_ring_bytes(eager);
    const std::size_t cap = bytes - ring_data_offset;
    EXPECT_EQ(cap & (cap - 1), 0U) << eager;
    EXPECT_GE(cap, 4 * ring_record_bytes(hdr_size + eager)) << eager;
    EXPECT_EQ(bytes % 64, 0U) << "rings follow one another 64-byte aligned";
  }
}

}  // namespace
}  // namespace sidecore::progress
