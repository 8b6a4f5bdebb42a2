# bin/httpd, the static file server, and the unit tests of its pure parts.
BINS += httpd
httpd_SRCS := httpd/httpd.c httpd/loop.c httpd/conn.c httpd/serve_file.c \
	httpd/prefork.c httpd/oneconn.c httpd/listen.c httpd/log.c httpd/outfd.c httpd/http_parse.c httpd/http_path.c \
	httpd/http_reply.c tools/common.c tools/printable.c \
	tools/os_beneath.c tools/os_open.c tools/os_sendfile.c tools/os_child.c tools/os_proc.c
CTESTS += http_parse http_path
http_parse_test_SRCS := tests/c/http_parse_test.c httpd/http_parse.c httpd/http_reply.c
http_path_test_SRCS := tests/c/http_path_test.c httpd/http_path.c tools/os_beneath.c tools/os_open.c
