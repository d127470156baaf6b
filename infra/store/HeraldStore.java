// Herald's embedded store: mongo-java-server (MongoDB wire protocol) on an H2 MVStore file,
// or on the memory backend for tests and benchmarks. Started and stopped by infra/store.ts.
//
//   java -Xss8m -Xmx1g -cp classes:lib/* HeraldStore --host 127.0.0.1 --port N (--file PATH [--min-free-mb N] | --memory)
//
// Prints "herald-store ready HOST:PORT" on stdout once listening. On the file, a write is
// acknowledged only once it is committed and synced to the file (GroupCommitter, DurableReplies),
// so even a SIGKILL loses nothing acknowledged. SIGTERM closes the connections and then the file.
// Exit codes: 2 bad arguments or cannot start (the reason on stderr), 3 the file could no longer
// be written while running (restart it: the file holds every acknowledged write).

import java.io.File;
import java.nio.file.FileSystemException;
import java.util.concurrent.CountDownLatch;

import org.h2.mvstore.DataUtils;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.MVStoreException;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import de.bwaldvogel.mongo.backend.h2.NativeKeyBackend;
import de.bwaldvogel.mongo.backend.memory.LookupMemoryBackend;

public final class HeraldStore {

    private static final int CLOSE_COMPACTION_MS = 2000;
    /**
     * Free space on the file's disk below which the store does not open it. Measured (a tmpfs
     * filled under writes, the store restarted again and again while full): a store that opens on
     * a full disk and then fails to write can leave the file in a state from which the next open
     * recovers an older version, losing writes acknowledged before the disk filled up. Refusing
     * to open until there is room again (the supervisor retries) never writes on a full disk.
     * In MB; --min-free-mb sets another (a test asks for more than any disk has).
     */
    private static final long DEFAULT_MIN_FREE_MB = 64;
    /**
     * How long H2 keeps the space of a chunk it no longer needs before writing over it (default
     * 45 s). Under steady writes a commit per acknowledged write frees chunks as fast as it writes
     * them, so the file holds that long's worth of commits beyond its data: measured, 8 writers for
     * 40 s left a 169 MB file for ~4 MB of documents with 45 s, 93 MB with 10 s (56 MB once idle,
     * 4 MB after closing), 30 MB with 2 s. H2 keeps them that long so that the disk has flushed
     * what was written after them; here every acknowledged commit is synced at once and the
     * GroupCommitter syncs any other within a second. 10 s, not less: a read walks the pages it
     * started on while the background writer may move them (H2's documented reason too).
     */
    private static final int RETENTION_MS = 10_000;

