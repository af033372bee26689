#!/usr/bin/env bash
# Installs what building and testing attnlab needs, idempotently: Debian packages (when run as
# root; otherwise it names the missing ones and stops) and npm dependencies from the lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake g++ make emscripten binaryen libeigen3-dev catch2 nlohmann-json3-dev chromium fonts-dejavu-core
          clang libclang-rt-14-dev ccache)

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "attnlab needs Node.js 20 or newer; this is $(node --version)." >&2
  exit 1
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: missing Debian packages: ${missing[*]}" >&2
    echo "       install them with: sudo apt-get install --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi

# npm dependencies, reinstalled only when the lockfile changed
stamp=node_modules/.attnlab-lock
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$lock_hash" ]; then
  echo "setup: installing npm dependencies from package-lock.json"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_hash" > "$stamp"
fi
