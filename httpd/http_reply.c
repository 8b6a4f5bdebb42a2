/* Response vocabulary: status reasons, content types, HTTP dates, and the
 * choice between 200, 206, 304 and 416 for a file. */
#include "http.h"

#include <string.h>

const char *http_reason(int status) {
  switch (status) {
  case 200: return "OK";
  case 206: return "Partial Content";
  case 301: return "Moved Permanently";
  case 304: return "Not Modified";
  case 400: return "Bad Request";
  case 403: return "Forbidden";
  case 404: return "Not Found";
  case 405: return "Method Not Allowed";
  case 408: return "Request Timeout";
  case 413: return "Content Too Large";
  case 414: return "URI Too Long";
  case 416: return "Range Not Satisfiable";
  case 500: return "Internal Server Error";
  case 503: return "Service Unavailable";
  case 505: return "HTTP Version Not Supported";
  }
  return "Unknown";
}

static const struct {
  const char *ext, *type;
} mime_types[] = {
    {"html", "text/html"},          {"htm", "text/html"},
    {"css", "text/css"},            {"js", "text/javascript"},
    {"mjs", "text/javascript"},     {"txt", "text/plain"},
    {"md", "text/markdown"},        {"csv", "text/csv"},
    {"xml", "application/xml"},     {"json", "application/json"},
    {"pdf", "application/pdf"},     {"wasm", "application/wasm"},
    {"gz", "application/gzip"},     {"tgz", "application/gzip"},
    {"tar", "application/x-tar"},   {"zip", "application/zip"},
    {"jpg", "image/jpeg"},          {"jpeg", "image/jpeg"},
    {"png", "image/png"},           {"gif", "image/gif"},
    {"webp", "image/webp"},         {"svg", "image/svg+xml"},
    {"ico", "image/vnd.microsoft.icon"}, {"avif", "image/avif"},
    {"mp4", "video/mp4"},           {"webm", "video/webm"},
    {"mp3", "audio/mpeg"},          {"ogg", "audio/ogg"},
    {"woff", "font/woff"},          {"woff2", "font/woff2"},
    {"ttf", "font/ttf"},
};

const char *http_mime(const char *path) {
  const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
  if (dot == NULL || (slash != NULL && dot < slash)) return "application/octet-stream";
  char ext[8];
  size_t n = strlen(dot + 1);
  if (n == 0 || n >= sizeof ext) return "application/octet-stream";
  for (size_t i = 0; i <= n; i++) {
    char c = dot[1 + i];
    ext[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
  }
  for (size_t i = 0; i < sizeof mime_types / sizeof mime_types[0]; i++)
    if (strcmp(ext, mime_types[i].ext) == 0) return mime_types[i].type;
  return "application/octet-stream";
}

static const char wdays[7][4] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/* Days since 1970-01-01 of a proleptic Gregorian date (m 1..12). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  unsigned yoe = (unsigned)(y - era * 400);
  unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  unsigned doe = (unsigned)(z - era * 146097);
  unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static void put2(char *o, unsigned v) {
  o[0] = (char)('0' + v / 10 % 10);
  o[1] = (char)('0' + v % 10);
}

size_t http_date_fmt(char *out, time_t t) {
  int64_t days = (int64_t)t / 86400, secs = (int64_t)t % 86400;
  if (secs < 0) secs += 86400, days--;
  int64_t y;
  unsigned m, d;
  civil_from_days(days, &y, &m, &d);
  if (y < 0) y = 0;
  if (y > 9999) y = 9999;
  memcpy(out, wdays[((days % 7) + 7) % 7], 3);
  memcpy(out + 3, ", ", 2);
  put2(out + 5, d);
  out[7] = ' ';
  memcpy(out + 8, months[m - 1], 3);
  out[11] = ' ';
  put2(out + 12, (unsigned)(y / 100));
  put2(out + 14, (unsigned)(y % 100));
  out[16] = ' ';
  put2(out + 17, (unsigned)(secs / 3600));
  out[19] = ':';
  put2(out + 20, (unsigned)(secs / 60 % 60));
  out[22] = ':';
  put2(out + 23, (unsigned)(secs % 60));
  memcpy(out + 25, " GMT", 5);
  return 29;
}

static int num(const char *s, size_t n, unsigned *v) {
  *v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    *v = *v * 10 + (unsigned)(s[i] - '0');
  }
  return 0;
}

/* IMF-fixdate only: "Sun, 06 Nov 1994 08:49:37 GMT". */
time_t http_date_parse(const char *s, size_t n) {
  unsigned d, y, hh, mm, ss, m;
  if (n != 29 || s[3] != ',' || s[4] != ' ' || s[7] != ' ' || s[11] != ' ' ||
      s[16] != ' ' || s[19] != ':' || s[22] != ':' || memcmp(s + 25, " GMT", 4) != 0)
    return -1;
  if (num(s + 5, 2, &d) || num(s + 12, 4, &y) || num(s + 17, 2, &hh) ||
      num(s + 20, 2, &mm) || num(s + 23, 2, &ss))
    return -1;
  for (m = 0; m < 12; m++)
    if (memcmp(s + 8, months[m], 3) == 0) break;
  if (m == 12 || d < 1 || d > 31 || hh > 23 || mm > 59 || ss > 60 || y < 1970) return -1;
  int64_t t = days_from_civil(y, m + 1, d) * 86400 + hh * 3600 + mm * 60 + ss;
  return (time_t)t;
}

int http_plan(const struct http_req *r, uint64_t size, time_t mtime, uint64_t *off,
              uint64_t *end) {
  *off = 0;
  *end = size;
  if (r->ims >= 0 && mtime <= r->ims) return 304;
  if (r->range == RANGE_NONE) return 200;
  /* If-Range: only an exactly matching date keeps the range. */
  if (r->if_range == -2 || (r->if_range >= 0 && r->if_range != mtime)) return 200;
  uint64_t a, b;
  switch (r->range) {
  case RANGE_SUFFIX:
    if (r->r2 == 0 || size == 0) return 416;
    a = r->r2 >= size ? 0 : size - r->r2;
    b = size - 1;
    break;
  case RANGE_FROM:
    if (r->r1 >= size) return 416;
    a = r->r1, b = size - 1;
    break;
  default:
    if (r->r1 >= size) return 416;
    a = r->r1, b = r->r2 >= size ? size - 1 : r->r2;
  }
  *off = a;
  *end = b + 1;
  return 206;
}
