package org.railyard.bootstrap;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * A PMI-1 server for tests, speaking the protocol as Hydra 4 does (observed with
 * {@code mpiexec.hydra}): one answer line per request, barrier_out to every process once all
 * {@code size} processes sent barrier_in, puts visible to gets only after that barrier.
 *
 * <p>It is stricter than Hydra on limits: a key or value as long as keylen_max / vallen_max (or
 * longer) is refused with rc=-1, so a client that ignored the limits would be caught.
 *
 * <p>Tests change its behaviour per request with {@link #override}: given the request line, return
 * null to answer normally, or an {@link Action}: other lines, silence, or hanging up.
 */
final class PmiFakeServer extends PmiFakeServerBase<PmiFakeServer.Line> {
    /** What to do instead of the normal answer. */
    record Action(List<String> lines, boolean hangsUp) {
        static Action reply(String... lines) {
            return new Action(List.of(lines), false);
        }

        static Action silence() {
            return new Action(List.of(), false);
        }

        static Action hangUp() {
            return new Action(List.of(), true);
        }
    }

    /** A line-oriented duplex stream, whatever carries it. */
    interface Line extends AutoCloseable {
        /** Next line, or null at end of stream or once the server stops. */
        String read() throws IOException;

        void write(String text) throws IOException;

        @Override
        void close();
    }

    final String kvsname;
    volatile int keylenMax = 64;
    volatile int vallenMax = 1024;
    volatile Function<String, Action> override = line -> null;

    PmiFakeServer(int size) throws IOException {
        super(size, "pmi-fake");
        this.kvsname = "kvs_fake_" + ProcessHandle.current().pid() + "_" + Integer.toHexString(System.identityHashCode(this));
        startAccepting();
    }

    /** The PMI_PORT value that reaches this server. */
    String port() {
        return "127.0.0.1:" + listenerPort();
    }

    /** Environment of rank {@code id} in -pmi-port mode. */
    Map<String, String> portEnv(int id) {
        return Map.of("PMI_PORT", port(), "PMI_ID", Integer.toString(id));
    }

    /**
     * Environment of a size-1 job in PMI_FD mode: a fresh socketpair, whose far end this server
     * serves and whose near end the client owns (and closes).
     */
    Map<String, String> fdEnv() throws Throwable {
        int[] pair = PmiSocketPair.open();
        serve(fdLine(pair[1]));
        return Map.of("PMI_FD", Integer.toString(pair[0]), "PMI_RANK", "0", "PMI_SIZE", "1");
    }

    @Override
    Line accepted(Socket s) throws IOException {
        return socketLine(s);
    }

    private static Line socketLine(Socket s) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
        OutputStream out = s.getOutputStream();
        return new Line() {
            @Override
            public String read() throws IOException {
                return in.readLine();
            }

            @Override
            public synchronized void write(String text) throws IOException {
                send(out, text);
            }

            @Override
            public void close() {
                closeQuietly(s);
            }
        };
    }

    /**
     * The far end of a PMI_FD socketpair, read through the production {@link PmiFdConnection}.
     * Reads wait in short slices so that {@link #close()} stops the loop promptly; the
     * connection's own buffer keeps any part of a line across slices.
     */
    Line fdLine(int fd) {
        PmiFdConnection conn = new PmiFdConnection(fd, "fake server end fd " + fd);
        return new Line() {
            @Override
            public String read() {
                while (!stopped) {
                    try {
                        return conn.receive(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50), "a request");
                    } catch (RailyardException e) {
                        if (e.errorClass() != ErrorClass.TIMEOUT) {
                            return null; // the client closed its end
                        }
                    }
                }
                return null;
            }

            @Override
            public void write(String text) {
                conn.send(text.substring(0, text.length() - 1), System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
            }

            @Override
            public void close() {
                conn.close();
            }
        };
    }

    @Override
    void serveLoop(Line line) {
        try (line) {
            String request;
            while ((request = line.read()) != null) {
                received.add(request);
                Action action = override.apply(request);
                if (action != null) {
                    if (action.hangsUp()) {
                        return;
                    }
                    for (String l : action.lines()) {
                        line.write(l + "\n");
                    }
                    continue;
                }
                answer(line, request);
            }
        } catch (IOException e) {
            // the client went away; the test asserts on what it saw
        }
    }

    private void answer(Line line, String request) throws IOException {
        Map<String, String> a = attributes(request);
        String cmd = a.getOrDefault("cmd", "");
        switch (cmd) {
            case "initack" -> line.write("cmd=initack\ncmd=set size=" + size + "\ncmd=set rank=" + a.get("pmiid")
                    + "\ncmd=set debug=0\n"); // one write, as Hydra does: the client must split it
            case "init" -> line.write("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n");
            case "get_maxes" -> line.write("cmd=maxes kvsname_max=256 keylen_max=" + keylenMax + " vallen_max="
                    + vallenMax + "\n");
            case "get_my_kvsname" -> line.write("cmd=my_kvsname kvsname=" + kvsname + "\n");
            case "put" -> line.write(put(a));
            case "get" -> {
                String v = kvsname.equals(a.get("kvsname")) ? committed.get(a.get("key")) : null;
                line.write(v == null ? "cmd=get_result rc=-1 msg=key_" + a.get("key") + "_not_found value=unknown\n"
                        : "cmd=get_result rc=0 msg=success value=" + v + "\n");
            }
            case "barrier_in" -> barrier(line);
            case "finalize" -> line.write("cmd=finalize_ack\n");
            default -> line.write("cmd=unknown_command rc=-1 msg=" + cmd + "\n");
        }
    }

    private synchronized String put(Map<String, String> a) {
        String key = a.get("key");
        String value = a.getOrDefault("value", "");
        if (!kvsname.equals(a.get("kvsname"))) {
            return "cmd=put_result rc=-1 msg=unknown_kvsname\n";
        }
        if (key == null || key.length() >= keylenMax || value.length() >= vallenMax) {
            return "cmd=put_result rc=-1 msg=key_or_value_too_long\n";
        }
        stage(key, value);
        return "cmd=put_result rc=0 msg=success\n";
    }

    private void barrier(Line line) throws IOException {
        List<Line> release = enterFence(line);
        if (release != null) {
            for (Line l : release) {
                l.write("cmd=barrier_out\n");
            }
        }
    }

    /** Splits "cmd=x a=b c=d" at spaces and each attribute at its first '='. */
    static Map<String, String> attributes(String line) {
        return attributes(line.trim(), " +");
    }

    /** Requests received with the given cmd. */
    List<String> requests(String cmd) {
        return received.stream().filter(l -> l.startsWith("cmd=" + cmd + " ") || l.equals("cmd=" + cmd)).toList();
    }
}
