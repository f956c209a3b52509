# The steps of bench/gpu/run.sh (sourced by it, and by test/bench/gpu-step.test.ts); run from the
# project root.
#
# step NAME SECONDS COMMAND…: runs one step with its limit and says in run.log how it ended (on
# stderr: a step's stdout is its result file). A suite's JSON is removed first, so a step that
# fails or runs out leaves none to be copied as if it were this run's.
step() {
    local name=$1 limit=$2; shift 2
    local t0=$SECONDS
    rm -f "bench/.work/$name.json"
    echo "== $name (limit ${limit}s) $(date -u +%H:%M:%S), load $(cut -d' ' -f1 /proc/loadavg)" >&2
    timeout --signal=INT --kill-after=15 "$limit" "$@"
    local rc=$?
    echo "== $name: exit $rc after $((SECONDS - t0)) s$([ $rc -eq 124 ] && echo ' (time limit)')" >&2
}
