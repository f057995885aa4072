// Helpers shared by the multi-rank tests.
#pragma once

#include <mpi.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <sidecore/sidecore.hpp>

namespace sctest {

/// Byte i of message `seed`: a pattern that differs per message and per position.
inline std::uint8_t pattern(std::uint64_t seed, std::size_t i) {
  return static_cast<std::uint8_t>((seed * 131u + i * 7u + (i >> 8) * 13u) & 0xffu);
}
inline void fill(std::vector<std::uint8_t>& b, std::uint64_t seed, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) b[i] = pattern(seed, i);
}
/// Index of the first byte that differs from the pattern, or -1.
inline long first_mismatch(const std::uint8_t* b, std::uint64_t seed, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (b[i] != pattern(seed, i)) return static_cast<long>(i);
  return -1;
}

inline int right(int rank, int size) { return (rank + 1) % size; }

inline int left(int rank, int size) { return (rank + size - 1) % size; }

/// Runs f, expects it to throw sidecore::error with `code`, and returns the message ("" when it did not throw).
inline std::string expect_error(sidecore::errc code, const std::function<void()>& f, const char* what) {
  try {
    f();
  } catch (const sidecore::error& e) {
    EXPECT_EQ(e.code(), code) << what << ": got " << sidecore::errc_name(e.code()) << ": " << e.what();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": threw a non-sidecore exception: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << what << ": did not throw (expected " << sidecore::errc_name(code) << ")";
  return {};
}

#define SCTEST_EXPECT_ERROR(code, stmt) ::sctest::expect_error(code, [&] { stmt; }, #stmt)

/// Every test in the multi-rank programs derives from this: the test is collective, and the barrier at the end
/// keeps one test's messages out of the next.
class Collective : public ::testing::Test {
 protected:
  void SetUp() override {
    rank = sidecore::rank();
    size = sidecore::size();
  }
  void TearDown() override { MPI_Barrier(MPI_COMM_WORLD); }
  int rank = 0;
  int size = 1;
};

inline bool core_mode() { return sidecore::info().mode == "core"; }

}  // namespace sctest
