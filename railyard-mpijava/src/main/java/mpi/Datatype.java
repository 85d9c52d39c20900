package mpi;

import java.util.Arrays;
import org.railyard.types.Kind;

/**
 * The layout of one element of a message inside a Java array: which array slots it covers.
 *
 * <h2>How it maps to Railyard</h2>
 * A datatype is a <em>type map</em> over one base type: the list of displacements, in array
 * slots, of the base values an element consists of, plus a lower and an upper bound. All sizes,
 * extents and displacements are counted in slots of the buffer array (not in bytes), as mpiJava
 * defines them: {@code MPI.INT.Extent()} is 1, a {@code Vector(3, 2, 4, MPI.INT)} has size 6 and
 * extent 10.
 *
 * <ul>
 *   <li>The basic types ({@code BYTE, CHAR, SHORT, BOOLEAN, INT, LONG, FLOAT, DOUBLE}) are
 *       Railyard's own {@link org.railyard.Datatype}s; they and every derived type whose slots are
 *       consecutive (such as {@code Contiguous} of a basic type, or the pair types {@code INT2}
 *       ...) are handed to the engine in place, without a copy.</li>
 *   <li>A type with holes, bounds or reordering is <em>packed</em>: before a send, its slots are
 *       gathered (by runs of consecutive slots) into a fresh contiguous array of the base type,
 *       which the engine sends; a receive lands in such an array and is scattered into the
 *       user's slots afterwards. On the wire, a message of any layout is just its base values, so
 *       a vector sent may be received as plain {@code INT}s and the other way round.</li>
 *   <li>{@code OBJECT} sends {@link java.io.Serializable} objects (see {@link MPI#OBJECT}).</li>
 *   <li>{@code PACKED} is bytes produced by {@link Comm#Pack}; {@code LB} and {@code UB} are
 *       the zero-size markers that set the bounds of a {@link #Struct}.</li>
 * </ul>
 *
 * <p>A derived type is ready as soon as it is built; {@link #Commit()} precomputes the copy plan
 * (runs of consecutive slots) that an uncommitted type would otherwise compute on first use, so a
 * program that forgets to commit still runs, as it does on MPJ Express.
 */
public abstract class Datatype implements Freeable {
    // Base type codes. Their order is the order of MPI's predefined types in MPI.java.
    static final int B_BYTE = 0;
    static final int B_CHAR = 1;
    static final int B_SHORT = 2;
    static final int B_BOOLEAN = 3;
    static final int B_INT = 4;
    static final int B_LONG = 5;
    static final int B_FLOAT = 6;
    static final int B_DOUBLE = 7;
    static final int B_OBJECT = 8;
    static final int B_PACKED = 9;
    static final int B_LB = 10;
    static final int B_UB = 11;
    static final int B_NULL = 12;

    private static final String[] BASE_NAMES = {"BYTE", "CHAR", "SHORT", "BOOLEAN", "INT", "LONG", "FLOAT", "DOUBLE",
        "OBJECT", "PACKED", "LB", "UB", "NULL"};
    private static final int NONE = Integer.MIN_VALUE;

    /** Code of the base type (B_*). */
    final int base;
    /** Engine kind of the base values; null for OBJECT, the markers and NULL. */
    final Kind kind;
    /** The native basic type with that kind, or null. */
    final org.railyard.Datatype nativeType;
    /** Displacement of every base value of one element, in slots, in type-map order. */
    final int[] disp;
    /** Smallest displacement and one past the largest, of the values; 0 and 0 for no values. */
    final int dataLo;
    final int dataHi;
    /** Positions of explicit LB / UB markers ({@link #NONE} if none): sticky bounds of MPI-1. */
    final int markLb;
    final int markUb;
    /** Bounds and extent, in slots. */
    final int lb;
    final int ub;
    /** Slots 0..size-1 in order with extent == size: an array range holds count elements as they are. */
    final boolean contiguous;
    final String name;
    final boolean predefined;

    /** Copy plan: pairs (first displacement, length) of runs of consecutive slots; built by commit. */
    private volatile int[] runs;
    private boolean freed;

    Datatype(int base, int[] disp, int dataLo, int dataHi, int markLb, int markUb, String name, boolean predefined) {
        this.base = base;
        this.kind = kindOf(base);
        this.nativeType = nativeOf(kind);
        this.disp = disp;
        this.dataLo = dataLo;
        this.dataHi = dataHi;
        this.markLb = markLb;
        this.markUb = markUb;
        this.lb = markLb != NONE ? markLb : dataLo;
        this.ub = markUb != NONE ? markUb : dataHi;
        boolean c = lb == 0 && ub == disp.length;
        for (int i = 0; c && i < disp.length; i++) {
            c = disp[i] == i;
        }
        this.contiguous = c;
        this.name = name;
        this.predefined = predefined;
    }

