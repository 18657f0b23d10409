#!/usr/bin/env bash
# Makes the services' base image from Debian packages and loads it into the local engine (Docker or podman), for a
# machine that reaches Debian's mirror but no image registry. Same shape as the default base of the Dockerfiles
# (registry.access.redhat.com/ubi9/openjdk-17-runtime): a Java 17 runtime, curl for the health checks, user 185
# (group 0) and /deployments. Build a service's image on it with --build-arg BASE_IMAGE=<tag>.
#
#   deploy/images/base-image.sh [--engine docker|podman] [--tag promptcache/base:bookworm-jre17]
#
# Needs mmdebstrap (Debian package) and root (or podman unshare); about 2 minutes on a 2-core machine.
set -euo pipefail

tag=promptcache/base:bookworm-jre17
engine=${CONTAINER_ENGINE:-}
while (( $# )); do
    case "$1" in
        --engine) engine=$2; shift 2 ;;
        --tag) tag=$2; shift 2 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
if [[ -z "$engine" ]]; then
    if command -v docker >/dev/null && docker info >/dev/null 2>&1; then engine=docker
    elif command -v podman >/dev/null; then engine=podman
    else echo "no container engine: start dockerd, or install podman" >&2; exit 1
    fi
fi
command -v mmdebstrap >/dev/null || { echo "mmdebstrap is needed (apt-get install mmdebstrap)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the host's Debian mirror (a machine that reaches only it has it in its sources)
mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}
mmdebstrap --quiet --variant=apt --include=openjdk-17-jre-headless,curl,ca-certificates \
    --customize-hook='chroot "$1" useradd --system --uid 185 --gid 0 --no-create-home --home-dir /deployments --shell /usr/sbin/nologin jboss' \
    --customize-hook='mkdir -p "$1/deployments" && chown 185:0 "$1/deployments" && chmod 0775 "$1/deployments"' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/* "$1"/usr/share/doc/* "$1"/usr/share/man/* "$1"/usr/share/locale/*' \
    bookworm "$work/base.tar" "$mirror"
"$engine" import \
    --change 'ENV JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64 LANG=C.UTF-8' \
    --change 'WORKDIR /deployments' \
    --change 'USER 185' \
    "$work/base.tar" "$tag" >/dev/null
echo "$tag: $("$engine" image inspect --format '{{.Size}}' "$tag" | awk '{printf "%.0f MB", $1 / 1e6}')"
