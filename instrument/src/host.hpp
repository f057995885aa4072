// sidecore instrument — the host a rank runs on (host.cpp). Private to instrument/src.
#pragma once

#include <string>

#include "sidecore/common/profile.hpp"

namespace sidecore::instrument::internal {

/// The running kernel's boot id (/proc/sys/kernel/random/boot_id), "" where it cannot be read: processes that share
/// it share the machine's CPUs and its CLOCK_MONOTONIC.
[[nodiscard]] std::string boot_id();

/// This machine's host name ("" where gethostname fails).
[[nodiscard]] std::string host_name();

/// This process's host: the fingerprint of the kernel's boot id (of the host name where it cannot be read) and of
/// its cgroup's CPUs (containers of one machine with CPUs of their own differ), and the online logical CPUs as its
/// cores (set_host_cores() counts them as n_core is counted). Never fails: what it cannot read counts as empty.
[[nodiscard]] host_info this_host();

}  // namespace sidecore::instrument::internal
