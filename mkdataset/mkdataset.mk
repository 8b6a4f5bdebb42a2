# bin/mkdataset: the deterministic dataset generator, and its unit tests.
BINS += mkdataset
mkdataset_SRCS := mkdataset/mkdataset.c mkdataset/gen_synth.c mkdataset/capture.c mkdataset/emit.c \
  mkdataset/synth.c mkdataset/profile.c mkdataset/fixmath.c mkdataset/tar_write.c mkdataset/gz_write.c \
  lib/os_proc.c lib/os_fs.c lib/common.c lib/printable.c lib/usage.c
CTESTS += tar_write prng profile
tar_write_test_SRCS := tests/c/tar_write_test.c mkdataset/tar_write.c mkdataset/gz_write.c
prng_test_SRCS := tests/c/prng_test.c mkdataset/fixmath.c mkdataset/synth.c mkdataset/profile.c lib/common.c
profile_test_SRCS := tests/c/profile_test.c mkdataset/profile.c lib/common.c
