package mpjbuf;

/**
 * The type of a section of a {@link Buffer}, with MPJ Express 0.44's codes. A <em>static</em>
 * section ({@link #INT} ...) keeps its values in the buffer's static part, in binary; a
 * <em>dynamic</em> one ({@link #INT_DYNAMIC} ..., and {@link #OBJECT}) writes them with Java
 * serialization into the dynamic part, which has no size limit.
 */
public class Type {
    public static final Type BYTE = new Type(0, 1, "BYTE");
    public static final Type CHAR = new Type(1, 2, "CHAR");
    public static final Type SHORT = new Type(2, 2, "SHORT");
    public static final Type BOOLEAN = new Type(3, 1, "BOOLEAN");
    public static final Type INT = new Type(4, 4, "INT");
    public static final Type LONG = new Type(5, 8, "LONG");
    public static final Type FLOAT = new Type(6, 4, "FLOAT");
    public static final Type DOUBLE = new Type(7, 8, "DOUBLE");
    public static final Type OBJECT = new Type(8, 0, "OBJECT");
    public static final Type BYTE_DYNAMIC = new Type(9, 0, "BYTE_DYNAMIC");
    public static final Type CHAR_DYNAMIC = new Type(10, 0, "CHAR_DYNAMIC");
    public static final Type SHORT_DYNAMIC = new Type(11, 0, "SHORT_DYNAMIC");
    public static final Type BOOLEAN_DYNAMIC = new Type(12, 0, "BOOLEAN_DYNAMIC");
    public static final Type INT_DYNAMIC = new Type(13, 0, "INT_DYNAMIC");
    public static final Type LONG_DYNAMIC = new Type(14, 0, "LONG_DYNAMIC");
    public static final Type FLOAT_DYNAMIC = new Type(15, 0, "FLOAT_DYNAMIC");
    public static final Type DOUBLE_DYNAMIC = new Type(16, 0, "DOUBLE_DYNAMIC");
    public static final Type UNDEFINED = new Type(17, 0, "UNDEFINED");

    private static final Type[] BY_CODE = {BYTE, CHAR, SHORT, BOOLEAN, INT, LONG, FLOAT, DOUBLE, OBJECT, BYTE_DYNAMIC,
        CHAR_DYNAMIC, SHORT_DYNAMIC, BOOLEAN_DYNAMIC, INT_DYNAMIC, LONG_DYNAMIC, FLOAT_DYNAMIC, DOUBLE_DYNAMIC, UNDEFINED};

    private final int code;
    /** Bytes per value in the static part; 0 for the dynamic types. */
    final int width;
    private final String name;

    private Type(int code, int width, String name) {
        this.code = code;
        this.width = width;
        this.name = name;
    }

    /** The code written in a section header (0..17). */
    public int getCode() {
        return code;
    }

    /** The type of a code; codes outside 0..17 throw an {@link ArrayIndexOutOfBoundsException}, as in MPJ Express. */
    public static Type getType(int code) {
        if (code < 0 || code >= BY_CODE.length) {
            throw new ArrayIndexOutOfBoundsException("section type code " + code + " is not one of 0.." + (BY_CODE.length - 1));
        }
        return BY_CODE[code];
    }

    /** True for the types whose values go to the dynamic part. */
    boolean dynamic() {
        return width == 0;
    }

    @Override
    public String toString() {
        return name;
    }
}
