package org.railyard.engine.coll;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

import org.railyard.channel.LocalMemory;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;
import org.railyard.util.NodeBarrier;

/**
 * The shared segment of a communicator whose processes all run on one node: a segment of the
 * node's memory ({@link LocalMemory}, which the shm transport shares) mapped by every member, through which the blocking bcast, allgather(v) and alltoall move large
 * payloads with one copy in by the writer and one copy out by each reader, whatever the buffers
 * are, and through which the blocking allreduce, reduce and reduce-scatter gather the vectors
 * that each member folds a range of. Without it a Java array, which no other process can read,
 * crosses every hop of a tree or ring twice: into the shared ring, then out of it.
 *
 * <p>The segment has two halves. Each use (a collective, or one piece of a collective larger than
 * a half; every member counts uses alike, since blocking collectives of a communicator run in the
 * same order everywhere) writes into half {@code use % 2}, passes a dissemination barrier, then
 * reads. Writing is safe without asking anyone: a process that has passed the barrier of use
 * {@code k - 1} knows that every member entered it, so every member had finished reading use
 * {@code k - 2}, the last one of the same half. Readers of use {@code k} may still be copying
 * out while writers of use {@code k + 1} fill the other half. The barrier's messages are ordinary
 * collective messages, so a member that dies fails the collective as any other would.
 *
 * <p>Only blocking collectives use it: MPI does not let a non-blocking collective match a
 * blocking one, and the blocking collectives of a communicator never overlap in a process, so two
 * uses cannot interleave.
 *
 * <p>Setup, at the first collective of a communicator that qualifies: rank 0 creates the segment
 * (owner-only, named after the job and a random number, written out so that a full node fails
 * here and not at a later copy) and broadcasts its name, every member maps it, an allreduce of
 * "mapped" agrees, and rank 0 unlinks the name; the segment stays mapped. If any member failed,
 * or has no transport that shares the node's memory (shm excluded from its transports), none uses
 * the segment and the communicator keeps its point-to-point algorithms; the choice log says why.
 */
final class CollShm {
    /** The algorithm's name in the choice log and for {@code railyard.coll.<collective>}. */
    static final String NAME = "shared-segment";
    /** The alltoall or allgather whose members read their blocks from each other's buffers ({@link #offer}). */
    static final String READS = "shared-segment+cross-memory-reads";
    private static final int NAME_BYTES = 200;

    private final Arena arena;
    private final MemorySegment seg;
    private final long half;
    private final LocalMemory memory;
    private long uses;
    /** Set once every member mapped the segment. */
    private CollCounter counter;
    /**
     * Each member's process id, when every member read back every other's identity token at
     * attach ({@link #agreeOnReads}); null when cross-memory reads are off or some member could
     * not read another.
     */
    private long[] pids;
    private LocalMemory.Reader reader;
    /**
     * Per collective that may read (alltoall, allgather): calls left that go through the cells
     * without asking, since the last that found a heap buffer ({@link #tryReads}).
     */
    private final int[] skipOffers = new int[2];
    /** The collectives of {@link #tryReads}. */
    static final int ALLTOALL = 0;
    static final int ALLGATHER = 1;

    private CollShm(Arena arena, MemorySegment seg, long half, LocalMemory memory) {
        this.arena = arena;
        this.seg = seg;
        this.half = half;
        this.memory = memory;
    }

