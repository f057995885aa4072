#include "info.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>

#include <fmt/format.h>

namespace sidecore::tools {

int run_info() {
  constexpr const char* soname = "libsidecore.so.0";
  std::string tried;
  std::string first_path;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  void* handle = nullptr;
  if (!ec) {
    first_path = (exe.parent_path() / ".." / "lib" / soname).lexically_normal().string();
    handle = dlopen(first_path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) tried += fmt::format("\n  {}: {}", first_path, dlerror());
  }
  if (!handle) {
    handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) tried += fmt::format("\n  {} (default library search path): {}", soname, dlerror());
  }
  if (!handle) {
    fmt::print(stderr,
               "sidecore info: cannot load the runtime library; `sidecore info` needs the runtime library "
               "libsidecore (build the runtime part, or put it on LD_LIBRARY_PATH). Tried:{}\n",
               tried);
    return 2;
  }
  using print_fn = int (*)(FILE*);
  dlerror();
  void* sym = dlsym(handle, "sidecore_info_print");
  if (!sym) {
    const char* err = dlerror();
    fmt::print(stderr,
               "sidecore info: the runtime library has no symbol sidecore_info_print ({}); it is older or newer than "
               "this command\n",
               err ? err : "null");
    dlclose(handle);
    return 2;
  }
  // POSIX guarantees that an object pointer from dlsym converts to a function pointer.
  print_fn fn = nullptr;
  static_assert(sizeof(fn) == sizeof(sym));
  std::memcpy(&fn, &sym, sizeof(fn));
  std::fflush(stdout);
  const int rc = fn(stdout);
  std::fflush(stdout);
  // The library stays loaded until exit: it may have registered atexit handlers.
  return rc;
}

}  // namespace sidecore::tools
