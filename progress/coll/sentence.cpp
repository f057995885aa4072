// Sentences in fixed buffers (sentence.hpp).
#include "sentence.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace sidecore::progress {

std::size_t cut_to(char* text, std::size_t len, std::size_t room) noexcept {
  if (len <= room) return len;
  if (room < cut_mark.size()) return 0;
  std::size_t keep = room - cut_mark.size();
  // text[keep] is the first byte dropped: a continuation byte (10xxxxxx) there means the sequence it belongs to
  // began before keep, and goes too.
  while (keep > 0 && (static_cast<unsigned char>(text[keep]) & 0xC0U) == 0x80U) --keep;
  std::memcpy(text + keep, cut_mark.data(), cut_mark.size());
  return keep + cut_mark.size();
}

void write_sentence(char* out, std::size_t n, const char* fmt, ...) noexcept {
  std::va_list args;
  va_start(args, fmt);
  const int w = std::vsnprintf(out, n, fmt, args);
  va_end(args);
  if (w < 0) {
    out[0] = '\0';
  } else if (static_cast<std::size_t>(w) >= n) {
    // vsnprintf kept the first n - 1 bytes: cut_to reads no further than the first byte it drops (out[n - 1 -
    // cut_mark.size()] at the most), so that a length above the room is all it needs to know.
    const std::size_t len = cut_to(out, n, n - 1);
    out[len] = '\0';
  }
}

}  // namespace sidecore::progress
