#!/usr/bin/env bash
# The README's commands that need no outside service, run from top to bottom as a newcomer would
# from a clone (after `npm install`): the demo started with `npm start`, the five curl steps against
# it (the ids each step prints fill the next one's placeholders), `init`, `validate`, `import` and
# `export` of her own business. Every command's text is read from README.md itself, so a README that
# drifts from the code fails here. Fails on a command that fails, and on any warning line printed
# (npm's or the server's), except the sandbox's own notice, which `npm start` exists to give.
# Everything is written in a temporary folder; the server listens on a free port.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
README="$ROOT/README.md"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/usp-readme-XXXXXX")"
LOG="$WORK/output.log"
export XDG_DATA_HOME="$WORK/data"
export npm_config_update_notifier=false
SERVER_PID=""
# npm start runs the server as a grandchild (npm -> sh -> node): it is started in a process group of
# its own and the whole group is stopped, or the server outlives the script (it did, in CI).
stop_server() {
  kill -- "-$SERVER_PID" 2>/dev/null || kill "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}
cleanup() {
  if [ -n "$SERVER_PID" ]; then stop_server; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

say() { printf '== %s\n' "$*"; }
fail() { printf 'readme-commands: %s\n' "$*" >&2; [ -f "$LOG" ] && tail -n 40 "$LOG" >&2; exit 1; }

# The fenced block that follows the line matching $1 (the first one after it).
block_after() {
  awk -v pat="$1" 'found && /^```/ { if (inb) exit; inb = 1; next } inb { print } !found && index($0, pat) { found = 1 }' "$README"
}

# A free port on loopback.
PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
json() { node -e 'let d="";process.stdin.on("data",c=>d+=c).on("end",()=>{const v=JSON.parse(d);console.log(eval("v"+process.argv[1]))})' "$1"; }

cd "$ROOT"
say "npm start (the demo, on port $PORT)"
PORT="$PORT" setsid npm start >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 200); do grep -q 'is open at' "$WORK/server.log" && break; sleep 0.1; done
grep -q 'is open at' "$WORK/server.log" || fail "npm start did not say it is open: $(cat "$WORK/server.log")"

say "Try it with curl (five steps)"
CURL="$(block_after '## Try it with curl' | sed "s/localhost:8787/127.0.0.1:$PORT/g")"
# Each step is the README's text, run in order; the ids the previous step printed fill the placeholders.
step() { awk -v n="$1" '/^# [0-9]\./ { cur = substr($2, 1, 1) } cur == n && !/^#/ { print }' <<<"$CURL"; }
STEP1="$(bash -c "$(step 1)")"; [ "$(json .services.length <<<"$STEP1")" -gt 0 ] || fail "step 1 listed no service: $STEP1"
STEP2="$(bash -c "$(step 2)")"; SLOT="$(json '.slots[0].id' <<<"$STEP2")"
STEP3="$(bash -c "$(step 3 | sed "s/<slot id from step 2>/$SLOT/")")"; HOLD="$(json '.hold.id' <<<"$STEP3")"
STEP4="$(bash -c "$(step 4 | sed "s/<slot id>/$SLOT/; s/<hold id>/$HOLD/")")"; BOOKING="$(json '.booking.id' <<<"$STEP4")"
[ "$(json .booking.status <<<"$STEP4")" = confirmed ] || fail "step 4 did not book: $STEP4"
STEP5="$(bash -c "$(step 5 | sed "s/<booking id>/$BOOKING/")")"
[ "$(json .booking.status <<<"$STEP5")" = canceled ] || fail "step 5 did not cancel: $STEP5"
stop_server
cat "$WORK/server.log" >>"$LOG"

say "Your own business: init, validate, import, export"
mkdir -p "$WORK/own" && cd "$WORK/own"
# npx finds the clone's own command from inside the clone: run the README's lines with the clone as npm's prefix.
NPX_PREFIX="npx --prefix $ROOT"
run_block() { sed "s#npx usp-server#$NPX_PREFIX usp-server#g" | bash -e >>"$LOG" 2>&1 || fail "a README command failed"; }
block_after 'Start with `init`' | grep -v '^#' | run_block
[ -f business.json ] || fail "init wrote no business.json"
$NPX_PREFIX usp-server validate business.json >>"$LOG" 2>&1 || fail "validate refused init's file"
awk '/^```sh$/ { inb = 1; next } /^```/ { inb = 0 } inb && /usp-server (import|export) .*shop\.db/' "$README" | run_block
[ -s business.json ] || fail "export left business.json empty"

say "no warning line"
# Warnings: npm's, Node's, a log line at level warn. Two are the README's own, expected: the sandbox
# notice of npm start, and the walkthrough's documentation profile (agent.example) whose webhooks
# are skipped, as its "Webhooks" section says.
EXPECTED='SANDBOX: privileged operations are accepted|"target":"profile:https://agent.example/profile.json".*webhook target is a reserved name'
if grep -inE 'npm warn|EBADENGINE|\(node:[0-9]+\) .*warning|"level":"warn"|^warn' "$LOG" | grep -vE "$EXPECTED" >"$WORK/warnings"; then
  fail "warning lines:
$(cat "$WORK/warnings")"
fi
say "every README command ran as written"
