package org.railyard.transport.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import org.railyard.transport.NodeMemory;

/**
 * The shm transport's {@link NodeMemory}: segments are files in the directory of its rings
 * ({@link SharedFiles}, {@code /dev/shm}), named {@code railyard-<job>-<what>-<random>}; reads
 * are {@link ProcessMemory}'s. A name given to {@link #attach} must be a bare file name of that
 * form, so a peer cannot make this process map a file elsewhere.
 */
final class ShmNodeMemory implements NodeMemory {
    private final Path dir;
    private final String jobId;

    ShmNodeMemory(Path dir, String jobId) {
        this.dir = dir;
        this.jobId = jobId;
    }

    @Override
    public String create(String what, long bytes) throws IOException {
        Path file = dir.resolve(SharedFiles.name(jobId, what));
        try {
            SharedFiles.create(file, bytes, true);
        } catch (IOException e) {
            throw new IOException("creating " + file + " of " + bytes + " bytes failed: " + e, e);
        }
        return file.getFileName().toString();
    }

    @Override
    public MemorySegment attach(String name, long bytes, Arena arena, String mismatch) throws IOException {
        return SharedFiles.map(file(name), bytes, arena, mismatch);
    }

    @Override
    public void unlink(String name) {
        try {
            Files.deleteIfExists(file(name));
        } catch (IOException ignored) {
            // a file left in tmpfs is named after the job, and only its owner may read it
        }
    }

    /** The file of segment {@code name}, refused unless the name is one {@link #create} makes. */
    private Path file(String name) throws IOException {
        if (!name.startsWith("railyard-") || name.contains("/") || name.contains("\0")) {
            throw new IOException("'" + name + "' names no shared segment of Railyard's");
        }
        return dir.resolve(name);
    }

    @Override
    public String whyNoReads() {
        return ProcessMemory.unavailableReason();
    }

    @Override
    public Identity identity() {
        return ProcessMemory.identity();
    }

    @Override
    public boolean verify(long pid, long address, long word0, long word1) {
        return ProcessMemory.verify(pid, address, word0, word1);
    }

    @Override
    public Reader reader() {
        return new ProcessMemory.Reader();
    }

    @Override
    public String errorName(long negErrno) {
        return ProcessMemory.errorName(negErrno);
    }
}
