package mpjbuf;

/**
 * Where the static storage of buffers comes from: {@link #create(int)} and {@link #destroy}, as
 * MPJ Express 0.44 has them. MPJ Express allocates from a buddy allocator of direct memory chosen
 * by {@link #init(String)}; the facade needs no pool (Railyard does not send from this storage
 * directly), so every factory hands out plain heap storage of exactly the size asked, and the
 * allocator name is accepted and ignored. A program may install no factory of its own.
 */
public abstract class BufferFactory {
    private static volatile boolean initialized;

    public BufferFactory() {
    }

    /** Accepted for MPJ Express's programs and devices; the name of an allocator is not used. */
    public static void init(String allocator) {
        initialized = true;
    }

    /** Storage of {@code size} bytes. */
    public static RawBuffer create(int size) {
        if (size < 0) {
            throw new java.lang.IllegalArgumentException("BufferFactory.create: size " + size + " is negative");
        }
        return new NIOBuffer(size);
    }

    /** Releases storage made by {@link #create(int)}. */
    public static void destroy(RawBuffer buffer) {
        if (buffer != null) {
            buffer.free();
        }
    }

    /** True after {@link #init(String)} (creating storage works either way). */
    public static boolean initialized() {
        return initialized;
    }

    /** Ends the factory's life; storage still works afterwards. */
    public static void shut() {
        initialized = false;
    }

    /** An allocator's own start. */
    public abstract void init();

    /** An allocator's own end (MPJ Express's spelling). */
    public abstract void finalixe();

    public abstract void destroyBuffer(RawBuffer buffer);

    public abstract RawBuffer createBuffer(int size);
}
