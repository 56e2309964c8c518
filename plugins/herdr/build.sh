#!/bin/sh
# Herdr runs this in the plugin's directory on `herdr plugin install` (`herdr plugin link` does not:
# run `sh plugins/herdr/build.sh` in a linked checkout). It makes bin/dogsled, the CLI of the version
# the manifest names: built from this checkout when the checkout is that version (npm ci installs the
# dependencies and builds dist/), else installed from the npm registry at exactly that version into
# ./npm (DOGSLED_NPM_PACKAGE names the package, default dogsled). Nothing global is installed and no
# service is started. A version mismatch stops the install.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$here/herdr-plugin.toml" | head -n 1)
if [ -z "$version" ]; then
  echo "dogsled plugin: no version in herdr-plugin.toml" >&2
  exit 1
fi
command -v node >/dev/null 2>&1 || { echo "dogsled plugin: needs node (20.19 or newer) on PATH" >&2; exit 1; }
command -v npm >/dev/null 2>&1 || { echo "dogsled plugin: needs npm on PATH" >&2; exit 1; }

mkdir -p "$here/bin"
if [ -f "$root/package.json" ] && grep -q '"name": "dogsled"' "$root/package.json"; then
  found=$(node -p "require(process.argv[1]).version" "$root/package.json")
  if [ "$found" != "$version" ]; then
    echo "dogsled plugin: checkout is dogsled $found, the manifest names $version" >&2
    exit 1
  fi
  (cd "$root" && npm ci --no-audit --no-fund)
  entry="$root/dist/dogsled.cjs"
else
  package=${DOGSLED_NPM_PACKAGE:-dogsled}
  npm install --prefix "$here/npm" --no-audit --no-fund "$package@$version"
  entry="$here/npm/node_modules/$package/dist/dogsled.cjs"
fi
if [ ! -f "$entry" ]; then
  echo "dogsled plugin: the build made no $entry" >&2
  exit 1
fi
tmp="$here/bin/.dogsled.$$"
quoted=$(printf '%s' "$entry" | sed "s/'/'\\\\''/g")
printf '#!/bin/sh\nexec node %s "$@"\n' "'$quoted'" >"$tmp"
chmod 755 "$tmp"
mv "$tmp" "$here/bin/dogsled"
echo "dogsled plugin: bin/dogsled runs $entry (dogsled $version)"
