# codecall daytona bridge: runs "$@" as one Daytona session command with binary-safe stdio.
# Invoked as `sh -c "<this>" codecall-bridge COMMAND...` with fd 3 holding the first stdin lines
# (embedded in the session command) and fd 0 the session's input pipe (lines sent later).
#
# Why a bridge: the daemon's session machinery is line-based text. It labels each output line
# for its stdout/stderr demultiplexer (adding a newline to a last partial line, dropping NULs, and
# delivering nothing of a line until its newline), appends a newline to every input it is sent,
# and tells the end of a command only about a second after it. So both ways travel as base64:
# - stdin: lines `>BASE64` decoded in order; the line `>.` closes the command's stdin;
# - stdout and stderr: each read of the command's output as base64 lines of 2000 characters,
#   each tagged with its stream (`o`, `e`), the last one of a read ending in `.`, sent as soon as
#   the read returns; at the end `o!STATUS` and `e!STATUS`. The host knows the command ended when
#   both marks arrived, without waiting for the daemon.
# The tags make the lines' stream independent of the daemon's labels, which the SDK misreads when
# a log message ends right after one. The line length is a trade: the SDK's demultiplexer costs
# about (labels in a message) x (message size), so lines much shorter than the daemon's 1 KiB
# messages make large outputs several times slower; lines well under 4 KiB are one write each in
# the log, so the daemon's two labellers never interleave inside a line.
# No line is shorter than two characters: the SDK holds back a message whose text after the
# daemon's stream label is under three bytes until more arrives — for a last line, a second.
cc_dir=$(umask 077 && mktemp -d "${TMPDIR:-/tmp}/codecall-io-XXXXXX") || {
  echo "codecall: cannot create a private directory for the command's pipes" >&2
  exit 125
}
trap 'rm -rf "$cc_dir"' EXIT
mkfifo "$cc_dir/in" "$cc_dir/out" "$cc_dir/err" || exit 125

# Input lines to bytes; returns 2 at the end-of-input line, 0 when its source ends first.
cc_decode() {
  while IFS= read -r cc_line; do
    case $cc_line in
      '>.') return 2 ;;
      '>'?*) printf '%s\n' "${cc_line#>}" | base64 -d || return 1 ;;
    esac
  done
  return 0
}

# One read() of the pipe at a time (dd count=1), so output leaves as soon as it is written.
cc_encode() {
  while cc_chunk=$(dd bs=49152 count=1 2>/dev/null | base64 -w 2000 | sed "s/^/$1/") && [ -n "$cc_chunk" ]; do
    printf '%s.\n' "$cc_chunk"
  done
}

cc_encode o <"$cc_dir/out" &
cc_out=$!
cc_encode e <"$cc_dir/err" >&2 &
cc_err=$!
# A background list gets /dev/null as stdin: the session's input goes to it on fd 4.
exec 4<&0
{
  cc_decode <&3
  [ $? -eq 2 ] || cc_decode <&4
} >"$cc_dir/in" &
cc_in=$!
exec 3<&- 4<&-
"$@" <"$cc_dir/in" >"$cc_dir/out" 2>"$cc_dir/err"
cc_status=$?
# Input nobody will read any more must not keep the session busy.
kill "$cc_in" 2>/dev/null && wait "$cc_in" 2>/dev/null
wait "$cc_out" "$cc_err" 2>/dev/null
printf 'o!%s\n' "$cc_status"
printf 'e!%s\n' "$cc_status" >&2
