package mpi;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.function.Supplier;
import org.railyard.error.RailyardException;

/**
 * A communicator: point-to-point messages, packing, and what every communicator knows (size,
 * rank, group). {@link Intracomm} adds the collectives, {@link Intercomm} the remote group.
 *
 * <h2>How it maps to Railyard</h2>
 * Each instance wraps one {@link org.railyard.Comm}; matching, ordering, protocols and progress are
 * Railyard's. Buffers are Java arrays addressed by an offset and a count of elements of a
 * {@link Datatype}:
 * <ul>
 *   <li>{@code Send}, {@code Rsend} → {@code send} (a ready send is a standard send whose receive
 *       is already posted); {@code Ssend} → {@code ssend}; the non-blocking forms →
 *       {@code isend}/{@code issend}, giving a {@link Request}.</li>
 *   <li>{@code Bsend}/{@code Ibsend} copy the data and start an {@code isend} of the copy, so they
 *       return at once; the bytes in flight are counted against the buffer given to
 *       {@link MPI#Buffer_attach} (the copy lives on the Java heap, not in that buffer), and a send
 *       that would overflow it fails as MPI says. A send counts its data: the values' bytes, the
 *       serialized bytes plus a 16-byte header for {@link MPI#OBJECT}, or the packed bytes of an
 *       {@link mpjbuf.Buffer}; {@link #Pack_size} of the same data is enough (for objects it is
 *       an estimate that holds small objects). Without an attached buffer
 *       they still buffer (MPJ Express accepts that too). {@link MPI#Buffer_detach} waits for
 *       them.</li>
 *   <li>{@code Recv}, {@code Irecv}, {@code Probe}, {@code Iprobe} → {@code recv}, {@code irecv},
 *       {@code probe}, {@code iprobe}.</li>
 *   <li>Basic types and contiguous derived types go to Railyard in place; other derived types
 *       are packed into a fresh array before the send and scattered after the receive
 *       ({@link Datatype}). {@link MPI#OBJECT} data is serialized (see {@link MPI#OBJECT}).</li>
 *   <li>{@code Sendrecv} posts the receive, sends, then waits: it cannot deadlock whatever the
 *       peers' order.</li>
 *   <li>Persistent requests ({@code Send_init} ...) save the arguments; each
 *       {@link Prequest#Start()} is the matching non-blocking call.</li>
 * </ul>
 * Ranks are in {@code [0, Size())} or {@link MPI#PROC_NULL}; tags in {@code [0, MPI.TAG_UB]}.
 * Errors (a bad rank, a truncated message, a peer that died) are thrown as {@link MPIException}.
 */
public class Comm {
    static final int STANDARD = 0;
    static final int SYNC = 1;
    static final int READY = 2;
    static final int BUFFERED = 3;

    /** Railyard's communicator. */
    final org.railyard.Comm nat;

    /**
     * MPJ Express's device communicator under this one; on Railyard a shim with the size, this
     * process's rank and the context (see package {@code mpjdev}).
     */
    public mpjdev.Comm mpjdevComm;

    Comm(org.railyard.Comm nat) {
        this.nat = nat;
        this.mpjdevComm = nat == null ? null : new DeviceComm(nat);
    }

    // ---------------------------------------------------------------- what the communicator is

