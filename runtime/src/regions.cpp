// Regions: named parts of the application for the overlap profile.
#include <sidecore/sidecore.h>
#include <sidecore/sidecore.hpp>

#include "state.hpp"

extern "C" int sc_region_begin(const char* name) {
  if (!name) return sidecore::detail::c_fail(SC_ERR_INVALID_ARGUMENT, "sc_region_begin: name is NULL; accepted: a "
                                             "region name (a C string)");
  sidecore::detail::region_enter(name);
  return sidecore::detail::c_succeed();
}

extern "C" int sc_region_end(void) {
  sidecore::detail::region_exit();
  return sidecore::detail::c_succeed();
}

namespace sidecore {
region::region(std::string_view name) { detail::region_enter(name); }
region::~region() { detail::region_exit(); }
}  // namespace sidecore