    /** A predefined type: one value of {@code base} at slot 0, extent 1 (markers: no value, extent 0). */
    static Datatype basic(int base) {
        return switch (base) {
            case B_LB -> new TypeMap(base, new int[0], 0, 0, 0, NONE, "LB", true);
            case B_UB -> new TypeMap(base, new int[0], 0, 0, NONE, 0, "UB", true);
            case B_NULL -> new TypeMap(base, new int[0], 0, 0, NONE, NONE, "NULL", true);
            default -> new TypeMap(base, new int[] {0}, 0, 1, NONE, NONE, BASE_NAMES[base], true);
        };
    }

    private static Kind kindOf(int base) {
        return switch (base) {
            case B_BYTE, B_PACKED -> Kind.BYTE;
            case B_CHAR -> Kind.CHAR;
            case B_SHORT -> Kind.SHORT;
            case B_BOOLEAN -> Kind.BOOLEAN;
            case B_INT -> Kind.INT;
            case B_LONG -> Kind.LONG;
            case B_FLOAT -> Kind.FLOAT;
            case B_DOUBLE -> Kind.DOUBLE;
            default -> null;
        };
    }

    private static org.railyard.Datatype nativeOf(Kind k) {
        if (k == null) {
            return null;
        }
        return switch (k) {
            case BYTE -> org.railyard.Datatype.BYTE;
            case CHAR -> org.railyard.Datatype.CHAR;
            case SHORT -> org.railyard.Datatype.SHORT;
            case BOOLEAN -> org.railyard.Datatype.BOOLEAN;
            case INT -> org.railyard.Datatype.INT;
            case LONG -> org.railyard.Datatype.LONG;
            case FLOAT -> org.railyard.Datatype.FLOAT;
            case DOUBLE -> org.railyard.Datatype.DOUBLE;
        };
    }

    // ---------------------------------------------------------------- the mpiJava API

    /** Upper bound minus lower bound, in slots of the buffer array. */
    public int Extent() throws MPIException {
        checkUsable();
        return ub - lb;
    }

    /** Number of base values in one element (slots that carry data). */
    public int Size() throws MPIException {
        checkUsable();
        return disp.length;
    }

    /**
     * Bytes of data in one element, as MPJ Express reports them: {@link #Size()} times the bytes
     * of the base type (BYTE and BOOLEAN 1, CHAR and SHORT 2, INT and FLOAT 4, LONG and DOUBLE 8);
     * 0 for OBJECT, PACKED and the markers, whose values have no fixed size.
     */
    public int getByteSize() {
        int unit = switch (base) {
            case B_BYTE, B_BOOLEAN -> 1;
            case B_CHAR, B_SHORT -> 2;
            case B_INT, B_FLOAT -> 4;
            case B_LONG, B_DOUBLE -> 8;
            default -> 0;
        };
        return disp.length * unit;
    }

    /** Lower bound, in slots. */
    public int Lb() throws MPIException {
        checkUsable();
        return lb;
    }

    /** Upper bound, in slots. */
    public int Ub() throws MPIException {
        checkUsable();
        return ub;
    }

    /** Builds the copy plan now (a type not committed builds it on first use). */
    public void Commit() throws MPIException {
        checkUsable();
        runs();
    }

    /**
     * Frees a derived type: later use fails with an MPIException. Types built from it earlier keep
     * working (they hold their own type map). Freeing a predefined type is an error.
     */
    @Override
    public void free() {
        if (predefined) {
            throw MPIException.error("the predefined datatype " + name + " cannot be freed");
        }
        freed = true;
    }

    /** {@code count} copies of {@code oldtype}, each {@code oldtype.Extent()} slots after the previous. */
    public static Datatype Contiguous(int count, Datatype oldtype) throws MPIException {
        checkCount(count, "count");
        oldtype.checkBuildable();
        Builder b = new Builder(oldtype, count);
        for (int i = 0; i < count; i++) {
            b.place(oldtype, (long) i * oldtype.extent());
        }
        return b.build("Contiguous(" + count + ", " + oldtype.name + ")");
    }

    /**
     * {@code count} blocks of {@code blocklength} copies of {@code oldtype}; block starts are
     * {@code stride} extents of {@code oldtype} apart.
     */
    public static Datatype Vector(int count, int blocklength, int stride, Datatype oldtype) throws MPIException {
        oldtype.checkBuildable();
        return strided(count, blocklength, (long) stride * oldtype.extent(), oldtype,
                "Vector(" + count + ", " + blocklength + ", " + stride + ", " + oldtype.name + ")");
    }

