// The event clock's platform side: whether the TSC may serve (invariant, and trusted by the kernel), and one
// calibration point against CLOCK_MONOTONIC. The fit itself lives with the collection (instrument.cpp).
#include <cstdio>
#include <cstring>
#include <string>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "internal.hpp"
#include "sidecore/instrument/instrument.hpp"

namespace sidecore::instrument {

bool tsc_usable(std::string* why) noexcept {
  auto no = [&](const char* reason) {
    if (why != nullptr) {
      try {
        *why = reason;
      } catch (...) {
      }
    }
    return false;
  };
#if !defined(__x86_64__)
  return no("not x86-64: no rdtsc; events use CLOCK_MONOTONIC");
#else
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000007u) {
    return no("CPUID leaf 0x80000007 is not available: cannot tell whether the TSC is invariant");
  }
  __get_cpuid(0x80000007u, &a, &b, &c, &d);
  if ((d & (1u << 8)) == 0) return no("the TSC is not invariant (CPUID 0x80000007 EDX bit 8 is clear)");
  // The kernel verifies at boot (and watches) that the TSCs of all CPUs agree; it leaves the tsc clocksource when
  // they do not. Where the file cannot be read (no sysfs), CPUID alone decides.
  if (std::FILE* f = std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r")) {
    char buf[64] = {};
    const bool ok = std::fgets(buf, sizeof(buf), f) != nullptr;
    std::fclose(f);
    if (ok) {
      buf[std::strcspn(buf, "\n")] = '\0';
      if (std::strcmp(buf, "tsc") != 0) {
        return no("the kernel's clocksource is not tsc: it does not trust the TSC (unsynchronised or unstable)");
      }
    }
  }
  if (why != nullptr) why->clear();
  return true;
#endif
}

namespace internal {

namespace {
// An ordered TSC read (lfence first, as the vDSO's own clock_gettime does): the bracket around now_ns() must not
// be executed out of order with it. Too slow for the hooks, fine for the few calibration points.
std::uint64_t read_tsc_ordered() noexcept {
#if defined(__x86_64__)
  __builtin_ia32_lfence();
#endif
  return detail::read_tsc();
}
}  // namespace

clock_point sample_clock_point() noexcept {
  clock_point best;
  best.spread = UINT64_MAX;
  for (int i = 0; i < 8; ++i) {
    const std::uint64_t a = read_tsc_ordered();
    const std::uint64_t n = now_ns();
    const std::uint64_t b = read_tsc_ordered();
    if (b >= a && b - a < best.spread) best = {a + (b - a) / 2, n, b - a};
  }
  if (best.spread == UINT64_MAX) best = {detail::read_tsc(), now_ns(), 0};
  return best;
}

}  // namespace internal
}  // namespace sidecore::instrument
