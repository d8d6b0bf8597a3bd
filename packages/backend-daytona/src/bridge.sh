# codecall daytona bridge: runs "$@" as one Daytona session command with binary-safe stdio.
# Invoked as `sh -c "<this>" codecall-bridge PYTHON COMMAND...` with fd 3 holding the first stdin
# lines (embedded in the session command) and fd 0 the session's input pipe (lines sent later).
# PYTHON is bridge.py, the same in one python3 process, which takes over where the sandbox has
# python3 (-I -S: no user site, no PYTHON* variables, no site imports); this is the fallback.
#
# Why a bridge: the daemon's session machinery is line-based text. It labels each output line
# for its stdout/stderr demultiplexer (adding a newline to a last partial line, dropping NULs, and
# delivering nothing of a line until its newline), appends a newline to every input it is sent,
# and tells the end of a command only about a second after it. So both ways travel as base64:
# - stdin: lines `>BASE64` decoded in order; the line `>.` closes the command's stdin;
# - stdout and stderr: each read of the command's output as base64 lines of 2000 characters,
#   each tagged with its stream and numbered in it (`o7:...`, `e3:...`), the last one of a read
#   ending in `.`, sent as soon as the read returns. Each stream starts with the line `o0:.`
#   (`e0:.`), written before anything else, and ends with `o<n>:!STATUS`: the host knows the
#   command ended when both arrived, without waiting for the daemon.
# The tags and numbers are for the SDK's log demultiplexer, which misreads a log message that
# ends right after a stream label: the label's lines go to the wrong stream, or — before the
# first label it recognised — are dropped. The host routes lines by tag, and takes what a number
# says is missing from the stored log (see output-order.ts); the first lines make sure that
# what a stream drops at its start is always noticed. The line length is a trade: the SDK's
# demultiplexer costs about (labels in a message) x (message size), so lines much shorter than
# the daemon's 1 KiB messages make large outputs several times slower; lines well under 4 KiB are
# one write each in the log, so the daemon's two labellers never interleave inside a line.
# No line is shorter than three characters: the SDK holds back a message whose text after the
# daemon's stream label is under three bytes until more arrives — for a last line, a second.
cc_py=$1
shift
if [ -n "$cc_py" ] && command -v python3 >/dev/null 2>&1; then exec python3 -I -S -c "$cc_py" "$@"; fi
printf 'o0:.\n'
printf 'e0:.\n' >&2
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

cc_nl='
'
# One read() of the pipe at a time (dd count=1), so output leaves as soon as it is written, as
# lines numbered from 1; the next number is left in $cc_dir/TAG.next for the end mark.
cc_encode() {
  cc_tag=$1
  cc_n=1
  set -f
  while cc_chunk=$(dd bs=49152 count=1 2>/dev/null | base64 -w 2000) && [ -n "$cc_chunk" ]; do
    IFS=$cc_nl
    # shellcheck disable=SC2086 # split into the base64 lines on purpose
    set -- $cc_chunk
    unset IFS
    while [ $# -gt 1 ]; do
      printf '%s%s:%s\n' "$cc_tag" "$cc_n" "$1"
      cc_n=$((cc_n + 1))
      shift
    done
    printf '%s%s:%s.\n' "$cc_tag" "$cc_n" "$1"
    cc_n=$((cc_n + 1))
  done
  echo "$cc_n" >"$cc_dir/$cc_tag.next"
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
# A stream whose encoder did not finish gets no end mark: the host then waits for the daemon's
# exit code, which is the command's status too.
{ read -r cc_n <"$cc_dir/o.next"; } 2>/dev/null && printf 'o%s:!%s\n' "$cc_n" "$cc_status"
{ read -r cc_n <"$cc_dir/e.next"; } 2>/dev/null && printf 'e%s:!%s\n' "$cc_n" "$cc_status" >&2
exit "$cc_status"
