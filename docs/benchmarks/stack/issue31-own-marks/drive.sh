#!/usr/bin/env bash
# drive.sh <before-checkout> <after-checkout>: ../issue31-priority/abba.sh into this directory. before = a0864a4 (the
# GC marks and deletes through the AWS SDK), after = the GC's own marks and deletes (OwnNodeCalls); only the
# gc-processor differs.
here=$(cd "$(dirname "$0")" && pwd)
exec "$here/../issue31-priority/abba.sh" "$here" "$1" "$2"
