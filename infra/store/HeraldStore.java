// Herald's embedded store: mongo-java-server (MongoDB wire protocol) on an H2 MVStore file,
// or on the memory backend for tests and benchmarks. Started and stopped by infra/store.ts.
//
//   java -Xmx1g -cp classes:lib/* HeraldStore --host 127.0.0.1 --port N (--file PATH | --memory)
//
// Prints "herald-store ready HOST:PORT" on stdout once listening. SIGTERM shuts the server
// down and closes the MVStore, which writes everything still pending; only a SIGKILL can
// lose the last second (the MVStore commits in the background once a second).

import java.io.File;
import java.util.concurrent.CountDownLatch;

import org.h2.mvstore.MVStore;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.memory.MemoryBackend;

public final class HeraldStore {

    public static void main(String[] args) {
        // Before any logger exists: plain stderr logging, warnings and errors only.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
            System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));

        String host = "127.0.0.1";
        int port = -1;
        String file = null;
        boolean memory = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--host": host = value(args, ++i); break;
                case "--port": port = Integer.parseInt(value(args, ++i)); break;
                case "--file": file = value(args, ++i); break;
                case "--memory": memory = true; break;
                default: fail("unknown argument " + args[i]);
            }
        }
        if (port < 0 || port > 65535) fail("--port N is required");
        if ((file == null) == !memory) fail("give exactly one of --file PATH or --memory");

        MVStore mvStore = null;
        MongoBackend backend;
        if (memory) {
            backend = new MemoryBackend();
        } else {
            File parent = new File(file).getAbsoluteFile().getParentFile();
            if (parent != null && !parent.isDirectory() && !parent.mkdirs()) fail("cannot create " + parent);
            // Our settings, not the backend's defaults (see DESIGN.md): a 256 MB page cache and
            // compressed pages make scans ~40x faster and the file ~6x smaller. open() takes a
            // file lock, so a second store on the same file fails here instead of corrupting it.
            try {
                mvStore = new MVStore.Builder().fileName(file).cacheSize(256).compress().open();
            } catch (RuntimeException e) {
                fail("cannot open " + file + ": " + e.getMessage()); // e.g. locked by another store
            }
            backend = new H2Backend(mvStore);
        }

        MongoServer server = new MongoServer(backend);
        try {
            server.bind(host, port); // only this address, never every interface
        } catch (RuntimeException e) {
            if (mvStore != null) mvStore.close();
            fail("cannot listen on " + host + ":" + port + ": " + e);
        }

        CountDownLatch stopped = new CountDownLatch(1);
        final MVStore store = mvStore;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                // Closes client connections, stops the event loops, then closes the backend
                // (H2Backend.close() closes the MVStore, writing what is still uncommitted).
                server.shutdownNow();
            } catch (RuntimeException e) {
                System.err.println("herald-store: shutdown failed: " + e);
            } finally {
                // Idempotent; makes sure the file is closed even if the shutdown above threw.
                if (store != null && !store.isClosed()) store.close();
                System.out.println("herald-store stopped");
                System.out.flush();
                stopped.countDown();
            }
        }, "herald-store-shutdown"));

        System.out.println("herald-store ready " + host + ":" + port);
        System.out.flush();

        // Keep the main thread until the hook has run, whatever kind of threads netty uses.
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) fail("missing value for " + args[i - 1]);
        return args[i];
    }

    private static void fail(String message) {
        System.err.println("herald-store: " + message);
        System.exit(2);
    }
}
