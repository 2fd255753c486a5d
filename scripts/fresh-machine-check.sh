#!/usr/bin/env bash
# fresh-machine-check.sh: proves that the README's first command works on a new machine.
#
# It builds a clean Debian 12 (bookworm) root with debootstrap, puts in it what a new machine
# of this project's kind ships (gcc/g++/make, cmake, ninja, GoogleTest without gmock, Debian's
# CPython with venv, pip and pytest, git, curl; the Go toolchain from the host's /usr/local/go
# and the second JDK (Temurin) from its /usr/lib/jvm/temurin-*, both bound read-only; no
# OpenJDK, Maven or PostgreSQL, which `make test` installs itself), copies in
# the COMMITTED files of HEAD (`git archive HEAD`: uncommitted changes do not count), and runs
# `make run PORT=<free port>` in a chroot as root. It passes once
# http://127.0.0.1:<port>/api/version answers 200 with a JSON body, then stops the server.
# With --test it runs `make test` (CI=true) instead and passes when that exits 0.
#
# Run it by hand whenever the build or an install step changes; it is not part of CI.
# A cold run compiles everything: ~15-25 min for `make run` on 2 cores, 60+ min for --test.
#
#   scripts/fresh-machine-check.sh [OPTIONS]
#
#   --gtest          the root has googletest + libgtest-dev, not libgmock-dev (default; what a
#                    new machine has)
#   --no-gtest       neither GoogleTest package
#   --gmock          googletest + libgtest-dev + libgmock-dev
#   --test           run `make test` (CI=true) instead of `make run`
#   --rev REV        copy the committed files of REV instead of HEAD (an earlier commit, say)
#   --port N         port for `make run` (default: a free one)
#   --timeout S      give up after S seconds (default 3600 for make run, 10800 for --test)
#   --ccache[=DIR]   bind DIR (default ~/.cache/cairn/fresh-ccache) as the root's ccache, so a
#                    later run need not compile everything again (default: none, a cold build)
#   --no-go          leave the Go toolchain out (the S3 suites then cannot build MinIO)
#   --keep           keep the unpacked root afterwards (its path is printed; remove by hand)
#   --refresh        rebuild the cached roots (after a Debian point release, say)
#   --log FILE       log file (default ~/.cache/cairn/fresh-root/logs/<mode>-<variant>-<time>.log)
#   -h, --help       this text
#
# Cache: ~/.cache/cairn/fresh-root/ (FRESH_ROOT_CACHE overrides) holds base.tar.zst (the
# pristine debootstrap root) and machine-<variant>.tar.zst (with the machine's packages); each
# run unpacks a fresh copy into a temporary directory under /var/tmp (FRESH_ROOT_TMP) and
# removes it afterwards, after unmounting everything it mounted, also on failure or Ctrl-C.
# A lock in the cache directory keeps two runs from building or using the cache at once.
# Needs root (debootstrap, mount, chroot); installs debootstrap with apt-get when missing.
# The chroot shares the host's network: the server listens on 127.0.0.1 only.
set -euo pipefail

