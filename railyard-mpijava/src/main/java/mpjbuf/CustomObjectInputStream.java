package mpjbuf;

import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.net.URLClassLoader;

/**
 * Reads the objects of a buffer's dynamic part, resolving classes through a class loader the
 * program sets (MPJ Express 0.44 uses it for programs loaded by its own loader), then through the
 * thread's context loader, then as {@link ObjectInputStream} does.
 */
public class CustomObjectInputStream extends ObjectInputStream {
    private ClassLoader loader;

    public CustomObjectInputStream(InputStream in) throws IOException {
        super(in);
    }

    /** The loader tried first for the classes of the objects read. */
    public void setClassLoader(URLClassLoader loader) {
        this.loader = loader;
    }

    @Override
    public Class resolveClass(ObjectStreamClass desc) throws IOException {
        ClassLoader[] loaders = {loader, Thread.currentThread().getContextClassLoader()};
        for (ClassLoader l : loaders) {
            if (l != null) {
                try {
                    return Class.forName(desc.getName(), false, l);
                } catch (ClassNotFoundException e) {
                    // try the next
                }
            }
        }
        try {
            return super.resolveClass(desc);
        } catch (ClassNotFoundException e) {
            throw new IOException("class " + desc.getName() + " of a packed object is not on this process's class path", e);
        }
    }
}
