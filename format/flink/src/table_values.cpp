// Text of table values: dates (days since 1970-01-01, proleptic Gregorian), times (millis of the
// day), timestamps (epoch millis + nano of milli) as "YYYY-MM-DD HH:MM:SS.fff" with as many
// fraction digits as the type's precision, and decimals (an unscaled integer and a scale) as JSON
// numbers written out exactly.
#include <algorithm>
#include <cstdio>

#include "table_serializers.h"

namespace ckpt::flink::internal {
namespace table_text {

// Howard Hinnant's civil_from_days.
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

std::string DateText(int64_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  char buf[48];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  return buf;
}

// HH:MM:SS and `precision` fraction digits of a time of day in nanoseconds.
std::string TimeText(int64_t nanos_of_day, int32_t precision) {
  const int64_t secs = nanos_of_day / 1000000000;
  const int64_t frac = nanos_of_day % 1000000000;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", static_cast<long long>(secs / 3600),
                static_cast<long long>(secs / 60 % 60), static_cast<long long>(secs % 60));
  std::string s = buf;
  precision = std::clamp(precision, 0, 9);
  if (precision > 0) {
    char f[16];
    std::snprintf(f, sizeof f, "%09lld", static_cast<long long>(frac));
    s += "." + std::string(f, static_cast<size_t>(precision));
  }
  return s;
}

}  // namespace table_text

std::string FormatDate(int32_t days) { return table_text::DateText(days); }

std::string FormatTime(int32_t millis_of_day, int32_t precision) {
  if (millis_of_day < 0 || millis_of_day >= 86400000) {
    return "invalid time of day " + std::to_string(millis_of_day) + " ms";
  }
  return table_text::TimeText(int64_t{millis_of_day} * 1000000, precision);
}

std::string FormatTimestamp(int64_t millis, int32_t nano_of_milli, int32_t precision) {
  int64_t days = millis / 86400000;
  int64_t ms = millis % 86400000;
  if (ms < 0) {
    ms += 86400000;
    --days;
  }
  return table_text::DateText(days) + " " +
         table_text::TimeText(ms * 1000000 + nano_of_milli, precision);
}

namespace table_text {

// The decimal digits of a non-negative magnitude held as big-endian bytes.
std::string MagnitudeDigits(std::vector<uint8_t> mag) {
  std::string digits;
  bool zero = false;
  while (!zero) {
    uint32_t rem = 0;
    zero = true;
    for (uint8_t& b : mag) {
      const uint32_t cur = rem * 256 + b;
      b = static_cast<uint8_t>(cur / 10);
      rem = cur % 10;
      if (b) zero = false;
    }
    digits.push_back(static_cast<char>('0' + rem));
  }
  std::reverse(digits.begin(), digits.end());
  return digits;
}

void AppendScaled(bool negative, std::string digits, int32_t scale, std::string* json) {
  if (negative) *json += "-";
  if (scale <= 0) {
    *json += digits;
    if (scale < 0 && digits != "0") *json += "e" + std::to_string(-scale);
    return;
  }
  const size_t s = static_cast<size_t>(scale);
  if (digits.size() <= s) digits.insert(0, s - digits.size() + 1, '0');
  *json += digits.substr(0, digits.size() - s) + "." + digits.substr(digits.size() - s);
}

}  // namespace table_text

void AppendDecimalJson(std::string_view unscaled_be, int32_t scale, std::string* json) {
  std::vector<uint8_t> mag(unscaled_be.begin(), unscaled_be.end());
  const bool negative = !mag.empty() && (mag[0] & 0x80);
  if (negative) {  // two's complement negate
    for (uint8_t& b : mag) b = static_cast<uint8_t>(~b);
    for (size_t i = mag.size(); i-- > 0;) {
      if (++mag[i] != 0) break;
    }
  }
  table_text::AppendScaled(negative, table_text::MagnitudeDigits(std::move(mag)), scale, json);
}

void AppendUnscaledLongJson(int64_t unscaled, int32_t scale, std::string* json) {
  const bool negative = unscaled < 0;
  const uint64_t mag = negative ? ~static_cast<uint64_t>(unscaled) + 1 : static_cast<uint64_t>(unscaled);
  table_text::AppendScaled(negative, std::to_string(mag), scale, json);
}

}  // namespace ckpt::flink::internal