prog=fresh-machine-check
MIRROR=${FRESH_ROOT_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${FRESH_ROOT_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
SUITE=bookworm
CACHE=${FRESH_ROOT_CACHE:-$HOME/.cache/cairn/fresh-root}
TMPBASE=${FRESH_ROOT_TMP:-/var/tmp}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# What a new machine of this project's kind has (besides the variant's GoogleTest packages):
# its image is Debian 12 with these from Debian's packages (--no-install-recommends).
MACHINE_PKGS=(build-essential gcc g++ make cmake ninja-build
  python3 python3-venv python3-pip python3-dev python3-pytest python3-setuptools python3-wheel
  git curl wget ca-certificates openssl procps psmisc iproute2 lsof less file unzip zip
  xz-utils bzip2 patch gnupg lsb-release tzdata locales hostname)
# Bump when the recipe below changes, so cached roots are rebuilt.
RECIPE=1

variant=gtest
mode=run
port=""
timeout=""
ccache_dir=""
with_go=1
keep=0
refresh=0
log=""
rev=HEAD

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }
die() { echo "$prog: $*" >&2; exit 2; }
say() { echo "$prog: $*" >&2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --gtest) variant=gtest ;;
    --no-gtest) variant=no-gtest ;;
    --gmock) variant=gmock ;;
    --test) mode="test" ;;
    --rev) [[ $# -ge 2 ]] || die "--rev needs a value"; rev=$2; shift ;;
    --rev=*) rev=${1#*=} ;;
    --port) [[ $# -ge 2 ]] || die "--port needs a value"; port=$2; shift ;;
    --port=*) port=${1#*=} ;;
    --timeout) [[ $# -ge 2 ]] || die "--timeout needs a value"; timeout=$2; shift ;;
    --timeout=*) timeout=${1#*=} ;;
    --ccache) ccache_dir=$HOME/.cache/cairn/fresh-ccache ;;
    --ccache=*) ccache_dir=${1#*=} ;;
    --no-go) with_go=0 ;;
    --keep) keep=1 ;;
    --refresh) refresh=1 ;;
    --log) [[ $# -ge 2 ]] || die "--log needs a value"; log=$2; shift ;;
    --log=*) log=${1#*=} ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option: $1 (see --help)" ;;
  esac
  shift
done
[[ -z "$port" || "$port" =~ ^[0-9]+$ ]] || die "--port takes a number"
[[ -z "$timeout" || "$timeout" =~ ^[0-9]+$ ]] || die "--timeout takes seconds"
if [[ -z "$timeout" ]]; then
  if [[ $mode == test ]]; then timeout=10800; else timeout=3600; fi
fi
[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, mount, chroot)"
git -C "$REPO" rev-parse --verify -q "$rev^{commit}" >/dev/null || die "not a commit: $rev"

case "$variant" in
  gtest) variant_pkgs=(googletest libgtest-dev); variant_desc="gtest without gmock" ;;
  no-gtest) variant_pkgs=(); variant_desc="no gtest" ;;
  gmock) variant_pkgs=(googletest libgtest-dev libgmock-dev); variant_desc="gtest with gmock" ;;
esac

mkdir -p "$CACHE/logs"
[[ -n "$log" ]] || log="$CACHE/logs/$mode-$variant-$(date +%Y%m%d-%H%M%S).log"
mkdir -p "$(dirname "$log")"
: >"$log"
log=$(cd "$(dirname "$log")" && pwd)/$(basename "$log")
say "log: $log"

# --- the lock: one run at a time builds or unpacks the cache -------------------------------
exec 9>"$CACHE/.lock"
if ! flock -n 9; then
  say "another run holds $CACHE/.lock; waiting for it"
  flock 9
fi

# --- cleanup: stop what runs in the root, unmount, remove it -------------------------------
root=""
mounts=()        # mount points under $root, in mount order
server_pid=""