    /**
     * Maps the shared segment of {@code c} (two halves of {@code halfBytes}), agreeing with every
     * member; null (and a line in the choice log saying why) if some member could not.
     * Collective: every member calls it at the same point.
     */
    static CollShm attach(CollServices e, Collectives coll, CommState c, long halfBytes) {
        LocalMemory memory = e.localMemory();
        byte[] name = new byte[NAME_BYTES];
        String created = null;
        String why = null;
        if (memory == null) {
            why = "no transport of this process shares the node's memory (shm is not among its transports)";
        } else if (c.rank == 0) {
            try {
                created = memory.createSegment("coll", bytesOf(halfBytes, c.size()));
                byte[] b = created.getBytes(StandardCharsets.US_ASCII);
                name[0] = (byte) b.length;
                System.arraycopy(b, 0, name, 1, b.length);
            } catch (IOException | RuntimeException ex) {
                why = "creating it failed: " + ex;
            }
        }
        CollShm made = null;
        try {
            coll.bcast(c, name, Kind.BYTE, 0, name.length, 0);
            int len = name[0] & 0xFF;
            if (len == 0) {
                why = why != null ? why : "rank 0 of " + c.name() + " could not create it";
            } else if (why == null) {
                try {
                    made = map(memory, new String(name, 1, len, StandardCharsets.US_ASCII), halfBytes, c.size());
                    long words = barrierAt(halfBytes);
                    made.seg.set(ValueLayout.JAVA_LONG, words + NodeBarrier.BYTES + 8L * c.rank, ProcessHandle.current().pid());
                    made.counter = new CollCounter(e, c, made, made.seg.asSlice(words, NodeBarrier.BYTES),
                            made.seg.asSlice(words + NodeBarrier.BYTES, 8L * c.size()));
                } catch (IOException | RuntimeException ex) {
                    why = "mapping it failed: " + ex;
                }
            }
            int[] all = new int[1];
            coll.allreduce(c, new int[] {made != null ? 1 : 0}, 0, all, 0, 1, Kind.INT, Reduction.MIN);
            if (all[0] == 1) {
                if (32L * c.size() <= 2 * halfBytes) {
                    made.agreeOnReads(e, coll, c);
                }
                return made;
            }
            why = why != null ? why : "another member could not map it";
        } finally {
            if (created != null) {
                memory.unlinkSegment(created);
            }
        }
        if (made != null) {
            made.close();
        }
        e.choice("rank " + e.rank() + ": " + c.name() + ": no shared segment for large collectives, " + why);
        return null;
    }

