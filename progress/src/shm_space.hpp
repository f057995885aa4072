// sidecore progress — the room of the shm provider's directory, for the refusal of a provider that found none.
// libfabric's shm maps its regions in /dev/shm; with too little room there (a container's 64 MiB default, a few
// ranks per host) fi_getinfo answers only "No data available", which says nothing of the cause.
#pragma once

#include <string>

namespace sidecore::progress {

/// A sentence for the message of an shm provider that could not be opened: "<dir> ... has X MiB free of Y MiB",
/// or "<dir> cannot be used (<reason>)" when statvfs fails (missing, not accessible). Never throws.
[[nodiscard]] std::string shm_space_note(const std::string& dir = "/dev/shm") noexcept;

}  // namespace sidecore::progress
