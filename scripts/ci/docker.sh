#!/usr/bin/env bash
# Provision a real Docker engine for codecall integration tests.
#
#   scripts/ci/docker.sh            # idempotent; a second run reuses everything
#   source /tmp/codecall-ci/docker/env   # -> DOCKER_HOST, CODECALL_DOCKER_IMAGE
#
# What it does:
#   1. apt-installs docker.io if dockerd is missing (Debian's dockerd 20.10).
#   2. Starts a private dockerd (own socket, data root, exec root and pidfile
#      under $CODECALL_DOCKER_STATE) in the background, or reuses the one a
#      previous run started, and waits until `docker version` answers.
#   3. Builds the local image codecall-test-python:latest without any registry:
#      debootstrap (minbase + python3, procps, util-linux, coreutils, bash) from
#      the Debian mirror apt uses, cached as a tarball in the state dir, then
#      `docker import`. Skipped when the image already exists.
#   4. Smoke-tests `docker run`, `docker exec`, and a hardened `docker run`.
#   5. Writes $STATE/env (export lines) and prints DOCKER_HOST=... on stdout.
#
# Environment overrides:
#   CODECALL_DOCKER_STATE   state dir            (default /tmp/codecall-ci/docker)
#   CODECALL_DOCKER_IMAGE   image name           (default codecall-test-python:latest)
#   CODECALL_DEBIAN_MIRROR  mirror for debootstrap (default: first Debian URI in apt sources)
#   CODECALL_DEBIAN_SUITE   suite for debootstrap  (default: host VERSION_CODENAME)
#
# Stop with scripts/ci/stop.sh.
set -euo pipefail

CI_TAG="ci/docker"
# shellcheck source=scripts/ci/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ci_install_exit_trap
require_root

STATE="${CODECALL_DOCKER_STATE:-/tmp/codecall-ci/docker}"
IMAGE="${CODECALL_DOCKER_IMAGE:-codecall-test-python:latest}"
SOCK="$STATE/docker.sock"
PIDFILE="$STATE/docker.pid"
LOGFILE="$STATE/dockerd.log"
export DOCKER_HOST="unix://$SOCK"

mkdir -p "$STATE"
chmod 755 "$STATE"
lock_state_dir "$STATE"

# --- 1. install ------------------------------------------------------------
if ! command -v dockerd >/dev/null 2>&1; then
  apt_install docker.io
fi
command -v dockerd >/dev/null 2>&1 || die "dockerd not found after installing docker.io"
command -v docker >/dev/null 2>&1 || die "docker CLI not found after installing docker.io"
DOCKER="$(command -v docker)"
dk() { "$DOCKER" -H "$DOCKER_HOST" "$@"; }
# Bounded variant: a wedged daemon must fail the script, not hang CI.
dkt() { timeout -k 5 "$1" "$DOCKER" -H "$DOCKER_HOST" "${@:2}"; }

# --- 2. start dockerd ------------------------------------------------------
engine_answers() { dkt 10 version --format '{{.Server.Version}}' >/dev/null 2>&1; }

pid="$(read_pidfile "$PIDFILE")"
if pid_alive "$pid" && engine_answers; then
  log "reusing running dockerd (pid $pid) on $DOCKER_HOST"
