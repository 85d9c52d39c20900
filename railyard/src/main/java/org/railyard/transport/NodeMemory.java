package org.railyard.transport;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The memory of the processes of one node, as a transport that shares it offers it to the layers
 * above ({@link Capability#NODE_MEMORY}, {@link Transport#nodeMemory()}): segments that several
 * processes of the node map at once, and reads of another process's memory in one copy. The
 * collectives move large payloads through a communicator's segment, one-sided windows of one node
 * live in one, and a rendezvous between two processes of the node may read the payload from the
 * sender instead of taking DATA frames. A process whose transports offer none uses messages for
 * all of that.
 *
 * <p>Segments. {@link #create} makes one under a name, {@link #attach} maps it in each process
 * that was told the name (the name is short ASCII: it fits a small message), {@link #unlink}
 * removes the name once every process has mapped it, so nothing is left behind whatever happens
 * to the processes later; a mapping lives as long as the arena it was made in.
 *
 * <p>Reads. A process id names a process only within one pid namespace, and two containers may
 * share a node's name; so before it trusts addresses a peer announced, a reader checks the peer's
 * {@link Identity}: it reads the token back from the process id the peer gave and compares it with
 * the words the peer sent ({@link #verify}). Reads ({@link Reader#read}) copy native memory only:
 * a Java array moves with each garbage collection, so neither end of a read can be one.
 */
public interface NodeMemory {

    /**
     * This process's identity token: 16 random bytes in native memory at {@code address}, whose two
     * words a process sends to a peer that may read its memory. One instance for the process.
     */
    record Identity(long address, long word0, long word1) {
    }

    /**
     * Reads another process's memory with the call's argument block allocated once, so a read
     * allocates nothing; not for concurrent use (a caller keeps one per thread of progress).
     */
    interface Reader {
        /**
         * Copies {@code length} bytes at {@code remoteAddress} in process {@code pid} into native
         * memory of this process at {@code dstAddress}, which the caller keeps alive and large
         * enough, looping over partial reads.
         *
         * @return {@code length}, or minus the {@code errno} of the failure (see {@link #errorName})
         */
        long read(long pid, long dstAddress, long remoteAddress, long length);
    }

    /**
     * Creates a segment of {@code bytes}, every page given now (a node without room for it fails
     * here with a message, not later at a store), readable by this user only, named after the job
     * and {@code what}. Returns its name, for {@link #attach} in the processes that share it.
     */
    String create(String what, long bytes) throws IOException;

    /**
     * Maps all of segment {@code name}, which must hold exactly {@code bytes} ({@code mismatch} is
     * added to the error when it does not), read-write, for the life of {@code arena}.
     *
     * @throws IOException if the name is none this interface makes, or the segment cannot be mapped
     */
    MemorySegment attach(String name, long bytes, Arena arena, String mismatch) throws IOException;

    /** Removes the name of a segment {@link #create} made; its mappings stay. Never throws. */
    void unlink(String name);

    /** Null if this process can read other processes' memory here; else why not (no such call, no native access). */
    String whyNoReads();

    /** This process's identity token (see {@link Identity}). */
    Identity identity();

    /**
     * True if process {@code pid} holds {@code word0, word1} at {@code address}: the process id
     * names the process that sent them, and its addresses may be read. Allocates; called once per peer.
     */
    boolean verify(long pid, long address, long word0, long word1);

    /** A reader of its own for the calling component (see {@link Reader}). */
    Reader reader();

    /** A short name of the failure a {@link Reader#read} returned (minus an errno), for messages. */
    String errorName(long negErrno);
}
