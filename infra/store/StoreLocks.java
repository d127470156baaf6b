// The locks a request holds while the backend handles it and its reply is copied (SnapshotReplies).
// A request touching one collection holds that collection's lock (shared for reads, exclusive for
// writes) and the store's lock shared; one that may touch several (dropDatabase, listCollections,
// an unknown command, an aggregation reading other collections) holds the store's lock alone.
// So a long scan of one collection (an export reading 100,000 contacts) keeps only writes to that
// collection waiting, not the sends writing their ledger meanwhile: with one store-wide lock, every
// write waited for the scan and every read queued behind that write (the API answered in seconds).
// Each collection's documents are guarded by that collection alone: mongo-java-server keeps no
// document of one collection in another (its index descriptions live in a collection of their own,
// synchronized like every collection, and its collection map is concurrent).

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

final class StoreLocks {

    /** What a request holds; release once its reply is copied. */
    interface Held {
        void release();
    }

    private final ReentrantReadWriteLock store = new ReentrantReadWriteLock();
    /** One per "db.collection" ever named; a few dozen per database. */
    private final ConcurrentHashMap<String, ReentrantReadWriteLock> collections = new ConcurrentHashMap<>();

    Held acquire(Commands.Kind kind) {
        if (kind.namespace() == null) {
            // hello, ping and the like read no document: sharing the store's lock keeps them off a dropDatabase.
            Lock whole = kind.readsData() || kind.write() ? store.writeLock() : store.readLock();
            whole.lock();
            return whole::unlock;
        }
        ReentrantReadWriteLock collection = collections.computeIfAbsent(kind.namespace(), name -> new ReentrantReadWriteLock());
        Lock shared = store.readLock();
        Lock own = kind.write() ? collection.writeLock() : collection.readLock();
        shared.lock();
        try {
            own.lock();
        } catch (RuntimeException | Error e) {
            shared.unlock();
            throw e;
        }
        return () -> {
            own.unlock();
            shared.unlock();
        };
    }
}
