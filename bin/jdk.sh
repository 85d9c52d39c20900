# Sourced by bin/railyard and bin/test: find_jdk prints the home of a JDK 25 or newer
# (JAVA_HOME first, then /usr/lib/jvm), or returns 1.
# Major version of a `java -version` banner: "25", "25.0.1", "1.8.0_402" (-> 8).
java_major() {
    local v
    v=$("$1" -version 2>&1 | sed -n 's/.* version "\([^"]*\)".*/\1/p' | head -n 1)
    v=${v#1.}
    echo "${v%%[!0-9]*}"
}

# Major version from a JDK's `release` file: JAVA_VERSION="25.0.1".
release_major() {
    local v
    v=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$1/release" 2>/dev/null | head -n 1)
    v=${v#1.}
    echo "${v%%[!0-9]*}"
}

# Prints the JDK home $1 and succeeds if its major version $2 is 25 or newer.
jdk_fits() {
    [[ -n "$2" && "$2" -ge 25 ]] && echo "$1"
}

find_jdk() {
    local home
    if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
        jdk_fits "$JAVA_HOME" "$(java_major "$JAVA_HOME/bin/java")" && return 0
    fi
    # A name with 25 in it is only a hint (java-1.8.0_252 has one too): ask its java.
    for home in /usr/lib/jvm/*25*; do
        [[ -x "$home/bin/java" ]] && jdk_fits "$home" "$(java_major "$home/bin/java")" && return 0
    done
    for home in /usr/lib/jvm/*; do
        [[ -x "$home/bin/java" ]] && jdk_fits "$home" "$(release_major "$home")" && return 0
    done
    return 1
}
