// `sidecore info`: printed by the runtime library, loaded on demand so that the other
// subcommands work without it.
#pragma once

namespace sidecore::tools {

/// Loads libsidecore.so.0 (first <dir of this executable>/../lib, then the default search path),
/// calls its `int sidecore_info_print(FILE*)` with stdout and returns its result. When the library or the
/// symbol is missing, prints an error naming what was tried to stderr and returns 2.
[[nodiscard]] int run_info();

}  // namespace sidecore::tools
