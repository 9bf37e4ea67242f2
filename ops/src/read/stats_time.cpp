// ParseTimeMs (ckpt/ops/stats.h): ISO-8601 UTC date-times are turned into epoch milliseconds with
// the proleptic Gregorian day count (civil date to days since 1970-01-01), no time zone database.
#include <cstdint>
#include <limits>
#include <string>

#include "ckpt/ops/stats.h"

namespace ckpt::ops {
namespace {

// Days from 1970-01-01 to the civil date y-m-d (m 1..12, d 1..31), for any y >= 0.
int64_t DaysFromCivil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const int64_t era = y / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int DaysInMonth(int64_t y, int64_t m) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

}  // namespace

base::Result<int64_t> ParseTimeMs(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return base::Status::InvalidArgument(
        "time '" + std::string(text) + "' " + std::string(why) +
        " (expected ISO-8601 UTC such as 2026-12-08T01:00:00Z, or epoch milliseconds)");
  };
  if (text.empty()) return bad("is empty");
  // Epoch milliseconds: digits only.
  if (text.find_first_not_of("0123456789") == std::string_view::npos) {
    int64_t v = 0;
    for (char c : text) {
      if (v > (std::numeric_limits<int64_t>::max() - 9) / 10) return bad("is too large");
      v = v * 10 + (c - '0');
    }
    return v;
  }
  // YYYY-MM-DDTHH:MM:SS[.fff]Z
  size_t pos = 0;
  auto number = [&](size_t digits, int64_t* out) {
    if (pos + digits > text.size()) return false;
    int64_t v = 0;
    for (size_t i = 0; i < digits; ++i) {
      const char c = text[pos + i];
      if (c < '0' || c > '9') return false;
      v = v * 10 + (c - '0');
    }
    *out = v;
    pos += digits;
    return true;
  };
  auto literal = [&](char c) {
    if (pos >= text.size() || (text[pos] != c && !(c == 'T' && text[pos] == 't'))) return false;
    ++pos;
    return true;
  };
  int64_t y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, ms = 0;
  if (!number(4, &y) || !literal('-') || !number(2, &mo) || !literal('-') || !number(2, &d) ||
      !literal('T') || !number(2, &h) || !literal(':') || !number(2, &mi) || !literal(':') ||
      !number(2, &s)) {
    return bad("is not YYYY-MM-DDTHH:MM:SSZ");
  }
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    size_t digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (++digits > 3) return bad("has more than 3 fraction digits (milliseconds)");
      ms = ms * 10 + (text[pos] - '0');
      ++pos;
    }
    if (digits == 0) return bad("has no digits after '.'");
    for (size_t i = digits; i < 3; ++i) ms *= 10;
  }
  if (pos + 1 != text.size() || (text[pos] != 'Z' && text[pos] != 'z')) {
    return bad("does not end in Z (only UTC is accepted)");
  }
  if (mo < 1 || mo > 12) return bad("has month " + std::to_string(mo));
  if (d < 1 || d > DaysInMonth(y, mo)) return bad("has day " + std::to_string(d) + " of its month");
  if (h > 23 || mi > 59 || s > 59) return bad("has a time of day out of range");
  const int64_t days = DaysFromCivil(y, mo, d);
  return ((days * 24 + h) * 60 + mi) * 60'000 + s * 1000 + ms;
}

}  // namespace ckpt::ops
