#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets into tests/fuzz/corpus/NAME/.

Each seed is a small, well-formed input of the kind the target expects
(see the comment at the top of tests/fuzz/NAME_fuzz.c for the layout):
libFuzzer mutates from these.  Run it again after changing a layout.
"""
import gzip
import os
import tarfile

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(target, name, data):
    d = os.path.join(HERE, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def header(name, fmt, **kw):
    ti = tarfile.TarInfo(name)
    ti.size = kw.get("size", 5)
    ti.mtime = kw.get("mtime", 1200000000)
    ti.type = kw.get("type", tarfile.REGTYPE)
    ti.linkname = kw.get("linkname", "")
    ti.mode = 0o644
    return ti.tobuf(format=fmt, encoding="utf-8", errors="surrogateescape")


def gz(data):
    return gzip.compress(data, compresslevel=6, mtime=0)


# tar_header: a 512-byte block, then pax records.
put("tar_header", "ustar-file", header("dir/a.txt", tarfile.USTAR_FORMAT))
put("tar_header", "ustar-prefix", header("p" * 120 + "/name.jpg", tarfile.USTAR_FORMAT))
put("tar_header", "gnu-symlink", header("ln", tarfile.GNU_FORMAT, type=tarfile.SYMTYPE,
                                        linkname="../target", size=0))
big = bytearray(header("big", tarfile.GNU_FORMAT))
big[124:136] = b"\x80" + b"\x00" * 7 + b"\x00\x00\x10\x00"  # base-256 size
put("tar_header", "base256-size", bytes(big))
pax = header("d/" + "x" * 150, tarfile.PAX_FORMAT, mtime=1200000000.25)
put("tar_header", "pax-path-mtime", pax[:1024])
records = b"".join(b"%d %s\n" % (len(r) + len(str(len(r) + 3)) + 2, r)
                   for r in [b"uid=7", b"gid=8", b"size=12", b"linkpath=a/b", b"mtime=-1.5"])
put("tar_header", "pax-records", header("././@PaxHeader", tarfile.USTAR_FORMAT,
                                        type=tarfile.XHDTYPE, size=len(records)) + records)

# gunzip_stream: a mode byte, then the stream.
put("gunzip_stream", "gzip-pieces", b"\x00" + gz(b"hello, world\n" * 4))
put("gunzip_stream", "gzip-mapped", b"\x01" + gz(b"\x00" * 1024))
put("gunzip_stream", "two-members", b"\x06" + gz(b"one\n") + gz(b"two\n"))
put("gunzip_stream", "zero-padded", b"\x03" + gz(b"pad\n") + b"\x00" * 64)
put("gunzip_stream", "plain", b"\x08" + b"not gzip at all\n")

# http_parse: one request head.
put("http_parse", "get", b"GET /index.html HTTP/1.1\r\nHost: localhost\r\n\r\n")
put("http_parse", "range", b"GET /img/0a/1.jpg?x=1 HTTP/1.1\r\nHost: h\r\nRange: bytes=100-199\r\n"
    b"If-Range: Sun, 06 Nov 1994 08:49:37 GMT\r\nConnection: close\r\n\r\n")
put("http_parse", "head-ims", b"HEAD /a/%2e%2e/b/ HTTP/1.0\r\nIf-Modified-Since: Sun, 06 Nov 1994 "
    b"08:49:37 GMT\r\nConnection: keep-alive\r\n\r\n")
put("http_parse", "absolute-body", b"\r\nPOST http://h/x HTTP/1.1\r\nContent-Length: 3\r\n"
    b"Range: bytes=-5\r\n\r\nabc")

# http_response: a mode byte (bit 0: HEAD; the rest: piece size), then
# what a server sent on one connection.
put("http_response", "pipelined", b"\x00HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"
    b"HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n")
put("http_response", "chunked", b"\x0eHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"5;ext=1\r\nhello\r\n0\r\nTrailer: x\r\n\r\n")
put("http_response", "head", b"\x01HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n")
put("http_response", "until-close", b"\x40HTTP/1.0 200 OK\r\nConnection: close\r\n\r\nbody...")

# http_response as dltar reads it (mode bit 7: payload spans), a chunked body.
put("http_response", "spans", b"\x84HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    b"3\r\nabc\r\n10;x\r\n0123456789abcdef\r\n0\r\n\r\n")

# url: the input as a URL and as HOST:PORT.
put("url", "v6", b"http://[::1]:8080/data/a.tar.gz")
put("url", "hostport", b"127.0.0.1:8080")
put("url", "query", b"http://example.org?x=1#frag")
