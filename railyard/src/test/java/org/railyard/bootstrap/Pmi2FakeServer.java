package org.railyard.bootstrap;

import java.io.IOException;
import java.io.InputStream;
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
 * A PMI-2 server for tests that answers as Slurm 22.05's {@code mpi/pmi2} plugin does (the
 * messages recorded under {@code src/test/resources/pmi2/}): the length padded on the right, rc
 * right after cmd, kvs-fence answered to every task once all {@code size} sent it, puts visible
 * to gets only after that fence.
 *
 * <p>Tests replace an answer with {@link #override}: given a request body, return null to answer
 * normally, or the raw text to send instead (framed or not, as the test needs), {@link #HANG_UP},
 * {@link #SILENCE}, or {@link #HANG_UP_AFTER} followed by text to send before hanging up.
 */
final class Pmi2FakeServer extends PmiFakeServerBase<Pmi2FakeServer.Stream> {
    static final String HANG_UP = "<hang up>";
    static final String SILENCE = "<silence>";
    /** Prefix of an override: send what follows it, then hang up. */
    static final String HANG_UP_AFTER = "<hang up after>";

    /** A duplex byte stream, whatever carries it. */
    interface Stream extends AutoCloseable {
        /** A line without its newline, or null at the end or once the server stops. */
        String readLine() throws IOException;

        /** Exactly n bytes as text, or null at the end or once the server stops. */
        String read(int n) throws IOException;

        void write(String text) throws IOException;

        @Override
        void close();
    }

    final String jobId = "7.0";
    volatile String mapping;
    volatile Function<String, String> override = body -> null;

    Pmi2FakeServer(int size) throws IOException {
        super(size, "pmi2-fake");
        this.mapping = "(vector,(0,1," + size + "))";
        startAccepting();
    }

    /** Environment of rank {@code rank} reaching this server over TCP (Hydra's -pmi-port shape). */
    Map<String, String> portEnv(int rank) {
        return Map.of("PMI_PORT", "127.0.0.1:" + listenerPort(), "PMI_ID", Integer.toString(rank));
    }

    /** Environment of rank {@code rank} as srun --mpi=pmi2 sets it, over a fresh socketpair. */
    Map<String, String> fdEnv(int rank) throws Throwable {
        int[] pair = PmiSocketPair.open();
        serve(fdStream(pair[1]));
        return Map.of("PMI_FD", Integer.toString(pair[0]), "PMI_RANK", Integer.toString(rank),
                "PMI_SIZE", Integer.toString(size), "PMI_JOBID", jobId);
    }

    @Override
    Stream accepted(Socket s) throws IOException {
        return socketStream(s);
    }

    private static Stream socketStream(Socket s) throws IOException {
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream();
        return new Stream() {
            @Override
            public String readLine() throws IOException {
                StringBuilder sb = new StringBuilder();
                int c;
                while ((c = in.read()) >= 0 && c != '\n') {
                    sb.append((char) c);
                }
                return c < 0 ? null : sb.toString();
            }

            @Override
            public String read(int n) throws IOException {
                byte[] b = in.readNBytes(n);
                return b.length < n ? null : new String(b, StandardCharsets.US_ASCII);
            }

            @Override
            public void write(String text) throws IOException {
                send(out, text);
            }

            @Override
            public void close() {
                closeQuietly(s);
            }
        };
    }

    /**
     * The far end of a socketpair, read through the production {@link PmiFdConnection}. The first
     * byte of anything is awaited in 50 ms slices (so that {@link #close()} stops the loop; one
     * byte cannot arrive in part), the rest within 5 s.
     */
    private Stream fdStream(int fd) {
        PmiFdConnection conn = new PmiFdConnection(fd, "fake server end fd " + fd);
        return new Stream() {
            private String first() {
                while (!stopped) {
                    try {
                        return conn.receiveExactly(1, System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50), "a request");
                    } catch (RailyardException e) {
                        if (e.errorClass() != ErrorClass.TIMEOUT) {
                            return null; // the client closed its end
                        }
                    }
                }
                return null;
            }

            @Override
            public String readLine() {
                String c = first();
                return c == null ? null : c.equals("\n") ? "" : c + conn.receive(soon(), "the init line");
            }

            @Override
            public String read(int n) {
                String c = first();
                try {
                    return c == null ? null : c + conn.receiveExactly(n - 1, soon(), "a request");
                } catch (RailyardException e) {
                    return null;
                }
            }

            @Override
            public void write(String text) {
                conn.sendRaw(text, text, soon());
            }

            @Override
            public void close() {
                conn.close();
            }

            private long soon() {
                return System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            }
        };
    }

    @Override
    void serveLoop(Stream s) {
        try (s) {
            String init = s.readLine();
            if (init == null) {
                return;
            }
            received.add(init);
            if (!reply(s, init, "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n")) {
                return;
            }
            while (true) {
                String field = s.read(Pmi2Message.LENGTH_FIELD);
                if (field == null) {
                    return;
                }
                String body = s.read(Integer.parseInt(field.trim()));
                if (body == null) {
                    return;
                }
                received.add(body);
                if (body.startsWith("cmd=abort;")) {
                    return;
                }
                String normal = answer(s, body);
                if (normal != null && !reply(s, body, frame(normal))) {
                    return;
                }
            }
        } catch (IOException | RuntimeException e) {
            // the client went away or sent nonsense; the test asserts on what it saw
        }
    }

    /** Sends the normal answer or the override; false when the override hangs up. */
    private boolean reply(Stream s, String request, String normal) throws IOException {
        String instead = override.apply(request);
        if (HANG_UP.equals(instead)) {
            return false;
        }
        if (instead != null && instead.startsWith(HANG_UP_AFTER)) {
            s.write(instead.substring(HANG_UP_AFTER.length()));
            return false;
        }
        if (!SILENCE.equals(instead)) {
            s.write(instead != null ? instead : normal);
        }
        return true;
    }

    static String frame(String body) {
        return String.format("%-6d", body.length()) + body;
    }

    /** The normal answer's body, or null when the answer is sent later (a fence). */
    private String answer(Stream s, String body) throws IOException {
        Map<String, String> a = attributes(body);
        String cmd = a.getOrDefault("cmd", "");
        return switch (cmd) {
            case "fullinit" -> "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=" + a.get("pmirank")
                    + ";size=" + size + ";appnum=-1;debugged=FALSE;pmiverbose=FALSE;";
            case "job-getid" -> "cmd=job-getid-response;rc=0;jobid=" + jobId + ";";
            case "info-getjobattr" -> "PMI_process_mapping".equals(a.get("key")) && mapping != null
                    ? "cmd=info-getjobattr-response;rc=0;found=TRUE;value=" + mapping + ";"
                    : "cmd=info-getjobattr-response;rc=0;found=FALSE;";
            case "kvs-put" -> {
                stage(a.get("key"), a.get("value"));
                yield "cmd=kvs-put-response;rc=0;";
            }
            case "kvs-get" -> {
                String v = committed.get(a.get("key"));
                yield v == null ? "cmd=kvs-get-response;rc=0;found=FALSE;"
                        : "cmd=kvs-get-response;rc=0;found=TRUE;value=" + v + ";";
            }
            case "kvs-fence" -> {
                fence(s, body);
                yield null;
            }
            case "finalize" -> "cmd=finalize-response;rc=0;";
            default -> "cmd=" + cmd + "-response;rc=-1;errmsg=unknown command;";
        };
    }

    private void fence(Stream s, String body) throws IOException {
        List<Stream> release = enterFence(s);
        if (release != null) {
            for (Stream r : release) {
                reply(r, body, frame("cmd=kvs-fence-response;rc=0;"));
            }
        }
    }

    /** Splits "cmd=x;a=b;" at ';' and each attribute at its first '='. */
    static Map<String, String> attributes(String body) {
        return attributes(body, ";");
    }

    /** Requests received with the given cmd. */
    List<String> requests(String cmd) {
        return received.stream().filter(l -> l.startsWith("cmd=" + cmd + ";")).toList();
    }
}
