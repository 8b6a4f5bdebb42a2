/* Answers one request: the file (or an error) as a response head in
 * c->out and a byte range of an open file (c->file_fd, c->off..c->end),
 * for the connection's driver to send (conn.c in the event loop, oneconn.c
 * for -1). */
#include "server.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

struct hb {
  char *p;
  size_t n, cap;
};

static void hs(struct hb *h, const char *s) {
  size_t n = strlen(s);
  if (h->n + n > h->cap) n = h->cap - h->n; /* cannot happen: heads are short */
  memcpy(h->p + h->n, s, n);
  h->n += n;
}

static void hn(struct hb *h, uint64_t v) {
  char t[24];
  size_t i = sizeof t;
  do t[--i] = (char)('0' + v % 10); while ((v /= 10) != 0 && i > 0);
  if (h->n + (sizeof t - i) > h->cap) return;
  memcpy(h->p + h->n, t + i, sizeof t - i);
  h->n += sizeof t - i;
}

static void head_start(struct server *s, struct conn *c, struct hb *h, int status) {
  h->p = c->out;
  h->n = 0;
  h->cap = sizeof c->out;
  hs(h, "HTTP/1.1 ");
  hn(h, (uint64_t)status);
  hs(h, " ");
  hs(h, http_reason(status));
  hs(h, "\r\nServer: httpd/" SHOOTOUT_VERSION "\r\nDate: ");
  hs(h, s->date);
  hs(h, "\r\n");
}

static void head_end(struct conn *c, struct hb *h, const struct http_req *r) {
  if (c->close_after)
    hs(h, "Connection: close\r\n");
  else if (r != NULL && r->minor == 0)
    hs(h, "Connection: keep-alive\r\n");
  hs(h, "\r\n");
  c->out_len = h->n;
  c->out_pos = 0;
}

void serve_file_done(struct conn *c) {
  if (c->map != NULL) munmap(c->map, c->map_len);
  c->map = NULL;
  c->map_len = 0;
  if (c->file_fd >= 0) close(c->file_fd);
  c->file_fd = -1;
  c->off = c->end = 0;
}

static void respond_simple(struct server *s, struct conn *c, const struct http_req *r,
                           int status, const char *location) {
  struct hb h;
  /* Framing may be lost after these: answer and close. */
  if (status == 400 || status == 413 || status == 414 || status == 505 || status >= 500)
    c->close_after = 1;
  head_start(s, c, &h, status);
  char body[128];
  struct hb b = {body, 0, sizeof body};
  hs(&b, "<html><body><h1>");
  hn(&b, (uint64_t)status);
  hs(&b, " ");
  hs(&b, http_reason(status));
  hs(&b, "</h1></body></html>\n");
  hs(&h, "Content-Type: text/html\r\nContent-Length: ");
  hn(&h, b.n);
  hs(&h, "\r\n");
  if (status == 405) hs(&h, "Allow: GET, HEAD\r\n");
  if (location != NULL) {
    hs(&h, "Location: ");
    hs(&h, location);
    hs(&h, "\r\n");
  }
  head_end(c, &h, r);
  if (r == NULL || r->method != HTTP_HEAD) {
    if (c->out_len + b.n <= sizeof c->out) {
      memcpy(c->out + c->out_len, body, b.n);
      c->out_len += b.n;
    }
  }
  s->ctr->requests++;
  if (status >= 400) s->ctr->errors++;
  if (s->log) log_access(s, c, r, status, r && r->method == HTTP_HEAD ? 0 : b.n);
}

void serve_error(struct server *s, struct conn *c, const struct http_req *r, int status) {
  c->t_req = lathist_now();
  respond_simple(s, c, r, status, NULL);
}

/* "/dir" names a directory: redirect to "/dir/", from the cleaned path
 * (the query is dropped; nothing else of the target is echoed). */
static void redirect_dir(struct server *s, struct conn *c, const struct http_req *r,
                         const char *path) {
  char loc[HTTP_MAX_LINE / 4];
  if (http_location(path, loc, sizeof loc) == 0) {
    respond_simple(s, c, r, 414, NULL);
    return;
  }
  respond_simple(s, c, r, 301, loc);
}

