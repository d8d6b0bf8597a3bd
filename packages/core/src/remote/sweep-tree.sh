# codecall: cc_sweep SIGNAL — signals every process whose env carries CODECALL_TREE=$cc_pidfile:
# the descendants of a command that left its process group (setsid, double fork). Linux /proc;
# elsewhere a no-op. The caller's own env has no tag, and an unreadable environ (another user's
# process) is skipped. A process in the middle of an exec shows an empty environ for a moment, so
# the table is read twice: what the first read caught exec'ing, the second finds. Prepended to
# run-command.sh and kill-command.sh, which set cc_pidfile.
cc_sweep() {
  for cc_pass in 1 2; do
    for cc_environ in $(grep -l -F -e "CODECALL_TREE=$cc_pidfile" /proc/[0-9]*/environ 2>/dev/null); do
      cc_found=${cc_environ#/proc/}
      kill "-$1" "${cc_found%/environ}" 2>/dev/null
    done
  done
}
