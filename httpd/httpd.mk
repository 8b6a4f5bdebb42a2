# bin/httpd, the static file server, and the unit tests of its pure parts.
BINS += httpd
httpd_SRCS := httpd/httpd.c httpd/loop.c httpd/conn.c httpd/serve_file.c \
	httpd/prefork.c httpd/oneconn.c httpd/listen.c httpd/accept.c httpd/log.c httpd/outfd.c httpd/http_parse.c httpd/http_path.c \
	httpd/http_reply.c lib/common.c lib/printable.c lib/usage.c \
	lib/os_beneath.c lib/os_open.c lib/os_sendfile.c lib/os_child.c lib/os_proc.c lib/ioq.c lib/evmech.c lib/lathist.c
CTESTS += http_parse http_path
http_parse_test_SRCS := tests/c/http_parse_test.c httpd/http_parse.c httpd/http_reply.c
http_path_test_SRCS := tests/c/http_path_test.c httpd/http_path.c lib/os_beneath.c lib/os_open.c
