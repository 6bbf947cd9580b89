# Sourced by the install scripts: builds Go binaries at a pinned version into a cache outside the
# checkout, once. `go_install_cached LABEL VERSION DEST PACKAGE...` installs PACKAGE@VERSION (all
# from one module) into DEST and writes DEST/.installed-version; it does nothing when DEST already
# holds VERSION. Progress goes to stderr, prefixed with [LABEL].

go_install_cached() {
  local label="$1" version="$2" dest="$3"
  shift 3
  local marker="$dest/.installed-version"
  log() { echo "[$label] $*" >&2; }
  if [[ -f "$marker" && "$(cat "$marker")" == "$version" ]]; then
    log "$version already installed in $dest"
    return 0
  fi
  # CI shells may not have Go on PATH; this machine kind keeps it in /usr/local/go/bin.
  export PATH="$PATH:/usr/local/go/bin"
  if ! command -v go >/dev/null 2>&1; then
    log "Go is not installed. Install Go >= 1.23 (this project expects /usr/local/go/bin/go), then run this again"
    return 1
  fi
  local pkgs=()
  for pkg in "$@"; do pkgs+=("$pkg@$version"); done
  log "Building $* at $version with $(go version | cut -d' ' -f3) into $dest"
  log "The first build downloads a few hundred modules and compiles ~1,500 packages: expect 5-15 minutes on 2 cores."
  mkdir -p "$dest" "$(dirname "$dest")"
  local stage start status
  stage="$(mktemp -d "$(dirname "$dest")/.build-XXXXXX")"
  start=$(date +%s)
  # -v prints each package as it is compiled: show a progress line every 100 packages.
  set +e
  GOBIN="$stage" go install -v "${pkgs[@]}" 2>&1 |
    awk -v start="$start" -v label="$label" '
      /^go: downloading/ { d++; if (d % 25 == 1) { printf "[%s] downloading modules (%d so far)\n", label, d > "/dev/stderr" } next }
      /^[a-z0-9.\-\/_]+$/ { n++; if (n % 100 == 0) { printf "[%s] compiled %d packages (%ds)\n", label, n, systime() - start > "/dev/stderr" } next }
      { print "[" label "] " $0 > "/dev/stderr" }'
  status=${PIPESTATUS[0]}
  set -e
  if [[ $status -ne 0 ]]; then
    rm -rf "$stage"
    log "go install failed (exit $status). Check network access to the Go module proxy and disk space, then run this again"
    return 1
  fi
  mv -f "$stage"/* "$dest"/
  rm -rf "$stage"
  echo "$version" > "$marker"
  log "Installed $(ls "$dest" | tr '\n' ' ')in $dest in $(( $(date +%s) - start ))s"
}

# `go_use_newer_toolchain`: for a module whose go.mod asks for a newer Go than the one installed here
# (1.26.8 on this machine kind). Go then takes toolchain go1.27.3 from the Go module proxy, like a
# module (about 76 MB, once per machine); that is the one newer toolchain this machine kind's proxy
# serves for this, so it is pinned rather than left to GOTOOLCHAIN=auto, which would ask for whatever
# the module names. A caller's own GOTOOLCHAIN wins.
go_use_newer_toolchain() {
  export GOTOOLCHAIN="${GOTOOLCHAIN:-go1.27.3}"
}
