#!/usr/bin/env bash
# The operator commands against a live worker: status, inspect, control, queue pause/resume/purge,
# call, result, revoke. Uses the worker-cli example's app (build first: `npm run build` at the root).
# Keys go under a fresh prefix, deleted at the end. Needs Redis at REDIS_URL.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
APP="$ROOT/examples/worker-cli/dist/tasks.js"
export CELERIAC_EXAMPLE_PREFIX="celeriac-example-operations-$$"
celeriac() { node "$ROOT/packages/celeriac/dist/cli/main.js" "$@"; }
run() { echo "\$ celeriac $*"; celeriac "$@" -A "$APP"; echo; }

celeriac worker -A "$APP" --pool prefork -c 2 -Q default,reports --hostname worker1@demo --loglevel warn &
WORKER=$!
trap 'kill $WORKER 2>/dev/null || true; redis-cli -u "${REDIS_URL:-redis://127.0.0.1:6379/0}" --scan --pattern "$CELERIAC_EXAMPLE_PREFIX*" | xargs -r redis-cli -u "${REDIS_URL:-redis://127.0.0.1:6379/0}" del >/dev/null' EXIT
until celeriac control ping -A "$APP" --timeout 500ms >/dev/null 2>&1; do :; done

run call demo.convert --args '["q3-report.pdf", 100]'
run queue pause reports
run call cpu.fib --args '[20]' --options '{"queue":"reports"}'
run status
run inspect active
run inspect registered
run control pool-grow 1 --timeout 10s
run queue list
run queue purge reports --yes
run queue resume reports
run call cpu.fib --args '[25]' --wait --timeout 10s
ID=$(celeriac call cpu.fib --args '[26]' --options '{"countdown":"1h"}' -A "$APP")
run revoke "$ID"
run result "$ID" || true
run control shutdown
wait $WORKER
echo "The worker exited with code $? after control shutdown."
