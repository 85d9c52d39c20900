package org.railyard.mpijava.ranks;

import java.io.Serializable;
import java.nio.ByteBuffer;
import mpi.MPI;
import mpi.Status;

/**
 * Issue 26, item 1, as an MPJ Express program has it: ten small objects (an int, a short String
 * and an int each) buffered-sent after attaching a direct buffer of {@code Pack_size(1000,
 * MPI.INT)} bytes; then again into a buffer of {@code Pack_size(10, MPI.OBJECT)} bytes; and a
 * buffer too small for them still refuses them. Even ranks send to the next rank; any number of
 * ranks; prints "done".
 */
public class BsendObjectsRank {
    /** The program's own class. */
    static class Test implements Serializable {
        int a;
        String b;
        int c;

        Test(int a, String b, int c) {
            this.a = a;
            this.b = b;
            this.c = c;
        }
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.Rank();
        int np = MPI.COMM_WORLD.Size();
        Check.equal(MPI.COMM_WORLD.Pack_size(1000, MPI.INT), 4008, "Pack_size(1000, MPI.INT), as in MPJ Express");
        Check.that(MPI.COMM_WORLD.Pack_size(10, MPI.OBJECT) > MPI.COMM_WORLD.Pack_size(1, MPI.OBJECT),
                "Pack_size of objects grows with their number");
        if (me % 2 == 0 && me + 1 < np) {
            Test[] datatest = new Test[10];
            for (int i = 0; i < 10; i++) {
                datatest[i] = new Test(i, "s" + i, me * 100 + i);
            }
            MPI.Buffer_attach(ByteBuffer.allocateDirect(MPI.COMM_WORLD.Pack_size(1000, MPI.INT)));
            MPI.COMM_WORLD.Bsend(datatest, 0, 10, MPI.OBJECT, me + 1, 1);
            MPI.Buffer_detach();
            MPI.Buffer_attach(ByteBuffer.allocateDirect(MPI.COMM_WORLD.Pack_size(10, MPI.OBJECT)));
            MPI.COMM_WORLD.Bsend(datatest, 0, 10, MPI.OBJECT, me + 1, 2);
            MPI.Buffer_detach();
            // The accounting is real: 64 bytes do not hold the serialized objects, and nothing is sent.
            MPI.Buffer_attach(ByteBuffer.allocateDirect(64));
            Check.fails(() -> MPI.COMM_WORLD.Bsend(datatest, 0, 10, MPI.OBJECT, me + 1, 3), "do not fit",
                    "Bsend of objects into 64 bytes");
            MPI.Buffer_detach();
        } else if (me % 2 == 1) {
            for (int tag = 1; tag <= 2; tag++) {
                Object[] in = new Object[10];
                Status s = MPI.COMM_WORLD.Recv(in, 0, 10, MPI.OBJECT, me - 1, tag);
                Check.equal(s.Get_count(MPI.OBJECT), 10, "objects received");
                for (int i = 0; i < 10; i++) {
                    Test t = (Test) in[i];
                    Check.that(t.a == i && t.b.equals("s" + i) && t.c == (me - 1) * 100 + i, "object " + i + " of tag " + tag);
                }
            }
            Check.that(MPI.COMM_WORLD.Iprobe(me - 1, 3) == null, "the refused Bsend sent nothing");
        }
        MPI.COMM_WORLD.Barrier();
        Check.that(MPI.COMM_WORLD.Iprobe(MPI.ANY_SOURCE, MPI.ANY_TAG) == null, "no message left over");
        MPI.Finalize();
        System.out.println("done");
    }
}