void serve_request(struct server *s, struct conn *c, const struct http_req *r) {
  c->t_req = lathist_now();
  c->close_after = !r->keep_alive || r->has_body ||
                   (s->max_requests && c->nreq >= s->max_requests);
  if (r->method == HTTP_OTHER) { respond_simple(s, c, r, 405, NULL); return; }
  char path[HTTP_MAX_LINE + 16];
  int dir;
  int st = http_path_clean(r->target, r->target_len, path, sizeof path - 16, &dir);
  if (st != 0) { respond_simple(s, c, r, st, NULL); return; }
  uint64_t t_open = lathist_now();
  int fd = http_path_open(s->rootfd, path, s->follow);
  if (fd < 0) {
    lathist_add(&s->ctr->lat_open, t_open, lathist_now());
    respond_simple(s, c, r, -fd, NULL);
    return;
  }
  struct stat sb;
  int fst = fstat(fd, &sb);
  lathist_add(&s->ctr->lat_open, t_open, lathist_now());
  if (fst != 0) {
    close(fd);
    { respond_simple(s, c, r, 500, NULL); return; }
  }
  const char *name = path;
  if (S_ISDIR(sb.st_mode)) {
    if (!dir) {
      close(fd);
      redirect_dir(s, c, r, path);
      return;
    }
    /* No listings: index.html or 403.  It is opened from ROOT like a
     * request for /dir/index.html, so that a symlink that stays in ROOT is
     * served and one that leaves it refused, exactly as there. */
    close(fd);
    size_t pl = strlen(path);
    memcpy(path + pl, pl > 0 ? "/index.html" : "index.html", pl > 0 ? 12 : 11);
    int ifd = http_path_open(s->rootfd, path, s->follow);
    if (ifd < 0) { respond_simple(s, c, r, ifd == -404 ? 403 : -ifd, NULL); return; }
    fd = ifd;
    if (fstat(fd, &sb) != 0) {
      close(fd);
      { respond_simple(s, c, r, 500, NULL); return; }
    }
  }
  if (!S_ISREG(sb.st_mode)) {
    close(fd);
    { respond_simple(s, c, r, 403, NULL); return; }
  }
  uint64_t size = (uint64_t)sb.st_size, off, end;
  int status = http_plan(r, size, sb.st_mtime, &off, &end);
  if (status == 416) {
    close(fd);
    struct hb h;
    head_start(s, c, &h, 416);
    hs(&h, "Content-Range: bytes */");
    hn(&h, size);
    hs(&h, "\r\nContent-Length: 0\r\n");
    head_end(c, &h, r);
    s->ctr->requests++;
    s->ctr->errors++;
    if (s->log) log_access(s, c, r, 416, 0);
    return;
  }
  char lm[32];
  http_date_fmt(lm, sb.st_mtime);
  lm[29] = '\0';
  struct hb h;
  head_start(s, c, &h, status);
  hs(&h, "Last-Modified: ");
  hs(&h, lm);
  if (status != 304) {
    hs(&h, "\r\nContent-Type: ");
    hs(&h, http_mime(name));
    hs(&h, "\r\nContent-Length: ");
    hn(&h, end - off);
    hs(&h, "\r\nAccept-Ranges: bytes");
    if (status == 206) {
      hs(&h, "\r\nContent-Range: bytes ");
      hn(&h, off);
      hs(&h, "-");
      hn(&h, end - 1);
      hs(&h, "/");
      hn(&h, size);
    }
  }
  hs(&h, "\r\n");
  head_end(c, &h, r);
  s->ctr->requests++;
  int body = status != 304 && r->method == HTTP_GET && end > off;
  if (s->log) log_access(s, c, r, status, body ? end - off : 0);
  if (body) {
    c->file_fd = fd;
    c->off = off;
    c->end = end;
  } else {
    close(fd);
  }
}
