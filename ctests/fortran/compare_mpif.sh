#!/bin/sh
# compare_mpif.sh: mpix's mpif.h against MPICH's installed one, so that Fortran
# programs compiled against either run on the other: every PARAMETER of MPICH's must
# be in ours with the same value (MPI_SUBVERSION excepted: mpix implements 4.1), and
# the COMMON blocks of the special addresses must be declared alike. Values are
# compared after evaluating MPICH's forms (512-1, (-2), a name). Exits 77 (skipped)
# where MPICH's mpif.h is not installed.
set -eu
mpich=${MPICH_MPIF_H:-/usr/include/x86_64-linux-gnu/mpich/mpif.h}
ours=${MPIX_PREFIX:?MPIX_PREFIX names the mpix tree}/include/mpif.h
[ -f "$mpich" ] || { echo "compare_mpif.sh: $mpich not installed"; exit 77; }
allowed="MPI_SUBVERSION"

# params FILE: NAME=VALUE for every PARAMETER, continuation lines joined, values
# evaluated.
params() {
    awk '
    function flush(   s, n, i, p, parts) {
        if (toupper(stmt) ~ /^ *PARAMETER *\(/) {
            s = stmt
            sub(/^ *[A-Za-z]+ *\(/, "", s)
            sub(/\) *$/, "", s)
            n = split(s, parts, ",")
            for (i = 1; i <= n; i++) {
                p = parts[i]
                gsub(/ /, "", p)
                if (p != "") { name = toupper(substr(p, 1, index(p, "=") - 1)); raw[name] = substr(p, index(p, "=") + 1); order[++count] = name }
            }
        }
        stmt = ""
    }
    function ev(v,   a, b) {
        gsub(/[()]/, "", v)
        if (v ~ /^-?[0-9]+$/) return v + 0
        if (v ~ /^[0-9]+-[0-9]+$/) { split(v, a, "-"); return a[1] - a[2] }
        if (v ~ /^[0-9]+\+[0-9]+$/) { split(v, a, "+"); return a[1] + a[2] }
        if (v ~ /^-[0-9]+-[0-9]+$/) { split(substr(v, 2), a, "-"); return -a[1] - a[2] }
        if (toupper(v) in raw) return ev(raw[toupper(v)])
        return toupper(v)
    }
    /^[!Cc*]/ { next }
    {
        line = $0
        sub(/&[ ]*$/, "", line)
        if (length(line) >= 6 && substr(line, 1, 5) ~ /^ *$/ && substr(line, 6, 1) != " ") { stmt = stmt substr(line, 7); next }
        flush()
        stmt = line
    }
    END { flush(); for (i = 1; i <= count; i++) print order[i] "=" ev(raw[order[i]]) }
    ' "$1" | sort -u
}
# commons FILE: the COMMON statements, spaces removed, upper case.
commons() {
    grep -i '^ *COMMON' "$1" | tr -d ' ' | tr '[:lower:]' '[:upper:]' | sort
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
params "$mpich" > "$tmp/mpich"
params "$ours" > "$tmp/ours"
fail=0
while IFS='=' read -r name want; do
    got=$(sed -n "s/^$name=//p" "$tmp/ours")
    case " $allowed " in *" $name "*) continue ;; esac
    if [ -z "$got" ]; then
        echo "missing: $name (MPICH: $want)"; fail=1
    elif [ "$got" != "$want" ]; then
        echo "differs: $name = $got, MPICH: $want"; fail=1
    fi
done < "$tmp/mpich"
commons "$mpich" > "$tmp/mpich.common"
commons "$ours" > "$tmp/ours.common"
if ! cmp -s "$tmp/mpich.common" "$tmp/ours.common"; then
    echo "the COMMON blocks differ:"; diff "$tmp/mpich.common" "$tmp/ours.common" || true; fail=1
fi
echo "$(wc -l < "$tmp/mpich") MPICH PARAMETERs, $(wc -l < "$tmp/ours") of mpix's compared"
[ $fail -eq 0 ] && echo "mpif.h: same as MPICH"
exit $fail
