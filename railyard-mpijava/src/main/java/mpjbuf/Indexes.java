package mpjbuf;

/**
 * The array indices a typed call of {@link Buffer} touches, and the checks that they lie in the
 * array: a range ({@code write}, {@code read}), picked indices ({@code gather}, {@code scatter}),
 * or a strided region ({@code strGather}, {@code strScatter}; see {@link Values#strided}).
 * Indices outside the array are {@link ArrayIndexOutOfBoundsException}s, as in MPJ Express.
 */
final class Indexes {
    private Indexes() {
    }

    static void checkRange(int length, int offset, int n) {
        if (offset < 0 || n < 0 || (long) offset + n > length) {
            throw new ArrayIndexOutOfBoundsException(n + " elements from index " + offset + " do not fit an array of " + length);
        }
    }

    static void checkStrided(int length, int first, int rank, int exts, int strs, int[] shape) {
        if (rank < 0 || shape == null || exts < 0 || strs < 0 || exts + rank > shape.length || strs + rank > shape.length) {
            throw new ArrayIndexOutOfBoundsException("a strided region of rank " + rank + " with extents at " + exts
                    + " and strides at " + strs + " does not fit its shape array");
        }
        long lo = first;
        long hi = first;
        for (int d = 0; d < rank; d++) {
            long span = (long) (shape[exts + d] - 1) * shape[strs + d];
            if (shape[exts + d] <= 0) {
                return; // an empty region touches nothing
            }
            lo += Math.min(0, span);
            hi += Math.max(0, span);
        }
        if (lo < 0 || hi >= length) {
            throw new ArrayIndexOutOfBoundsException("a strided region covering indices " + lo + ".." + hi
                    + " does not fit an array of " + length);
        }
    }

    static int[] sliceOf(int[] indexes, int offs, int n) {
        if (offs < 0 || n < 0 || (long) offs + n > indexes.length) {
            throw new ArrayIndexOutOfBoundsException(n + " indexes from " + offs + " do not fit an index array of "
                    + indexes.length);
        }
        return java.util.Arrays.copyOfRange(indexes, offs, offs + n);
    }

    static int[] rangeOf(int offset, int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = offset + i;
        }
        return r;
    }

    static int[] stridedOf(int first, int rank, int exts, int strs, int[] shape) {
        int[] r = new int[Values.stridedCount(rank, exts, shape)];
        int[] k = {0};
        Values.strided(first, rank, exts, strs, shape, i -> r[k[0]++] = i);
        return r;
    }
}
