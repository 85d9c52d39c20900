package org.railyard.launcher;

import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeElement;
import java.lang.classfile.CodeModel;
import java.lang.classfile.CodeTransform;
import java.lang.classfile.MethodModel;
import java.lang.classfile.Opcode;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.constant.ClassDesc;
import java.lang.constant.MethodTypeDesc;
import java.nio.charset.StandardCharsets;

/**
 * Rewrites the exit calls of a class file for a rank that runs as a thread: each
 * {@code invokestatic java/lang/System.exit(I)V} becomes {@code invokestatic RankExit.exit(I)V},
 * and each {@code invokevirtual java/lang/Runtime.exit(I)V} or {@code .halt(I)V} a static call to
 * {@link RankExit} that takes the same operands (the {@code Runtime} and the status), so the stack
 * shape, and with it every stack map, stays what it was. A class that makes no such call is
 * returned as it is, the same array (a byte scan for the method names rules most classes out
 * before any parsing).
 */
final class ExitCalls {
    private ExitCalls() {
    }

    private static final ClassDesc RANK_EXIT = ClassDesc.of(RankExit.class.getName());
    private static final MethodTypeDesc STATUS = MethodTypeDesc.ofDescriptor("(I)V");
    private static final MethodTypeDesc RUNTIME_STATUS = MethodTypeDesc.ofDescriptor("(Ljava/lang/Runtime;I)V");
    private static final byte[] EXIT = "exit".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HALT = "halt".getBytes(StandardCharsets.US_ASCII);

    /**
     * The class with its exit calls rewritten, or {@code bytes} itself when it makes none.
     *
     * @param resolver the class hierarchy of the rank's class path, for the stack maps the class
     *                 file library may recompute
     * @throws IllegalArgumentException when the bytes are not a class file the JDK can parse
     */
    static byte[] rewrite(byte[] bytes, ClassHierarchyResolver resolver) {
        if (indexOf(bytes, EXIT) < 0 && indexOf(bytes, HALT) < 0) {
            return bytes;
        }
        ClassFile cf = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(resolver));
        ClassModel model = cf.parse(bytes);
        if (!callsExit(model)) {
            return bytes;
        }
        CodeTransform swap = (builder, element) -> {
            String target = element instanceof InvokeInstruction i ? replacement(i) : null;
            if (target == null) {
                builder.with(element);
            } else {
                builder.invokestatic(RANK_EXIT, target,
                        ((InvokeInstruction) element).opcode() == Opcode.INVOKESTATIC ? STATUS : RUNTIME_STATUS);
            }
        };
        return cf.transformClass(model, ClassTransform.transformingMethodBodies(swap));
    }

    /** True when some method of the class calls one of the exits. */
    static boolean callsExit(ClassModel model) {
        for (MethodModel m : model.methods()) {
            CodeModel code = m.code().orElse(null);
            if (code == null) {
                continue;
            }
            for (CodeElement e : code) {
                if (e instanceof InvokeInstruction i && replacement(i) != null) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The name of RankExit's method that replaces this call, or null for any other call. */
    private static String replacement(InvokeInstruction i) {
        if (!i.type().stringValue().equals("(I)V")) {
            return null;
        }
        String owner = i.owner().asInternalName();
        String name = i.name().stringValue();
        if (i.opcode() == Opcode.INVOKESTATIC && owner.equals("java/lang/System") && name.equals("exit")) {
            return "exit";
        }
        if (i.opcode() == Opcode.INVOKEVIRTUAL && owner.equals("java/lang/Runtime")) {
            return name.equals("exit") ? "runtimeExit" : name.equals("halt") ? "runtimeHalt" : null;
        }
        return null;
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i <= hay.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
