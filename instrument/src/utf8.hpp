// sidecore instrument — text made valid UTF-8 for the profile and the trace (JSON holds UTF-8 only). Private to
// instrument/src.
#pragma once

#include <string>
#include <string_view>

namespace sidecore::instrument::internal {

// `text` with every byte that does not belong to a well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF) replaced by U+FFFD. The profile is JSON, whose writer refuses anything else:
// one Latin-1 file name among a program's arguments, or in a region's name, cost the whole profile.
inline std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = byte(i);
    std::size_t n = 0;  // continuation bytes
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the first continuation byte
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c >= 0xE0 && c <= 0xEF) n = 2, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4) n = 3, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    bool ok = n > 0 && i + n < text.size();
    for (std::size_t k = 1; ok && k <= n; ++k) {
      const unsigned char b = byte(i + k);
      ok = k == 1 ? b >= lo && b <= hi : b >= 0x80 && b <= 0xBF;
    }
    if (ok) {
      out.append(text.substr(i, n + 1));
      i += n + 1;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

}  // namespace sidecore::instrument::internal
