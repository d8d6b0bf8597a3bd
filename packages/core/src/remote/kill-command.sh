# codecall: ends the process group recorded in a pidfile written by run-command.sh, and the
# processes that left it (setsid, double fork) but still carry CODECALL_TREE=PIDFILE in their env.
# Invoked as `sh -c "<this>" codecall PIDFILE GRACE_TENTHS`: SIGTERM, then SIGKILL once the grace
# (in tenths of a second) has passed and anything is left; SIGKILL at once when it is 0.
# (dash's kill builtin takes neither `--` nor `-s`: `kill -SIG -PGID` is the form every shell accepts.)
cc_pidfile=$1
cc_grace=${2:-0}
cc_i=0
# The command may not have written its group id yet; it does so within milliseconds of starting.
while :; do
  cc_pid=$(cat "$cc_pidfile" 2>/dev/null)
  case "$cc_pid" in
    done)
      # The command has ended; what escaped its group may still run.
      cc_sweep KILL
      exit 0
      ;;
    '' | starting)
      [ "$cc_i" -ge 100 ] && exit 0
      cc_i=$((cc_i + 1))
      sleep 0.05
      ;;
    *) break ;;
  esac
done
if [ "$cc_grace" -gt 0 ]; then
  kill -TERM "-$cc_pid" 2>/dev/null || kill -TERM "$cc_pid" 2>/dev/null
  cc_sweep TERM
  cc_i=0
  while [ "$cc_i" -lt "$cc_grace" ] && kill -0 "-$cc_pid" 2>/dev/null; do
    sleep 0.1
    cc_i=$((cc_i + 1))
  done
fi
kill -KILL "-$cc_pid" 2>/dev/null || kill -KILL "$cc_pid" 2>/dev/null
cc_sweep KILL
exit 0
