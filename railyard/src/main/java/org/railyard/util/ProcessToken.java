package org.railyard.util;

/**
 * The identity of this JVM, the same for every class loader in it: ranks run as threads of one JVM
 * ({@code railyard run --threads}) each load Railyard through a loader of their own, so a static
 * field would give each rank its own value; the system properties are the JVM's, and the first
 * rank to ask sets the token there ({@value #PROPERTY}) for all the others.
 *
 * <p>Two ranks with equal tokens run in one process. The token is the process id and the time of
 * the first call, so that processes of separate pid namespaces sharing a node (containers) do
 * not take each other's equal pid for sameness.
 */
public final class ProcessToken {
    /** The system property that holds the token once made. */
    public static final String PROPERTY = "org.railyard.process.token";

    private ProcessToken() {
    }

    /** This JVM's token: made by the first caller of any loader, the same text for every later one. */
    public static String get() {
        String token = System.getProperty(PROPERTY);
        if (token != null) {
            return token;
        }
        String mine = ProcessHandle.current().pid() + "." + Long.toHexString(System.nanoTime());
        Object first = System.getProperties().putIfAbsent(PROPERTY, mine);
        return first != null ? first.toString() : mine;
    }
}
