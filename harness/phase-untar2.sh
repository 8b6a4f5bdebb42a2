#!/bin/sh
# harness/phase-untar2.sh: the second tarball on top of the first (see phase-untar.sh).
exec "$(dirname "$0")/phase-untar.sh" untar2
