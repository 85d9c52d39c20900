package org.railyard.transport.shm;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The files through which processes of one node share memory (the shm transport's rings, and the
 * segments of {@link ShmNodeMemory}): where they go, how they are named, created and mapped.
 * Their names start with {@code railyard-} and the job, so a file a crash left behind says whose
 * it was; only their owner may read them.
 */
final class SharedFiles {
    private static final SecureRandom RANDOM = new SecureRandom();

    private SharedFiles() {
    }

    /** {@code /dev/shm} (tmpfs) when it is there and writable, else the temporary directory. */
    static Path directory() {
        Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** {@code railyard-<job>-<what>-<random hex>}, the job reduced to characters safe in a file name. */
    static String name(String jobId, String what) {
        String job = jobId.replaceAll("[^A-Za-z0-9_.-]", "_");
        job = job.length() > 100 ? job.substring(0, 100) : job;
        return "railyard-" + job + "-" + what + "-" + HexFormat.of().toHexDigits(RANDOM.nextLong());
    }

    /**
     * Creates {@code file} (it must not exist), readable by its owner only, of {@code bytes}. With
     * {@code writtenOut} every page is written now, so a tmpfs too small for it fails here with a
     * message rather than with SIGBUS at the first store into a page it cannot give; otherwise
     * the file is sparse and pages come as they are touched.
     */
    static void create(Path file, long bytes, boolean writtenOut) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                StandardOpenOption.WRITE)) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            if (!writtenOut) {
                ch.write(ByteBuffer.allocate(1), bytes - 1);
                return;
            }
            ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(bytes, 1 << 20));
            for (long at = 0; at < bytes; at += zeros.capacity()) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - at));
                while (zeros.hasRemaining()) {
                    ch.write(zeros, at + zeros.position());
                }
            }
        } catch (IOException | RuntimeException ex) {
            Files.deleteIfExists(file);
            throw ex;
        }
    }

    /**
     * Maps all of {@code file}, which must hold exactly {@code bytes} ({@code mismatch} is added to
     * the error when it does not), read-write, for the life of {@code arena}.
     */
    static MemorySegment map(Path file, long bytes, Arena arena, String mismatch) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            if (ch.size() != bytes) {
                throw new IOException(file + " has " + ch.size() + " bytes, expected " + bytes + mismatch);
            }
            return ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
        }
    }
}
