#!/bin/sh
# The Herdr plugin's build step (herdr-plugin.toml): Herdr runs it in the checkout's root on
# `herdr plugin install oisin-ee/dogsled --ref vX.Y.Z`; `herdr plugin link` skips build steps, so
# run `sh plugin/fetch.sh` in a linked checkout. It makes bin/dogsled, the CLI of exactly the
# version the manifest names, from the first of:
#   1. this directory's own build, when it is that version (a built checkout, or the npm package);
#   2. the release tarball dogsled-X.Y.Z.tgz under $DOGSLED_RELEASES/vX.Y.Z (default: the project's
#      GitHub releases), checked against dogsled-X.Y.Z.tgz.sha256 beside it and installed with npm
#      into plugin/npm; a tarball that does not match stops the install and changes nothing;
#   3. when that release does not exist, the same version from the npm registry
#      ($DOGSLED_NPM_PACKAGE, default dogsled).
# Nothing global is installed and no service is started. Messages go to stderr, one line each.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
manifest="$root/herdr-plugin.toml"
say() { printf 'dogsled plugin: %s\n' "$*" >&2; }
fail() {
  say "$*"
  exit 1
}

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$manifest" | head -n 1)
[ -n "$version" ] || fail "no version in $manifest"
command -v node >/dev/null 2>&1 || fail "needs node (20.19 or newer) on PATH"

releases=${DOGSLED_RELEASES:-https://github.com/oisin-ee/dogsled/releases/download}
releases=${releases%/}
tarball="dogsled-$version.tgz"
npmdir="$root/plugin/npm"
stage="$root/plugin/.npm-$$"
work=$(mktemp -d "${TMPDIR:-/tmp}/dogsled-fetch.XXXXXX")
trap 'rm -rf "$work" "$stage" "$root/bin/.dogsled.$$"' EXIT
trap 'exit 1' HUP INT TERM

# `name version` of a package.json, or nothing.
package_of() {
  node -e 'try { const p = require(process.argv[1]); console.log(`${p.name} ${p.version}`); } catch {}' "$1"
}

sha256_of() {
  node -e 'const h = require("crypto").createHash("sha256"); h.update(require("fs").readFileSync(process.argv[1])); console.log(h.digest("hex"));' "$1"
}

# Downloads $1 to $2; prints the HTTP status (000 when nothing answered).
download() {
  if command -v curl >/dev/null 2>&1; then
    curl -sSL --retry 2 -o "$2" -w '%{http_code}' "$1" 2>"$work/download.err" || true
  elif command -v wget >/dev/null 2>&1; then
    if wget -q -O "$2" "$1" 2>"$work/download.err"; then echo 200; else echo 404; fi
  fi
}

# Installs npm package spec $1 into the stage, then swaps the stage in as plugin/npm.
npm_install() {
  command -v npm >/dev/null 2>&1 || fail "needs npm on PATH to install $2"
  rm -rf "$stage"
  mkdir -p "$stage"
  npm install --prefix "$stage" --no-save --no-audit --no-fund --loglevel=error "$1" >&2 ||
    fail "npm could not install $2: nothing installed"
  found=$(package_of "$stage/node_modules/$3/package.json")
  [ "$found" = "$3 $version" ] || fail "$2 installed ${found:-nothing}, not $3 $version: nothing installed"
  [ -f "$stage/node_modules/$3/dist/dogsled.cjs" ] || fail "$2 has no dist/dogsled.cjs: nothing installed"
  rm -rf "$npmdir.old"
  if [ -d "$npmdir" ]; then mv "$npmdir" "$npmdir.old"; fi
  mv "$stage" "$npmdir"
  rm -rf "$npmdir.old"
  entry="$npmdir/node_modules/$3/dist/dogsled.cjs"
}

if [ -f "$root/dist/dogsled.cjs" ] && [ "$(package_of "$root/package.json")" = "dogsled $version" ]; then
  entry="$root/dist/dogsled.cjs"
  source="this directory's build"
else
  url="$releases/v$version/$tarball"
  command -v curl >/dev/null 2>&1 || command -v wget >/dev/null 2>&1 || fail "needs curl or wget on PATH to download $url"
  status=$(download "$url" "$work/$tarball")
  case "$status" in
    200)
      sums="$releases/v$version/$tarball.sha256"
      status=$(download "$sums" "$work/$tarball.sha256")
      [ "$status" = 200 ] || fail "$sums answered $status: the release has no checksum, nothing installed"
      want=$(sed -n '1s/^\([0-9a-fA-F]\{64\}\).*/\1/p' "$work/$tarball.sha256" | tr 'A-F' 'a-f')
      [ -n "$want" ] || fail "$sums holds no SHA-256: nothing installed"
      got=$(sha256_of "$work/$tarball")
      [ "$got" = "$want" ] || fail "$tarball does not match its SHA-256 (expected $want, got $got): nothing installed"
      npm_install "$work/$tarball" "$tarball" dogsled
      source="$url, SHA-256 $got"
      ;;
    404)
      package=${DOGSLED_NPM_PACKAGE:-dogsled}
      say "no release at $url; installing $package@$version from npm"
      npm_install "$package@$version" "$package@$version" "$package"
      source="npm $package@$version"
      ;;
    *)
      why=$(head -n 1 "$work/download.err" 2>/dev/null || true)
      fail "cannot download $url (HTTP $status${why:+: $why}): nothing installed"
      ;;
  esac
fi

mkdir -p "$root/bin"
quoted=$(printf '%s' "$entry" | sed "s/'/'\\\\''/g")
printf '#!/bin/sh\nexec node %s "$@"\n' "'$quoted'" >"$root/bin/.dogsled.$$"
chmod 755 "$root/bin/.dogsled.$$"
mv -f "$root/bin/.dogsled.$$" "$root/bin/dogsled"
say "bin/dogsled runs dogsled $version ($source)"
