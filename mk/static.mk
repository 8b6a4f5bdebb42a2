# `make static`: every tool of $(BINS), fully static against dietlibc, in
# bin/static/.  libowfat and zlib come from Debian's source packages, built
# with `diet gcc` into build/static/ by mk/static-libs.sh (never vendored).
STATIC_DIR := build/static
static:
	$(call deps,static build)
	mk/static-libs.sh $(STATIC_DIR)
	$(MAKE) --no-print-directory B=$(STATIC_DIR)/obj BIN=bin/static CC="diet gcc" OPT="-O2" \
	  CPPFLAGS="-D_GNU_SOURCE -D_XOPEN_SOURCE=700 -Ilib -I$(STATIC_DIR)/include" \
	  LDFLAGS="-static -L$(STATIC_DIR)/lib" LDLIBS="-lowfat -lz -lcompat" \
	  $(addprefix bin/static/,$(BINS))