    /**
     * Each member writes its process id and identity token ({@link LocalMemory#identityAddress}) into
     * its entry of the segment; after an allreduce that every member enters only once it has
     * written, each reads every other member's token back from that process id; a second
     * allreduce agrees whether all could, and ends the reads of the entries before any use of the
     * segment writes over them. A member whose cross-memory reads are off ({@code railyard.cma},
     * or no {@code process_vm_readv}) takes part and says no. Collective.
     */
    private void agreeOnReads(CollServices e, Collectives coll, CommState c) {
        int p = c.size();
        boolean can = e.crossMemoryReads();
        long at = 32L * c.rank;
        seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at, can ? ProcessHandle.current().pid() : 0);
        seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 8, can ? memory.identityAddress() : 0);
        seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 16, can ? memory.identityWord(0) : 0);
        seg.set(ValueLayout.JAVA_LONG_UNALIGNED, at + 24, can ? memory.identityWord(1) : 0);
        int[] one = {1};
        int[] all = new int[1];
        coll.allreduce(c, one, 0, all, 0, 1, Kind.INT, Reduction.MIN);
        long[] found = new long[p];
        String why = can ? null : "cross-memory reads are off in this process";
        for (int q = 0; q < p; q++) {
            long pid = seg.get(ValueLayout.JAVA_LONG_UNALIGNED, 32L * q);
            found[q] = pid;
            if (q != c.rank && why == null && pid == 0) {
                why = "rank " + q + " has cross-memory reads off";
            } else if (q != c.rank && why == null && !memory.verify(pid,
                    seg.get(ValueLayout.JAVA_LONG_UNALIGNED, 32L * q + 8), seg.get(ValueLayout.JAVA_LONG_UNALIGNED, 32L * q + 16),
                    seg.get(ValueLayout.JAVA_LONG_UNALIGNED, 32L * q + 24))) {
                why = "the identity token of rank " + q + " (pid " + pid + ") could not be read back";
            }
        }
        coll.allreduce(c, new int[] {why == null ? 1 : 0}, 0, all, 0, 1, Kind.INT, Reduction.MIN);
        if (all[0] == 1) {
            pids = found;
            reader = memory.reader();
        } else {
            e.choice("rank " + e.rank() + ": " + c.name() + ": no cross-memory reads through the shared segment, "
                    + (why != null ? why : "another member could not read a token back"));
        }
    }

    /** Calls of a collective that take the cells without asking, after one found a member's buffer on the heap. */
    static final int SKIP_AFTER_HEAP = 63;

    /**
     * True if this call of {@code which} ({@link #ALLTOALL}, {@link #ALLGATHER}) should ask
     * whether every member's buffers are native ({@link #offer}): the members may read each
     * other's memory ({@link #agreeOnReads}), and none of the last {@link #SKIP_AFTER_HEAP} calls
     * of it found a heap buffer. Asking costs a barrier; a program of Java arrays pays it once in
     * that many calls, and a program that mixes both kinds of buffer in one collective reads only
     * when a run of native calls outlasts the count. Every member counts alike.
     */
    boolean tryReads(int which) {
        if (pids == null) {
            return false;
        }
        if (skipOffers[which] > 0) {
            skipOffers[which]--;
            return false;
        }
        return true;
    }

    /** The offer of this call of {@code which} found a heap buffer: its next {@link #SKIP_AFTER_HEAP} take the cells. */
    void heapFound(int which) {
        skipOffers[which] = SKIP_AFTER_HEAP;
    }

    /**
     * A collective by cross-memory reads, first use: this member writes into its entry of the
     * next half the address of {@code sbuf} at {@code soff} and {@code bytes} (its block: of an
     * alltoall, each of its blocks) if both its buffers are native memory, zeros if not. The
     * caller then passes a barrier and asks {@link #allOffered}.
     *
     * @return the offset of the half this use took
     */
    int offer(CollTeam t, Object sbuf, int soff, Kind sk, Object rbuf, long bytes) {
        int at = next();
        long from = addressOf(sbuf);
        boolean readable = from != 0 && addressOf(rbuf) != 0;
        long entry = at + 16L * t.me;
        seg.set(ValueLayout.JAVA_LONG_UNALIGNED, entry, readable ? from + (long) soff * sk.size : 0);
        seg.set(ValueLayout.JAVA_LONG_UNALIGNED, entry + 8, readable ? bytes : 0);
        return at;
    }

    /** After the barrier of {@link #offer}'s use at {@code at}: true if every member offered its buffer. */
    boolean allOffered(CollTeam t, int at) {
        for (int q = 0; q < t.size; q++) {
            if (seg.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 16L * q) == 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * When every member offered: copies this member's own block ({@code scount} elements of
     * {@code sk} at {@code ownOff} of {@code sbuf}) into place, then reads each other member q's
     * block for this member, {@code counts[q]} elements of {@code rk}, from q's offered buffer
     * at {@code me * stride} bytes (alltoall: {@code stride} is the block; allgather: 0) straight
     * into {@code rbuf} at {@code roff + displs[q]}, one copy, starting with the next rank up so
     * that the members do not all read from the same one. Then takes a use for the barrier that
     * the caller passes next: no member returns (and may write its send buffer) before every
     * member has read from it, and the entries are read before the half is written again.
     *
     * @return null, or what failed (the caller still passes the barrier, then throws it)
     */
    RailyardException readBlocks(CollTeam t, int at, Object sbuf, int ownOff, int scount, Kind sk, Object rbuf, int roff,
                                 int[] counts, int[] displs, Kind rk, long stride, String what) {
        int p = t.size;
        next();
        CollSchedule.copyNow(sk, sbuf, ownOff, scount, rk, rbuf, roff + displs[t.me]);
        long dst = addressOf(rbuf) + (long) roff * rk.size;
        for (int i = 1; i < p; i++) {
            int q = (t.me + i) % p;
            long base = seg.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 16L * q);
            long theirs = seg.get(ValueLayout.JAVA_LONG_UNALIGNED, at + 16L * q + 8);
            long expect = (long) counts[q] * rk.size;
            if (theirs != expect) {
                return new RailyardException(ErrorClass.COUNT, what + ": rank " + t.rank(q) + " sends "
                        + (stride != 0 ? "blocks of " : "a block of ") + theirs + " bytes, rank " + t.rank(t.me) + " receives "
                        + expect + " from it");
            }
            if (expect == 0) {
                continue;
            }
            long pid = pids[t.rank(q)];
            long r = reader.read(pid, dst + (long) displs[q] * rk.size, base + t.me * stride, expect);
            if (r != expect) {
                return new RailyardException(r == -3 ? ErrorClass.PEER_FAILED : ErrorClass.IO, what + ": reading the block of rank "
                        + t.rank(q) + " (pid " + pid + ") failed: " + memory.errorName(r));
            }
        }
        return null;
    }

    /** The address of a native buffer ({@code MemorySegment}, direct {@code ByteBuffer}); 0 for anything else. */
    private static long addressOf(Object buf) {
        if (CollSchedule.isArray(buf)) {
            return 0;
        }
        MemorySegment m = CollSchedule.segment(buf);
        return m.isNative() ? m.address() : 0;
    }

    private static CollShm map(LocalMemory memory, String name, long halfBytes, int members) throws IOException {
        Arena arena = Arena.ofShared();
        try {
            return new CollShm(arena, memory.attachSegment(name, bytesOf(halfBytes, members), arena,
                    " (is railyard.coll.shm.size the same in every process?)"), halfBytes, memory);
        } catch (IOException | RuntimeException ex) {
            arena.close();
            throw ex;
        }
    }

    /** Unmaps the segment (the communicator is freed, or the engine closes). */
    void close() {
        arena.close();
    }

    /**
     * The segment's bytes for halves of {@code half} bytes and {@code members} members: the halves,
     * then the counter barrier's words, then each member's process id (written at attach, read by a
     * waiter of the counter barrier to find a member that died).
     */
    static long bytesOf(long half, int members) {
        return barrierAt(half) + NodeBarrier.BYTES + 8L * members;
    }

    /** Where the counter barrier's words start: after the halves, on a cache line of their own. */
    private static long barrierAt(long half) {
        return (2 * half + 63) & ~63L;
    }

    /** The barrier and small allreduce over this segment's counter barrier. */
    CollCounter counter() {
        return counter;
    }

    MemorySegment segment() {
        return seg;
    }

    /** The bytes of each half. */
    long halfBytes() {
        return half;
    }

    /** A member's slot in a half of a use among {@code p} members: a p-th of it, whole 8-byte words. */
    long slot(int p) {
        return (half / p) & ~7L;
    }

    /** The offset of the half the next use writes into. */
    int next() {
        return (int) ((uses++ & 1) * half);
    }

    // ------------------------------------------------------------------ schedules

    /** Broadcast: the root writes each piece, the others read it after the barrier. */
    void bcast(CollSchedule s, CollTeam t, int root, Object buf, Kind k, int off, int count) {
        int per = (int) (half / k.size);
        for (int first = 0; first < count; first += per) {
            int n = Math.min(per, count - first);
            int at = next();
            if (t.me == root) {
                s.copy(k, buf, off + first, n, Kind.BYTE, seg, at);
            }
            CollTree.dissemination(s, t);
            if (t.me != root) {
                s.copy(Kind.BYTE, seg, at, n * k.size, k, buf, off + first);
            }
        }
    }

    /**
     * Allgather(v): each member writes the piece of its block into its slot of the half, and
     * reads the others' pieces after the barrier. Blocks larger than a slot ({@code half / p},
     * whole 8-byte words, so that pieces end on element boundaries of either kind) go in as many
     * uses as the largest block needs.
     */
    void allgatherv(CollSchedule s, CollTeam t, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff,
                    int[] counts, int[] displs, Kind rk) {
        int p = t.size;
        long slot = slot(p);
        long largest = 0;
        for (int q = 0; q < p; q++) {
            largest = Math.max(largest, (long) counts[q] * rk.size);
        }
        s.copy(sk, sbuf, soff, scount, rk, rbuf, roff + displs[t.me]);
        for (long from = 0; from < largest; from += slot) {
            int at = next();
            piece(s, sk, sbuf, soff, (long) scount * sk.size, from, slot, at + t.me * slot, true);
            CollTree.dissemination(s, t);
            for (int q = 0; q < p; q++) {
                if (q != t.me) {
                    piece(s, rk, rbuf, roff + displs[q], (long) counts[q] * rk.size, from, slot, at + q * slot, false);
                }
            }
        }
    }

    /**
     * Alltoall: the half is a p-by-p grid of cells; member r writes its block for q into cell
     * (r, q) and, after the barrier, reads cell (q, r) from each q. Blocks larger than a cell go
     * in pieces, a use each.
     */
    void alltoall(CollSchedule s, CollTeam t, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff,
                  int rcount, Kind rk) {
        int p = t.size;
        long cell = (half / ((long) p * p)) & ~7L;
        long block = (long) scount * sk.size;
        s.copy(sk, sbuf, soff + t.me * scount, scount, rk, rbuf, roff + t.me * rcount);
        for (long from = 0; from < block; from += cell) {
            int at = next();
            for (int q = 0; q < p; q++) {
                if (q != t.me) {
                    piece(s, sk, sbuf, soff + q * scount, block, from, cell, at + ((long) t.me * p + q) * cell, true);
                }
            }
            CollTree.dissemination(s, t);
            for (int q = 0; q < p; q++) {
                if (q != t.me) {
                    piece(s, rk, rbuf, roff + q * rcount, block, from, cell, at + ((long) q * p + t.me) * cell, false);
                }
            }
        }
    }

    /**
     * Allreduce ({@code root} -1) or reduce to {@code root}: each member owns a range of every
     * piece (a p-th of its items). It writes the rest of its vector into its slot of the half;
     * after a barrier it folds its own range from every slot, in rank order
     * ({@code x0 op x1 op ... op x(p-1)}, so a non-commutative operation is served too), and writes
     * the result over that range of its own slot, which no other member reads in this use; after a
     * second barrier every member (allreduce) or the root (reduce) copies the others' results out.
     * Each member of an allreduce copies about two and a half vectors, where a reduce-scatter and
     * an allgather over the rings copy each of their messages twice (three vectors and more), and
     * it waits on two barriers where they wait on 2 log p exchanges. {@code acc} is a Java array of
     * {@code k} that holds the whole vector where the result goes (elsewhere only the member's own
     * range of it is used); it may be {@code sbuf} itself (in place).
     */
    void reduce(CollSchedule s, CollTeam t, int root, Object sbuf, int soff, Object acc, int accOff, Kind k, int count,
                int width) {
        int p = t.size;
        int me = t.me;
        long slot = slot(p);
        int per = (int) Math.min(Integer.MAX_VALUE - 7, slot / k.size / width * width);
        int largestRange = (int) ((((long) Math.min(per, count) / width) + p - 1) / p * width);
        Object tmp = largestRange > 0 ? s.scratch(k, largestRange) : null;
        for (int first = 0; first < count; first += per) {
            int n = Math.min(per, count - first);
            int lo = range(n, width, p, me);
            int hi = range(n, width, p, me + 1);
            int at = next();
            long mine = at + me * slot;
            // the others' ranges of my vector, into my slot; my own range, into the result
            s.copy(k, sbuf, soff + first, lo, Kind.BYTE, seg, (int) mine);
            s.copy(k, sbuf, soff + first + hi, n - hi, Kind.BYTE, seg, (int) (mine + (long) hi * k.size));
            s.copy(k, sbuf, soff + first + lo, acc, accOff + first + lo, hi - lo);
            CollTree.dissemination(s, t);
            int m = hi - lo;
            if (m > 0) {
                // member q's copy of my range lies in its slot
                fold(s, t, k, at + (long) lo * k.size, slot, tmp, acc, accOff + first + lo, m);
                s.copy(k, acc, accOff + first + lo, m, Kind.BYTE, seg, (int) (mine + (long) lo * k.size));
            }
            CollTree.dissemination(s, t);
            if (root >= 0 && me != root) {
                continue;
            }
            for (int q = 0; q < p; q++) {
                int qlo = range(n, width, p, q);
                int qhi = range(n, width, p, q + 1);
                if (q != me && qhi > qlo) {
                    s.copy(Kind.BYTE, seg, (int) (at + q * slot + (long) qlo * k.size), (qhi - qlo) * k.size, k, acc,
                            accOff + first + qlo);
                }
            }
        }
    }

    /**
     * Reduce-scatter: the half is a p-by-p grid of cells; member r writes the piece of its block
     * for q into cell (r, q) and, after the barrier, folds column {@code me} in rank order into its
     * result, which already holds its own piece. One barrier a use, and each block crosses the
     * segment once. {@code acc} is a Java array of {@code k} that receives this member's block.
     */
    void reduceScatter(CollSchedule s, CollTeam t, Object sbuf, int soff, int[] counts, int[] starts, Kind k,
                       Object acc, int accOff, int width) {
        int p = t.size;
        int me = t.me;
        long cell = (half / ((long) p * p)) & ~7L;
        int per = (int) Math.min(Integer.MAX_VALUE - 7, cell / k.size / width * width);
        int largest = 0;
        for (int q = 0; q < p; q++) {
            largest = Math.max(largest, counts[q]);
        }
        Object tmp = counts[me] > 0 ? s.scratch(k, Math.min(per, counts[me])) : null;
        for (int from = 0; from < largest; from += per) {
            int at = next();
            for (int q = 0; q < p; q++) {
                int n = Math.min(per, counts[q] - from);
                if (q != me && n > 0) {
                    s.copy(k, sbuf, soff + starts[q] + from, n, Kind.BYTE, seg, (int) (at + ((long) me * p + q) * cell));
                }
            }
            int m = Math.min(per, counts[me] - from);
            if (m > 0) {
                s.copy(k, sbuf, soff + starts[me] + from, acc, accOff + from, m);
            }
            CollTree.dissemination(s, t);
            if (m > 0) {
                // member q's piece of my block lies in cell (q, me)
                fold(s, t, k, at + (long) me * cell, (long) p * cell, tmp, acc, accOff + from, m);
            }
        }
    }

    /**
     * Folds every other member's {@code m} elements into {@code acc}, which holds this member's,
     * in rank order: {@code x(q) op acc} for the lower ranks downwards, {@code acc op x(q)} for the
     * higher ones upwards. Member q's elements lie in the segment at {@code base + q * stride}; each
     * is copied into {@code tmp} (a Java array, as operations take) before it is applied.
     */
    private void fold(CollSchedule s, CollTeam t, Kind k, long base, long stride, Object tmp, Object acc, int accOff, int m) {
        for (int q = t.me - 1; q >= 0; q--) {
            s.copy(Kind.BYTE, seg, (int) (base + q * stride), m * k.size, k, tmp, 0);
            s.reduce(k, tmp, 0, acc, accOff, m);
        }
        for (int q = t.me + 1; q < t.size; q++) {
            s.copy(Kind.BYTE, seg, (int) (base + q * stride), m * k.size, k, tmp, 0);
            s.reduceHigher(k, acc, accOff, tmp, 0, m);
        }
    }

    /** The first element of member {@code q}'s range of a piece of {@code n} elements: a p-th of the items each. */
    private static int range(int n, int width, int p, int q) {
        return (int) ((long) (n / width) * q / p) * width;
    }

    /**
     * Copies bytes {@code [from, from + room)} of a block of {@code blockBytes} (its elements of
     * {@code k} at {@code off} of {@code buf}) into the segment at {@code at} ({@code in}) or out
     * of it; nothing if the block ends before {@code from}.
     */
    private void piece(CollSchedule s, Kind k, Object buf, int off, long blockBytes, long from, long room, long at,
                       boolean in) {
        long bytes = Math.min(room, blockBytes - from);
        if (bytes <= 0) {
            return;
        }
        int first = off + (int) (from / k.size);
        if (in) {
            s.copy(k, buf, first, (int) (bytes / k.size), Kind.BYTE, seg, (int) at);
        } else {
            s.copy(Kind.BYTE, seg, (int) at, (int) bytes, k, buf, first);
        }
    }

    /** The bytes each half holds: {@code railyard.coll.shm.size / 2}, whole 8-byte words, at least 8 per cell. */
    static long halfOf(long size, int p) {
        long half = Math.min(1L << 30, (size / 2) & ~7L);
        return Math.max(half, 8L * p * p);
    }
}
