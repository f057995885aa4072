// Regions: named parts of the application for the overlap profile.
#include <sidecore/sidecore.h>
#include <sidecore/sidecore.hpp>

#include "state.hpp"

namespace {
// The C API's regions open on this thread: an end without one is the program's mistake, said rather than ignored
// (the C++ API's region objects cannot make it).
thread_local long t_c_regions_open = 0;
}  // namespace

extern "C" int sidecore_region_begin(const char* name) {
  if (!name)
    return sidecore::detail::c_fail(SIDECORE_ERR_INVALID_ARGUMENT,
                                    "sidecore_region_begin: name is NULL; accepted: a "
                                    "region name (a C string)");
  sidecore::detail::region_enter(name);
  ++t_c_regions_open;
  return sidecore::detail::c_succeed();
}

extern "C" int sidecore_region_end(void) {
  if (t_c_regions_open == 0)
    return sidecore::detail::c_fail(
        SIDECORE_ERR_INVALID_ARGUMENT,
        "sidecore_region_end: no region is open on this thread (more "
        "ends than begins); accepted: one sidecore_region_end per sidecore_region_begin, on the "
        "thread that began the region");
  --t_c_regions_open;
  sidecore::detail::region_exit();
  return sidecore::detail::c_succeed();
}

namespace sidecore {
region::region(std::string_view name) { detail::region_enter(name); }
region::~region() { detail::region_exit(); }
}  // namespace sidecore
