#!/bin/sh
# nobtr.sh cmd...: runs cmd in a fresh directory and fails (exit 99) if it left a
# .btr file there (psm2's backtrace handler writes one); otherwise exits as cmd did.
dir=$(mktemp -d) || exit 98
cd "$dir" || exit 98
"$@"
rc=$?
if ls ./*.btr >/dev/null 2>&1; then
    echo "nobtr.sh: the job left $(ls ./*.btr) behind" >&2
    rm -rf "$dir"
    exit 99
fi
rm -rf "$dir"
exit $rc