    public static void main(String[] args) {
        // Before any logger exists: plain stderr logging, warnings and errors only.
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel",
            System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));

        String host = "127.0.0.1";
        int port = -1;
        String file = null;
        boolean memory = false;
        // Writes files as stores before NativeKeyBackend did (index maps in the old order, values
        // Java-serialised): only for the test that newer stores read them (store-file-format.test.ts).
        boolean legacyFormat = false;
        long minFreeMb = DEFAULT_MIN_FREE_MB;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--host": host = value(args, ++i); break;
                case "--port": port = Integer.parseInt(value(args, ++i)); break;
                case "--file": file = value(args, ++i); break;
                case "--memory": memory = true; break;
                case "--legacy-format": legacyFormat = true; break;
                case "--min-free-mb": minFreeMb = Long.parseLong(value(args, ++i)); break;
                default: fail("unknown argument " + args[i]);
            }
        }
        if (port < 0 || port > 65535) fail("--port N is required");
        if ((file == null) == !memory) fail("give exactly one of --file PATH or --memory");

        MVStore mvStore = null;
        GroupCommitter committer = null;
        MongoBackend backend;
        if (memory) {
            backend = new LookupMemoryBackend();
        } else {
            File parent = new File(file).getAbsoluteFile().getParentFile();
            if (parent != null && !parent.isDirectory() && !parent.mkdirs()) fail("cannot create " + parent);
            // Our settings, not the backend's defaults (see DESIGN.md): a 256 MB page cache and
            // compressed pages make scans ~40x faster and the file ~6x smaller. open() takes a
            // file lock, so a second store on the same file fails here instead of corrupting it.
            // The background writer stays on: it also compacts the file.
            long freeMb = new File(file).getAbsoluteFile().getParentFile().getUsableSpace() >> 20;
            if (freeMb < minFreeMb) {
                // infra/store.ts turns "cannot open FILE (disk full)" into a recovery step for the user.
                fail("cannot open " + file + " (disk full): " + freeMb + " MB free on its disk, " + minFreeMb + " MB needed to start");
            }
            Thread opener = Thread.currentThread();
            try {
                mvStore = new MVStore.Builder().fileName(file).cacheSize(256).compress()
                    // Print what goes wrong in H2's own threads (GroupCommitter notices a closed store);
                    // errors while opening and in commits are reported by fail() and fatal() instead.
                    .backgroundExceptionHandler((thread, e) -> {
                        if (thread == opener || thread.getName().equals(GroupCommitter.THREAD_NAME)) return;
                        System.err.println("herald-store: H2 error in thread " + thread.getName() + ": " + e);
                        e.printStackTrace();
                    })
                    .open();
                mvStore.setRetentionTime(RETENTION_MS);
                // H2Backend opens every database and collection here, reading pages of each, so a
                // file that cannot be read mostly fails now (and is reported) rather than later.
                backend = legacyFormat ? new H2Backend(mvStore) : new NativeKeyBackend(mvStore);
            } catch (RuntimeException | StackOverflowError e) {
                if (mvStore != null) mvStore.closeImmediately();
                // infra/store.ts turns "cannot open FILE (reason)" into a recovery step for the user.
                fail("cannot open " + file + " (" + openFailure(e) + "): " + e);
                return;
            }
            committer = new GroupCommitter(mvStore, HeraldStore::fatal);
            committer.start();
        }

        WireServer server = new WireServer(backend, committer);
        try {
            server.bind(host, port); // only this address, never every interface
        } catch (Exception e) { // netty rethrows the checked BindException undeclared: not only RuntimeExceptions
            if (mvStore != null) mvStore.close();
            fail("cannot listen on " + host + ":" + port + ": " + e);
        }

        CountDownLatch stopped = new CountDownLatch(1);
        final GroupCommitter commits = committer;
        final MVStore store = mvStore;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                // First no more requests, then the last commit, then close the file (which writes
                // whatever is left) — in that order, so nothing writes to a closed store.
                server.close();
                if (commits != null) commits.stop();
                // A commit per acknowledged write leaves many small chunks, and the space they free
                // is reused only after 45 s (MVStore's retention time): measured, 64k small inserts in
                // sequence left a 116 MB file at 12% fill, which a 2 s compaction budget here brought
                // to 14 MB in 0.2 s. Bounded, so that stopping stays well inside infra/store.ts's grace.
                if (store != null) store.close(CLOSE_COMPACTION_MS);
                backend.close(); // the MVStore is closed already; this clears the backend's state
            } catch (RuntimeException | InterruptedException e) {
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

    /**
     * The file can no longer be written: exit (3) so the supervisor restarts the store from the
     * file, which holds every acknowledged write. From a new thread, because System.exit runs the
     * shutdown hook, which waits for the committer thread that may be the caller.
     */
    private static void fatal(Throwable cause) {
        System.err.println("herald-store: the store file can no longer be written, exiting: " + cause);
        cause.printStackTrace();
        new Thread(() -> System.exit(3), "herald-store-exit").start();
    }

    /**
     * locked: another process has the file open; unreadable: the file cannot be opened (permissions);
     * format: written by another H2 version; too deep: a document nested beyond this JVM's stack;
     * corrupt: the content cannot be read (truncated, overwritten, or a failing disk).
     */
    private static String openFailure(Throwable e) {
        for (Throwable c = e; c != null; c = c.getCause()) {
            if (c instanceof StackOverflowError) return "too deep";
            if (c instanceof FileSystemException) return "unreadable"; // e.g. AccessDeniedException
        }
        if (!(e instanceof MVStoreException)) return "corrupt";
        switch (((MVStoreException) e).getErrorCode()) {
            case DataUtils.ERROR_FILE_LOCKED: return "locked";
            case DataUtils.ERROR_UNSUPPORTED_FORMAT: return "format";
            default: return "corrupt";
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
