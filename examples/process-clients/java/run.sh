#!/bin/sh
# Starts one Java process client: run.sh CLASS [ARGS...] (the recipe files' command).
# The JVM options shorten start-up on a busy machine (lockpick waits 10 s for ready).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/classpath.sh"
stamp="$CLASSES/.built"
if [ ! -f "$stamp" ] || [ -n "$(find "$here" -maxdepth 1 -name '*.java' -newer "$stamp")" ]; then
  echo "run.sh: the Java clients are not built (or their sources changed): run sh $here/build.sh" >&2
  exit 2
fi
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx128m -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$CLASSES:$CP" "$@"
