# shellcheck shell=bash
# Shared helpers for scripts/ci/*.sh. Source it; do not execute it.
#
# Every helper writes progress to stderr so that stdout stays clean for the
# final "VAR=value" lines that callers may want to capture.

CI_TAG="${CI_TAG:-ci}"
CI_T0="$(date +%s.%N)"

log() { printf '[%s] %s\n' "$CI_TAG" "$*" >&2; }
warn() { printf '[%s] WARNING: %s\n' "$CI_TAG" "$*" >&2; }
die() {
  printf '[%s] ERROR: %s\n' "$CI_TAG" "$*" >&2
  exit 1
}

elapsed() { awk -v a="$CI_T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }

# Print "FAILED after Ns" on any non-zero exit (set -e included).
ci_install_exit_trap() {
  trap 'rc=$?; if [ "$rc" -ne 0 ]; then printf "[%s] FAILED (exit %s) after %ss\n" "$CI_TAG" "$rc" "$(elapsed)" >&2; fi' EXIT
}

require_root() {
  [ "$(id -u)" -eq 0 ] || die "must run as root (needs apt, dockerd/sshd, useradd)"
}

# True if $1 (a pid) is alive and is not a zombie.
pid_alive() {
  local pid="$1" state
  [ -n "$pid" ] && [ "$pid" -gt 0 ] 2>/dev/null || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  state="$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)"
  [ "$state" != "Z" ]
}

read_pidfile() { [ -s "$1" ] && tr -dc '0-9' <"$1" || true; }

# --- apt -------------------------------------------------------------------

# Succeeds if every named package is installed (dpkg status "install ok installed").
pkgs_installed() {
  local p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || return 1
  done
}

_apt_has_candidate() {
  local c
  c="$(apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ {print $2; exit}')"
  [ -n "$c" ] && [ "$c" != "(none)" ]
}

CI_APT_LOG="${CI_APT_LOG:-/tmp/codecall-ci/apt.log}"

_apt_update() {
  log "apt-get update ... (log: $CI_APT_LOG)"
  # Some configured third-party sources may be unreachable from CI; apt still
  # refreshes the Debian ones, so a failure here is only a warning.
  apt-get -o DPkg::Lock::Timeout=300 update >>"$CI_APT_LOG" 2>&1 ||
    warn "apt-get update reported errors (continuing; see $CI_APT_LOG)"
}

# apt_install PKG...: installs the missing ones. Runs `apt-get update` only when
# a package has no install candidate (no/stale lists) or the first install
# attempt fails (e.g. 404 from stale lists). Service autostart is suppressed via
# a temporary policy-rc.d so that the docker.io / openssh-server postinst scripts
# do not launch a *system* dockerd (/var/run/docker.sock) or sshd (port 22).
apt_install() {
  local missing=() p
  for p in "$@"; do pkgs_installed "$p" || missing+=("$p"); done
  [ "${#missing[@]}" -eq 0 ] && return 0

  export DEBIAN_FRONTEND=noninteractive
  local need_update=0
  for p in "${missing[@]}"; do _apt_has_candidate "$p" || need_update=1; done
  [ "$need_update" -eq 1 ] && _apt_update

  local created_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\n# temporary, created by codecall scripts/ci\nexit 101\n' >/usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    created_policy=1
  fi

  mkdir -p "$(dirname "$CI_APT_LOG")"
  local rc=0
  local apt_opts=(-y -qq --no-install-recommends -o DPkg::Lock::Timeout=300
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
  log "apt-get install ${missing[*]} ... (log: $CI_APT_LOG)"
  if ! apt-get install "${apt_opts[@]}" "${missing[@]}" >>"$CI_APT_LOG" 2>&1; then
    if [ "$need_update" -eq 0 ]; then
      warn "apt-get install failed; refreshing package lists and retrying"
      _apt_update
      apt-get install "${apt_opts[@]}" "${missing[@]}" >>"$CI_APT_LOG" 2>&1 || rc=$?
    else
      rc=1
    fi
  fi

  if [ "$created_policy" -eq 1 ] && grep -q 'created by codecall scripts/ci' /usr/sbin/policy-rc.d 2>/dev/null; then
    rm -f /usr/sbin/policy-rc.d
  fi
  if [ "$rc" -ne 0 ]; then tail -n 20 "$CI_APT_LOG" >&2 || true; fi
  [ "$rc" -eq 0 ] || die "apt-get install ${missing[*]} failed (is deb.debian.org reachable?)"
}

# Serialise concurrent runs of the same script on one state dir.
# IMPORTANT: daemons started while the lock is held must not inherit the lock
# fd (flock locks belong to the open file description, so a daemon holding it
# would block every later run). Launch them with  {CI_LOCK_FD}>&-
lock_state_dir() {
  local dir="$1"
  exec {CI_LOCK_FD}>"$dir/.lock"
  if ! flock -n "$CI_LOCK_FD"; then
    log "another run holds $dir/.lock; waiting (max 600s) ..."
    flock -w 600 "$CI_LOCK_FD" || die "timed out waiting for $dir/.lock"
  fi
}