else
  if pid_alive "$pid"; then
    # A dockerd from a previous run that is alive but not answering: restart.
    warn "dockerd pid $pid is alive but not answering; restarting it"
    kill -CONT "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 300); do pid_alive "$pid" || break; sleep 0.1; done
    pid_alive "$pid" && kill -9 "$pid" 2>/dev/null || true
  fi
  mkdir -p "$STATE/data" "$STATE/exec"
  log "starting dockerd on $DOCKER_HOST (log: $LOGFILE)"
  # Gotcha (vendor-sdks.md §3), verified here with dockerd 20.10 + runc 1.1.5:
  # this VM has no CAP_SYS_RESOURCE, so runc cannot set an rlimit above the
  # hard limit dockerd inherited. e.g. `docker run --ulimit nofile=1048576:...`
  # (or HostConfig.Ulimits, or Podman's default nofile=1048576) fails with
  # "error setting rlimit type 7 (NOFILE) / type 6 (NPROC): operation not
  # permitted". Plain `docker run` works because dockerd 20.10 puts no rlimits
  # in the spec unless asked. We pin --default-ulimit to min(inherited hard
  # limit, 65536) so every container gets explicit, satisfiable limits that do
  # not depend on how the CI runner launched us. Tests that pass their own
  # Ulimits must stay <= these values (see `ulimit -Hn` in a container).
  nofile_hard="$(ulimit -Hn)"; [ "$nofile_hard" = unlimited ] && nofile_hard=1048576
  nofile=$((nofile_hard < 65536 ? nofile_hard : 65536))
  nproc_hard="$(ulimit -Hu)"; [ "$nproc_hard" = unlimited ] && nproc_hard=65536
  nproc=$((nproc_hard < 65536 ? nproc_hard : 65536))
  # setsid: own session, so killing the caller's process group (CI step, tool
  # job) does not take dockerd down with it. dockerd spawns its own containerd
  # (state under the exec root / data root), independent of any system one.
  setsid dockerd \
    --host "$DOCKER_HOST" \
    --data-root "$STATE/data" \
    --exec-root "$STATE/exec" \
    --pidfile "$PIDFILE" \
    --default-ulimit "nofile=$nofile:$nofile" \
    --default-ulimit "nproc=$nproc:$nproc" \
    </dev/null >>"$LOGFILE" 2>&1 {CI_LOCK_FD}>&- &
  launched=$!
  ok=0
  for _ in $(seq 1 600); do # up to 60 s
    if engine_answers; then ok=1; break; fi
    if ! pid_alive "$launched"; then break; fi
    sleep 0.1
  done
  if [ "$ok" -ne 1 ]; then
    tail -n 30 "$LOGFILE" >&2 || true
    die "dockerd did not come up on $DOCKER_HOST (see $LOGFILE)"
  fi
  pid="$(read_pidfile "$PIDFILE")"
  [ -n "$pid" ] || { echo "$launched" >"$PIDFILE"; pid="$launched"; }
  log "dockerd $(dk version --format '{{.Server.Version}}') up (pid $pid)"
fi

# --- 3. test image ---------------------------------------------------------
debian_mirror() {
  if [ -n "${CODECALL_DEBIAN_MIRROR:-}" ]; then echo "$CODECALL_DEBIAN_MIRROR"; return; fi
  local suite="$1" f m
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    case "$f" in
      *.sources) # deb822: stanzas separated by blank lines
        m="$(awk -v s="$suite" '
          function flush() { if (types ~ /(^| )deb( |$)/ && (" " suites " ") ~ (" " s " ") && uri != "") { print uri; found=1; exit } types=suites=uri="" }
          /^[ \t]*$/ { flush(); next }
          /^Types:/  { sub(/^Types:[ \t]*/, "");  types=$0 }
          /^Suites:/ { sub(/^Suites:[ \t]*/, ""); suites=$0 }
          /^URIs:/   { uri=$2 }
          END { if (!found) flush() }' "$f")" ;;
      *) # one-line format: deb [opts] URI SUITE COMPONENTS...
        m="$(awk -v s="$suite" '
          $1 == "deb" { i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ }
                        if ($(i+1) == s) { print $i; exit } }' "$f")" ;;
    esac
    if [ -n "$m" ]; then echo "$m"; return; fi
  done
  echo "http://deb.debian.org/debian"
}

SUITE="${CODECALL_DEBIAN_SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")}"
INCLUDE="python3,procps,util-linux,coreutils,bash,ca-certificates"
# Recipe key: suite + package list + arch (+ recipe version). It names the
# cached tarball and is stored as an image label, so changing the recipe
# rebuilds both.
key="$(printf '%s|%s|%s|v2' "$SUITE" "$INCLUDE" "$(dpkg --print-architecture)" | sha256sum | cut -c1-12)"
TARBALL="$STATE/rootfs-$SUITE-$key.tar"
have_key="$(dkt 30 image inspect -f '{{index .Config.Labels "org.codecall.ci.rootfs"}}' "$IMAGE" 2>/dev/null || true)"
if [ "$have_key" = "$key" ]; then
  log "image $IMAGE already present (recipe $key)"
