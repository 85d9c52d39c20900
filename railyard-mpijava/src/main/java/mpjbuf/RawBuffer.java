package mpjbuf;

import java.nio.ByteBuffer;

/**
 * The static storage of a {@link Buffer}: bytes addressed by absolute position, with typed bulk
 * writes and reads, as MPJ Express 0.44 defines it. Positions are byte offsets into the storage;
 * element offsets and counts are in elements of the Java array. {@code reverse}: the stored
 * values are in the other byte order than this storage writes, so reads swap their bytes.
 * {@link NIOBuffer} is the implementation.
 */
public interface RawBuffer {
    /** Bytes of storage. */
    int getCapacity();

    /** Releases the storage; the buffer holds nothing afterwards. */
    void free();

    /** Stores the low 8 bits of {@code value} at byte {@code position}. */
    void putByte(int value, int position);

    /** The byte at {@code position}, 0..255. */
    int getByte(int position);

    /** Stores {@code value} at byte {@code position}. */
    void putInt(int value, int position);

    /** The int at byte {@code position}. */
    int getInt(int position, boolean reverse);

    /** Copies {@code length} bytes of {@code src} from its index {@code srcOffset} to byte {@code position}. */
    void copy(ByteBuffer src, int srcOffset, int length, int position);

    /** Stores {@code numEls} values of {@code src} from {@code srcOff} at byte {@code position} on. */
    void write(byte[] src, int srcOff, int numEls, int position);

    /** Stores {@code src[indexes[offs + i]]} for i below {@code numEls} at byte {@code position} on; returns numEls. */
    int gather(byte[] src, int numEls, int offs, int[] indexes, int position);

