#!/usr/bin/env bash
# A Debian package that some tests need, installed when its command (or, for a package with
# no command, a file it ships) is missing:
#   install-debian.sh PACKAGE COMMAND-OR-FILE WHAT [OUTCOME]
# Without root or apt-get it says what happens to the tests that need it (OUTCOME, "skipped"
# unless given) and succeeds, so that `make install-dev` goes on.
set -euo pipefail
package=$1 command=$2 what=$3 outcome=${4:-skipped}
if command -v "$command" >/dev/null || [ -f "$command" ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "$command is missing and cannot be installed here (needs root and apt-get);" \
       "$what will be $outcome. Install Debian's $package package to run them." >&2
  exit 0
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package" >/dev/null
