"""The fixed ``sh`` scripts DockerWorkspace runs in the container.

Paths, sizes and tokens reach them as argv, never spliced into the text. Every
script checks with ``realpath`` that the folders it touches stay inside the
workdir (``$W``) and exits with the shared codes of :mod:`workspaces._posix`.
Scripts fed on stdin read it through ``rd CMD...`` and ``drain``: with ``$T``
set (the image has ``sleep``), a watchdog ends the reader after ``$T`` seconds, so
a stream the engine stopped feeding (it died mid-send, and with live-restore the
command lives on) ends the script instead of blocking it forever. The watchdog
holds no output pipe and no lock descriptor (busybox's ``timeout`` would: its
watcher keeps inherited descriptors up to a second after the command ends).
"""

__all__ = ["APPEND", "INIT", "LIST", "PRELUDE", "READ", "REMOVE", "REMOVE_IF", "STAT", "WRITE"]

PRELUDE = r"""
inside() {
  r=$(realpath "$1") || exit 1
  case $r in "$W"|"$W"/*) ;; *) echo "$1 resolves outside the workdir" >&2; exit $E_OUTSIDE;; esac
}
parent() { case $1 in */*) d=./${1%/*};; *) d=.;; esac; }
rd() {
  [ -n "$T" ] || { "$@"; return; }
  exec 7<&0; "$@" <&7 7<&- & c=$!; exec 7<&-
  (trap 'kill $s 2>/dev/null; exit 0' TERM; sleep "$T" & s=$!; wait $s && kill $c) \
    </dev/null >/dev/null 2>&1 8>&- 9>&- &
  w=$!; wait $c; r=$?; kill $w 2>/dev/null; return $r
}
drain() { rd cat >/dev/null 2>&1; }
"""

INIT = r"""
mkdir -p "$1" && realpath "$1" || exit 1
shift
for t; do command -v "$t" >/dev/null 2>&1 || echo "missing $t"; done
"""

READ = r"""
p=./$1
[ -e "$p" ] || { echo "no such file: $1" >&2; exit $E_MISSING; }
inside "$p"
[ -d "$p" ] && { echo "is a directory: $1" >&2; exit $E_ISDIR; }
if [ "$3" -ge 0 ]; then
  exec dd if="$p" bs=65536 skip="$2" count="$3" iflag=skip_bytes,count_bytes status=none
fi
exec dd if="$p" bs=65536 skip="$2" iflag=skip_bytes status=none
"""

STAT = r"""
p=./$1
{ [ -f "$p" ] && [ ! -L "$p" ]; } || exit 0
inside "$p"
exec stat -c '%s|%y' "$p"
"""

LIST = r"""
p=./$1
{ [ -d "$p" ] && [ ! -L "$p" ]; } || exit 0
inside "$p"
exec find "$p" -type f ! -name "$2" -exec stat -c '%s|%y|%n' {} +
"""

WRITE = r"""
trap drain EXIT
mode=$1; tok=$2; n=$3; shift 3
i=0
while [ "$i" -lt "$n" ]; do
  mkdir -p "./$1" || exit 1
  inside "./$1"
  shift; i=$((i+1))
done
cleanup() { i=0; for f; do parent "$f"; rm -f "$d/.tmp-$tok-$i"; i=$((i+1)); done; }
rd tar -x -m -o -f - || { cleanup "$@"; exit 1; }
i=0
for f; do
  parent "$f"; t=$d/.tmp-$tok-$i; q=./$f
  if [ "$mode" = x ]; then
    if [ -e "$q" ] || [ -L "$q" ]; then echo 0
    elif ln -n "$t" "$q" 2>/dev/null; then echo 1
    elif [ -e "$q" ] || [ -L "$q" ]; then echo 0
    else ln -n "$t" "$q"; cleanup "$@"; exit 1
    fi
    rm -f "$t"
  else
    if [ -d "$q" ] && [ ! -L "$q" ]; then echo "is a directory: $f" >&2; cleanup "$@"; exit $E_ISDIR; fi
    mv -f -T "$t" "$q" || { cleanup "$@"; exit 1; }
    echo 1
  fi
  i=$((i+1))
done
"""

APPEND = r"""
trap drain EXIT
p=./$1; n=$2
parent "$1"
mkdir -p "$d" || exit 1
inside "$d"
[ -L "$p" ] && { echo "refusing to append through a symlink: $1" >&2; exit $E_OUTSIDE; }
t=$d/.tmp-$3
rd cat > "$t" || { rm -f "$t"; exit 1; }
s=$(stat -c %s "$t")
[ "$s" = "$n" ] || { rm -f "$t"; echo "received $s of $n bytes" >&2; exit $E_SHORT; }
if [ "$4" = 1 ]; then
  while :; do
    exec 9>>"$p" && flock 9 || { rm -f "$t"; exit 1; }
    [ "$p" -ef /proc/self/fd/9 ] && break
    exec 9>&-
  done
  if [ "$5" = 1 ] && [ -s "$p" ] && [ -n "$(tail -c 1 "$p")" ]; then  # a dead writer's torn line: cut it
    l=$(tail -n 1 "$p" | wc -c) && truncate -s $(($(stat -c %s "$p") - l)) "$p" || { rm -f "$t"; exit 1; }
  fi
fi
before=$(stat -c %s "$p" 2>/dev/null || echo 0)
if dd if="$t" of="$p" bs="$n" count=1 oflag=append conv=notrunc status=none; then rm -f "$t"; exit 0; fi
[ "$4" = 1 ] && truncate -s "$before" "$p"
rm -f "$t"; exit 1
"""

REMOVE_IF = r"""
p=./$1
{ [ -f "$p" ] && [ ! -L "$p" ]; } || { echo 0; exit 0; }
parent "$1"
inside "$d"
exec 9<"$p" || { echo 0; exit 0; }
flock 9 || exit 1
a=$d/.tmp-gc-$3
mv -f "$p" "$a" 2>/dev/null || { echo 0; exit 0; }
if [ "$a" -ef /proc/self/fd/9 ] && [ "$(stat -c '%s|%y' "$a")" = "$2" ]; then rm -f "$a"; echo 1; exit 0; fi
if ln "$a" "$p" 2>/dev/null; then rm -f "$a"
else
  case $p in
    *.jsonl) exec 8>>"$p"; flock 8; cat "$p" >> "$a" && mv -f "$a" "$p" ;;
    *) rm -f "$a" ;;
  esac
fi
echo 0
"""

REMOVE = r"""
p=./$1
{ [ -e "$p" ] || [ -L "$p" ]; } || exit 0
parent "$1"
inside "$d"
if [ -d "$p" ] && [ ! -L "$p" ]; then
  [ "$2" = 1 ] || { echo "is a directory: $1" >&2; exit $E_ISDIR; }
  exec rm -rf "$p"
fi
exec rm -f "$p"
"""