    /** Like {@link #Vector}, with {@code stride} counted in slots of the buffer rather than in extents. */
    public static Datatype Hvector(int count, int blocklength, int stride, Datatype oldtype) throws MPIException {
        oldtype.checkBuildable();
        return strided(count, blocklength, stride, oldtype,
                "Hvector(" + count + ", " + blocklength + ", " + stride + ", " + oldtype.name + ")");
    }

    private static Datatype strided(int count, int blocklength, long strideSlots, Datatype oldtype, String name) {
        checkCount(count, "count");
        checkCount(blocklength, "blocklength");
        int ext = oldtype.extent();
        Builder b = new Builder(oldtype, (long) count * blocklength);
        for (int i = 0; i < count; i++) {
            for (int j = 0; j < blocklength; j++) {
                b.place(oldtype, i * strideSlots + (long) j * ext);
            }
        }
        return b.build(name);
    }

    /** Blocks of {@code blocklengths[i]} copies of {@code oldtype} at {@code displacements[i]} extents of it. */
    public static Datatype Indexed(int[] blocklengths, int[] displacements, Datatype oldtype) throws MPIException {
        return indexed(blocklengths, displacements, oldtype, oldtype.extent(), "Indexed");
    }

    /** Like {@link #Indexed}, with displacements counted in slots of the buffer. */
    public static Datatype Hindexed(int[] blocklengths, int[] displacements, Datatype oldtype) throws MPIException {
        return indexed(blocklengths, displacements, oldtype, 1, "Hindexed");
    }

    /** Blocks at {@code displacements[i] * unit} slots. */
    private static Datatype indexed(int[] blocklengths, int[] displacements, Datatype oldtype, int unit, String kind) {
        checkBlocks(blocklengths, displacements, null);
        oldtype.checkBuildable();
        int ext = oldtype.extent();
        Builder b = new Builder(oldtype, sum(blocklengths));
        for (int i = 0; i < blocklengths.length; i++) {
            for (int j = 0; j < blocklengths[i]; j++) {
                b.place(oldtype, (long) displacements[i] * unit + (long) j * ext);
            }
        }
        return b.build(kind + "(" + Arrays.toString(blocklengths) + ", " + Arrays.toString(displacements) + ", "
                + oldtype.name + ")");
    }

    /**
     * Blocks of {@code blocklengths[i]} copies of {@code types[i]} at {@code displacements[i]}
     * slots. A Java buffer is one array, so every type that carries values must have the same base
     * type; {@link MPI#LB} and {@link MPI#UB} entries set the bounds explicitly.
     */
    public static Datatype Struct(int[] blocklengths, int[] displacements, Datatype[] types) throws MPIException {
        checkBlocks(blocklengths, displacements, types);
        Datatype first = null;
        for (Datatype t : types) {
            if (t == null) {
                throw MPIException.error("Datatype.Struct: a type is null");
            }
            t.checkBuildable();
            if (t.disp.length > 0 && first == null) {
                first = t;
            } else if (t.disp.length > 0 && t.base != first.base) {
                throw MPIException.error("Datatype.Struct: types of different base types (" + BASE_NAMES[first.base]
                        + " and " + BASE_NAMES[t.base] + ") cannot share one Java buffer array");
            }
        }
        Builder b = new Builder(first != null ? first : types.length > 0 ? types[0] : MPI.BYTE, sum2(blocklengths, types));
        StringBuilder desc = new StringBuilder("Struct(");
        for (int i = 0; i < types.length; i++) {
            int ext = types[i].extent();
            for (int j = 0; j < blocklengths[i]; j++) {
                b.place(types[i], displacements[i] + (long) j * ext);
            }
            desc.append(i == 0 ? "" : ", ").append(blocklengths[i]).append('x').append(types[i].name).append('@')
                    .append(displacements[i]);
        }
        return b.build(desc.append(')').toString());
    }

    @Override
    public String toString() {
        return name;
    }

    /** This type under a predefined name (the pair types). */
    Datatype named(String newName) {
        return new TypeMap(base, disp, dataLo, dataHi, markLb, markUb, newName, true);
    }

    // ---------------------------------------------------------------- building

    /** Collects the values and markers of placed copies of component types. */
    private static final class Builder {
        private final Datatype baseOf;
        private int[] disp;
        private int n;
        private long lo = Long.MAX_VALUE;
        private long hi = Long.MIN_VALUE;
        private long mLb = Long.MAX_VALUE;
        private long mUb = Long.MIN_VALUE;

