package mpi;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.NotSerializableException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.railyard.error.RailyardException;

/**
 * How {@link MPI#OBJECT} data travels over Railyard, which moves bytes.
 *
 * <h2>Format</h2>
 * The objects of one send are written with one {@link ObjectOutputStream} (so objects shared
 * between elements stay shared on the other side) into a <em>payload</em>. It travels as:
 * <ol>
 *   <li>a <em>head</em> message on the user's communicator, tag and destination, so that it
 *       matches receives (and probes, and cancels) exactly as any message does:
 *       <pre>
 *   0       4        8       12      16
 *   +-------+--------+-------+-------+---------------------------------------------+
 *   |payload|tail tag|objects| magic | inline payload bytes, zero padded           |
 *   +-------+--------+-------+-------+---------------------------------------------+
 *       </pre>
 *       (little-endian ints). Its length is a function of the number of objects only,
 *       {@link #messageBytes}, so a receive for {@code n} objects posts a buffer of
 *       {@code messageBytes(n)} bytes, a message with more objects than that is truncated as MPI
 *       says, and the count of a probed message is known from its length ({@link #countOf}).</li>
 *   <li>if the payload is longer than the inline room, a <em>tail</em> message with the rest, on
 *       a private duplicate of the world communicator (the <em>lane</em>), from the sender's world
 *       rank, with a tag drawn from a per-process counter and named in the head.</li>
 * </ol>
 * A receive that completes its head posts the receive of the tail at once, without waiting for the
 * program to call a wait: a small watcher thread does it for non-blocking receives, so a large
 * object send completes as soon as its receive is posted, as MPI's progress rule asks.
 *
 * <h2>Objects that cannot be serialized</h2>
 * A send whose objects (or objects they reference) do not implement {@link java.io.Serializable}
 * fails at the sender with an MPIException naming the element and the class, before anything is
 * sent: the receiver sees no message. A receiver that cannot load a class of the payload fails its
 * receive with an MPIException (the message is consumed).
 */
final class ObjectMessages {
    private ObjectMessages() {
    }

    static final int HEADER = 16;
    private static final int MAGIC = 0x52594f42; // "RYOB"
    /** Inline room per object for the first few objects: one small object fits in one message. */
    private static final int PER_OBJECT = 8192;
    private static final int FULL_RATE = 8;
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Tags of tail messages, unique per sending process (modulo 2^30). */
    private static final AtomicInteger TAIL_TAGS = new AtomicInteger();

    /** Inline room of the head of an {@code n}-object message: 8 KiB per object up to 8, then one byte per object. */
    static long inlineRoom(long n) {
        return n <= FULL_RATE ? n * PER_OBJECT : (long) FULL_RATE * PER_OBJECT + (n - FULL_RATE);
    }

    /** Length of the head message of {@code n} objects. */
    static int messageBytes(long n) {
        long b = HEADER + inlineRoom(n);
        if (b > Integer.MAX_VALUE - 64) {
            throw MPIException.error("MPI.OBJECT: " + n + " objects in one message are more than Railyard can describe");
        }
        return (int) b;
    }

    /** The number of objects of a head message of {@code bytes} bytes; -1 if no head has that length. */
    static int countOf(long bytes) {
        long b = bytes - HEADER;
        if (b < 0) {
            return -1;
        }
        long full = (long) FULL_RATE * PER_OBJECT;
        if (b <= full) {
            return b % PER_OBJECT == 0 ? (int) (b / PER_OBJECT) : -1;
        }
        return (int) (FULL_RATE + (b - full));
    }

    // ---------------------------------------------------------------- encoding

    /** An encoded send: the head, and the payload whose bytes past {@code inline} form the tail. */
    static final class Outgoing {
        final byte[] head;
        final byte[] payload;
        final int length;
        final int inline;
        final int tailTag;

        Outgoing(byte[] head, byte[] payload, int length, int inline, int tailTag) {
            this.head = head;
            this.payload = payload;
            this.length = length;
            this.inline = inline;
            this.tailTag = tailTag;
        }

        boolean hasTail() {
            return length > inline;
        }

        /**
         * What a buffered send of these objects counts against the attached buffer: the
         * serialized bytes and the head's fixed header. The head's zero padding (its length
         * encodes the object count) is not data and is not counted.
         */
        long buffered() {
            return (long) length + HEADER;
        }
    }

    /** A byte sink whose array can be used without the copy {@link ByteArrayOutputStream#toByteArray()} makes. */
    private static final class Bytes extends ByteArrayOutputStream {
        Bytes() {
            super(256);
        }

        byte[] array() {
            return buf;
        }

        int length() {
            return count;
        }
    }

