#!/usr/bin/env bash
# Installs docker compose v2 on Debian 12, whose own docker-compose package is 1.29: Debian 13's docker-compose package
# is v2, one static binary (it needs only libc 2.34+), fetched from the Debian mirror the host uses, signature checked
# by apt against the host's keyring, through a sources list of its own (the host's apt setup is not touched), and
# installed as a Docker CLI plugin (`docker compose`) beside the 1.29 package, which keeps `docker-compose`.
#
#   deploy/images/compose-v2.sh [--plugins /usr/local/lib/docker/cli-plugins]
#
# As root (the default plugin folder is the system's). .ci/run calls it when `docker compose` does not answer.
set -euo pipefail
plugins=/usr/local/lib/docker/cli-plugins
while (( $# )); do
    case "$1" in
        --plugins) plugins=$2; shift 2 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}
mkdir -p "$work/lists/partial" "$work/cache/archives/partial"
echo "deb $mirror trixie main" >"$work/trixie.list"
apt=(apt-get -qq -o "Dir::Etc::SourceList=$work/trixie.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root)
"${apt[@]}" update
(cd "$work" && "${apt[@]}" download docker-compose/trixie)
dpkg-deb -x "$work"/docker-compose_*.deb "$work/root"
install -D -m 0755 "$work/root/usr/libexec/docker/cli-plugins/docker-compose" "$plugins/docker-compose"
"$plugins/docker-compose" version