        Builder(Datatype baseOf, long expectedValues) {
            this.baseOf = baseOf;
            this.disp = new int[(int) Math.min(Math.max(expectedValues, 0) * Math.max(1, baseOf.disp.length), 1 << 20)];
        }

        void place(Datatype t, long at) {
            if (t.disp.length > 0) {
                if (n + t.disp.length > disp.length) {
                    long want = Math.max((long) disp.length * 2, (long) n + t.disp.length);
                    if (want > Integer.MAX_VALUE - 8) {
                        throw MPIException.error("datatype too large: more than 2^31 values per element");
                    }
                    disp = Arrays.copyOf(disp, (int) want);
                }
                for (int d : t.disp) {
                    disp[n++] = checked(at + d);
                }
                lo = Math.min(lo, at + t.dataLo);
                hi = Math.max(hi, at + t.dataHi);
            }
            if (t.markLb != NONE) {
                mLb = Math.min(mLb, at + t.markLb);
            }
            if (t.markUb != NONE) {
                mUb = Math.max(mUb, at + t.markUb);
            }
        }

        Datatype build(String name) {
            int base = baseOf.base == B_LB || baseOf.base == B_UB || baseOf.base == B_NULL ? B_BYTE : baseOf.base;
            return new TypeMap(base, Arrays.copyOf(disp, n), n == 0 ? 0 : checked(lo), n == 0 ? 0 : checked(hi),
                    mLb == Long.MAX_VALUE ? NONE : checked(mLb), mUb == Long.MIN_VALUE ? NONE : checked(mUb), name, false);
        }

        private static int checked(long v) {
            if (v != (int) v || v == NONE) {
                throw MPIException.error("datatype displacement " + v + " does not fit an int");
            }
            return (int) v;
        }
    }

    private static void checkCount(int v, String what) {
        if (v < 0) {
            throw MPIException.error("datatype " + what + " " + v + " is negative");
        }
    }

    private static void checkBlocks(int[] blocklengths, int[] displacements, Datatype[] types) {
        if (blocklengths == null || displacements == null) {
            throw MPIException.error("datatype constructor: blocklengths and displacements must not be null");
        }
        if (blocklengths.length != displacements.length || (types != null && types.length != blocklengths.length)) {
            throw MPIException.error("datatype constructor: " + blocklengths.length + " block lengths, "
                    + displacements.length + " displacements" + (types == null ? "" : ", " + types.length + " types")
                    + ": the arrays must have one entry per block");
        }
        for (int b : blocklengths) {
            checkCount(b, "block length");
        }
    }

    private static long sum(int[] a) {
        long s = 0;
        for (int v : a) {
            s += v;
        }
        return s;
    }

    private static long sum2(int[] bl, Datatype[] types) {
        long s = 0;
        for (int i = 0; i < bl.length; i++) {
            s += (long) bl[i] * Math.max(1, types[i].disp.length);
        }
        return s;
    }

    private void checkBuildable() {
        checkUsable();
        if (base == B_NULL) {
            throw MPIException.error("MPI.NULL cannot be used to build a datatype");
        }
    }

    void checkUsable() {
        if (freed) {
            throw MPIException.error("datatype " + name + " was freed");
        }
    }

    /** Checks the type can describe message data. */
    void checkForMessage() {
        checkUsable();
        if (base == B_NULL || base == B_LB || base == B_UB) {
            throw MPIException.error("MPI." + BASE_NAMES[base] + " cannot describe message data");
        }
    }

    int extent() {
        return ub - lb;
    }

    int size() {
        return disp.length;
    }

    boolean isObject() {
        return base == B_OBJECT;
    }

    String baseName() {
        return BASE_NAMES[base];
    }

    // ---------------------------------------------------------------- gather and scatter

    private int[] runs() {
        int[] r = runs;
        if (r == null) {
            int[] tmp = new int[2 * disp.length];
            int k = 0;
            for (int i = 0; i < disp.length; ) {
                int j = i + 1;
                while (j < disp.length && disp[j] == disp[j - 1] + 1) {
                    j++;
                }
                tmp[k++] = disp[i];
                tmp[k++] = j - i;
                i = j;
            }
            runs = r = Arrays.copyOf(tmp, k);
        }
        return r;
    }

    /** One-sided operations' view of this type, made once: {@link #layout()}. */
    private volatile org.railyard.Layout layout;