    /** Serializes {@code n} objects taken from {@code values} at {@code from}. */
    static Outgoing encode(Object[] values, int from, int n) {
        byte[] payload = new byte[0];
        int length = 0;
        if (n > 0) {
            Bytes bytes = new Bytes();
            try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
                for (int i = 0; i < n; i++) {
                    Object o = values[from + i];
                    try {
                        out.writeObject(o);
                    } catch (NotSerializableException e) {
                        throw MPIException.error("MPI.OBJECT: element " + i + " of the send (" + className(o)
                                + ") cannot be serialized: class " + e.getMessage()
                                + " does not implement java.io.Serializable; nothing was sent", e);
                    }
                }
            } catch (IOException e) {
                throw MPIException.error("MPI.OBJECT: the objects could not be serialized (" + e + "); nothing was sent", e);
            }
            payload = bytes.array();
            length = bytes.length();
        }
        int room = (int) Math.min(inlineRoom(n), Integer.MAX_VALUE);
        int inline = Math.min(room, length);
        byte[] head = new byte[messageBytes(n)];
        int tailTag = length > inline ? TAIL_TAGS.getAndIncrement() & org.railyard.Comm.TAG_UB : -1;
        MemorySegment h = MemorySegment.ofArray(head);
        h.set(LE_INT, 0, length);
        h.set(LE_INT, 4, tailTag);
        h.set(LE_INT, 8, n);
        h.set(LE_INT, 12, MAGIC);
        System.arraycopy(payload, 0, head, HEADER, inline);
        return new Outgoing(head, payload, length, inline, tailTag);
    }

    private static String className(Object o) {
        return o == null ? "null" : o.getClass().getName();
    }

    /** What a received head says. */
    record Head(int length, int tailTag, int objects) {
    }

    static Head parse(byte[] head, long bytes) {
        if (bytes == 0) {
            return new Head(0, -1, 0); // sent with a datatype that moves nothing: no objects
        }
        MemorySegment h = MemorySegment.ofArray(head);
        int n = countOf(bytes);
        if (bytes < HEADER || h.get(LE_INT, 12) != MAGIC || n < 0 || h.get(LE_INT, 8) != n) {
            throw MPIException.error("MPI.OBJECT: received a message of " + bytes
                    + " bytes that is not an object message (was it sent with another datatype?)");
        }
        return new Head(h.get(LE_INT, 0), h.get(LE_INT, 4), n);
    }

    /** Reads {@code n} objects from {@code len} bytes of {@code data} at {@code off} into {@code dst} at {@code dstOff}. */
    static void decode(byte[] data, int off, int len, int n, Object[] dst, int dstOff) {
        if (n == 0) {
            return;
        }
        try (ObjectInputStream in = new LoaderAwareInput(new ByteArrayInputStream(data, off, len))) {
            for (int i = 0; i < n; i++) {
                dst[dstOff + i] = in.readObject();
            }
        } catch (ClassNotFoundException e) {
            throw MPIException.error("MPI.OBJECT: the receiver cannot load class " + e.getMessage()
                    + " of a received object; put it on the class path of every rank", e);
        } catch (ArrayStoreException e) {
            throw MPIException.error("MPI.OBJECT: a received object does not fit the receive buffer of type "
                    + dst.getClass().getSimpleName() + " (" + e.getMessage() + ")", e);
        } catch (IOException e) {
            throw MPIException.error("MPI.OBJECT: received objects could not be read: " + e, e);
        }
    }

    /** Resolves classes through the thread's context loader too, for programs loaded by a loader of their own. */
    private static final class LoaderAwareInput extends ObjectInputStream {
        LoaderAwareInput(InputStream in) throws IOException {
            super(in);
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            try {
                return super.resolveClass(desc);
            } catch (ClassNotFoundException e) {
                ClassLoader cl = Thread.currentThread().getContextClassLoader();
                if (cl == null) {
                    throw e;
                }
                return Class.forName(desc.getName(), false, cl);
            }
        }
    }

    // ---------------------------------------------------------------- sending and receiving

    /** The objects of {@code count} elements of {@code type} at {@code offset}, gathered if the type has holes. */
    static Outgoing encode(Object buf, int offset, int count, Datatype type) {
        int n = count * type.size();
        if (type.contiguous) {
            return encode((Object[]) buf, offset, n);
        }
        return encode((Object[]) type.gather(buf, offset, count), 0, n);
    }

    /** Sends an encoded message, blocking; {@code sync}: the head goes in synchronous mode. */
    static void send(org.railyard.Comm comm, Outgoing o, int dest, int tag, boolean sync) {
        if (sync) {
            comm.ssend(o.head, 0, o.head.length, org.railyard.Datatype.BYTE, dest, tag);
        } else {
            comm.send(o.head, 0, o.head.length, org.railyard.Datatype.BYTE, dest, tag);
        }
        if (o.hasTail()) {
            MPI.lane().send(o.payload, o.inline, o.length - o.inline, org.railyard.Datatype.BYTE, comm.worldRank(dest), o.tailTag);
        }
    }

    /** Starts sending an encoded message. */
    static Pending isend(org.railyard.Comm comm, Outgoing o, int dest, int tag, boolean sync) {
        org.railyard.Request head = sync
                ? comm.issend(o.head, 0, o.head.length, org.railyard.Datatype.BYTE, dest, tag)
                : comm.isend(o.head, 0, o.head.length, org.railyard.Datatype.BYTE, dest, tag);
        if (!o.hasTail()) {
            return new Pending.Native(head);
        }
        org.railyard.Request tail = MPI.lane().isend(o.payload, o.inline, o.length - o.inline,
                org.railyard.Datatype.BYTE, comm.worldRank(dest), o.tailTag);
        return new SendPending(head, tail);
    }

    /** Blocking receive of {@code count} elements of {@code type} (base OBJECT) into {@code buf}. */
    static Status recv(org.railyard.Comm comm, Object buf, int offset, int count, Datatype type, int source, int tag) {
        int n = count * type.size();
        byte[] head = new byte[messageBytes(n)];
        org.railyard.Status s = comm.recv(head, 0, head.length, org.railyard.Datatype.BYTE, source, tag);
        if (s.source() == org.railyard.Comm.PROC_NULL) {
            Status st = new Status(org.railyard.Comm.PROC_NULL, org.railyard.Comm.ANY_TAG, 0);
            st.objects = 0;
            return st;
        }
        Head h = parse(head, s.bytes());
        byte[] payload = head;
        int payloadOff = HEADER;
        if (h.length > inlineRoom(h.objects)) {
            int inline = (int) inlineRoom(h.objects);
            payload = new byte[h.length];
            System.arraycopy(head, HEADER, payload, 0, inline);
            payloadOff = 0;
            MPI.lane().recv(payload, inline, h.length - inline, org.railyard.Datatype.BYTE, comm.worldRank(s.source()), h.tailTag);
        }
        place(payload, payloadOff, h, buf, offset, type);
        Status st = new Status(s.source(), s.tag(), s.bytes());
        st.objects = h.objects;
        return st;
    }

    /** Decodes the payload into the user's slots. */
    private static void place(byte[] payload, int off, Head h, Object buf, int offset, Datatype type) {
        if (type.contiguous) {
            decode(payload, off, h.length, h.objects, (Object[]) buf, offset);
        } else {
            Object[] tmp = new Object[h.objects];
            decode(payload, off, h.length, h.objects, tmp, 0);
            type.scatter(tmp, 0, h.objects, buf, offset);
        }
    }

    /** Starts a receive; the watcher posts the receive of the tail as soon as the head is in. */
    static Pending irecv(org.railyard.Comm comm, Object buf, int offset, int count, Datatype type, int source, int tag) {
        int n = count * type.size();
        byte[] head = new byte[messageBytes(n)];
        org.railyard.Request r = comm.irecv(head, 0, head.length, org.railyard.Datatype.BYTE, source, tag);
        RecvPending p = new RecvPending(comm, r, head, buf, offset, type);
        if (!p.advance(false)) {
            WATCHER.watch(p);
        }
        return p;
    }

    /** A head and its tail, both under way. */
    private static final class SendPending extends Pending {
        private final org.railyard.Request head;
        private final org.railyard.Request tail;

        SendPending(org.railyard.Request head, org.railyard.Request tail) {
            this.head = head;
            this.tail = tail;
        }

        @Override
        boolean test() {
            try {
                boolean a = head.test();
                return tail.test() && a;
            } catch (RailyardException e) {
                throw MPIException.of(e);
            }
        }

        @Override
        void await() {
            try {
                head.await();
                tail.await();
            } catch (RailyardException e) {
                throw MPIException.of(e);
            }
        }

        @Override
        Status status() {
            return Status.of(head.status());
        }
    }

    /** A receive in three stages: waiting for the head, waiting for the tail, done. */
    static final class RecvPending extends Pending {
        private static final int HEAD = 0;
        private static final int TAIL = 1;
        private static final int DONE = 2;

        private final org.railyard.Comm comm;
        private final org.railyard.Request headRequest;
        private final byte[] head;
        private final Object buf;
        private final int offset;
        private final Datatype type;
        private int stage = HEAD;
        private org.railyard.Request tailRequest;
        private org.railyard.Status headStatus;
        private Head parsed;
        private byte[] payload;
        private Status status;

        RecvPending(org.railyard.Comm comm, org.railyard.Request headRequest, byte[] head, Object buf, int offset, Datatype type) {
            this.comm = comm;
            this.headRequest = headRequest;
            this.head = head;
            this.buf = buf;
            this.offset = offset;
            this.type = type;
        }

        /**
         * Moves on as far as possible without blocking; true once nothing more needs watching
         * (tail posted, done, or failed: the failure is thrown again by the program's wait).
         * {@code drive}: let Railyard's test drive progress (the program's thread), else only look.
         */
        synchronized boolean advance(boolean drive) {
            try {
                if (stage == HEAD) {
                    boolean done = drive ? headRequest.test() : headRequest.isDone() && headRequest.test();
                    if (!done) {
                        return false;
                    }
                    headStatus = headRequest.status();
                    if (headStatus.cancelled()) {
                        status = Status.of(headStatus);
                        stage = DONE;
                        return true;
                    }
                    if (headStatus.source() == org.railyard.Comm.PROC_NULL) {
                        status = new Status(org.railyard.Comm.PROC_NULL, org.railyard.Comm.ANY_TAG, 0);
                        status.objects = 0;
                        stage = DONE;
                        return true;
                    }
                    parsed = parse(head, headStatus.bytes());
                    int inline = (int) inlineRoom(parsed.objects);
                    if (parsed.length > inline) {
                        payload = new byte[parsed.length];
                        System.arraycopy(head, HEADER, payload, 0, inline);
                        tailRequest = MPI.lane().irecv(payload, inline, parsed.length - inline, org.railyard.Datatype.BYTE,
                                comm.worldRank(headStatus.source()), parsed.tailTag);
                        stage = TAIL;
                    } else {
                        finish(head, HEADER);
                        return true;
                    }
                }
                if (stage == TAIL && drive && tailRequest.test()) {
                    finish(payload, 0);
                }
                return true;
            } catch (RuntimeException e) {
                if (!drive) {
                    // Not the watcher's to report: the program's next wait or test fails the same way.
                    return true;
                }
                throw e instanceof RailyardException r ? MPIException.of(r) : e;
            }
        }

        private void finish(byte[] data, int off) {
            place(data, off, parsed, buf, offset, type);
            status = new Status(headStatus.source(), headStatus.tag(), headStatus.bytes());
            status.objects = parsed.objects;
            stage = DONE;
        }

        @Override
        boolean test() {
            synchronized (this) {
                if (stage == DONE) {
                    return true;
                }
            }
            advance(true);
            synchronized (this) {
                return stage == DONE;
            }
        }

        @Override
        void await() {
            while (true) {
                org.railyard.Request r;
                synchronized (this) {
                    if (stage == DONE) {
                        return;
                    }
                    r = stage == HEAD ? headRequest : tailRequest;
                }
                try {
                    r.await();
                } catch (RailyardException e) {
                    throw MPIException.of(e);
                }
                advance(true);
            }
        }

        @Override
        synchronized Status status() {
            return status;
        }

        @Override
        synchronized boolean cancel() {
            if (stage == HEAD && headRequest.cancel()) {
                status = Status.of(headRequest.status());
                status.cancelled = true;
                stage = DONE;
                return true;
            }
            return false;
        }
    }

    // ---------------------------------------------------------------- the watcher

    private static final Watcher WATCHER = new Watcher();

    /** Stops the watcher thread (at MPI.Finalize). */
    static void shutdown() {
        WATCHER.stop();
    }

    /**
     * Posts the tail receives of non-blocking object receives whose head has arrived. It only
     * looks at requests (Railyard's progress is driven by its own agent or by the program's
     * waits) and sleeps when nothing is watched.
     */
    private static final class Watcher implements Runnable {
        private final ConcurrentLinkedQueue<RecvPending> watched = new ConcurrentLinkedQueue<>();
        private volatile Thread thread;
        private volatile boolean stopped;

        void watch(RecvPending p) {
            watched.add(p);
            Thread t = thread;
            if (t == null) {
                synchronized (this) {
                    t = thread;
                    if (t == null) {
                        stopped = false;
                        t = Thread.ofPlatform().daemon().name("railyard-mpi-objects").unstarted(this);
                        thread = t;
                        t.start();
                    }
                }
            }
            LockSupport.unpark(t);
        }

        @Override
        public void run() {
            int idle = 0;
            while (!stopped) {
                boolean moved = false;
                for (Iterator<RecvPending> it = watched.iterator(); it.hasNext(); ) {
                    if (it.next().advance(false)) {
                        it.remove();
                        moved = true;
                    }
                }
                if (watched.isEmpty()) {
                    LockSupport.park(this);
                    idle = 0;
                } else {
                    idle = moved ? 0 : Request.idle(Math.max(idle, 200));
                }
            }
        }

        synchronized void stop() {
            Thread t = thread;
            if (t != null) {
                stopped = true;
                LockSupport.unpark(t);
                try {
                    t.join(1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                thread = null;
            }
            watched.clear();
        }
    }
}