    /** Stores a strided region of {@code src} (see {@link Buffer#strGather(byte[], int, int, int, int, int[])}) at byte {@code position} on. */
    void strGather(byte[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position);

    /** Loads {@code numEls} values from byte {@code position} on into {@code dest} from {@code dstOff}. */
    void read(byte[] dest, int dstOff, int numEls, int position, boolean reverse);

    /** Loads values from byte {@code position} on into {@code dest[indexes[offs + i]]}; returns numEls. */
    int scatter(byte[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse);

    /** Loads values from byte {@code position} on into a strided region of {@code dest}. */
    void strScatter(byte[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse);

    /** Stores {@code numEls} values of {@code src} from {@code srcOff} at byte {@code position} on. */
    void write(short[] src, int srcOff, int numEls, int position);

    /** Stores {@code src[indexes[offs + i]]} for i below {@code numEls} at byte {@code position} on; returns numEls. */
    int gather(short[] src, int numEls, int offs, int[] indexes, int position);

    /** Stores a strided region of {@code src} (see {@link Buffer#strGather(short[], int, int, int, int, int[])}) at byte {@code position} on. */
    void strGather(short[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position);

    /** Loads {@code numEls} values from byte {@code position} on into {@code dest} from {@code dstOff}. */
    void read(short[] dest, int dstOff, int numEls, int position, boolean reverse);

    /** Loads values from byte {@code position} on into {@code dest[indexes[offs + i]]}; returns numEls. */
    int scatter(short[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse);

    /** Loads values from byte {@code position} on into a strided region of {@code dest}. */
    void strScatter(short[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse);

    /** Stores {@code numEls} values of {@code src} from {@code srcOff} at byte {@code position} on. */
    void write(int[] src, int srcOff, int numEls, int position);

    /** Stores {@code src[indexes[offs + i]]} for i below {@code numEls} at byte {@code position} on; returns numEls. */
    int gather(int[] src, int numEls, int offs, int[] indexes, int position);

    /** Stores a strided region of {@code src} (see {@link Buffer#strGather(int[], int, int, int, int, int[])}) at byte {@code position} on. */
    void strGather(int[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position);

    /** Loads {@code numEls} values from byte {@code position} on into {@code dest} from {@code dstOff}. */
    void read(int[] dest, int dstOff, int numEls, int position, boolean reverse);

    /** Loads values from byte {@code position} on into {@code dest[indexes[offs + i]]}; returns numEls. */
    int scatter(int[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse);

    /** Loads values from byte {@code position} on into a strided region of {@code dest}. */
    void strScatter(int[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse);

    /** Stores {@code numEls} values of {@code src} from {@code srcOff} at byte {@code position} on. */
    void write(long[] src, int srcOff, int numEls, int position);

    /** Stores {@code src[indexes[offs + i]]} for i below {@code numEls} at byte {@code position} on; returns numEls. */
    int gather(long[] src, int numEls, int offs, int[] indexes, int position);

    /** Stores a strided region of {@code src} (see {@link Buffer#strGather(long[], int, int, int, int, int[])}) at byte {@code position} on. */
    void strGather(long[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position);

    /** Loads {@code numEls} values from byte {@code position} on into {@code dest} from {@code dstOff}. */
    void read(long[] dest, int dstOff, int numEls, int position, boolean reverse);

    /** Loads values from byte {@code position} on into {@code dest[indexes[offs + i]]}; returns numEls. */
    int scatter(long[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse);

    /** Loads values from byte {@code position} on into a strided region of {@code dest}. */
    void strScatter(long[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse);

    /** Stores {@code numEls} values of {@code src} from {@code srcOff} at byte {@code position} on. */
    void write(char[] src, int srcOff, int numEls, int position);

    /** Stores {@code src[indexes[offs + i]]} for i below {@code numEls} at byte {@code position} on; returns numEls. */
    int gather(char[] src, int numEls, int offs, int[] indexes, int position);

    /** Stores a strided region of {@code src} (see {@link Buffer#strGather(char[], int, int, int, int, int[])}) at byte {@code position} on. */
    void strGather(char[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position);

    /** Loads {@code numEls} values from byte {@code position} on into {@code dest} from {@code dstOff}. */
    void read(char[] dest, int dstOff, int numEls, int position, boolean reverse);

    /** Loads values from byte {@code position} on into {@code dest[indexes[offs + i]]}; returns numEls. */
    int scatter(char[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse);

    /** Loads values from byte {@code position} on into a strided region of {@code dest}. */
    void strScatter(char[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse);

    /** Stores {@code numEls} values of {@code src} from {@code srcOff} at byte {@code position} on. */
    void write(float[] src, int srcOff, int numEls, int position);

    /** Stores {@code src[indexes[offs + i]]} for i below {@code numEls} at byte {@code position} on; returns numEls. */
    int gather(float[] src, int numEls, int offs, int[] indexes, int position);

    /** Stores a strided region of {@code src} (see {@link Buffer#strGather(float[], int, int, int, int, int[])}) at byte {@code position} on. */
    void strGather(float[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position);

    /** Loads {@code numEls} values from byte {@code position} on into {@code dest} from {@code dstOff}. */
    void read(float[] dest, int dstOff, int numEls, int position, boolean reverse);

    /** Loads values from byte {@code position} on into {@code dest[indexes[offs + i]]}; returns numEls. */
    int scatter(float[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse);

    /** Loads values from byte {@code position} on into a strided region of {@code dest}. */
    void strScatter(float[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse);

    /** Stores {@code numEls} values of {@code src} from {@code srcOff} at byte {@code position} on. */
    void write(double[] src, int srcOff, int numEls, int position);

    /** Stores {@code src[indexes[offs + i]]} for i below {@code numEls} at byte {@code position} on; returns numEls. */
    int gather(double[] src, int numEls, int offs, int[] indexes, int position);

    /** Stores a strided region of {@code src} (see {@link Buffer#strGather(double[], int, int, int, int, int[])}) at byte {@code position} on. */
    void strGather(double[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position);

    /** Loads {@code numEls} values from byte {@code position} on into {@code dest} from {@code dstOff}. */
    void read(double[] dest, int dstOff, int numEls, int position, boolean reverse);

    /** Loads values from byte {@code position} on into {@code dest[indexes[offs + i]]}; returns numEls. */
    int scatter(double[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse);

    /** Loads values from byte {@code position} on into a strided region of {@code dest}. */
    void strScatter(double[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse);

    /** Stores {@code numEls} values of {@code src} from {@code srcOff} at byte {@code position} on. */
    void write(boolean[] src, int srcOff, int numEls, int position);

    /** Stores {@code src[indexes[offs + i]]} for i below {@code numEls} at byte {@code position} on; returns numEls. */
    int gather(boolean[] src, int numEls, int offs, int[] indexes, int position);

    /** Stores a strided region of {@code src} (see {@link Buffer#strGather(boolean[], int, int, int, int, int[])}) at byte {@code position} on. */
    void strGather(boolean[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position);

    /** Loads {@code numEls} values from byte {@code position} on into {@code dest} from {@code dstOff}. */
    void read(boolean[] dest, int dstOff, int numEls, int position, boolean reverse);

    /** Loads values from byte {@code position} on into {@code dest[indexes[offs + i]]}; returns numEls. */
    int scatter(boolean[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse);

    /** Loads values from byte {@code position} on into a strided region of {@code dest}. */
    void strScatter(boolean[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse);
}
