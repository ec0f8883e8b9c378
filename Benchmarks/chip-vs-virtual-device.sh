#!/usr/bin/env bash
# The CHIP SDK Python controller against our virtual device, N runs (default 10) in a lab of two
# hosts: each run starts a fresh `matterctl virtual-device` on h0 and runs scripts/chip-controller
# on h1 (commission from the QR code, read VendorName, toggle OnOff, remove the fabric).
# Prints each run's commissioning time and the success count and median. Needs root, a built
# matterctl (swift build) and scripts/peers.
#   Benchmarks/chip-vs-virtual-device.sh [RUNS] [extra chip-controller.py options...]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}; shift || true
matterctl=$(pwd)/.build/debug/matterctl
[ -x "$matterctl" ] || { echo "build matterctl first (swift build --product matterctl)" >&2; exit 1; }
lab="bench$$"
scripts/lab up "$lab" --hosts 2 >/dev/null
work=$(mktemp -d /tmp/chip-bench.XXXXXX)
device_pid=
cleanup() {
  [ -n "$device_pid" ] && kill "$device_pid" 2>/dev/null || true
  scripts/lab down "$lab" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
ok=0; times=()
for i in $(seq 1 "$runs"); do
  state="$work/state-$i"; log="$work/device-$i.log"
  scripts/lab exec "$lab" h0 "$matterctl" virtual-device --state "$state" >"$log" 2>&1 &
  device_pid=$!
  for _ in $(seq 1 100); do grep -q "virtual-device: ready" "$log" && break; sleep 0.1; done
  qr=$(awk '/^QR code:/ {print $3}' "$log")
  start=$(date +%s.%N)
  if scripts/lab exec "$lab" h1 scripts/chip-controller "$work/chip-$i" --code "$qr" "$@" >"$work/chip-$i.log" 2>&1; then
    ms=$(python3 -c "import json,sys; print([j for j in map(json.loads, open(sys.argv[1])) if j.get('step')=='commission'][0]['ms'])" "$work/chip-$i/results.jsonl")
    total=$(python3 -c "import sys; print(round((float(sys.argv[2])-float(sys.argv[1]))*1000))" "$start" "$(date +%s.%N)")
    ok=$((ok + 1)); times+=("$ms")
    echo "run $i: ok, commissioning ${ms} ms (whole scenario incl. controller start ${total} ms)"
  else
    echo "run $i: FAILED: $(grep -h '"result"' "$work/chip-$i/results.jsonl" 2>/dev/null || tail -3 "$work/chip-$i.log")"
  fi
  kill "$device_pid" 2>/dev/null || true; wait "$device_pid" 2>/dev/null || true; device_pid=
done
median=$(printf '%s\n' "${times[@]:-}" | python3 -c "import sys,statistics; v=[float(x) for x in sys.stdin if x.strip()]; print(round(statistics.median(v),1) if v else 'n/a')")
echo "CHIP controller vs virtual device: $ok/$runs commissioned end to end; median commissioning ${median} ms"
[ "$ok" -eq "$runs" ]
