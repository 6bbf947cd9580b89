# Sourced by the scripts that run, here, what docker-compose.yml deploys: reads a version from it.
# `compose_image_version IMAGE` prints the Temporal release the file's `image: IMAGE:<x.y.z>` lines
# name, as a Go module version (`v1.32.2`), and fails unless they name exactly one.

compose_image_version() {
  local image="$1" compose tag
  compose="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/docker-compose.yml"
  tag="$(sed -n "s|^ *image: $image:\([0-9.]*\)\$|\1|p" "$compose" | sort -u)"
  if [[ ! "$tag" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
    echo "expected one $image:<x.y.z> tag in $compose, found '${tag//$'\n'/ }'" >&2
    return 1
  fi
  echo "v$tag"
}
