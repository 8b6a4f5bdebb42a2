#!/usr/bin/env bash
# The VM lab's kernels as variants: the same guest image booted with another
# kernel or another kernel command line, so that the kernel is the only
# difference between two guests (docs/lab.md, "Testing your own kernel").
#   kernel.sh variant IMAGE NAME OUT   make the kernel variant NAME (a line of
#                                      LAB_KERNEL_TABLE) of the image directory
#                                      IMAGE in OUT/<os>-NAME-k; print it
#   kernel.sh dir IMAGE NAME KDIR OUT  the same for a kernel directory KDIR
#                                      (the source dir:KDIR, what make bisect's
#                                      build leaves)
#   kernel.sh config IMAGE FILE        copy the image's kernel config to FILE
#   kernel.sh check NAME...            each NAME is a kernel of the table
# A variant directory holds what guests.sh boots: base.raw and lab_key of the
# image (links: the same userland), vmlinuz and initrd.img, cmdline (the
# variant's kernel command line, one line) and kernel.json (name, source,
# append: what lab.sh writes into meta.json's lab_kernel), config when known.
# Sources (the table's second column):
#   image      the image's own kernel (a command line of its own is the A/B
#              without a build)
#   deb:PACKAGE@SUITE  a Debian kernel package of SUITE from LAB_MIRROR (e.g.
#              linux-image-6.12.57+deb12-amd64@bookworm-backports), or
#   deb:FILE.deb       a kernel package of your own (make bindeb-pkg):
#              installed into a copy of the image's root disk
#              (kernel-deb.sh, cached in LAB_CACHE/kernels/), the same
#              userland with that kernel's modules and initramfs
#   dir:PATH   a kernel directory (relative: of the checkout; make lab-kernel
#              builds build/kernel/small): vmlinuz or bzImage (none: the image's
#              kernel), initrd.img (optional: a kernel without one needs its
#              virtio and ext4 drivers built in), config or .config, cmdline
#              (added to the table's command line)
set -eu

LAB_KERNEL_TABLE=${LAB_KERNEL_TABLE:-$(dirname "$0")/kernels.tsv}
LAB_CACHE=${LAB_CACHE:-/var/cache/shootout-lab}

kernel_die() { printf 'lab kernel: %s\n' "$*" >&2; exit 1; }

# os_of IMAGE : the OS of an image directory (debian12-<hash>: debian12).
os_of() {
  local b
  b=$(basename "$1")
  echo "${b%-*}"
}

# image_config IMAGE FILE : the image's /boot/config-* into FILE, read from
# base.raw with debugfs (nothing is mounted).
image_config() {
  local image=$1 out=$2 name
  name=$(debugfs -R 'ls -p /boot' "$image/base.raw" 2>/dev/null |
    awk -F / '$6 ~ /^config-/ { print $6 }' | sort -V | tail -n 1)
  [ -n "$name" ] || return 1
  debugfs -R "dump /boot/$name $out" "$image/base.raw" >/dev/null 2>&1 && [ -s "$out" ]
}