procs_in_root() {  # pids whose root directory is $root
  local p r
  for p in /proc/[0-9]*; do
    r=$(readlink "$p/root" 2>/dev/null) || continue
    [[ "$r" == "$root" || "$r" == "$root"/* ]] && echo "${p#/proc/}"
  done
  return 0
}

stop_root_procs() {
  [[ -n "$root" && -d "$root" ]] || return 0
  if [[ -n "$server_pid" ]] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM -- "-$server_pid" 2>/dev/null || kill -TERM "$server_pid" 2>/dev/null || true
  fi
  local i pids
  for i in $(seq 1 20); do
    pids=$(procs_in_root)
    [[ -z "$pids" ]] && break
    if [[ $i -eq 1 || $i -eq 10 ]]; then
      # shellcheck disable=SC2086
      kill -TERM $pids 2>/dev/null || true
    fi
    sleep 0.5
  done
  pids=$(procs_in_root)
  # shellcheck disable=SC2086
  [[ -z "$pids" ]] || { kill -KILL $pids 2>/dev/null || true; sleep 1; }
  if [[ -n "$server_pid" ]]; then wait "$server_pid" 2>/dev/null || true; fi
  server_pid=""
}

unmount_all() {
  local i m
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    m=${mounts[i]}
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || say "could not unmount $m"
  done
  mounts=()
}

still_mounted() {  # prints mount points under $root that are still mounted
  [[ -n "$root" ]] || return 0
  awk -v r="$root" '$2 == r || index($2, r "/") == 1 {print $2}' /proc/self/mounts
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  rm -f "$CACHE"/*.tmp.$$
  stop_root_procs
  unmount_all
  if [[ -n "$root" && -d "$root" ]]; then
    if [[ -n "$(still_mounted)" ]]; then
      say "NOT removing $root: still mounted there: $(still_mounted | tr '\n' ' ')"
    elif [[ $keep -eq 1 ]]; then
      say "kept the root at $root (remove it by hand: rm -rf --one-file-system $root)"
    else
      rm -rf --one-file-system "$root"
    fi
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'say "interrupted"; exit 130' INT
trap 'say "terminated"; exit 143' TERM

# --- helpers ------------------------------------------------------------------------------
tar_compress=(--zstd)
tar_ext=tar.zst
if ! command -v zstd >/dev/null 2>&1; then tar_compress=(--gzip); tar_ext=tar.gz; fi

save_root() {  # save_root DIR TARBALL: pack DIR atomically into TARBALL
  local tmp="$2.tmp.$$"
  tar -C "$1" --numeric-owner --xattrs -cpf "$tmp" "${tar_compress[@]}" . && mv -f "$tmp" "$2"
}

unpack_root() {  # unpack_root TARBALL DIR
  tar -C "$2" --numeric-owner --xattrs -xpf "$1" "${tar_compress[@]}"
  chmod 755 "$2"  # the tarball's "." may carry mktemp's 0700
}

new_root() {  # a fresh temporary directory for a root
  local d
  d=$(mktemp -d "$TMPBASE/cairn-fresh-root.XXXXXX")
  chmod 755 "$d"  # mktemp's 0700 would keep every user but root out of the root's /
  echo "$d"
}

bind() {  # bind SRC DEST [ro]: bind-mount, remembered for unmount_all
  mkdir -p "$2"
  mount --bind "$1" "$2"
  mounts+=("$2")
  mount --make-rslave "$2" 2>/dev/null || true
  if [[ "${3:-}" == ro ]]; then mount -o remount,bind,ro "$2"; fi
}

mount_fs() {  # mount_fs TYPE DEST [OPTIONS]
  mkdir -p "$2"
  mount -t "$1" ${3:+-o "$3"} "$1" "$2"
  mounts+=("$2")
}

mount_system() {  # /proc, /sys, /dev, /dev/pts, /dev/shm, resolv.conf in $root
  mount_fs proc "$root/proc"
  bind /sys "$root/sys"
  bind /dev "$root/dev"
  bind /dev/pts "$root/dev/pts"
  mount_fs tmpfs "$root/dev/shm" mode=1777
  rm -f "$root/etc/resolv.conf"
  cp -L /etc/resolv.conf "$root/etc/resolv.conf"
}

in_root() {  # in_root CMD...: run in the chroot with a clean environment
  chroot "$root" /usr/bin/env -i "${root_env[@]}" "$@"
}

root_env=(HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb LANG=C.UTF-8
  PATH=/usr/local/go/bin:/root/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  DEBIAN_FRONTEND=noninteractive)
# The machine's own network settings (package indexes, certificates, proxies), as a new one has.
for v in PIP_DEFAULT_TIMEOUT PIP_DISABLE_PIP_VERSION_CHECK PIP_CERT PIP_INDEX_URL \
         PIP_EXTRA_INDEX_URL PIP_TRUSTED_HOST http_proxy https_proxy no_proxy HTTP_PROXY \
         HTTPS_PROXY NO_PROXY GOPROXY GOSUMDB GONOSUMDB GOPRIVATE GOFLAGS GOTOOLCHAIN; do
  [[ -n "${!v:-}" ]] && root_env+=("$v=${!v}")
done

# --- the cached roots ---------------------------------------------------------------------
base_tar="$CACHE/base-$SUITE.$tar_ext"
base_stamp="$base_tar.ok"
machine_tar="$CACHE/machine-$variant.$tar_ext"
machine_stamp="$machine_tar.ok"
base_key="recipe=$RECIPE suite=$SUITE mirror=$MIRROR"
machine_key="$base_key pkgs=${MACHINE_PKGS[*]} variant=${variant_pkgs[*]}"

ensure_debootstrap() {
  command -v debootstrap >/dev/null 2>&1 && return 0
  say "installing debootstrap (apt-get)"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
}

build_base() {
  ensure_debootstrap
  say "debootstrap $SUITE from $MIRROR (once; cached as $base_tar)"
  root=$(new_root)
  debootstrap --variant=minbase --arch=amd64 "$SUITE" "$root" "$MIRROR" >>"$log" 2>&1 ||
    { tail -n 30 "$log" >&2; die "debootstrap failed (log: $log)"; }
  # Debian's container image, which this kind of machine starts from: no services started by
  # package installs, apt keeps no downloaded packages, updates and security suites enabled.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  cat >"$root/etc/apt/sources.list" <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY_MIRROR $SUITE-security main
EOF
  local f
  for f in /etc/apt/apt.conf.d/docker-clean /etc/apt/apt.conf.d/docker-no-languages \
           /etc/apt/apt.conf.d/docker-gzip-indexes /etc/apt/apt.conf.d/docker-autoremove-suggests \
           /etc/apt/apt.conf.d/99artifact-registry; do
    [[ -f "$f" ]] && cp "$f" "$root/etc/apt/apt.conf.d/"
  done
  rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
  save_root "$root" "$base_tar"
  echo "$base_key" >"$base_stamp"
  rm -rf --one-file-system "$root"
  root=""
}

build_machine() {
  say "making the '$variant' machine root (once; cached as $machine_tar)"
  root=$(new_root)
  unpack_root "$base_tar" "$root"
  mount_system
  {
    in_root apt-get update -qq &&
      in_root apt-get install -y -qq --no-install-recommends "${MACHINE_PKGS[@]}" "${variant_pkgs[@]}" &&
      in_root apt-get clean
  } >>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "installing the machine's packages failed (log: $log)"; }
  rm -rf "$root/var/lib/apt/lists/"*
  unmount_all
  save_root "$root" "$machine_tar"
  echo "$machine_key" >"$machine_stamp"
  rm -rf --one-file-system "$root"
  root=""
}

if [[ $refresh -eq 1 || ! -f "$base_tar" || "$(cat "$base_stamp" 2>/dev/null)" != "$base_key" ]]; then
  rm -f "$CACHE"/machine-*."$tar_ext" "$CACHE"/machine-*."$tar_ext".ok
  build_base
fi
if [[ ! -f "$machine_tar" || "$(cat "$machine_stamp" 2>/dev/null)" != "$machine_key" ]]; then
  build_machine
fi

# --- this run's root ----------------------------------------------------------------------
root=$(new_root)
say "unpacking a fresh '$variant' root into $root"
unpack_root "$machine_tar" "$root"
mount_system

# The machine's trust store (its network reaches the registries through these certificates)
# and its pip and Go settings.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
  in_root update-ca-certificates >>"$log" 2>&1
fi
[[ -f /etc/pip.conf ]] && cp /etc/pip.conf "$root/etc/pip.conf"
if [[ -f "$HOME/.config/go/env" ]]; then
  mkdir -p "$root/root/.config/go"
  cp "$HOME/.config/go/env" "$root/root/.config/go/env"
fi
go_desc="no Go"
if [[ $with_go -eq 1 ]]; then
  if [[ -x /usr/local/go/bin/go ]]; then
    bind /usr/local/go "$root/usr/local/go" ro
    go_desc="Go $(/usr/local/go/bin/go env GOVERSION 2>/dev/null || echo '?')"
  else
    say "no /usr/local/go on this host: the root has no Go toolchain"
  fi
fi
# The machine's second JDK (Temurin 25, which Trino needs), bound read-only where it lives.
for jdk in /usr/lib/jvm/temurin-*-jdk*; do
  [[ -x "$jdk/bin/java" ]] || continue
  bind "$jdk" "$root$jdk" ro
  go_desc+=", $(basename "$jdk")"
done
ccache_desc="cold ccache"
if [[ -n "$ccache_dir" ]]; then
  mkdir -p "$ccache_dir"
  bind "$ccache_dir" "$root/var/cache/cairn-ccache"
  root_env+=(CCACHE_DIR=/var/cache/cairn-ccache)
  ccache_desc="ccache from $ccache_dir"
fi

# Only what is committed counts.
head_rev=$(git -C "$REPO" rev-parse --short "$rev")
rev_desc="$rev $head_rev"
[[ $head_rev == "$rev"* || $rev == "$head_rev"* ]] && rev_desc=$head_rev
mkdir -p "$root/root/cairn"
git -C "$REPO" archive --format=tar "$rev" | tar -x -C "$root/root/cairn"
dirty=$(git -C "$REPO" status --porcelain --untracked-files=no | wc -l)
note=""
[[ $dirty -eq 0 ]] || note=" ($dirty tracked files differ from HEAD in the work tree)"
say "copied the committed files of $rev_desc (git archive $rev): only committed files count, uncommitted changes are not included$note"

free_port() {
  local p i
  for i in $(seq 1 100); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then echo "$p"; return 0; fi
  done
  return 1
}

start=$(date +%s)
elapsed() { echo $(($(date +%s) - start)); }

fail() {
  say "----- last 60 lines of $log -----"
  tail -n 60 "$log" >&2
  say "-----"
  echo "$prog: FAIL $1 ($variant_desc): $2 after $(elapsed) s ($rev_desc; log: $log)"
  exit 1
}

if [[ $mode == run ]]; then
  [[ -n "$port" ]] || port=$(free_port) || die "no free port found"
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then die "port $port is in use"; fi
  what="make run"
  say "$what PORT=$port in the root ($variant_desc, $go_desc, $ccache_desc); timeout ${timeout} s"
  setsid chroot "$root" /usr/bin/env -i "${root_env[@]}" \
    bash -c "cd /root/cairn && exec make run PORT=$port" >>"$log" 2>&1 </dev/null &
  server_pid=$!
  url="http://127.0.0.1:$port/api/version"
  body=$(mktemp)
  last_note=$start
  while :; do
    if ! kill -0 "$server_pid" 2>/dev/null; then
      rc=0; wait "$server_pid" || rc=$?; server_pid=""
      rm -f "$body"
      fail "$what" "make exited with status $rc before $url answered"
    fi
    code=$(curl -s -o "$body" -w '%{http_code}' --max-time 5 "$url" 2>/dev/null) || code=000
    if [[ "$code" == 200 ]]; then
      if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$body" 2>/dev/null ||
         { ! command -v python3 >/dev/null && grep -q '^[[:space:]]*[{[]' "$body"; }; then
        t=$(elapsed)
        say "GET $url -> 200 $(head -c 300 "$body")"
        rm -f "$body"
        stop_root_procs
        echo "$prog: PASS make run ($variant_desc), /api/version answered after $t s ($rev_desc; log: $log)"
        exit 0
      fi
      say "GET $url -> 200 but not JSON: $(head -c 200 "$body")"
    fi
    if (($(elapsed) >= timeout)); then
      rm -f "$body"
      fail "$what" "nothing answered 200 with JSON at $url within $timeout s (last status $code)"
    fi
    if (($(date +%s) - last_note >= 300)); then
      last_note=$(date +%s)
      say "still waiting after $(elapsed) s: $(tail -n 1 "$log" | cut -c1-160)"
    fi
    sleep 3
  done
else
  what="make test"
  say "$what (CI=true) in the root ($variant_desc, $go_desc, $ccache_desc); timeout ${timeout} s"
  setsid chroot "$root" /usr/bin/env -i "${root_env[@]}" CI=true \
    bash -c 'cd /root/cairn && exec make test' >>"$log" 2>&1 </dev/null &
  server_pid=$!
  last_note=$start
  while kill -0 "$server_pid" 2>/dev/null; do
    if (($(elapsed) >= timeout)); then
      fail "$what" "still running after $timeout s"
    fi
    if (($(date +%s) - last_note >= 300)); then
      last_note=$(date +%s)
      say "still running after $(elapsed) s: $(tail -n 1 "$log" | cut -c1-160)"
    fi
    sleep 5
  done
  rc=0; wait "$server_pid" || rc=$?; server_pid=""
  if [[ $rc -ne 0 ]]; then
    say "lines of the log that look like a missing tool or package:"
    grep -nE 'command not found|not found|No such file|ModuleNotFoundError|No module named|Could not find|cannot find|needs? (the )?[A-Za-z]|Unable to locate|missing' "$log" |
      grep -vE '^[0-9]+:(Get|Hit|Ign):' | head -n 40 >&2 || true
    fail "$what" "make test exited with status $rc"
  fi
  echo "$prog: PASS make test ($variant_desc), passed after $(elapsed) s ($rev_desc; log: $log)"
fi
