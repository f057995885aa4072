// libsidecore-pmpi.so — private helpers shared by the wrappers.
#pragma once

#include "sidecore/common/common.hpp"
#include "sidecore/instrument/instrument.hpp"
#include "progress_core.hpp"

namespace sidecore::instrument::pmpi {

/// CALL_ENTER on construction, CALL_EXIT on destruction: brackets one intercepted MPI call (and tells the progress
/// core's sidecore engine, progress_core.hpp, when the application is inside MPI).
class call_scope {
 public:
  call_scope(category c, const char* name) noexcept : c_(c) {
    core::on_call_enter();
    call_enter(c_, name);
  }
  ~call_scope() {
    call_exit(c_);
    core::on_call_exit(c_);
  }
  call_scope(const call_scope&) = delete;
  call_scope& operator=(const call_scope&) = delete;

 private:
  category c_;
};

}  // namespace sidecore::instrument::pmpi
