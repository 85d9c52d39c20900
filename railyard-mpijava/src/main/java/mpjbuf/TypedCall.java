package mpjbuf;

/**
 * How one typed call of {@link Buffer} moves values, whatever their element type: it checks the
 * caller's offsets or indexes against the array, accounts the values to the current section
 * ({@link Buffer#reserve} when writing, {@link Buffer#take} when reading), and then moves them
 * through the static part ({@code op}, at the byte position the section gave) or, for a dynamic
 * section, through the dynamic part's object stream. {@link Buffer} keeps the state and the
 * sections; its public calls, one per element type, each name their type and their static move.
 */
final class TypedCall {
    private TypedCall() {
    }

    /** What a typed call does to the static part at a byte position. */
    @FunctionalInterface
    interface AtStatic {
        void at(int position);
    }

    static void write(Buffer b, Values v, Object src, int length, int srcOff, int n, AtStatic op) throws BufferException {
        Indexes.checkRange(length, srcOff, n);
        int at = b.reserve(v, n);
        if (at >= 0) {
            op.at(at);
        } else {
            b.dynamic.write(v, src, Indexes.rangeOf(srcOff, n));
        }
    }

    static void gather(Buffer b, Values v, Object src, int length, int n, int offs, int[] indexes, AtStatic op)
            throws BufferException {
        int[] picked = Indexes.sliceOf(indexes, offs, n);
        for (int i : picked) {
            Indexes.checkRange(length, i, 1);
        }
        int at = b.reserve(v, n);
        if (at >= 0) {
            op.at(at);
        } else {
            b.dynamic.write(v, src, picked);
        }
    }

    static void strGather(Buffer b, Values v, Object src, int length, int srcOff, int rank, int exts, int strs, int[] shape,
                           AtStatic op) throws BufferException {
        Indexes.checkStrided(length, srcOff, rank, exts, strs, shape);
        int at = b.reserve(v, Values.stridedCount(rank, exts, shape));
        if (at >= 0) {
            op.at(at);
        } else {
            b.dynamic.write(v, src, Indexes.stridedOf(srcOff, rank, exts, strs, shape));
        }
    }

    static void read(Buffer b, Values v, Object dst, int length, int dstOff, int n, AtStatic op) throws BufferException {
        Indexes.checkRange(length, dstOff, n);
        int at = b.take(v, n);
        if (at >= 0) {
            op.at(at);
        } else {
            b.dynamic.read(v, dst, Indexes.rangeOf(dstOff, n), b.current);
        }
    }

    static void scatter(Buffer b, Values v, Object dst, int length, int n, int offs, int[] indexes, AtStatic op)
            throws BufferException {
        int[] picked = Indexes.sliceOf(indexes, offs, n);
        for (int i : picked) {
            Indexes.checkRange(length, i, 1);
        }
        int at = b.take(v, n);
        if (at >= 0) {
            op.at(at);
        } else {
            b.dynamic.read(v, dst, picked, b.current);
        }
    }

    static void strScatter(Buffer b, Values v, Object dst, int length, int dstOff, int rank, int exts, int strs, int[] shape,
                            AtStatic op) throws BufferException {
        Indexes.checkStrided(length, dstOff, rank, exts, strs, shape);
        int at = b.take(v, Values.stridedCount(rank, exts, shape));
        if (at >= 0) {
            op.at(at);
        } else {
            b.dynamic.read(v, dst, Indexes.stridedOf(dstOff, rank, exts, strs, shape), b.current);
        }
    }
}
