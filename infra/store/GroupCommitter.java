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
                while (nextRound == null && !stopping) {
                    try {
                        lock.wait(1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                    // Idle check: another thread (the MVStore background writer) may have hit an
                    // error that closed the store; then no write can be durable any more.
                    if (nextRound == null && !stopping && store.isClosed()) {
                        fail(store.getPanicException() != null ? store.getPanicException()
                            : new IllegalStateException("the store was closed"));
                        return;
                    }
                }
                if (nextRound == null) return; // stopping, nothing asked for
                round = nextRound;
                nextRound = null; // writes from now on wait for the next round
            }
            try {
                store.commit(); // writes a new chunk (or nothing, if nothing changed)
                // The MVStore's background writer may have committed these writes already, with its
                // chunk still being serialised or written in H2's executor threads (so commit() found
                // nothing to do): executeFilestoreOperation waits for both executors, then we fsync.
                store.executeFilestoreOperation(store::sync);
                round.complete(null);
            } catch (Throwable e) {
                round.completeExceptionally(e);
                fail(e);
                return;
            }
        }
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
