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
