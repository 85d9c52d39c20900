package org.railyard.channel;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.railyard.transport.NodeMemory;

/**
 * The memory of this node's processes as the engine reaches it: the {@link NodeMemory} of the
 * started transport that shares it ({@code Capability.NODE_MEMORY}, the shm transport), through
 * this floor so that the engine never names a transport type. {@link ChannelTable#localMemory()}
 * gives it, or null when no started transport shares the node's memory
 * ({@code railyard.transports=tcp}, say): the engine then moves everything as messages.
 * The contracts are those of {@link NodeMemory}.
 */
public final class LocalMemory {
    private final NodeMemory memory;
    private final NodeMemory.Identity identity;

    LocalMemory(NodeMemory memory) {
        this.memory = memory;
        this.identity = memory.identity();
    }

    /** A new segment of {@code bytes} shared by this node's processes; its name, to tell them. See {@link NodeMemory#create}. */
    public String createSegment(String what, long bytes) throws IOException {
        return memory.create(what, bytes);
    }

    /** Maps segment {@code name} of exactly {@code bytes} for the life of {@code arena}. See {@link NodeMemory#attach}. */
    public MemorySegment attachSegment(String name, long bytes, Arena arena, String mismatch) throws IOException {
        return memory.attach(name, bytes, arena, mismatch);
    }

    /** Removes the name of a segment once every process has mapped it. See {@link NodeMemory#unlink}. */
    public void unlinkSegment(String name) {
        memory.unlink(name);
    }

    /** Null if this process can read other processes' memory; else why not. */
    public String whyNoReads() {
        return memory.whyNoReads();
    }

    /** The address of this process's identity token (see {@link NodeMemory.Identity}). */
    public long identityAddress() {
        return identity.address();
    }

    /** Word {@code i} (0 or 1) of this process's identity token. */
    public long identityWord(int i) {
        return i == 0 ? identity.word0() : identity.word1();
    }

    /** True if process {@code pid} holds the token {@code word0, word1} at {@code address}. See {@link NodeMemory#verify}. */
    public boolean verify(long pid, long address, long word0, long word1) {
        return memory.verify(pid, address, word0, word1);
    }

    /** A reader of another process's memory for the calling component; allocates nothing per read. */
    public Reader reader() {
        return new Reader(memory.reader());
    }

    /** A short name of the failure a read returned, for messages. */
    public String errorName(long negErrno) {
        return memory.errorName(negErrno);
    }

    /** See {@link NodeMemory.Reader}: not for concurrent use. */
    public static final class Reader {
        private final NodeMemory.Reader reader;

        private Reader(NodeMemory.Reader reader) {
            this.reader = reader;
        }

        /**
         * Copies {@code length} bytes at {@code remoteAddress} in process {@code pid} to native
         * memory of this process at {@code dstAddress}; {@code length}, or minus an errno.
         */
        public long read(long pid, long dstAddress, long remoteAddress, long length) {
            return reader.read(pid, dstAddress, remoteAddress, length);
        }
    }
}
