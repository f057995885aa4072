// sidecore — text and UTF-8. JSON (profiles, traces, the study record) holds UTF-8 only, and its writer refuses
// anything else: one Latin-1 file name among a program's arguments, or in a region's name, cost a whole profile.
// Well-formed means RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
#pragma once

#include <string>
#include <string_view>

namespace sidecore {

/// Walks `text`: ok(sequence) for every well-formed UTF-8 sequence (one character), bad(byte) for every byte that
/// belongs to none.
template <typename Ok, typename Bad>
void scan_utf8(std::string_view text, Ok&& ok, Bad&& bad) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = byte(i);
    std::size_t n = 0;                   // continuation bytes
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the first continuation byte
    if (c < 0x80) {
      ok(text.substr(i, 1));
      ++i;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF) n = 1;
    else if (c >= 0xE0 && c <= 0xEF) n = 2, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4) n = 3, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    bool good = n > 0 && i + n < text.size();
    for (std::size_t k = 1; good && k <= n; ++k) {
      const unsigned char b = byte(i + k);
      good = k == 1 ? b >= lo && b <= hi : b >= 0x80 && b <= 0xBF;
    }
    if (good) {
      ok(text.substr(i, n + 1));
      i += n + 1;
    } else {
      bad(c);
      ++i;
    }
  }
}

/// `text` with every byte that belongs to no well-formed sequence replaced by U+FFFD.
inline std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  scan_utf8(text, [&](std::string_view s) { out.append(s); }, [&](unsigned char) { out += "\xEF\xBF\xBD"; });
  return out;
}

/// Whether `text` is well-formed UTF-8 throughout.
inline bool is_utf8(std::string_view text) {
  bool all = true;
  scan_utf8(text, [](std::string_view) {}, [&](unsigned char) { all = false; });
  return all;
}

/// `text` with every byte that belongs to no well-formed sequence written as "\xNN" (for a message that quotes it).
inline std::string escaped_utf8(std::string_view text) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  scan_utf8(text, [&](std::string_view s) { out.append(s); }, [&](unsigned char c) {
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 0xf];
  });
  return out;
}

}  // namespace sidecore
