// Makes writes durable before they are acknowledged, for the H2 file backend: one thread commits
// the MVStore and syncs its file for every write that finished before the commit started, so
// concurrent writes share one commit ("group commit") instead of paying for one each.

import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

import org.h2.mvstore.MVStore;

final class GroupCommitter {

    static final String THREAD_NAME = "herald-store-commit";

    private final MVStore store;
    private final Consumer<Throwable> onFailure;
    private final Thread thread;
    private final Object lock = new Object();

    /** The round asked for since the last one started; completes once it is on disk. Guarded by lock. */
    private CompletableFuture<Void> nextRound;
    /** Set once a commit failed or the store was found closed: every later request fails. Guarded by lock. */
    private Throwable failure;
    private boolean stopping; // guarded by lock
    /** The store's version at the last sync (only the committer thread touches it). */
    private long syncedVersion = -1;

    GroupCommitter(MVStore store, Consumer<Throwable> onFailure) {
        this.store = store;
        this.onFailure = onFailure;
        this.thread = new Thread(this::run, THREAD_NAME);
    }

    void start() {
        thread.start();
    }

    /**
     * A future that completes when a commit that starts after this call has reached the disk, so
     * everything the calling thread (or any thread before it) wrote to the store is durable then.
     * Completes exceptionally if that commit fails. Never blocks.
     */
    CompletableFuture<Void> commitAfterNow() {
        synchronized (lock) {
            if (failure != null) return CompletableFuture.failedFuture(failure);
            if (nextRound == null) {
                nextRound = new CompletableFuture<>();
                lock.notifyAll();
            }
            return nextRound;
        }
    }

    /** Runs the round already asked for, if any, then ends the thread. */
    void stop() throws InterruptedException {
        synchronized (lock) {
            stopping = true;
            lock.notifyAll();
        }
        thread.join();
    }

    private void run() {
        for (;;) {
            CompletableFuture<Void> round;
            synchronized (lock) {
                if (nextRound == null && !stopping) {
                    try {
                        lock.wait(1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                if (nextRound == null && stopping) return; // nothing asked for
                round = nextRound; // null: a second without writes
                nextRound = null; // writes from now on wait for the next round
            }
            if (round == null ? !idle() : !commit(round)) return;
        }
    }

    /** Commits and syncs everything written so far, then completes the round; false once it failed. */
    private boolean commit(CompletableFuture<Void> round) {
        try {
            store.commit(); // writes a new chunk (or nothing, if nothing changed)
            // The MVStore's background writer may have committed these writes already, with its
            // chunk still being serialised or written in H2's executor threads (so commit() found
            // nothing to do): executeFilestoreOperation waits for both executors, then we fsync.
            sync();
            round.complete(null);
            return true;
        } catch (Throwable e) {
            round.completeExceptionally(e);
            fail(e);
            return false;
        }
    }

    /**
     * A second without writes: another thread (the MVStore background writer) may have hit an
     * error that closed the store, and then no write can be durable any more; or it may have
     * written chunks of its own (compaction), synced here so that none waits longer than a second
     * (see HeraldStore.RETENTION_MS). False once the store failed.
     */
    private boolean idle() {
        if (store.isClosed()) {
            fail(store.getPanicException() != null ? store.getPanicException() : new IllegalStateException("the store was closed"));
            return false;
        }
        if (store.getCurrentVersion() == syncedVersion) return true;
        try {
            sync();
            return true;
        } catch (Throwable e) {
            fail(e);
            return false;
        }
    }

    private void sync() {
        long version = store.getCurrentVersion(); // everything committed before this is written by then
        store.executeFilestoreOperation(store::sync);
        syncedVersion = version;
    }

    /**
     * After a failed commit or fsync the file can no longer be trusted to hold what was written
     * (Linux may drop the dirty pages after a failed fsync): fail everything from here on and let
     * the launcher exit, so the supervisor restarts the store from what the file does hold.
     */
    private void fail(Throwable e) {
        CompletableFuture<Void> waiting;
        synchronized (lock) {
            failure = e;
            waiting = nextRound;
            nextRound = null;
        }
        if (waiting != null) waiting.completeExceptionally(e);
        onFailure.accept(e);
    }
}
