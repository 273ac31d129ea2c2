#!/usr/bin/env bash
# The extra runs of the test suite that CI makes besides `npm test` (each can be run by hand too):
#   spec-less                  the files that read the official USP artifacts, with USP_SPEC_DIR
#                              pointing at an empty folder (a clone without ../shared/usp-spec)
#   shifted SHIFT all|processes
#                              the whole suite, or the files that start processes (vitest's
#                              `processes` project: the CLI, serve, mcp over stdio), under Debian's
#                              faketime: SHIFT is +Nd (N days on), dst (two days before
#                              America/New_York's next DST change) or far (two days before the
#                              first such change at least 200 days on: far ahead and across a DST
#                              change in one run, what CI takes)
#   smoke                      the Node 24 pass of CI (with that Node first on PATH): the unit
#                              project and its one isolated file (domain, stores, native SQLite),
#                              the store contract on
#                              PostgreSQL, and one process test per way in: `serve` (REST and MCP
#                              over HTTP), `mcp` over stdio
#   bench [SHIFT]              the benchmark suite's smoke mode (`node bench/run.mjs --quick`, over
#                              dist/, so `npm run build` first), on the real clock or, with SHIFT
#                              (+Nd, dst or far, as above), under faketime: the benchmarks start processes
#                              on the real clock too (the stdio server)
#   list processes|spec        print the files such a run takes
# Every run prints how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."

spec_files() { grep -rlE "support/spec\.js" test --include='*.test.ts' | sort; }
# Files that start a process themselves or through a helper that does: vitest's `processes` project
# (vitest.config.ts picks them).
process_files() { npx vitest list --filesOnly --project processes | sed 's/^\[processes\] //' | sort; }

# The smoke run's process tests, one per door (see `smoke` above).
SMOKE_PROCESS_FILES="test/server/loopback-host.test.ts test/mcp/notifications.test.ts"

# Days from now until two days before the first change of America/New_York's UTC offset at least
# $1 days on (0: the next one).
days_to_dst() {
  node -e '
    const zone = "America/New_York", min = Number(process.argv[1]) || 0;
    const offset = (t) => new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" }).formatToParts(new Date(t)).find((p) => p.type === "timeZoneName").value;
    const now = Date.now();
    for (let d = Math.max(1, min); d < min + 400; d++) if (offset(now + d * 86400000) !== offset(now + (d - 1) * 86400000)) { console.log(Math.max(0, d - 2)); process.exit(0); }
    console.log(min);' "${1:-0}"
}

# SHIFT as given (+Nd), or dst / far turned into days; sets shift_arg and label.
resolve_shift() {
  case "$1" in
    dst) shift_arg="+$(days_to_dst 0)d"; label="across the next DST change ($shift_arg)" ;;
    far) shift_arg="+$(days_to_dst 200)d"; label="far ahead, across a DST change ($shift_arg)" ;;
    *) shift_arg="$1"; label="$1" ;;
  esac
}

timed() {
  local label=$1; shift
  local t0=$SECONDS
  echo "== $label"
  "$@"
  echo "== $label: $((SECONDS - t0)) s"
}

case "${1:-}" in
  spec-less)
    empty=$(mktemp -d)
    trap 'rmdir "$empty"' EXIT
    # shellcheck disable=SC2046
    USP_SPEC_DIR="$empty" timed "spec-less run (USP_SPEC_DIR=$empty)" npx vitest run $(spec_files)
    ;;
  shifted)
    which=${3:-all}
    command -v faketime >/dev/null || { echo "faketime is not installed (apt-get install faketime)" >&2; exit 1; }
    resolve_shift "${2:?shift: +Nd, dst or far}"
    projects=()
    if [ "$which" = processes ]; then projects=(--project processes); fi
    timed "suite ($which) under faketime $label: $(faketime -f "$shift_arg" date -u +%FT%TZ)" faketime -f "$shift_arg" npx vitest run "${projects[@]}"
    ;;
  bench)
    shift_arg=${2:-}
    if [ -z "$shift_arg" ]; then
      timed "bench --quick on the real clock: $(date -u +%FT%TZ)" node bench/run.mjs --quick
    else
      command -v faketime >/dev/null || { echo "faketime is not installed (apt-get install faketime)" >&2; exit 1; }
      resolve_shift "$shift_arg"
      timed "bench --quick under faketime $label: $(faketime -f "$shift_arg" date -u +%FT%TZ)" faketime -f "$shift_arg" node bench/run.mjs --quick
    fi
    ;;
  smoke)
    smoke() {
      npx vitest run --project unit --project postgres
      # The one unit file that spies (so runs in the isolated project); the isolated doors files are not
      # part of the smoke pass (the unit and postgres projects already reach every door in process).
      npx vitest run --project isolated test/domain/
      # shellcheck disable=SC2086
      npx vitest run --project processes $SMOKE_PROCESS_FILES
    }
    timed "smoke run under Node $(node --version)" smoke
    ;;
  list)
    case "${2:-}" in processes) process_files ;; spec) spec_files ;; *) echo "list processes|spec" >&2; exit 2 ;; esac
    ;;
  *)
    sed -n '2,20p' "$0" >&2
    exit 2
    ;;
esac