else
  [ -n "$have_key" ] && log "image $IMAGE is from another recipe ($have_key); rebuilding"
  MIRROR="$(debian_mirror "$SUITE")"
  if [ -s "$TARBALL" ]; then
    log "using cached rootfs $TARBALL"
  else
    command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
    ROOTFS="$STATE/rootfs.build"
    rm -rf "$ROOTFS"
    log "debootstrap $SUITE (minbase + $INCLUDE) from $MIRROR (takes ~1-2 min) ..."
    if ! debootstrap --variant=minbase --include="$INCLUDE" "$SUITE" "$ROOTFS" "$MIRROR" \
      >"$STATE/debootstrap.log" 2>&1; then
      tail -n 30 "$STATE/debootstrap.log" >&2 || true
      [ -f "$ROOTFS/debootstrap/debootstrap.log" ] && tail -n 30 "$ROOTFS/debootstrap/debootstrap.log" >&2
      die "debootstrap failed (log: $STATE/debootstrap.log)"
    fi
    [ -x "$ROOTFS/usr/bin/python3" ] || die "debootstrap rootfs has no /usr/bin/python3"
    # Shrink: drop downloaded .debs and apt lists (the image is never apt-updated offline).
    # Docs, man pages and translations are not needed by tests either.
    rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/* \
      "$ROOTFS"/debootstrap "$ROOTFS"/usr/share/doc/* "$ROOTFS"/usr/share/man/* \
      "$ROOTFS"/usr/share/info/* "$ROOTFS"/usr/share/locale/* 2>/dev/null || true
    log "packing rootfs -> $TARBALL"
    tar --numeric-owner -C "$ROOTFS" -cf "$TARBALL.tmp" .
    mv "$TARBALL.tmp" "$TARBALL"
    rm -rf "$ROOTFS"
    # Keep only the current cache entry.
    find "$STATE" -maxdepth 1 -name 'rootfs-*.tar' ! -name "$(basename "$TARBALL")" -delete
  fi
  log "docker import -> $IMAGE"
  dk import \
    --change 'CMD ["/bin/bash"]' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change "LABEL org.codecall.ci.rootfs=$key" \
    - "$IMAGE" <"$TARBALL" >/dev/null
  dk image prune -f >/dev/null 2>&1 || true # drop the previous (now dangling) image
fi

# --- 4. smoke tests --------------------------------------------------------
out="$(dkt 120 run --rm "$IMAGE" python3 -c 'print(1)' 2>&1)" ||
  die "docker run $IMAGE python3 failed: $out"
[ "$out" = 1 ] || die "docker run printed '$out', expected 1"

cname="codecall-ci-smoke-$$"
# Remove smoke containers left behind by an interrupted earlier run.
dkt 30 ps -aq --filter label=org.codecall.ci.smoke | xargs -r "$DOCKER" -H "$DOCKER_HOST" rm -f >/dev/null 2>&1 || true
dkt 120 run -d --label org.codecall.ci.smoke=1 --name "$cname" "$IMAGE" sleep infinity >/dev/null || die "docker run -d failed"
out="$(dkt 60 exec "$cname" sh -c 'python3 -c "print(2)"; command -v ps setsid timeout bash >/dev/null && echo tools-ok' 2>&1)" || {
  dk rm -f "$cname" >/dev/null 2>&1 || true
  die "docker exec failed: $out"
}
dk rm -f "$cname" >/dev/null 2>&1 || true
[ "$out" = "$(printf '2\ntools-ok')" ] || die "docker exec printed '$out', expected 2/tools-ok"

# The options the docker backend uses for sandboxing. On failure, probe each
# option on its own so the message says which one this host cannot do.
SEC_OPTS=(--cap-drop ALL --security-opt no-new-privileges --pids-limit 256 --memory 512m)
if ! out="$(dkt 120 run --rm "${SEC_OPTS[@]}" "$IMAGE" python3 -c 'print(3)' 2>&1)" || [ "$out" != 3 ]; then
  warn "hardened run failed: $out"
  for o in "--cap-drop ALL" "--security-opt no-new-privileges" "--pids-limit 256" "--memory 512m"; do
    # shellcheck disable=SC2086
    if dkt 120 run --rm $o "$IMAGE" true >/dev/null 2>&1; then warn "  $o: ok"; else warn "  $o: FAILS"; fi
  done
  die "docker run ${SEC_OPTS[*]} does not work on this host"
fi
log "smoke tests ok: run, exec, run ${SEC_OPTS[*]}"

# --- 5. env ----------------------------------------------------------------
{
  echo "export DOCKER_HOST=$DOCKER_HOST"
  echo "export CODECALL_DOCKER_IMAGE=$IMAGE"
} >"$STATE/env.tmp"
mv "$STATE/env.tmp" "$STATE/env"

log "done in $(elapsed)s; env written to $STATE/env"
echo "DOCKER_HOST=$DOCKER_HOST"
echo "CODECALL_DOCKER_IMAGE=$IMAGE"
