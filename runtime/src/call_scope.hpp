// CALL_ENTER/CALL_EXIT around a public call, with its model category (seed 004, Section III-C): point-to-point,
// collectives and persistent requests alike. Internal.
#pragma once

#include <sidecore/common/common.hpp>
#include <sidecore/instrument/instrument.hpp>

#include "auto_mode.hpp"

namespace sidecore::detail {

struct call_scope {
  category cat;
  // Mode auto counts the call too (its window's category totals; auto_mode.hpp).
  call_scope(category c, const char* name) noexcept : cat(c) {
    instrument::call_enter(c, name);
    auto_call_enter(c);
  }
  ~call_scope() {
    auto_call_exit(cat);
    instrument::call_exit(cat);
  }
  call_scope(const call_scope&) = delete;
  call_scope& operator=(const call_scope&) = delete;
};

}  // namespace sidecore::detail
