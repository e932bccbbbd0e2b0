#!/usr/bin/env sh
# Runs a command inside a private D-Bus session with an unlocked gnome-keyring,
# so the kiosk's secret-store tests use a real OS keyring, headless.
# Usage: scripts/with-keyring.sh npm test
set -eu
if ! command -v dbus-run-session >/dev/null || ! command -v gnome-keyring-daemon >/dev/null; then
  echo "with-keyring: needs dbus-run-session and gnome-keyring-daemon (apt install dbus gnome-keyring)" >&2
  exit 1
fi
exec dbus-run-session -- sh -c 'echo -n test-keyring | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"' with-keyring "$@"
