#!/usr/bin/env bash
# drive.sh <before-checkout> <after-checkout>: ../issue31-priority/abba.sh into this directory. before = b401050 (a
# store publishes its record and one ADVERTISE per block it wrote), after = keys from the object record (a store
# publishes its record only; replicas derive the keys' entries from it); index-service, gc-processor and
# event-schema differ.
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../issue31-priority/abba.sh" "$here" "$1" "$2"
