# codecall file transport: one host poll, run by `sh` inside the environment.
#
# The host puts these settings in front of this text (see poll-script.ts):
#   rpc         the run's RPC dir: requests/ claimed/ responses/ guest-tmp/ host-tmp/
#   boundary    random per poll; starts every header line of the output
#   max_file    a request file larger than this is reported by its size only
#   budget      bytes of request content one poll prints (always at least one request)
#   max_claims  requests one poll claims
#   linger      ms to wait for a next request after writing answers (0: do not wait)
#   has_input   1 when stdin carries responses and acknowledgements
#   closing     1 for the last poll: write the responses, leave the `closed` marker, claim nothing
#
# Stdin, one line each: "R <id> <response frame>" or "A <id>" (the host holds <id>'s request, so
# its claimed file can go). Output: "<boundary> <id> <new|old> <size>" then the request file and a
# newline, for each request printed; then "<boundary> end", which proves the output is complete.
# Ids reach the host only after the checks below, and the host checks them again.
LC_ALL=C
export LC_ALL
umask 077
# Gone: the run has ended and core removed its dir. Never recreate anything in it.
cd "$rpc" 2>/dev/null || exit 86

# 1. Responses go to host-tmp/ and are then renamed into responses/, so a guest never reads a
#    partial file. One awk, one mv and one rm for all of them: no payload reaches a command line.
if [ "$has_input" = 1 ]; then
  acked=$(awk -v FS='\n' '
    substr($0, 1, 2) == "R " {
      rest = substr($0, 3); cut = index(rest, " ")
      file = "host-tmp/" substr(rest, 1, cut - 1) ".json"
      print substr(rest, cut + 1) > file; close(file); next
    }
    substr($0, 1, 2) == "A " { print "claimed/" substr($0, 3) ".json" }
  ') || exit 1
  set -- host-tmp/*.json
  if [ -e "$1" ]; then
    mv -f -- "$@" responses/ || exit 1
    answered=1
  fi
  # Unquoted on purpose: a list of validated names ([A-Za-z0-9_-]), split into arguments.
  if [ -n "$acked" ]; then rm -f -- $acked || exit 1; fi
fi

if [ "$closing" = 1 ]; then
  # Written after the last responses: a guest that sees it has seen every answer there will be.
  : > closed || exit 1
  echo "$boundary end"
  exit 0
fi

# Linger: answers just went out, and a script that calls tools one after another writes its next
# request within a few milliseconds. Waiting for it here is far cheaper than a whole new poll (one
# more backend exec). `sleep` with a fraction is not POSIX; where it fails, this ends at once.
if [ "${answered:-0}" = 1 ] && [ "$linger" -gt 0 ]; then
  waited=0
  while [ "$waited" -lt "$linger" ]; do
    set -- requests/*
    [ -e "$1" ] && break
    sleep 0.002 2>/dev/null || break
    waited=$((waited + 2))
  done
fi

# A guest may put anything in requests/ and claimed/: only a regular file (not a symlink, FIFO or
# directory, whose read could block or escape) named <id>.json with a valid id is a request.
# Sets $id.
is_request() {
  name=${1##*/}
  id=${name%.json}
  [ "$id.json" = "$name" ] || return 1
  case $id in
    '' | *[!A-Za-z0-9_-]*) return 1 ;;
  esac
  [ "${#id}" -le 128 ] && [ -f "$1" ] && [ ! -h "$1" ]
}

# 2. Claim: rename new requests into claimed/ (one rename each, so no request is claimed twice).
#    Anything else is removed unread.
set --
new=" "
for path in requests/* requests/.[!.]* requests/..?*; do
  [ -e "$path" ] || [ -h "$path" ] || continue
  if ! is_request "$path"; then
    rm -rf -- "$path"
    continue
  fi
  # A guest reused an id whose first request the host does not hold yet: take this one later.
  [ -e "claimed/$name" ] && continue
  [ "$#" -lt "$max_claims" ] || break
  set -- "$@" "$path"
  new="$new$id "
done
if [ "$#" -gt 0 ]; then mv -f -- "$@" claimed/; fi

# 3. Print every claimed request the host has not acknowledged: the new ones, and old ones whose
#    earlier output was lost or did not fit the budget. One awk reads each file whole (RS is a
#    byte requests never hold); one over the limit is reported by its size only, and one poll
#    prints about `budget` bytes at most.
set --
for path in claimed/* claimed/.[!.]* claimed/..?*; do
  [ -e "$path" ] || [ -h "$path" ] || continue
  if is_request "$path"; then set -- "$@" "$path"; else rm -rf -- "$path"; fi
done
if [ "$#" -gt 0 ]; then
  awk -v boundary="$boundary" -v max_file="$max_file" -v budget="$budget" -v new="$new" 'BEGIN {
    RS = "\001"
    for (i = 1; i < ARGC; i++) {
      path = ARGV[i]
      id = substr(path, 9, length(path) - 13)
      age = index(new, " " id " ") ? "new" : "old"
      content = ""
      if ((getline content < path) < 0) continue
      close(path)
      size = length(content)
      if (size > max_file) printf "%s %s %s %d\n\n", boundary, id, age, size
      else if (printed == 0 || printed + size <= budget) {
        printf "%s %s %s %d\n%s\n", boundary, id, age, size, content
        printed += size
      }
    }
  }' "$@" || exit 1
fi
echo "$boundary end"
