#!/bin/sh
# Compiles the Java process clients into classes/ next to this script, or where classpath.sh says
# when that folder cannot be written (docs/process-clients.md).
# Idempotent: nothing to do when classes/ is newer than every source. Needs Debian's
# default-jdk-headless (javac), libcurator-recipes-java and libmariadb-java (scripts/setup.sh).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/classpath.sh"
command -v javac >/dev/null 2>&1 || { echo "build.sh: no javac on PATH (Debian: apt-get install default-jdk-headless)" >&2; exit 2; }
for jar in $JARS; do
  [ -f "$jar" ] || { echo "build.sh: $jar is missing (Debian: apt-get install $(jar_package "$jar"))" >&2; exit 2; }
done
mkdir -p "$(dirname "$CLASSES")"
stamp="$CLASSES/.built"
# One build at a time (two test files, or clients of two runs, may ask at once): the second finds it done.
if command -v flock >/dev/null 2>&1; then exec 9>"$CLASSES.lock"; flock 9; fi
if [ -f "$stamp" ] && [ -z "$(find "$here" -maxdepth 1 -name '*.java' -newer "$stamp")" ]; then
  exit 0
fi
# Into a fresh folder, then renamed: a client starting meanwhile never sees half a build.
tmp="$CLASSES.tmp.$$"
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT
javac -nowarn -d "$tmp" -cp "$CP" "$here"/*.java
touch "$tmp/.built"
rm -rf "$CLASSES.old"
[ -d "$CLASSES" ] && mv "$CLASSES" "$CLASSES.old"
mv "$tmp" "$CLASSES"
rm -rf "$CLASSES.old"
echo "build.sh: compiled into $CLASSES" >&2
