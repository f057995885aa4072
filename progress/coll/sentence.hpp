// The sentences a collective run fails with (instance.hpp), written in fixed buffers: the failure paths run under
// the progress lock in noexcept code, and a notice's text travels in an eager message of bounded size. Each buffer is
// sized for the longest sentence the code makes (the files that make them check their formats against it with
// static_assert, through printed()); what still cannot fit (a provider's error string, a peer's text cut by its
// eager size) is cut visibly: it ends with cut_mark, never inside a UTF-8 sequence. Every sentence names the rank,
// the collective and what differs first, so that a cut takes only the detail at its end.
#pragma once

#include <cstddef>
#include <string_view>

namespace sidecore::progress {

/// What a cut sentence ends with.
inline constexpr std::string_view cut_mark = " (cut)";

/// The widest a printed number is: an int ("-2147483648"), a std::uint32_t, a std::uint64_t.
inline constexpr std::size_t int_chars = 11, u32_chars = 10, u64_chars = 20;

/// A bound on what snprintf writes for format `fmt` whose arguments print at most `args` bytes: the format's own
/// characters (its conversions' too, which makes it a little more) and the arguments, without the terminator.
template <std::size_t N>
constexpr std::size_t printed(const char (&)[N], std::size_t args) noexcept {
  return N - 1 + args;
}

/// The longest of `names` ("?" at least: what a signature field that is none of ours is shown as).
template <class Names>
constexpr std::size_t longest(const Names& names) noexcept {
  std::size_t most = 1;
  for (std::string_view n : names) most = n.size() > most ? n.size() : most;
  return most;
}

/// The length of `text` (`len` bytes) cut to at most `room` bytes: unchanged when it fits, else shortened to a
/// whole UTF-8 sequence and ended with cut_mark, which it writes into text (0 when not even the mark fits).
std::size_t cut_to(char* text, std::size_t len, std::size_t room) noexcept;

/// snprintf into `out` (`n` bytes, terminated, n > 0); a sentence longer than that is cut as cut_to cuts.
[[gnu::format(printf, 3, 4)]] void write_sentence(char* out, std::size_t n, const char* fmt, ...) noexcept;

}  // namespace sidecore::progress