# make_variant IMAGE NAME SOURCE APPEND OUT : the variant directory (above).
make_variant() {
  local image=$1 name=$2 source=$3 append=$4 out=$5 d kdir extra='' f
  [ -s "$image/base.raw" ] || kernel_die "no image in $image (run playbooks/lab/image.sh)"
  case $name in '' | -* | *- | *--* | *[!a-z0-9-]*)
    kernel_die "'$name' is not a kernel variant name (lower-case letters, digits, single dashes)" ;; esac
  d=$out/$(os_of "$image")-$name-k
  rm -rf "$d"
  mkdir -p "$d"
  ln -s "$image/base.raw" "$d/base.raw"
  ln -s "$image/lab_key" "$d/lab_key"
  ln -s "$image/lab_key.pub" "$d/lab_key.pub"
  case $source in
    image)
      ln -s "$image/vmlinuz" "$d/vmlinuz"
      ln -s "$image/initrd.img" "$d/initrd.img"
      image_config "$image" "$d/config" || rm -f "$d/config"
      ;;
    dir:*)
      kdir=${source#dir:}
      # relative: of the checkout (build/kernel/small, what make lab-kernel builds)
      case $kdir in /*) ;; *) kdir=$(cd "$(dirname "$0")/../.." && pwd)/$kdir ;; esac
      if [ ! -d "$kdir" ]; then
        case $source in dir:build/kernel/small) kernel_die "$name: no kernel directory $kdir (make lab-kernel builds it)" ;; esac
        kernel_die "$name: no kernel directory $kdir"
      fi
      if [ -d "$kdir/modules" ] || ls "$kdir"/modules.tar* >/dev/null 2>&1; then
        kernel_die "$name: $kdir has modules: a kernel with modules is not supported yet (build virtio and ext4 in, =y)"
      fi
      for f in vmlinuz bzImage; do
        [ -s "$kdir/$f" ] || continue
        cp "$kdir/$f" "$d/vmlinuz"
        break
      done
      if [ -e "$d/vmlinuz" ]; then
        [ ! -s "$kdir/initrd.img" ] || cp "$kdir/initrd.img" "$d/initrd.img"
      else
        # no kernel of its own: the image's, with the directory's command line
        ln -s "$image/vmlinuz" "$d/vmlinuz"
        ln -s "$image/initrd.img" "$d/initrd.img"
        image_config "$image" "$d/config" || true
      fi
      for f in config .config; do
        [ -s "$kdir/$f" ] || continue
        cp "$kdir/$f" "$d/config"
        break
      done
      if [ -e "$kdir/cmdline" ]; then
        extra=$(head -n 1 "$kdir/cmdline")
        case $extra in *[[:cntrl:]]*) kernel_die "$name: $kdir/cmdline holds a control character" ;; esac
      fi
      ;;
    deb:*)
      local pkg=${source#deb:} kd sum
      rm -f "$d/base.raw"
      sum=$pkg
      case $pkg in /*.deb)
        [ -r "$pkg" ] || kernel_die "$name: cannot read $pkg"
        sum=$(sha256sum <"$pkg" | cut -c1-12) ;;
      esac
      kd=$LAB_CACHE/kernels/$(os_of "$image")-$name-$({ basename "$image"; echo "$sum"; cat "$(dirname "$0")/kernel-deb.sh"; } | sha256sum | cut -c1-12)
      "$(dirname "$0")/kernel-deb.sh" "$image" "$pkg" "$kd" >/dev/null || exit 1
      for f in base.raw vmlinuz initrd.img config; do
        [ ! -e "$kd/$f" ] || ln -s "$kd/$f" "$d/$f"
      done
      ;;
    *) kernel_die "$name: source '$source' is not image, deb:PACKAGE@SUITE, deb:FILE.deb or dir:PATH" ;;
  esac
  [ "$append" != - ] || append=
  append=$append${append:+${extra:+ }}$extra
  printf '%s\n' "$append" >"$d/cmdline"
  jq -n --arg name "$name" --arg source "$source" --arg append "$append" \
    '{name: $name, source: $source, append: $append}' >"$d/kernel.json"
  printf '%s\n' "$d"
}

# table_row NAME : "source<TAB>append" of NAME in LAB_KERNEL_TABLE.
table_row() {
  local row
  [ -r "$LAB_KERNEL_TABLE" ] || kernel_die "cannot read $LAB_KERNEL_TABLE"
  row=$(awk -F '\t' -v n="$1" '!/^#/ && $1 == n && NF >= 3 { print $2 "\t" $3; exit }' "$LAB_KERNEL_TABLE")
  [ -n "$row" ] || kernel_die "no kernel '$1' in $LAB_KERNEL_TABLE (there: $(awk -F '\t' '!/^#/ && NF >= 3 { printf "%s%s", s, $1; s = ", " }' "$LAB_KERNEL_TABLE"))"
  printf '%s\n' "$row"
}

case ${1:-} in
  variant)
    [ $# -eq 4 ] || kernel_die "usage: kernel.sh variant IMAGE NAME OUT"
    row=$(table_row "$3") || exit 1
    IFS=$'\t' read -r src app <<<"$row"
    make_variant "$2" "$3" "$src" "$app" "$4"
    ;;
  dir)
    [ $# -eq 5 ] || kernel_die "usage: kernel.sh dir IMAGE NAME KDIR OUT"
    make_variant "$2" "$3" "dir:$4" - "$5"
    ;;
  check)
    shift
    for k in "$@"; do table_row "$k" >/dev/null; done
    ;;
  config)
    [ $# -eq 3 ] || kernel_die "usage: kernel.sh config IMAGE FILE"
    image_config "$2" "$3" || kernel_die "no kernel config in $2/base.raw"
    ;;
  *) kernel_die "usage: kernel.sh variant IMAGE NAME OUT | dir IMAGE NAME KDIR OUT | config IMAGE FILE | check NAME..." ;;
esac
