#!/usr/bin/env bash
# drive.sh <before-checkout> <after-checkout>: ../issue31-priority/abba.sh into this directory. before = 0d02ec8 (a
# write that needs room reads the metadata of every candidate it scans), after = the node skips the candidates that
# free nothing from what their marks remember; only the storage-node differs.
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../issue31-priority/abba.sh" "$here" "$1" "$2"
