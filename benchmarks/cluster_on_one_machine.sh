#!/bin/sh
# A cluster of separate hosts on this machine (root, iproute2): a Dask scheduler, worker
# hosts each with a /dev/shm of its own, and a driver host, in network namespaces on a
# bridge (10.77.0.0/24). Builds a table on it, compares it with a one-process build of the
# same table, and removes everything, even when interrupted.
#   sh benchmarks/cluster_on_one_machine.sh [WORKERS]
set -eu
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python}
WORKERS=${1:-2}
OUT=$(mktemp -d)
trap '$PYTHON -m tests.hosts down; rm -rf "$OUT"' EXIT INT TERM
$PYTHON -m tests.hosts up --workers "$WORKERS"
START=$(date +%s.%N)
ip netns exec tbdemo-drv env PYTHONPATH="$PWD" $PYTHON -m tablebase build chomp --rows 12 --cols 12 \
    --partition-rows 16000 --out "$OUT/apart" --scheduler tcp://10.77.0.1:8786 --quiet
echo "built on $WORKERS worker hosts in $(echo "$(date +%s.%N) - $START" | bc) s"
$PYTHON -m tablebase build chomp --rows 12 --cols 12 --partition-rows 16000 --out "$OUT/local" --workers 1 --quiet
(cd "$OUT/apart/chomp_12x12" && find . -type f | sort | xargs sha256sum) > "$OUT/apart.sha"
(cd "$OUT/local/chomp_12x12" && find . -type f | sort | xargs sha256sum) > "$OUT/local.sha"
if cmp -s "$OUT/apart.sha" "$OUT/local.sha"; then
    echo "identical: $(wc -l < "$OUT/apart.sha") files, sha256 alike"
else
    echo "DIFFERENT"; diff "$OUT/apart.sha" "$OUT/local.sha" | head; exit 1
fi
