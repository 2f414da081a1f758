#!/usr/bin/env bash
# bubblewrap for the lab's sandbox, from Debian's packages: generated code runs inside it.
set -euo pipefail
if command -v bwrap >/dev/null; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "bwrap is missing and cannot be installed here (needs root and apt-get);" \
       "the lab's sandbox tests will be skipped. Install Debian's bubblewrap package." >&2
  exit 0
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null
