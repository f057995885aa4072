// CALL_ENTER/CALL_EXIT around a public call, with its model category (seed 004, Section III-C): point-to-point,
// collectives and persistent requests alike. Internal.
#pragma once

#include <sidecore/common/common.hpp>
#include <sidecore/instrument/instrument.hpp>

namespace sidecore::detail {

struct call_scope {
  category cat;
  call_scope(category c, const char* name) noexcept : cat(c) { instrument::call_enter(c, name); }
  ~call_scope() { instrument::call_exit(cat); }
  call_scope(const call_scope&) = delete;
  call_scope& operator=(const call_scope&) = delete;
};

}  // namespace sidecore::detail
