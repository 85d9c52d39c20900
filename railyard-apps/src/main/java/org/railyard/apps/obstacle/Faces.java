package org.railyard.apps.obstacle;

/**
 * What a rank's halo exchange knows of the six faces of its block: the neighbour across each
 * ({@link Decomposition#NONE} at the edge of the grid), the box of the block's boundary values
 * that go out through it and the box of ghost values that come in, and a plane of their size for
 * each direction, which carries them packed. A face without a neighbour has no boxes or planes.
 */
final class Faces {
    /** The rank across each face, or {@link Decomposition#NONE}. */
    final int[] neighbour = new int[Decomposition.FACES];
    /** The plane each face's boundary values are packed into to go out. */
    final double[][] sendPlane = new double[Decomposition.FACES][];
    /** The plane each face's ghost values arrive in. */
    final double[][] recvPlane = new double[Decomposition.FACES][];
    private final int[][] boundaryBox = new int[Decomposition.FACES][];
    private final int[][] ghostBox = new int[Decomposition.FACES][];

    /** The faces of {@code block}, the block of {@code rank} in {@code decomposition}. */
    Faces(Decomposition decomposition, int rank, GridBlock block) {
        for (int f = 0; f < Decomposition.FACES; f++) {
            neighbour[f] = decomposition.neighbour(rank, f);
            if (has(f)) {
                boundaryBox[f] = block.faceBox(f, false);
                ghostBox[f] = block.faceBox(f, true);
                sendPlane[f] = new double[block.faceSize(f)];
                recvPlane[f] = new double[block.faceSize(f)];
            }
        }
    }

    /** Whether face {@code f} has a neighbour. */
    boolean has(int f) {
        return neighbour[f] != Decomposition.NONE;
    }

    /** Which faces have a neighbour (what {@link GridBlock#sweepPlan} takes). */
    boolean[] present() {
        boolean[] has = new boolean[Decomposition.FACES];
        for (int f = 0; f < Decomposition.FACES; f++) {
            has[f] = has(f);
        }
        return has;
    }

    /** Packs the boundary values of {@code block} (this block or a copy of it) through face {@code f} into {@code plane}. */
    void pack(GridBlock block, int f, double[] plane) {
        block.copyBox(plane, boundaryBox[f], true);
    }

    /** Unpacks {@code plane} into the ghost values of {@code block} (this block or a copy of it) through face {@code f}. */
    void unpack(GridBlock block, int f, double[] plane) {
        block.copyBox(plane, ghostBox[f], false);
    }
}
