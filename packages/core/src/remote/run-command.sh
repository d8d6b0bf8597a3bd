# codecall: runs one command inside a remote environment with the semantics of the Environment
# contract. Invoked as `sh -c "<this>" codecall [PIDFILE]`.
#
# The first line of stdin is base64 of shell assignments (CC_CWD, CC_CLEAR, CC_EXPORTS,
# CC_TIMEOUT, CC_GRACE, CC_CMD): the command and its env never appear in argv, where other users
# of the host could read them. The rest of stdin is the command's own.
#
# The command runs in a session of its own, so one signal to its process group reaches every
# process it starts; whatever it leaves running is killed when it exits. PIDFILE (optional) lets
# a second exec kill the group: it holds "starting", then the group id, then "done". The command's
# env then carries CODECALL_TREE=PIDFILE, which its descendants inherit even when they leave the
# group (setsid, double fork): kill-command.sh finds those by it.
cc_pidfile=$1
[ -z "$cc_pidfile" ] || printf 'starting\n' > "$cc_pidfile"
IFS= read -r cc_header || { echo "codecall: missing command header on stdin" >&2; exit 125; }
eval "$(printf '%s' "$cc_header" | base64 -d)" || { echo "codecall: malformed command header" >&2; exit 125; }
if [ -n "$CC_CWD" ] && ! cd -- "$CC_CWD" 2>/dev/null; then
  printf 'codecall: no such working directory: %s\n' "$CC_CWD" >&2
  [ -z "$cc_pidfile" ] || printf 'done\n' > "$cc_pidfile"
  exit 125
fi
cc_setsid=$(command -v setsid) || cc_setsid=
cc_timeout=
if [ -n "$CC_TIMEOUT" ] && cc_timeout_bin=$(command -v timeout); then
  cc_timeout="$cc_timeout_bin -k $CC_GRACE $CC_TIMEOUT"
fi
if [ -n "$CC_CLEAR" ]; then
  cc_names=$(awk 'BEGIN { for (k in ENVIRON) if (k ~ /^[A-Za-z_][A-Za-z0-9_]*$/) print k }')
else
  cc_names=
fi
# A background list gets /dev/null as stdin before its own redirections apply, so `<&0` would
# copy /dev/null: hand our stdin on through fd 3 instead.
exec 3<&0
(
  for cc_name in $cc_names; do unset "$cc_name" 2>/dev/null; done
  eval "$CC_EXPORTS"
  [ -z "$cc_pidfile" ] || export CODECALL_TREE="$cc_pidfile"
  exec $cc_setsid $cc_timeout /bin/sh -c "$CC_CMD"
) 0<&3 3<&- &
exec 3<&-
cc_leader=$!
[ -z "$cc_pidfile" ] || printf '%s\n' "$cc_leader" > "$cc_pidfile"
# dash reports a background job that died of a signal ("Terminated") on the shell's stderr, which
# is the command's: `timeout` re-raises the SIGTERM of a kill. The exit status says it already.
wait "$cc_leader" 2>/dev/null
cc_status=$?
[ -z "$cc_setsid" ] || kill -KILL "-$cc_leader" 2>/dev/null
# What escaped the group (setsid, double fork) goes too, on every exit: a normal one as much as the
# in-environment timeout (after which the host may be gone, so nobody else would end it).
[ -z "$cc_pidfile" ] || cc_sweep KILL
[ -z "$cc_pidfile" ] || printf 'done\n' > "$cc_pidfile"
exit $cc_status
