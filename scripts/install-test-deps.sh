#!/usr/bin/env bash
# Installs what the test suite needs on Debian 12 (bookworm):
#  - Mesa's lavapipe from bookworm-backports (Mesa 25). Dawn refuses Debian 12's own
#    lavapipe (Mesa 22: "shaderUniform*ArrayDynamicIndexing required"); the backports
#    one runs our compute kernels ~35x faster than SwiftShader.
#  - Debian's chromium (headless browser tests; its bundled SwiftShader also serves
#    the Node tests that pin SwiftShader).
# Idempotent. Needs root; as another user it prints what to install and exits 1.
set -euo pipefail

have_lavapipe() { ls /usr/share/vulkan/icd.d/ 2>/dev/null | grep -qi lvp; }
have_chromium() { [ -x /usr/bin/chromium ] && [ -f /usr/lib/chromium/vk_swiftshader_icd.json ]; }

if have_lavapipe && have_chromium; then exit 0; fi

if [ "$(id -u)" != 0 ]; then
  echo "install-test-deps: missing test dependencies; as root run: bash scripts/install-test-deps.sh" >&2
  echo "  (Debian packages: chromium, and mesa-vulkan-drivers + libvulkan1 from bookworm-backports)" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
if ! have_lavapipe; then
  if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
    uri=${uri:-http://deb.debian.org/debian}
    printf 'Types: deb\nURIs: %s\nSuites: bookworm-backports\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$uri" > /etc/apt/sources.list.d/bookworm-backports.sources
  fi
fi
apt-get update -qq
if ! have_lavapipe; then
  apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers libvulkan1 >/dev/null
fi
if ! have_chromium; then
  apt-get install -y -qq chromium >/dev/null
fi
have_lavapipe || { echo "install-test-deps: lavapipe ICD not found after install" >&2; exit 1; }
have_chromium || { echo "install-test-deps: chromium not found after install" >&2; exit 1; }
echo "install-test-deps: lavapipe and chromium ready"
