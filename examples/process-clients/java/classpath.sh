# The jars the Java process clients need (Debian's, under /usr/share/java); sourced by build.sh and run.sh.
# curator-recipes.jar names curator-framework, curator-client, zookeeper, guava, slf4j-api in its
# manifest's Class-Path; slf4j-simple sends Curator's and ZooKeeper's log to stderr (the client's log).
JARS="/usr/share/java/curator-recipes.jar /usr/share/java/slf4j-simple.jar /usr/share/java/mariadb-java-client.jar"
CP=$(echo $JARS | tr ' ' ':')
jar_package() {
  case "$1" in
    *curator*) echo libcurator-recipes-java ;;
    *slf4j*) echo libslf4j-java ;;
    *mariadb*) echo libmariadb-java ;;
  esac
}
# Where the compiled classes go: classes/ beside the sources, or, where that folder cannot be
# written (a package installed read-only), a cache folder of the user's; LOCKPICK_JAVA_CLASSES
# chooses another. build.sh and run.sh agree on it.
if [ -n "${LOCKPICK_JAVA_CLASSES:-}" ]; then CLASSES=$LOCKPICK_JAVA_CLASSES
elif [ -w "$here" ]; then CLASSES=$here/classes
else CLASSES=${XDG_CACHE_HOME:-$HOME/.cache}/lockpick/java-classes
fi
