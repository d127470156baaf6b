// In mongo-java-server's package: it overrides H2Database's package-level index opening.
package de.bwaldvogel.mongo.backend.h2;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;

import de.bwaldvogel.mongo.MongoCollection;
import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.KeyValue;
import de.bwaldvogel.mongo.bson.Document;

/**
 * The H2 backend with its maps opened with CompactDataType: unique-index keys that compare
 * natively, and documents and index keys written compactly. mongo-java-server opens them with
 * H2's generic ObjectDataType, which compares two KeyValue keys by Java-serialising both on every
 * B-tree step (~76% of the store's CPU during bulk inserts; inserts run ~3x faster without) and
 * Java-serialises every value a commit writes. Its unique indexes answer every query that fixes
 * their fields (H2LookupIndex, IndexLookups).
 *
 * A file written before keeps its index maps in the old order, which this comparator cannot search.
 * Each such map is rebuilt once when opened (its entries copied into a map of the new type, then
 * committed); the map "$nativeKeyOrder" records which maps are in the new order. The rebuild and its
 * record are one commit, so a crash in between leaves the old map to rebuild again.
 */
public final class NativeKeyBackend extends H2Backend {
    /** `$` cannot start a database name, so no database's drop removes this map. */
    static final String NATIVE_ORDER_MAPS = "$nativeKeyOrder";

    public NativeKeyBackend(MVStore store) {
        super(store); // opens the file's databases, through openOrCreateDatabase below
    }

    @Override
    protected MongoDatabase openOrCreateDatabase(String name) {
        return new NativeKeyDatabase(name, getCursorRegistry());
    }

    /**
     * An inner class on purpose: H2Database's constructor opens the existing indexes before any
     * field of a subclass is set, while the outer backend (and its store) is already there.
     */
    final class NativeKeyDatabase extends H2Database {
        private MVStore store() { return getMvStore(); }

        NativeKeyDatabase(String name, CursorRegistry cursors) {
            super(name, getMvStore(), cursors);
        }

        @Override
        protected Index<Object> openOrCreateUniqueIndex(String collection, String indexName, List<IndexKey> keys, boolean sparse) {
            // The name H2Database gives the map, so its dropIndex and drop remove this one.
            String mapName = getFullCollectionNamespace(collection) + "._index_" + indexName;
            MVStore store = store();
            MVMap<String, Boolean> nativeOrder = store.openMap(NATIVE_ORDER_MAPS);
            if (!Boolean.TRUE.equals(nativeOrder.get(mapName))) {
                if (store.hasMap(mapName)) rebuildInNativeOrder(mapName);
                nativeOrder.put(mapName, Boolean.TRUE);
                store.commit();
            }
            return new H2LookupIndex(openNative(mapName), indexName, keys, sparse);
        }

        private MVMap<KeyValue, Object> openNative(String mapName) {
            return store().openMap(mapName, new MVMap.Builder<KeyValue, Object>().keyType(new CompactDataType()).valueType(new CompactDataType()));
        }

        /** As H2Database opens a collection, with its documents written as BSON (CompactDataType), reading keyset pages in _id order (IdOrder). */
        @Override
        protected MongoCollection<Object> openOrCreateCollection(String collection, CollectionOptions options) {
            String fullName = getFullCollectionNamespace(collection);
            MVMap<Object, Document> dataMap = store().openMap(DATABASES_PREFIX + fullName, new MVMap.Builder<Object, Document>().valueType(new CompactDataType()));
            MVMap<String, Object> metaMap = store().openMap("meta." + fullName);
            return new IdOrderedH2Collection(this, collection, options, dataMap, metaMap, cursorRegistry);
        }

        private void rebuildInNativeOrder(String mapName) {
            MVMap<Object, Object> old = store().openMap(mapName);
            List<Map.Entry<Object, Object>> entries = new ArrayList<>(old.entrySet());
            store().removeMap(old);
            MVMap<KeyValue, Object> rebuilt = openNative(mapName);
            for (Map.Entry<Object, Object> entry : entries) rebuilt.put((KeyValue) entry.getKey(), entry.getValue());
            System.err.println("herald-store: rebuilt index " + mapName + " (" + entries.size() + " keys) in the native key order");
        }
    }
}
