#!/usr/bin/env bash
# Offscreen OpenGL for VTK's renders of the embodied world (the `3d` extra), from Debian's
# packages: Mesa's EGL with its software rasteriser (llvmpipe), and OSMesa as the fallback
# VTK turns to where EGL is missing. No display, no GPU needed.
set -euo pipefail
has() { ldconfig -p | grep -q "$1"; }
if { has libEGL.so.1 && has libEGL_mesa.so.0; } || has libOSMesa.so; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "neither EGL (Mesa) nor OSMesa is installed and they cannot be installed here (needs" \
       "root and apt-get); the 3D render tests will be skipped. Install Debian's libegl1," \
       "libegl-mesa0 and libgl1-mesa-dri (or libosmesa6) to run them." >&2
  exit 0
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
  libegl1 libegl-mesa0 libgl1-mesa-dri libgl1 libosmesa6 >/dev/null