    /**
     * This type as Railyard's one-sided operations take it ({@link Win}): its runs of consecutive
     * slots over the basic type, and its extent. A type without values of a basic type (OBJECT,
     * the markers) or with a value before slot 0 has none: an error naming the type.
     */
    org.railyard.Layout layout() {
        org.railyard.Layout l = layout;
        if (l == null) {
            if (nativeType == null) {
                throw MPIException.error("datatype " + name + " has no values of a basic type for one-sided "
                        + "operations");
            }
            if (dataLo < 0) {
                throw MPIException.error("datatype " + name + " places a value before slot 0 (at " + dataLo
                        + "), which one-sided operations do not take");
            }
            int[] r = runs();
            int[] d = new int[r.length / 2];
            int[] n = new int[r.length / 2];
            for (int i = 0; i < d.length; i++) {
                d[i] = r[2 * i];
                n[i] = r[2 * i + 1];
            }
            layout = l = org.railyard.Layout.runs(nativeType, d, n, extent());
        }
        return l;
    }

    /** Checks {@code buf} is an array of this type's base type and covers {@code count} elements from {@code offset}. */
    void checkBuffer(Object buf, int offset, int count, String what) {
        checkBuffer(buf, offset, count, what, -1);
    }

    /**
     * As {@link #checkBuffer(Object, int, int, String)}, for the block of rank {@code block} of a
     * v collective (none if negative): the message names it, and is put together only if a check
     * fails, so that a correct call allocates nothing.
     */
    void checkBuffer(Object buf, int offset, int count, String call, int block) {
        if (count < 0) {
            throw MPIException.error(where(call, block) + ": count " + count + " is negative");
        }
        if (buf == null) {
            throw MPIException.error(where(call, block) + ": buffer is null");
        }
        boolean ok = switch (base) {
            case B_OBJECT -> buf instanceof Object[];
            case B_BYTE, B_PACKED -> buf instanceof byte[];
            case B_CHAR -> buf instanceof char[];
            case B_SHORT -> buf instanceof short[];
            case B_BOOLEAN -> buf instanceof boolean[];
            case B_INT -> buf instanceof int[];
            case B_LONG -> buf instanceof long[];
            case B_FLOAT -> buf instanceof float[];
            case B_DOUBLE -> buf instanceof double[];
            default -> false;
        };
        if (!ok) {
            throw MPIException.error(where(call, block) + ": a buffer of type " + buf.getClass().getSimpleName()
                    + " does not hold datatype " + name + " (base type " + BASE_NAMES[base] + ")");
        }
        if (count == 0 || disp.length == 0) {
            return;
        }
        int len = java.lang.reflect.Array.getLength(buf);
        long ext = extent();
        long first = offset + dataLo + Math.min(0, (count - 1) * ext);
        long last = offset + dataHi - 1 + Math.max(0, (count - 1) * ext);
        if (first < 0 || last >= len) {
            throw MPIException.error(where(call, block) + ": " + count + " elements of " + name + " at offset " + offset
                    + " cover slots " + first + ".." + last + ", outside the buffer of length " + len);
        }
    }

    /** What a check's message names: the call, and the block of rank {@code block} of a v collective if not negative. */
    static String where(String call, int block) {
        return block < 0 ? call : call + " block of rank " + block;
    }

    /** The base values of {@code count} elements at {@code offset}, gathered into a new array. */
    Object gather(Object buf, int offset, int count) {
        int n = disp.length;
        Object out = newBaseArray(count * n);
        int[] r = runs();
        int ext = extent();
        int k = 0;
        for (int i = 0; i < count; i++) {
            int at = offset + i * ext;
            for (int j = 0; j < r.length; j += 2) {
                System.arraycopy(buf, at + r[j], out, k, r[j + 1]);
                k += r[j + 1];
            }
        }
        return out;
    }

    /**
     * Puts the first {@code values} base values of {@code packed} (from index {@code from}) into
     * the slots of the elements at {@code offset}, in type-map order.
     */
    void scatter(Object packed, int from, int values, Object buf, int offset) {
        int[] r = runs();
        if (r.length == 0) {
            return;
        }
        int ext = extent();
        int k = from;
        int end = from + values;
        for (int i = 0; k < end; i++) {
            int at = offset + i * ext;
            for (int j = 0; j < r.length && k < end; j += 2) {
                int len = Math.min(r[j + 1], end - k);
                System.arraycopy(packed, k, buf, at + r[j], len);
                k += len;
            }
        }
    }

    /** A new array of the base type: a primitive array, or Object[] for OBJECT. */
    Object newBaseArray(int n) {
        return base == B_OBJECT ? new Object[n] : kind.newArray(n);
    }
}
