#!/usr/bin/env bash
# Stop the dockerd and sshd started by scripts/ci/docker.sh and scripts/ci/sshd.sh.
#
#   scripts/ci/stop.sh           # stop both daemons; keep state (image, rootfs cache, keys)
#   scripts/ci/stop.sh --purge   # also delete both state dirs (next setup starts from scratch)
#
# Only the processes named in the scripts' pid files are signalled. Idempotent:
# nothing running is not an error. Honours CODECALL_DOCKER_STATE / CODECALL_SSHD_STATE.
set -euo pipefail

CI_TAG="ci/stop"
# shellcheck source=scripts/ci/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PURGE=0
case "${1:-}" in
  "") ;;
  --purge) PURGE=1 ;;
  *) die "usage: $0 [--purge]" ;;
esac

DOCKER_STATE="${CODECALL_DOCKER_STATE:-/tmp/codecall-ci/docker}"
SSHD_STATE="${CODECALL_SSHD_STATE:-/tmp/codecall-ci/sshd}"

# stop_pidfile NAME PIDFILE EXPECTED_COMM TIMEOUT_S
stop_pidfile() {
  local name="$1" pidfile="$2" comm="$3" timeout="$4" pid
  pid="$(read_pidfile "$pidfile")"
  if ! pid_alive "$pid"; then
    log "$name: not running"
    rm -f "$pidfile"
    return 0
  fi
  # Guard against a recycled pid belonging to something else.
  if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$comm" ]; then
    warn "$name: pid $pid from $pidfile is '$(cat "/proc/$pid/comm" 2>/dev/null)', not $comm; leaving it alone"
    rm -f "$pidfile"
    return 0
  fi
  log "$name: stopping pid $pid"
  kill -TERM "$pid" 2>/dev/null || true
  local i
  for ((i = 0; i < timeout * 10; i++)); do
    pid_alive "$pid" || break
    sleep 0.1
  done
  if pid_alive "$pid"; then
    warn "$name: pid $pid did not exit after ${timeout}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    sleep 0.5
  fi
  rm -f "$pidfile"
  log "$name: stopped"
}

# dockerd stops its containers and its own containerd on SIGTERM (allow ~30s).
stop_pidfile dockerd "$DOCKER_STATE/docker.pid" dockerd 30
stop_pidfile sshd "$SSHD_STATE/sshd.pid" sshd 10

# A SIGKILLed dockerd can leave its containerd child and container shims
# behind; they are identified by the private exec root in their command line.
if [ -d "$DOCKER_STATE/exec" ]; then
  for p in $(pgrep -f -- "$DOCKER_STATE/exec" 2>/dev/null || true); do
    [ "$p" = "$$" ] && continue
    log "dockerd: stopping leftover process $p ($(cat "/proc/$p/comm" 2>/dev/null || echo '?'))"
    kill -TERM "$p" 2>/dev/null || true
  done
fi

if [ "$PURGE" -eq 1 ]; then
  # Unmount anything dockerd left mounted under its state dir before deleting it.
  if [ -d "$DOCKER_STATE" ]; then
    awk -v d="$DOCKER_STATE/" 'index($2, d) == 1 { print $2 }' /proc/mounts | sort -r |
      while read -r m; do umount -l "$m" 2>/dev/null || true; done
  fi
  for d in "$DOCKER_STATE" "$SSHD_STATE"; do
    if [ -e "$d" ]; then
      log "purging $d"
      rm -rf "$d"
    fi
  done
fi
log "done in $(elapsed)s"