    /** Number of processes (of the local group, for an intercommunicator). */
    public int Size() throws MPIException {
        try {
            return nat.size();
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /** Rank of this process (in the local group, for an intercommunicator). */
    public int Rank() throws MPIException {
        try {
            return nat.rank();
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /** The group of the communicator (the local group, for an intercommunicator). */
    public Group Group() throws MPIException {
        return MPIException.call(() -> new Group(nat.group()));
    }

    /**
     * {@link MPI#IDENT} for the same communicator, {@link MPI#CONGRUENT} for the same processes in
     * the same order (another context, as after a dup), {@link MPI#SIMILAR} for the same
     * processes in another order, {@link MPI#UNEQUAL} otherwise.
     */
    public static int Compare(Comm comm1, Comm comm2) throws MPIException {
        return MPIException.call(() -> comm1 == comm2 ? MPI.IDENT : Group.result(org.railyard.Comm.compare(comm1.nat, comm2.nat)));
    }

    /**
     * Frees the communicator: later calls on it fail. {@code COMM_WORLD} and {@code COMM_SELF}
     * cannot be freed.
     */
    public void Free() throws MPIException {
        MPIException.run(nat::free);
    }

    /** True for an intercommunicator. */
    public boolean Test_inter() throws MPIException {
        return false;
    }

    /**
     * Collective over {@code local_comm} and, through the two leaders, over the peer group: an
     * intercommunicator between the group of {@code local_comm} and the group of the remote
     * leader. This communicator is the peer communicator, in which both leaders are members;
     * {@code remote_leader} is the rank of the other leader in it, and {@code tag} is used for the
     * leaders' messages in it.
     */
    public Intercomm Create_intercomm(Comm local_comm, int local_leader, int remote_leader, int tag) throws MPIException {
        return Intercomm.create(this, local_comm, local_leader, remote_leader, tag);
    }

    /**
     * The value of a predefined attribute: {@link MPI#TAG_UB} (the largest tag), {@link MPI#HOST}
     * ({@link MPI#PROC_NULL}: no host process), {@link MPI#IO} ({@link MPI#ANY_SOURCE}: every
     * process can do I/O). Programs cannot cache attributes of their own through this API.
     */
    public Object Attr_get(int keyval) throws MPIException {
        if (keyval == MPI.TAG_UB) {
            return org.railyard.Comm.TAG_UB;
        }
        if (keyval == MPI.HOST) {
            return MPI.PROC_NULL;
        }
        if (keyval == MPI.IO) {
            return MPI.ANY_SOURCE;
        }
        throw MPIException.error("Attr_get: no attribute with key " + keyval
                + " (the keys are MPI.TAG_UB, MPI.HOST and MPI.IO)");
    }

    /** Always fails: the only attributes are the predefined ones, which MPI forbids deleting. */
    public void Attr_delete(int keyval) throws MPIException {
        if (keyval == MPI.TAG_UB || keyval == MPI.HOST || keyval == MPI.IO) {
            throw MPIException.error("Attr_delete: the predefined attribute " + keyval + " cannot be deleted");
        }
        throw MPIException.error("Attr_delete: no attribute with key " + keyval);
    }

    /** {@link MPI#CART}, {@link MPI#GRAPH}, or {@link MPI#UNDEFINED} for a communicator without topology. */
    public int Topo_test() throws MPIException {
        return MPI.UNDEFINED;
    }

    /** Ends the whole job: this process exits with {@code errorcode} and the launcher stops the others. */
    public void Abort(int errorcode) throws MPIException {
        MPI.railyard().abort(errorcode);
    }

    /** A duplicate: the same group, a new context (collective). */
    @Override
    public Object clone() throws MPIException {
        return MPIException.call(() -> new Comm(nat.dup()));
    }

    // ---------------------------------------------------------------- blocking sends

    /** Standard-mode send of {@code count} elements of {@code datatype} from {@code buf} at {@code offset}. */
    public void Send(Object buf, int offset, int count, Datatype datatype, int dest, int tag) throws MPIException {
        send(buf, offset, count, datatype, Special.rankIn(dest), Special.tagIn(tag), STANDARD);
    }

    /** Synchronous-mode send: returns once the matching receive has started. */
    public void Ssend(Object buf, int offset, int count, Datatype datatype, int dest, int tag) throws MPIException {
        send(buf, offset, count, datatype, Special.rankIn(dest), Special.tagIn(tag), SYNC);
    }

    /** Buffered-mode send: returns once the data is copied, whatever the receiver does. */
    public void Bsend(Object buf, int offset, int count, Datatype datatype, int dest, int tag) throws MPIException {
        send(buf, offset, count, datatype, Special.rankIn(dest), Special.tagIn(tag), BUFFERED);
    }

    /** Ready-mode send: the matching receive must already be posted; sent as a standard send. */
    public void Rsend(Object buf, int offset, int count, Datatype datatype, int dest, int tag) throws MPIException {
        send(buf, offset, count, datatype, Special.rankIn(dest), Special.tagIn(tag), READY);
    }

    void send(Object buf, int offset, int count, Datatype type, int dest, int tag, int mode) {
        try {
            type.checkForMessage();
            if (movesNothing(type)) {
                send(NOTHING, 0, 0, MPI.BYTE, dest, tag, mode);
                return;
            }
            if (mode == BUFFERED) {
                start(buf, offset, count, type, dest, tag, BUFFERED);
                return;
            }
            if (type.base == Datatype.B_PACKED && buf instanceof mpjbuf.Buffer b) {
                byte[] m = Packed.message(b);
                sendNative(m, 0, m.length, type, dest, tag, mode);
                return;
            }
            type.checkBuffer(buf, offset, count, "Send");
            if (type.isObject()) {
                if (dest == org.railyard.Comm.PROC_NULL) {
                    sendNative(new byte[0], 0, 0, MPI.BYTE, dest, tag, mode);
                } else {
                    ObjectMessages.send(nat, ObjectMessages.encode(buf, offset, count, type), dest, tag, mode == SYNC);
                }
            } else if (type.contiguous) {
                sendNative(buf, offset, values(count, type), type, dest, tag, mode);
            } else {
                sendNative(type.gather(buf, offset, count), 0, values(count, type), type, dest, tag, mode);
            }
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    private void sendNative(Object buf, int offset, int n, Datatype type, int dest, int tag, int mode) {
        if (mode == SYNC) {
            nat.ssend(buf, offset, n, type.nativeType, dest, tag);
        } else {
            nat.send(buf, offset, n, type.nativeType, dest, tag);
        }
    }

    /** The buffer of messages whose datatype moves no data. */
    private static final byte[] NOTHING = new byte[0];

    /**
     * True for a datatype that moves no data (size 0: a {@code Struct} of no blocks, a
     * {@code Contiguous} of 0 ...). It fits any buffer, whatever its base type, and travels as an
     * empty message: a receive with it matches any message of 0 bytes (MPI's rule for type
     * signatures), and {@link Status#Get_count} of it is 0.
     */
    static boolean movesNothing(Datatype type) {
        return type.size() == 0 && type.base != Datatype.B_PACKED;
    }

    static int values(int count, Datatype type) {
        long n = (long) count * type.size();
        if (n > Integer.MAX_VALUE) {
            throw MPIException.error(count + " elements of " + type + " are more than 2^31 values");
        }
        return (int) n;
    }

    // ---------------------------------------------------------------- non-blocking sends

    /** Non-blocking standard-mode send. The buffer must not change until the request completes. */
    public Request Isend(Object buf, int offset, int count, Datatype datatype, int dest, int tag) throws MPIException {
        return new Request(start(buf, offset, count, datatype, Special.rankIn(dest), Special.tagIn(tag), STANDARD));
    }

    /** Non-blocking buffered send: complete at once (the data is copied). */
    public Request Ibsend(Object buf, int offset, int count, Datatype datatype, int dest, int tag) throws MPIException {
        return new Request(startBuffered(buf, offset, count, datatype, Special.rankIn(dest), Special.tagIn(tag)));
    }

    /** Non-blocking synchronous send: completes once the matching receive has started. */
    public Request Issend(Object buf, int offset, int count, Datatype datatype, int dest, int tag) throws MPIException {
        return new Request(start(buf, offset, count, datatype, Special.rankIn(dest), Special.tagIn(tag), SYNC));
    }

    /** Non-blocking ready send (a standard send whose receive is already posted). */
    public Request Irsend(Object buf, int offset, int count, Datatype datatype, int dest, int tag) throws MPIException {
        return new Request(start(buf, offset, count, datatype, Special.rankIn(dest), Special.tagIn(tag), READY));
    }

    private Pending startBuffered(Object buf, int offset, int count, Datatype type, int dest, int tag) {
        start(buf, offset, count, type, dest, tag, BUFFERED);
        return new Pending.Done(new Status());
    }

    /**
     * Starts a send. {@code BUFFERED}: the data is copied first (packing always copies), so the
     * caller may reuse its buffer at once; the returned operation is the send of the copy.
     */
    Pending start(Object buf, int offset, int count, Datatype type, int dest, int tag, int mode) {
        try {
            type.checkForMessage();
            if (movesNothing(type)) {
                return start(NOTHING, 0, 0, MPI.BYTE, dest, tag, mode);
            }
            boolean sync = mode == SYNC;
            boolean buffered = mode == BUFFERED;
            if (type.base == Datatype.B_PACKED && buf instanceof mpjbuf.Buffer b) {
                byte[] data = Packed.message(b);
                int n = data.length;
                return buffered ? MPI.bsends().start(n - Packed.TRAILER, () -> startNative(data, 0, n, type, dest, tag, false))
                        : startNative(data, 0, n, type, dest, tag, sync);
            }
            type.checkBuffer(buf, offset, count, "Isend");
            if (type.isObject()) {
                if (dest == org.railyard.Comm.PROC_NULL) {
                    return startNative(new byte[0], 0, 0, MPI.BYTE, dest, tag, sync);
                }
                ObjectMessages.Outgoing o = ObjectMessages.encode(buf, offset, count, type);
                return buffered ? MPI.bsends().start(o.buffered(), () -> ObjectMessages.isend(nat, o, dest, tag, false))
                        : ObjectMessages.isend(nat, o, dest, tag, sync);
            }
            int n = values(count, type);
            if (type.contiguous && !buffered) {
                return startNative(buf, offset, n, type, dest, tag, sync);
            }
            // Buffered sends and types with holes send a copy: the caller may reuse its buffer at once.
            Object copy = type.contiguous ? type.kind.toArray(buf, offset, n) : type.gather(buf, offset, count);
            return buffered ? MPI.bsends().start((long) n * type.kind.size, () -> startNative(copy, 0, n, type, dest, tag, false))
                    : startNative(copy, 0, n, type, dest, tag, sync);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    private Pending startNative(Object buf, int offset, int n, Datatype type, int dest, int tag, boolean sync) {
        return new Pending.Native(sync ? nat.issend(buf, offset, n, type.nativeType, dest, tag)
                : nat.isend(buf, offset, n, type.nativeType, dest, tag));
    }

    // ---------------------------------------------------------------- receives

    /** Blocking receive of at most {@code count} elements of {@code datatype} into {@code buf} at {@code offset}. */
    public Status Recv(Object buf, int offset, int count, Datatype datatype, int source, int tag) throws MPIException {
        return recv(buf, offset, count, datatype, Special.rankIn(source), Special.tagIn(tag));
    }

    /** {@link #Recv} with Railyard's values of {@code source} and {@code tag}. */
    private Status recv(Object buf, int offset, int count, Datatype datatype, int source, int tag) {
        try {
            datatype.checkForMessage();
            if (movesNothing(datatype)) {
                return recv(NOTHING, 0, 0, MPI.BYTE, source, tag);
            }
            if (datatype.base == Datatype.B_PACKED && buf instanceof mpjbuf.Buffer b) {
                // Sized to the message: probe, then receive that message (the first of its sender and tag).
                org.railyard.Status p = nat.probe(source, tag);
                byte[] m = new byte[(int) Math.max(p.bytes(), Packed.receiveRoom(b))];
                org.railyard.Status s = nat.recv(m, 0, m.length, org.railyard.Datatype.BYTE, p.source(), p.tag());
                if (s.source() != org.railyard.Comm.PROC_NULL) {
                    Packed.land(b, m, (int) s.bytes());
                }
                return Status.of(s);
            }
            datatype.checkBuffer(buf, offset, count, "Recv");
            if (datatype.isObject()) {
                return ObjectMessages.recv(nat, buf, offset, count, datatype, source, tag);
            }
            int n = values(count, datatype);
            if (datatype.contiguous) {
                return Status.of(nat.recv(buf, offset, n, datatype.nativeType, source, tag));
            }
            Object packed = datatype.newBaseArray(n);
            org.railyard.Status s = nat.recv(packed, 0, n, datatype.nativeType, source, tag);
            datatype.scatter(packed, 0, (int) (s.bytes() / datatype.kind.size), buf, offset);
            return Status.of(s);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /** Non-blocking receive. */
    public Request Irecv(Object buf, int offset, int count, Datatype datatype, int source, int tag) throws MPIException {
        return new Request(startRecv(buf, offset, count, datatype, Special.rankIn(source), Special.tagIn(tag)));
    }

    Pending startRecv(Object buf, int offset, int count, Datatype type, int source, int tag) {
        try {
            type.checkForMessage();
            if (movesNothing(type)) {
                return startRecv(NOTHING, 0, 0, MPI.BYTE, source, tag);
            }
            if (type.base == Datatype.B_PACKED && buf instanceof mpjbuf.Buffer b) {
                byte[] m = new byte[Packed.receiveRoom(b)];
                return new Pending.Native(nat.irecv(m, 0, m.length, org.railyard.Datatype.BYTE, source, tag), s -> {
                    if (s.source() != org.railyard.Comm.PROC_NULL && !s.cancelled()) {
                        Packed.land(b, m, (int) s.bytes());
                    }
                });
            }
            type.checkBuffer(buf, offset, count, "Irecv");
            if (type.isObject()) {
                return ObjectMessages.irecv(nat, buf, offset, count, type, source, tag);
            }
            int n = values(count, type);
            if (type.contiguous) {
                return new Pending.Native(nat.irecv(buf, offset, n, type.nativeType, source, tag));
            }
            Object packed = type.newBaseArray(n);
            return new Pending.Native(nat.irecv(packed, 0, n, type.nativeType, source, tag),
                    s -> type.scatter(packed, 0, (int) (s.bytes() / type.kind.size), buf, offset));
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /** The status of a matching message if one can be received now, else null; receives nothing. */
    public Status Iprobe(int source, int tag) throws MPIException {
        try {
            org.railyard.Status s = nat.iprobe(Special.rankIn(source), Special.tagIn(tag));
            return s == null ? null : Status.of(s);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /** Waits until a matching message can be received and returns its status; receives nothing. */
    public Status Probe(int source, int tag) throws MPIException {
        try {
            return Status.of(nat.probe(Special.rankIn(source), Special.tagIn(tag)));
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    // ---------------------------------------------------------------- send and receive at once

    /** Sends one message and receives one; deadlock-free whatever the peers' order. */
    public Status Sendrecv(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, int dest, int sendtag,
                           Object recvbuf, int recvoffset, int recvcount, Datatype recvtype, int source, int recvtag)
            throws MPIException {
        int to = Special.rankIn(dest);
        int stag = Special.tagIn(sendtag);
        Pending r = startRecv(recvbuf, recvoffset, recvcount, recvtype, Special.rankIn(source), Special.tagIn(recvtag));
        sendThenAwait(r, () -> send(sendbuf, sendoffset, sendcount, sendtype, to, stag, STANDARD));
        return r.status();
    }

    /** Sends the content of {@code buf}, then replaces it with the message received. */
    public Status Sendrecv_replace(Object buf, int offset, int count, Datatype datatype, int dest, int sendtag,
                                   int source, int recvtag) throws MPIException {
        int to = Special.rankIn(dest);
        int stag = Special.tagIn(sendtag);
        int from = Special.rankIn(source);
        int rtag = Special.tagIn(recvtag);
        try {
            datatype.checkForMessage();
            if (movesNothing(datatype)) {
                return Sendrecv(NOTHING, 0, 0, MPI.BYTE, dest, sendtag, NOTHING, 0, 0, MPI.BYTE, source, recvtag);
            }
            Runnable send;
            if (datatype.base == Datatype.B_PACKED && buf instanceof mpjbuf.Buffer b) {
                byte[] copy = Packed.message(b);
                send = () -> sendNative(copy, 0, copy.length, datatype, to, stag, STANDARD);
            } else {
                datatype.checkBuffer(buf, offset, count, "Sendrecv_replace");
                if (datatype.isObject()) {
                    ObjectMessages.Outgoing o = ObjectMessages.encode(buf, offset, count, datatype);
                    send = to == org.railyard.Comm.PROC_NULL ? () -> { } : () -> ObjectMessages.send(nat, o, to, stag, false);
                } else {
                    int n = values(count, datatype);
                    Object copy = datatype.contiguous ? datatype.kind.toArray(buf, offset, n) : datatype.gather(buf, offset, count);
                    send = () -> sendNative(copy, 0, n, datatype, to, stag, STANDARD);
                }
            }
            Pending r = startRecv(buf, offset, count, datatype, from, rtag);
            sendThenAwait(r, send);
            return r.status();
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    private static void sendThenAwait(Pending r, Runnable send) {
        try {
            send.run();
        } catch (RuntimeException e) {
            r.cancel(); // the receive must not stay posted for a message nobody will wait for
            throw e instanceof RailyardException re ? MPIException.of(re) : e;
        }
        r.await();
    }

    // ---------------------------------------------------------------- persistent requests

    /** A persistent standard send; each {@link Prequest#Start()} is an {@link #Isend}. */
    public Prequest Send_init(Object buf, int offset, int count, Datatype datatype, int dest, int tag) throws MPIException {
        return sendInit(buf, offset, count, datatype, dest, tag, STANDARD);
    }

    /** A persistent buffered send; each start is an {@link #Ibsend}. */
    public Prequest Bsend_init(Object buf, int offset, int count, Datatype datatype, int dest, int tag) throws MPIException {
        int peer = Special.rankIn(dest);
        int t = Special.tagIn(tag);
        return persistent(buf, offset, count, datatype, () -> startBuffered(buf, offset, count, datatype, peer, t));
    }

    /** A persistent synchronous send; each start is an {@link #Issend}. */
    public Prequest Ssend_init(Object buf, int offset, int count, Datatype datatype, int dest, int tag) throws MPIException {
        return sendInit(buf, offset, count, datatype, dest, tag, SYNC);
    }

    /** A persistent ready send; each start is an {@link #Irsend}. */
    public Prequest Rsend_init(Object buf, int offset, int count, Datatype datatype, int dest, int tag) throws MPIException {
        return sendInit(buf, offset, count, datatype, dest, tag, READY);
    }

    /** A persistent send in {@code mode} (not buffered): each start is {@link #start} in that mode. */
    private Prequest sendInit(Object buf, int offset, int count, Datatype datatype, int dest, int tag, int mode) {
        int peer = Special.rankIn(dest);
        int t = Special.tagIn(tag);
        return persistent(buf, offset, count, datatype, () -> start(buf, offset, count, datatype, peer, t, mode));
    }

    /** A persistent receive; each start is an {@link #Irecv}. */
    public Prequest Recv_init(Object buf, int offset, int count, Datatype datatype, int source, int tag) throws MPIException {
        int peer = Special.rankIn(source);
        int t = Special.tagIn(tag);
        return persistent(buf, offset, count, datatype, () -> startRecv(buf, offset, count, datatype, peer, t));
    }

    /** A persistent request; argument errors show at the init call, not at the first start. */
    private static Prequest persistent(Object buf, int offset, int count, Datatype type, Supplier<Pending> starter) {
        type.checkForMessage();
        if (!(type.base == Datatype.B_PACKED && buf instanceof mpjbuf.Buffer) && !movesNothing(type)) {
            type.checkBuffer(buf, offset, count, "persistent request");
        }
        return new Prequest(starter);
    }

    // ---------------------------------------------------------------- packing

    /**
     * Bytes {@link #Pack} needs for {@code incount} elements of {@code datatype}, as MPJ Express
     * 0.44 counts them: the values' bytes rounded up to a multiple of 8, plus an 8-byte section
     * header ({@code Pack_size(1000, MPI.INT)} is 4008). Also enough for the byte-array form of
     * {@code Pack} and for a buffered send of the same data ({@link #Bsend}).
     *
     * <p>{@link MPI#OBJECT}: the size of serialized objects is known only once they are
     * serialized, so this is an estimate, chosen to be usable: 8 bytes of header, plus
     * {@value #OBJECT_STREAM_ESTIMATE} bytes for the serialization stream's header and the
     * descriptions of a few classes, plus {@value #OBJECT_ESTIMATE} bytes per object. It holds
     * small objects (a few primitive fields and short strings each), so that
     * {@code Buffer_attach} of it lets {@code Bsend} of that many such objects through. Larger
     * objects need more: pack them into an {@link mpjbuf.Buffer} (which grows) and measure. (MPJ
     * Express answers 8, which counts only the section header, as its objects go to a
     * separate, unbounded part of the buffer.)
     */
    public int Pack_size(int incount, Datatype datatype) throws MPIException {
        datatype.checkForMessage();
        if (incount < 0) {
            throw MPIException.error("Pack_size: count " + incount + " is negative");
        }
        long values = (long) incount * datatype.size();
        long b = datatype.isObject()
                ? mpjbuf.Buffer.SECTION_OVERHEAD + OBJECT_STREAM_ESTIMATE + values * OBJECT_ESTIMATE
                : (values * datatype.kind.size + 7) / 8 * 8 + mpjbuf.Buffer.SECTION_OVERHEAD;
        if (b > Integer.MAX_VALUE) {
            throw MPIException.error("Pack_size: " + b + " bytes do not fit an int");
        }
        return (int) b;
    }

    /** {@link #Pack_size} of objects: bytes for the stream header and class descriptions. */
    static final int OBJECT_STREAM_ESTIMATE = 1024;
    /** {@link #Pack_size} of objects: bytes per object. */
    static final int OBJECT_ESTIMATE = 256;

    /**
     * Packs {@code incount} elements of {@code datatype} into {@code outbuf} as one section at the
     * first multiple of 8 at or after byte {@code position}; returns the buffer's size after
     * them. The buffer grows if it is too small. See {@link Packed} for the format.
     */
    public int Pack(Object inbuf, int offset, int incount, Datatype datatype, mpjbuf.Buffer outbuf, int position)
            throws MPIException {
        return Packed.pack(inbuf, offset, incount, datatype, outbuf, position);
    }

    /** mpiJava 1.2's form of {@link #Pack(Object, int, int, Datatype, mpjbuf.Buffer, int)}: into a byte array. */
    public int Pack(Object inbuf, int offset, int incount, Datatype datatype, byte[] outbuf, int position) throws MPIException {
        byte[] data = packBytes(inbuf, offset, incount, datatype);
        if (position < 0 || (long) position + data.length > outbuf.length) {
            throw MPIException.error("Pack: " + data.length + " bytes at position " + position
                    + " do not fit the buffer of " + outbuf.length + " bytes");
        }
        System.arraycopy(data, 0, outbuf, position, data.length);
        return position + data.length;
    }

    /**
     * Unpacks {@code outcount} elements of {@code datatype} from the next section of
     * {@code inbuf} (sections are read in the order they were packed, as in MPJ Express; see
     * {@link Packed}); returns {@code position + Pack_size(outcount, datatype)}.
     */
    public int Unpack(mpjbuf.Buffer inbuf, int position, Object outbuf, int offset, int outcount, Datatype datatype)
            throws MPIException {
        Packed.unpack(inbuf, outbuf, offset, outcount, datatype);
        return position + Pack_size(outcount, datatype);
    }

    /** mpiJava 1.2's form of {@link #Unpack(mpjbuf.Buffer, int, Object, int, int, Datatype)}: from a byte array. */
    public int Unpack(byte[] inbuf, int position, Object outbuf, int offset, int outcount, Datatype datatype) throws MPIException {
        return unpackBytes(inbuf, inbuf.length, position, outbuf, offset, outcount, datatype);
    }

    /** Packed form: the values in Railyard's wire layout; objects as an int length and their serialized bytes. */
    private static byte[] packBytes(Object inbuf, int offset, int incount, Datatype type) {
        type.checkForMessage();
        type.checkBuffer(inbuf, offset, incount, "Pack");
        if (type.isObject()) {
            ObjectMessages.Outgoing o = ObjectMessages.encode(inbuf, offset, incount, type);
            byte[] out = new byte[4 + o.length];
            MemorySegment.ofArray(out).set(LE_INT, 0, o.length);
            System.arraycopy(o.payload, 0, out, 4, o.length);
            return out;
        }
        int n = values(incount, type);
        Object src = type.contiguous ? inbuf : type.gather(inbuf, offset, incount);
        int from = type.contiguous ? offset : 0;
        byte[] out = new byte[n * type.kind.size];
        type.kind.copyOut(src, from, 0, MemorySegment.ofArray(out), 0, out.length);
        return out;
    }

    private static int unpackBytes(byte[] in, int limit, int position, Object outbuf, int offset, int outcount, Datatype type) {
        type.checkForMessage();
        type.checkBuffer(outbuf, offset, outcount, "Unpack");
        if (position < 0 || position > limit) {
            throw MPIException.error("Unpack: position " + position + " is outside the " + limit + " packed bytes");
        }
        int n = values(outcount, type);
        if (type.isObject()) {
            if (position + 4 > limit) {
                throw MPIException.error("Unpack: no packed objects at position " + position);
            }
            int len = MemorySegment.ofArray(in).get(LE_INT, position);
            if (len < 0 || position + 4L + len > limit) {
                throw MPIException.error("Unpack: the packed objects at position " + position + " run past the data");
            }
            Object[] tmp = new Object[n];
            ObjectMessages.decode(in, position + 4, len, n, tmp, 0);
            type.scatter(tmp, 0, n, outbuf, offset);
            return position + 4 + len;
        }
        long bytes = (long) n * type.kind.size;
        if (position + bytes > limit) {
            throw MPIException.error("Unpack: " + outcount + " elements of " + type + " need " + bytes
                    + " bytes from position " + position + ", but only " + (limit - position) + " are packed");
        }
        Object dst = type.contiguous ? outbuf : type.newBaseArray(n);
        int at = type.contiguous ? offset : 0;
        type.kind.copyIn(MemorySegment.ofArray(in), position, dst, at, 0, bytes);
        if (!type.contiguous) {
            type.scatter(dst, 0, n, outbuf, offset);
        }
        return (int) (position + bytes);
    }

    private static final java.lang.foreign.ValueLayout.OfInt LE_INT =
            java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + nat.name() + ", rank " + nat.rank() + " of " + nat.size() + "]";
    }
}
