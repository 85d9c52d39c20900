import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * How fast one process reads 1 MiB of another's memory with process_vm_readv (what railyard.cma
 * does), next to a 1 MiB copy inside one process, native to native and heap to native.
 *
 * <pre>
 * J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
 * $J/javac -d /tmp/probe bench/probes/CmaProbe.java
 * $J/java --enable-native-access=ALL-UNNAMED -cp /tmp/probe CmaProbe serve > /tmp/probe/srv &   # prints pid and address
 * $J/java --enable-native-access=ALL-UNNAMED -cp /tmp/probe CmaProbe read $(cat /tmp/probe/srv)
 * </pre>
 */
public final class CmaProbe {
    private static final int N = 1 << 20;
    private static final int ROUNDS = 2000;

    public static void main(String[] args) throws Throwable {
        Arena arena = Arena.ofShared();
        if (args.length == 1 && args[0].equals("serve")) {
            MemorySegment s = arena.allocate(N, 4096);
            for (int i = 0; i < N; i++) {
                s.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            System.out.println(ProcessHandle.current().pid() + " " + s.address());
            System.out.flush();
            Thread.sleep(60_000);
            return;
        }
        if (args.length != 3 || !args[0].equals("read")) {
            throw new IllegalArgumentException("usage: CmaProbe serve | CmaProbe read PID ADDRESS");
        }
        Linker linker = Linker.nativeLinker();
        MethodHandle readv = linker.downcallHandle(linker.defaultLookup().find("process_vm_readv").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                        ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
        int pid = Integer.parseInt(args[1]);
        long address = Long.parseLong(args[2]);
        MemorySegment dst = arena.allocate(N, 4096);
        MemorySegment src = arena.allocate(N, 4096);
        byte[] heap = new byte[N];
        MemorySegment local = arena.allocate(16);
        MemorySegment remote = arena.allocate(16);
        local.set(ValueLayout.JAVA_LONG, 0, dst.address());
        local.set(ValueLayout.JAVA_LONG, 8, N);
        remote.set(ValueLayout.JAVA_LONG, 0, address);
        remote.set(ValueLayout.JAVA_LONG, 8, N);
        for (int pass = 0; pass < 5; pass++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < ROUNDS; i++) {
                long r = (long) readv.invokeExact(pid, local, 1L, remote, 1L, 0L);
                if (r != N) {
                    throw new IllegalStateException("process_vm_readv returned " + r);
                }
            }
            long t1 = System.nanoTime();
            for (int i = 0; i < ROUNDS; i++) {
                MemorySegment.copy(src, 0, dst, 0, N);
            }
            long t2 = System.nanoTime();
            for (int i = 0; i < ROUNDS; i++) {
                MemorySegment.copy(heap, 0, dst, ValueLayout.JAVA_BYTE, 0, N);
            }
            long t3 = System.nanoTime();
            System.out.printf("pass %d: us per MiB: cross-memory read %.1f, native copy %.1f, heap to native %.1f%n", pass,
                    (t1 - t0) / 1e3 / ROUNDS, (t2 - t1) / 1e3 / ROUNDS, (t3 - t2) / 1e3 / ROUNDS);
        }
    }
}
