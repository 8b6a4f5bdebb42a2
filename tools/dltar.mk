# bin/dltar: download, gunzip and untar in one process, and its unit tests.
BINS += dltar
dltar_SRCS := tools/dltar.c tools/tar_extract.c tools/tar_header.c tools/safe_path.c \
  tools/http_get.c tools/http_conn.c tools/xfer.c tools/gunzip_stream.c tools/common.c \
  tools/printable.c
CTESTS += tar_header safe_path http_get
tar_header_test_SRCS := tests/c/tar_header_test.c tools/tar_header.c
safe_path_test_SRCS := tests/c/safe_path_test.c tools/safe_path.c
http_get_test_SRCS := tests/c/http_get_test.c tools/http_get.c tools/common.c
