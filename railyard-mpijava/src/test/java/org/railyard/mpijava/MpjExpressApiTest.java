package org.railyard.mpijava;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The facade's packages {@code mpi}, {@code mpjbuf} and {@code mpjdev} against MPJ Express 0.44
 * (Debian's {@code libmpj-java} jar), by reflection: every public class of those packages, every
 * public or protected constructor, method and field (name, parameter types, return or field type,
 * static or not), and the value of every static field of a primitive or String type. Every
 * difference found must be one of {@link #ALLOWED}, with its reason, and every entry there must
 * still be a difference, so the list is exactly what differs.
 */
class MpjExpressApiTest {
    private static final Path MPJ_JAR = Path.of("/usr/share/mpj/lib/mpj.jar");
    /** MPJ Express's mpi.MPI needs log4j to initialize (to read its field values). */
    private static final Path LOG4J = Path.of("/usr/share/java/log4j-1.2.jar");
    private static final List<String> PACKAGES = List.of("mpi", "mpjbuf", "mpjdev");

    private static final String INTERNAL = "MPJ Express's internals, not for programs: ";
    private static final String DEVICE = "MPJ Express's device layer, which Railyard does not have (package mpjdev's comment): ";

    /** Each difference the facade keeps, and why. */
    private static final Map<String, String> ALLOWED = allowed();

    private static Map<String, String> allowed() {
        Map<String, String> a = new TreeMap<>();
        // ------------------------------------------------ values a program may see, deliberately different
        a.put("value mpi.MPI.TAG_UB: MPJ 0 facade 1073741823", "MPJ Express leaves TAG_UB at 0 (its bug): a program "
                + "bounding its tags by it could use none; the facade gives Railyard's largest tag");
        a.put("value mpi.MPI.HOST: MPJ 0 facade 1073741822", "an attribute key (Attr_get); MPJ Express leaves the three keys "
                + "at 0, the facade needs them distinct");
        a.put("value mpi.MPI.IO: MPJ 0 facade 1073741821", "an attribute key (Attr_get), as HOST");
        a.put("value mpi.MPI.NUM_OF_PROCESSORS", "the processors of the machine the test runs on: equal when both "
                + "read the same machine (compared only when they differ)");
        // ------------------------------------------------ mpi: MPJ Express's implementation classes
        List<String> impl = new ArrayList<>(List.of("Maxloc", "Minloc", "OpWorker", "Packer", "GenericPacker",
                "MultistridedPacker", "SimplePacker", "BasicType", "Contiguous", "Indexed", "Struct", "Vector",
                "IntracommImpl", "NativeIntracomm", "PureIntracomm", "ProcTree"));
        for (String op : List.of("Band", "Bor", "Bxor")) {
            for (String t : List.of("", "Byte", "Char", "Int", "Long", "Short", "Worker")) {
                impl.add(op + t);
            }
        }
        for (String op : List.of("Land", "Lor", "Lxor")) {
            for (String t : List.of("", "Boolean", "Worker")) {
                impl.add(op + t);
            }
        }
        for (String op : List.of("Max", "Min", "Prod", "Sum")) {
            for (String t : List.of("", "Byte", "Char", "Double", "Float", "Int", "Long", "Short", "Worker")) {
                impl.add(op + t);
            }
        }
        for (String packer : List.of("GatherPacker", "MultistridedPacker", "SimplePacker")) {
            for (String t : List.of("Boolean", "Byte", "Char", "Double", "Float", "Int", "Long", "Object", "Short", "Factory")) {
                impl.add(packer + t);
            }
        }
        for (String c : impl) {
            a.put("class mpi." + c, INTERNAL + "the classes behind MPI's operations (MPI.SUM ...), datatypes "
                    + "(Datatype.Vector ...), packing and communicators; programs use them through mpi.Op, "
                    + "mpi.Datatype and mpi.Intracomm, which the facade provides");
        }
        for (String m : List.of("send", "ssend", "rsend", "bsend", "recv", "isend", "issend", "irsend", "ibsend", "irecv")) {
            a.put("method mpi.Comm." + m + "(java.lang.Object, int, int, mpi.Datatype, int, int, boolean)",
                    INTERNAL + "protected helpers behind Send, Recv ... (a program calls those)");
        }
        a.put("method mpi.Comm.sendrecv(java.lang.Object, int, int, mpi.Datatype, int, int, java.lang.Object, int, int, "
                + "mpi.Datatype, int, int)", INTERNAL + "the protected helper behind Sendrecv");
        for (String m : List.of("constructor mpi.Datatype()", "constructor mpjbuf.Buffer()",
                "constructor mpjbuf.CustomObjectInputStream()", "field mpi.Comm.group")) {
            a.put(m, INTERNAL + "protected members for MPJ Express's own subclasses");
        }
        for (String m : List.of("field mpi.MPI.DEBUG", "field mpi.MPI.isOldSelected", "field mpi.Group.EMPTY",
                "field mpi.Datatype.baseType", "method mpi.Datatype.getType()", "field mpi.Group.code", "field mpi.Op.opCode")) {
            a.put(m, INTERNAL + "debug switches and internal codes");
        }
        // ------------------------------------------------ mpi: members typed with the device layer
        for (String m : List.of("constructor mpi.Group(mpjdev.Group)", "constructor mpi.Request(mpjdev.Request)",
                "constructor mpi.Status(mpjdev.Status)", "field mpi.Group.mpjdevGroup", "field mpi.Request.req")) {
            a.put(m, DEVICE + "mpjdev's groups, requests and statuses");
        }
        // ------------------------------------------------ mpjbuf: the buddy allocators
        for (String c : List.of("Buddy1Buffer", "Buddy1BufferFactory", "Buddy1FreeList", "Buddy1RegionFreeList", "Buddy2Buffer",
                "Buddy2BufferFactory", "Buddy2FreeList", "Buddy2Region", "CustomMath")) {
            a.put("class mpjbuf." + c, INTERNAL + "the buddy allocators behind BufferFactory (the facade allocates "
                    + "heap storage; BufferFactory.create/destroy are provided)");
        }
        // ------------------------------------------------ mpjdev: the device itself
        for (String c : List.of("Group", "Request", "Status", "CompletionHandler")) {
            a.put("class mpjdev." + c, DEVICE + "device-level groups, requests and statuses");
        }
        for (String m : List.of("field mpjdev.Comm.group", "field mpjdev.Comm.localgroup", "field mpjdev.MPJDev.dev",
                "method mpjdev.MPJDev.init(java.lang.String[])", "method mpjdev.MPJDev.finish()",
                "method mpjdev.Comm.barrier()", "method mpjdev.Comm.clone()", "method mpjdev.Comm.create(int[])",
                "method mpjdev.Comm.create(mpjdev.Comm, mpjdev.Group, int, int, int)", "method mpjdev.Comm.create(mpjdev.Group)",
                "method mpjdev.Comm.iprobe(int, int)", "method mpjdev.Comm.probe(int, int)",
                "method mpjdev.Comm.irecv(mpjbuf.Buffer, int, int, mpjdev.Status, boolean)",
                "method mpjdev.Comm.recv(mpjbuf.Buffer, int, int, boolean)", "method mpjdev.Comm.isend(mpjbuf.Buffer, int, int, boolean)",
                "method mpjdev.Comm.send(mpjbuf.Buffer, int, int, boolean)", "method mpjdev.Comm.issend(mpjbuf.Buffer, int, int, boolean)",
                "method mpjdev.Comm.ssend(mpjbuf.Buffer, int, int, boolean)", "method mpjdev.Comm.split(int, int)")) {
            a.put(m, DEVICE + "the device's own communication, starting and ending");
        }
        return a;
    }

    @Test
    void constantsAndSignaturesMatchMpjExpress() throws Exception {
        assumeTrue(Files.isRegularFile(MPJ_JAR), "MPJ Express (Debian's libmpj-java) is not installed");
        assumeTrue(Files.isRegularFile(LOG4J), "log4j 1.2 (Debian's liblog4j1.2-java, a dependency of libmpj-java) is missing");
        List<String> found = new ArrayList<>();
        try (URLClassLoader mpj = new URLClassLoader(new URL[] {MPJ_JAR.toUri().toURL(), LOG4J.toUri().toURL()},
                ClassLoader.getPlatformClassLoader())) {
            for (String name : publicClasses()) {
                Class<?> theirs = Class.forName(name, false, mpj);
                if (!Modifier.isPublic(theirs.getModifiers())) {
                    continue;
                }
                Class<?> ours;
                try {
                    ours = Class.forName(name, false, getClass().getClassLoader());
                } catch (ClassNotFoundException e) {
                    found.add("class " + name);
                    continue;
                }
                compare(theirs, ours, found);
            }
        }
        TreeSet<String> unexpected = new TreeSet<>(found);
        unexpected.removeIf(d -> ALLOWED.containsKey(d) || ALLOWED.containsKey(d.replaceFirst(":.*", "")));
        TreeSet<String> stale = new TreeSet<>(ALLOWED.keySet());
        stale.removeIf(k -> found.contains(k) || found.stream().anyMatch(d -> d.replaceFirst(":.*", "").equals(k))
                || k.equals("value mpi.MPI.NUM_OF_PROCESSORS"));
        assertThat(unexpected).as("differences from MPJ Express 0.44 that are not in the allowed list").isEmpty();
        assertThat(stale).as("allowed differences that are no longer differences: remove them").isEmpty();
    }

    /** Top-level classes of the compared packages in MPJ Express's jar. */
    private static List<String> publicClasses() throws IOException {
        try (JarFile jar = new JarFile(MPJ_JAR.toFile())) {
            return jar.stream().map(e -> e.getName())
                    .filter(n -> n.endsWith(".class") && !n.contains("$"))
                    .map(n -> n.substring(0, n.length() - ".class".length()))
                    .filter(n -> PACKAGES.contains(n.substring(0, Math.max(0, n.lastIndexOf('/')))))
                    .map(n -> n.replace('/', '.')).sorted().collect(Collectors.toList());
        }
    }

    private static boolean visible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static String type(Class<?> c) {
        return c.getTypeName();
    }

    private static String params(Executable e) {
        return Arrays.stream(e.getParameterTypes()).map(MpjExpressApiTest::type).collect(Collectors.joining(", "));
    }

    private static void compare(Class<?> theirs, Class<?> ours, List<String> found) throws Exception {
        String cn = theirs.getName();
        if (theirs.isInterface() != ours.isInterface()) {
            found.add("kind " + cn);
        }
        for (Constructor<?> c : theirs.getDeclaredConstructors()) {
            if (!visible(c.getModifiers())) {
                continue;
            }
            boolean has = Arrays.stream(ours.getDeclaredConstructors())
                    .anyMatch(o -> visible(o.getModifiers()) && params(o).equals(params(c)));
            if (!has) {
                found.add("constructor " + cn + "(" + params(c) + ")");
            }
        }
        for (Method m : theirs.getDeclaredMethods()) {
            if (!visible(m.getModifiers()) || m.isSynthetic() || m.getName().equals("finalize")) {
                continue;
            }
            Method o = findMethod(ours, m.getName(), m.getParameterTypes());
            String sig = "method " + cn + "." + m.getName() + "(" + params(m) + ")";
            if (o == null) {
                found.add(sig);
            } else if (!type(o.getReturnType()).equals(type(m.getReturnType()))
                    || Modifier.isStatic(o.getModifiers()) != Modifier.isStatic(m.getModifiers())) {
                found.add(sig + ": MPJ " + (Modifier.isStatic(m.getModifiers()) ? "static " : "") + type(m.getReturnType())
                        + " facade " + (Modifier.isStatic(o.getModifiers()) ? "static " : "") + type(o.getReturnType()));
            }
        }
        for (Field f : theirs.getDeclaredFields()) {
            if (!visible(f.getModifiers()) || f.isSynthetic()) {
                continue;
            }
            Field o = findField(ours, f.getName());
            String sig = "field " + cn + "." + f.getName();
            if (o == null) {
                found.add(sig);
                continue;
            }
            if (!type(o.getType()).equals(type(f.getType())) || Modifier.isStatic(o.getModifiers()) != Modifier.isStatic(f.getModifiers())
                    || Modifier.isFinal(o.getModifiers()) != Modifier.isFinal(f.getModifiers())) {
                found.add(sig + ": MPJ " + Modifier.toString(f.getModifiers()) + " " + type(f.getType()) + " facade "
                        + Modifier.toString(o.getModifiers()) + " " + type(o.getType()));
                continue;
            }
            if (Modifier.isStatic(f.getModifiers()) && (f.getType().isPrimitive() || f.getType() == String.class)) {
                f.setAccessible(true);
                o.setAccessible(true);
                Object a = f.get(null);
                Object b = o.get(null);
                if (!Objects.equals(a, b)) {
                    found.add("value " + cn + "." + f.getName() + ": MPJ " + a + " facade " + b);
                }
            }
        }
    }

    private static Method findMethod(Class<?> c, String name, Class<?>[] params) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Method m : k.getDeclaredMethods()) {
                if (visible(m.getModifiers()) && m.getName().equals(name)
                        && Arrays.stream(m.getParameterTypes()).map(MpjExpressApiTest::type).toList()
                        .equals(Arrays.stream(params).map(MpjExpressApiTest::type).toList())) {
                    return m;
                }
            }
        }
        for (Class<?> i : c.getInterfaces()) {
            Method m = findMethod(i, name, params);
            if (m != null) {
                return m;
            }
        }
        return null;
    }

    private static Field findField(Class<?> c, String name) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (visible(f.getModifiers()) && f.getName().equals(name)) {
                    return f;
                }
            }
        }
        return null;
    }
}
