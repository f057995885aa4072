// The event clock: whether the TSC may serve (invariant, and trusted by the kernel), calibration points against
// CLOCK_MONOTONIC, and the collection's ticks -> nanoseconds fit (docs/instrument.md, "Event clock").
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "event_clock.hpp"
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

namespace {
std::mutex g_clock_mu;  // a leaf lock
clock_fit g_fit;
constexpr double refit_every_ns = 1e6;             // a fold refreshes the provisional fit at most once a millisecond
constexpr std::uint64_t initial_fit_ns = 100'000;  // make_fit() spans its two first points over 0.1 ms
}  // namespace

clock_fit make_fit(bool tsc) noexcept {
  clock_fit fit;
  fit.tsc = tsc;
  if (tsc) {
    fit.p0 = fit.p1 = sample_clock_point();
    // A provisional slope for the folds before the first refresh: a second point 0.1 ms after the first.
    while (now_ns() - fit.p0.ns < initial_fit_ns) {
    }
    fit.refit(sample_clock_point());
  }
  return fit;
}

void install_fit(const clock_fit& f) noexcept {
  std::lock_guard lk(g_clock_mu);
  g_fit = f;
}

clock_fit current_fit() noexcept {
  std::lock_guard lk(g_clock_mu);
  return g_fit;
}

clock_fit fit_for_fold() noexcept {
  std::lock_guard lk(g_clock_mu);
  if (g_fit.tsc && !g_fit.final_fit &&
      static_cast<double>(detail::read_tsc() - g_fit.p1.ticks) * g_fit.ns_per_tick > refit_every_ns) {
    g_fit.refit(sample_clock_point());
  }
  return g_fit;
}

void finish_fit() noexcept {
  std::lock_guard lk(g_clock_mu);
  if (g_fit.tsc && !g_fit.final_fit) g_fit.refit(sample_clock_point());
  g_fit.final_fit = true;
}

}  // namespace internal

event_clock active_clock() noexcept {
  return detail::g_hot.tsc.load(std::memory_order_relaxed) ? event_clock::tsc : event_clock::monotonic;
}

clock_calibration calibration() noexcept {
  const internal::clock_fit f = internal::current_fit();
  clock_calibration c;
  c.tsc = f.tsc;
  c.final_fit = f.final_fit;
  c.ns_per_tick = f.ns_per_tick;
  c.tick0 = f.p0.ticks;
  c.ns0 = f.p0.ns;
  c.tick1 = f.p1.ticks;
  c.ns1 = f.p1.ns;
  c.spread0 = f.p0.spread;
  c.spread1 = f.p1.spread;
  return c;
}

std::uint64_t ticks_to_ns(std::uint64_t ticks) noexcept { return internal::current_fit().to_ns(ticks); }

}  // namespace sidecore::instrument
