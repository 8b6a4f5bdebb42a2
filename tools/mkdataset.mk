# bin/mkdataset: the deterministic dataset generator, and its unit tests.
BINS += mkdataset
mkdataset_SRCS := tools/mkdataset.c tools/gen_synth.c tools/capture.c tools/emit.c \
  tools/synth.c tools/profile.c tools/fixmath.c tools/tar_write.c tools/gz_write.c tools/os_proc.c tools/os_fs.c \
  tools/common.c tools/printable.c
CTESTS += tar_write prng profile
tar_write_test_SRCS := tests/c/tar_write_test.c tools/tar_write.c tools/gz_write.c
prng_test_SRCS := tests/c/prng_test.c tools/fixmath.c tools/synth.c tools/profile.c tools/common.c
profile_test_SRCS := tests/c/profile_test.c tools/profile.c tools/common.c
